#include "solvers/common/fft/distributed_fft.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "mesh/decomposition.hpp"
#include "mesh/timers.hpp"
#include "parallel/box_copy.hpp"
#include "parallel/fence.hpp"
#include "parallel/launch_counts.hpp"
#include "parallel/launch_policy.hpp"

namespace meridian::fft {

using mesh::block_offset;
using mesh::block_size;

namespace {

void require(bool ok, const std::string& message) {
  if (!ok) throw mesh::DecompositionError("distributed FFT: " + message);
}

std::array<int, 2> choose_grid(MPI_Comm comm, const std::array<long, 3>& cells, std::array<int, 2> grid) {
  int ranks = 1;
  MPI_Comm_size(comm, &ranks);
  if (cells[2] == 1) grid[1] = 1;  // a 2-D transform: slabs in y
  const int fixed = std::max(grid[0], 1) * std::max(grid[1], 1);
  require(grid[0] >= 0 && grid[1] >= 0 && ranks % fixed == 0 && !(grid[0] > 0 && grid[1] > 0 && fixed != ranks),
          "the process grid " + std::to_string(grid[0]) + " x " + std::to_string(grid[1]) + " (y x z) does not fit the " +
              std::to_string(ranks) + " ranks of this run (0 entries let MPI choose)");
  MPI_Dims_create(ranks, 2, grid.data());
  const long nxh = cells[0] / 2 + 1;
  require(cells[1] >= grid[0] && nxh >= grid[0], "the first process-grid axis (" + std::to_string(grid[0]) +
                                                   ") exceeds ny or nx/2+1; use fewer ranks or another grid");
  require(cells[2] >= grid[1] && cells[1] >= grid[1],
          "the second process-grid axis (" + std::to_string(grid[1]) + ") exceeds nz or ny");
  return grid;
}

using Axes = Kokkos::Array<int, 3>;
using parallel::BoxPlacement;

// Where (kept, gathered, scattered) index i of a box lies in a pencil, in complex values, the box starting at
// index `offset` of the logical axis `shifted`.
BoxPlacement placement_of(const ComplexPencil& v, const Axes& axis, int shifted, long offset) {
  const Kokkos::Array<long, 3> stride{static_cast<long>(v.stride(axis[0])), static_cast<long>(v.stride(axis[1])),
                                      static_cast<long>(v.stride(axis[2]))};
  return {stride, offset * stride[shifted]};
}

using ComplexBuffer = Kokkos::View<Complex*, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

ComplexBuffer as_complex(const Kokkos::View<double*>& buffer) {
  return ComplexBuffer(reinterpret_cast<Complex*>(buffer.data()), buffer.extent(0) / 2);
}

// This rank's own share goes straight from `from` to `to`: its slice of the scattered axis, its rows of the
// gathered one. With one rank in the communicator that is the whole transpose.
void move_own(const PencilTranspose& t, const ComplexPencil& from, const ComplexPencil& to, double scale) {
  const long my_gathered = block_size(t.gathered, t.parts, t.me), my_scattered = block_size(t.scattered, t.parts, t.me);
  parallel::copy_box("fft::own_share", {t.kept, my_gathered, my_scattered}, from.data(),
                     placement_of(from, t.from_axis, 2, block_offset(t.scattered, t.parts, t.me)), to.data(),
                     placement_of(to, t.to_axis, 1, block_offset(t.gathered, t.parts, t.me)), scale);
}

// To rank p goes the slice of the scattered axis it will own, packed in (kept, gathered, scattered) order.
void pack(const PencilTranspose& t, int p, const ComplexPencil& from, const ComplexBuffer& send) {
  const long my_gathered = block_size(t.gathered, t.parts, t.me);
  const long width = block_size(t.scattered, t.parts, p), first = block_offset(t.scattered, t.parts, p);
  const std::array<long, 3> box{t.kept, my_gathered, width};
  parallel::copy_box("fft::pack", box, from.data(), placement_of(from, t.from_axis, 2, first), send.data(),
                     parallel::packed_placement(box, t.send_offsets[p] / 2));
}

// From rank p comes its slice of the gathered axis, for this rank's part of the scattered one.
void unpack(const PencilTranspose& t, int p, const ComplexBuffer& receive, const ComplexPencil& to, double scale) {
  const long my_scattered = block_size(t.scattered, t.parts, t.me);
  const long height = block_size(t.gathered, t.parts, p), first = block_offset(t.gathered, t.parts, p);
  const std::array<long, 3> box{t.kept, height, my_scattered};
  parallel::copy_box("fft::unpack", box, receive.data(), parallel::packed_placement(box, t.receive_offsets[p] / 2),
                     to.data(), placement_of(to, t.to_axis, 1, first), scale);
}

// Whether FFTW's one volume transform, writing the transposed spectral layout, beats the slab path on one rank:
// measured so only on 3-D grids with power-of-two extents up to 64^3 cells (distributed_fft.hpp).
bool volume_transform_pays(const std::array<long, 3>& cells) {
  const auto power_of_two = [](long n) { return (n & (n - 1)) == 0; };
  return cells[2] > 1 && power_of_two(cells[0]) && power_of_two(cells[1]) && power_of_two(cells[2]) &&
         cells[0] * cells[1] * cells[2] <= 64L * 64 * 64;
}

// A transpose's geometry with its MPI_Alltoallv counts and offsets.
PencilTranspose plan_transpose(MPI_Comm comm, int parts, int me, long kept, long gathered, long scattered,
                               Axes from_axis, Axes to_axis) {
  PencilTranspose t{comm, parts, me, kept, gathered, scattered, from_axis, to_axis};
  const long my_gathered = block_size(gathered, parts, me), my_scattered = block_size(scattered, parts, me);
  for (int p = 0; p < parts; ++p) {
    const long out = p == me ? 0 : kept * my_gathered * block_size(scattered, parts, p);
    const long in = p == me ? 0 : kept * block_size(gathered, parts, p) * my_scattered;
    t.send_counts.push_back(static_cast<int>(2 * out));
    t.send_offsets.push_back(static_cast<int>(2 * t.sent));
    t.receive_counts.push_back(static_cast<int>(2 * in));
    t.receive_offsets.push_back(static_cast<int>(2 * t.received));
    t.sent += out, t.received += in;
  }
  return t;
}

}  // namespace

DistributedFFT::DistributedFFT(MPI_Comm comm, std::array<long, 3> cells, std::array<int, 2> process_grid,
                               PlanEffort effort, mesh::MessagePath path)
    : cells_(cells), dims_(choose_grid(comm, cells, process_grid)),
      whole_(dims_[0] * dims_[1] == 1 && parallel::device_memory_is_host && volume_transform_pays(cells)) {
  const long nx = cells[0], ny = cells[1], nz = cells[2], nxh = nx / 2 + 1;
  const int p1 = dims_[0], p2 = dims_[1];
  const int periods[2] = {0, 0};
  MPI_Cart_create(comm, 2, dims_.data(), periods, 0, &grid_);
  int rank = 0, coords[2];
  MPI_Comm_rank(grid_, &rank);
  MPI_Cart_coords(grid_, rank, 2, coords);
  const int along_p1[2] = {1, 0}, along_p2[2] = {0, 1};
  MPI_Cart_sub(grid_, along_p1, &row_);
  MPI_Cart_sub(grid_, along_p2, &column_);
  const int c1 = coords[0], c2 = coords[1];
  const auto split = [](long n, int parts, int index) { return std::pair{block_offset(n, parts, index), block_size(n, parts, index)}; };
  const auto [z0, zn] = split(nz, p2, c2);
  const auto [y0, yn] = split(ny, p1, c1);
  const auto [kx0, kxn] = split(nxh, p1, c1);
  const auto [ky0, kyn] = split(ny, p2, c2);
  real_ = Block{{z0, y0, 0}, {zn, yn, nx}};
  x_spectral_ = Block{{z0, y0, 0}, {zn, yn, nxh}};
  y_pencil_ = Block{{z0, kx0, 0}, {zn, kxn, ny}};
  spectral_ = Block{{kx0, ky0, 0}, {kxn, kyn, nz}};
  const int x_rows = static_cast<int>(zn * yn), y_rows = static_cast<int>(zn * kxn), z_rows = static_cast<int>(kxn * kyn);
  const auto pencil = [](const Block& b, const std::string& label) {
    return ComplexPencil(label, static_cast<std::size_t>(b.count[0]), static_cast<std::size_t>(b.count[1]),
                         static_cast<std::size_t>(b.count[2]));
  };
  if (whole()) {
    const Volume volume{static_cast<int>(nx), static_cast<int>(ny), static_cast<int>(nz)};
    r2c_ = LocalFFT(Transform::real_to_complex, volume, effort);
    c2r_ = LocalFFT(Transform::complex_to_real, volume, effort, Input::scratch);
    y_work_ = pencil(spectral_, "fft::spectrum_copy");
    return;
  }
  r2c_ = LocalFFT(Transform::real_to_complex, static_cast<int>(nx), x_rows, effort);
  c2r_ = LocalFFT(Transform::complex_to_real, static_cast<int>(nx), x_rows, effort);
  x_work_ = pencil(x_spectral_, "fft::x_pencil");
  if (slabs()) {
    // x-pencil (z, y, kx) <-> spectral (kx, y, z) within a row, where each kx holds a whole (y, z) plane: one
    // batched 2-D transform of the planes does y and z (one cuFFT call, where y alone took one per plane).
    x_to_y_ = plan_transpose(row_, p1, c1, zn, ny, nxh, {0, 1, 2}, {2, 1, 0});
    y_to_x_ = plan_transpose(row_, p1, c1, zn, nxh, ny, {2, 0, 1}, {0, 2, 1});
    const Planes yz{static_cast<int>(kxn), static_cast<int>(ny), static_cast<int>(nz)};
    y_forward_ = LocalFFT(Transform::complex_forward, yz, effort);
    y_backward_ = LocalFFT(Transform::complex_backward, yz, effort);
    y_work_ = pencil(spectral_, "fft::yz_untransformed");
  } else {
    // Forward: x-pencil (z, y, kx) -> y-pencil (z, kx, y) within a row, then -> z-pencil (kx, ky, kz)
    // within a column; backward retraces the same two steps.
    x_to_y_ = plan_transpose(row_, p1, c1, zn, ny, nxh, {0, 1, 2}, {0, 2, 1});
    y_to_z_ = plan_transpose(column_, p2, c2, kxn, nz, ny, {1, 0, 2}, {0, 2, 1});
    z_to_y_ = plan_transpose(column_, p2, c2, kxn, ny, nz, {0, 1, 2}, {1, 2, 0});
    y_to_x_ = plan_transpose(row_, p1, c1, zn, nxh, ny, {0, 1, 2}, {0, 2, 1});
    y_forward_ = LocalFFT(Transform::complex_forward, static_cast<int>(ny), y_rows, effort);
    y_backward_ = LocalFFT(Transform::complex_backward, static_cast<int>(ny), y_rows, effort);
    z_forward_ = LocalFFT(Transform::complex_forward, static_cast<int>(nz), z_rows, effort);
    z_backward_ = LocalFFT(Transform::complex_backward, static_cast<int>(nz), z_rows, effort);
    y_work_ = pencil(y_pencil_, "fft::y_pencil");
    y_work2_ = pencil(y_pencil_, "fft::y_pencil_2");
    z_work_ = pencil(spectral_, "fft::z_pencil");
  }
  const long largest = std::max({x_spectral_.size(), y_pencil_.size(), spectral_.size()});
  const bool exchanges = p1 > 1 || p2 > 1;
  send_ = mesh::MessageBuffer("fft::send", exchanges ? static_cast<std::size_t>(2 * largest) : 0, path);
  receive_ = mesh::MessageBuffer("fft::receive", exchanges ? static_cast<std::size_t>(2 * largest) : 0, path);
}

void DistributedFFT::check_layout(MPI_Comm comm, std::array<long, 3> cells, std::array<int, 2> process_grid) {
  choose_grid(comm, cells, process_grid);
}

unsigned long long DistributedFFT::library_bytes(MPI_Comm comm, std::array<long, 3> cells,
                                                 std::array<int, 2> process_grid) {
  const auto [p1, p2] = choose_grid(comm, cells, process_grid);
  const long nx = cells[0], ny = cells[1], nz = cells[2];
  // Rank 0 holds the largest block along every split axis.
  const long zn = block_size(nz, p2, 0), yn = block_size(ny, p1, 0);
  const long kxn = block_size(nx / 2 + 1, p1, 0), kyn = block_size(ny, p2, 0);
  // Batches past an int no plan can take: no memory is enough.
  constexpr long int_max = std::numeric_limits<int>::max();
  if (std::max({nx, ny, nz}) > int_max || zn * yn > int_max || zn * kxn > int_max || kxn * kyn > int_max)
    return std::numeric_limits<unsigned long long>::max();
  const auto i = [](long v) { return static_cast<int>(v); };
  unsigned long long bytes = LocalFFT::library_bytes(Transform::real_to_complex, i(nx), i(zn * yn)) +
                             LocalFFT::library_bytes(Transform::complex_to_real, i(nx), i(zn * yn));
  for (const Transform t : {Transform::complex_forward, Transform::complex_backward}) {
    if (p2 == 1)
      bytes += LocalFFT::library_bytes(t, Planes{i(kxn), i(ny), i(nz)});
    else
      bytes += LocalFFT::library_bytes(t, i(ny), i(zn * kxn)) + LocalFFT::library_bytes(t, i(nz), i(kxn * kyn));
  }
  return bytes;
}

DistributedFFT::~DistributedFFT() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  for (MPI_Comm* c : {&row_, &column_, &grid_})
    if (*c != MPI_COMM_NULL) MPI_Comm_free(c);
}

RealPencil DistributedFFT::make_real(const std::string& label) const {
  return RealPencil(label, static_cast<std::size_t>(real_.count[0]), static_cast<std::size_t>(real_.count[1]),
                    static_cast<std::size_t>(real_.count[2]));
}

ComplexPencil DistributedFFT::make_spectral(const std::string& label) const {
  return ComplexPencil(label, static_cast<std::size_t>(spectral_.count[0]),
                       static_cast<std::size_t>(spectral_.count[1]), static_cast<std::size_t>(spectral_.count[2]));
}

void DistributedFFT::transpose(const PencilTranspose& t, const ComplexPencil& from, const ComplexPencil& to,
                               double scale) {
  timing::ScopedTimer timer("fft transpose");
  move_own(t, from, to, scale);
  if (t.parts == 1) return;
  const ComplexBuffer send = as_complex(send_.values()), receive = as_complex(receive_.values());
  for (int p = 0; p < t.parts; ++p)
    if (p != t.me) pack(t, p, from, send);
  parallel::fence();  // MPI reads the packed buffer
  double* send_from = send_.send_from(static_cast<std::size_t>(2 * t.sent));
  MPI_Alltoallv(send_from, t.send_counts.data(), t.send_offsets.data(), MPI_DOUBLE, receive_.receive_into(),
                t.receive_counts.data(), t.receive_offsets.data(), MPI_DOUBLE, t.comm);
  receive_.received(static_cast<std::size_t>(2 * t.received));
  for (int p = 0; p < t.parts; ++p)
    if (p != t.me) unpack(t, p, receive, to, scale);
}

namespace {
double* doubles(const ComplexPencil& v) { return reinterpret_cast<double*>(v.data()); }
}  // namespace

void DistributedFFT::run_local(const LocalFFT& fft, const double* in, double* out) {
  timing::ScopedTimer timer("fft local");
  fft.execute(in, out);
}

void DistributedFFT::forward(const RealPencil& in, const ComplexPencil& out) {
  parallel::count_transform();
  if (whole()) {
    run_local(r2c_, in.data(), doubles(out));
    return;
  }
  run_local(r2c_, in.data(), doubles(x_work_));
  transpose(x_to_y_, x_work_, y_work_);
  if (slabs()) {
    run_local(y_forward_, doubles(y_work_), doubles(out));
  } else {
    run_local(y_forward_, doubles(y_work_), doubles(y_work2_));
    transpose(y_to_z_, y_work2_, z_work_);
    run_local(z_forward_, doubles(z_work_), doubles(out));
  }
}

void DistributedFFT::backward(const ComplexPencil& in, const RealPencil& out) {
  parallel::count_transform();
  if (whole()) {
    // FFTW's multi-dimensional c2r overwrites its input: it runs on a copy, normalised as it is made.
    const Complex* source = in.data();
    Complex* copy = y_work_.data();
    const double scale = 1.0 / static_cast<double>(global_cells());
    timing::ScopedTimer timer("fft local");
    Kokkos::parallel_for("fft::normalised_copy", parallel::FlatPolicy(0, spectral_.size()),
                         KOKKOS_LAMBDA(const long n) { copy[n] = scale * source[n]; });
    c2r_.execute(doubles(y_work_), out.data());
    return;
  }
  if (slabs()) {
    run_local(y_backward_, doubles(in), doubles(y_work_));
  } else {
    run_local(z_backward_, doubles(in), doubles(z_work_));
    transpose(z_to_y_, z_work_, y_work2_);
    run_local(y_backward_, doubles(y_work2_), doubles(y_work_));
  }
  transpose(y_to_x_, y_work_, x_work_, 1.0 / static_cast<double>(global_cells()));
  run_local(c2r_, doubles(x_work_), out.data());
}

}  // namespace meridian::fft
