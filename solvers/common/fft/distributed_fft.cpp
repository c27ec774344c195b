#include "solvers/common/fft/distributed_fft.hpp"

#include <algorithm>
#include <string>

#include "mesh/decomposition.hpp"
#include "mesh/timers.hpp"

namespace meridian::fft {

using mesh::block_offset;
using mesh::block_size;

namespace {

std::array<int, 2> choose_grid(MPI_Comm comm, const std::array<long, 3>& cells, std::array<int, 2> grid) {
  int ranks = 1;
  MPI_Comm_size(comm, &ranks);
  if (cells[2] == 1) grid[1] = 1;  // a 2-D transform: slabs in y
  MPI_Dims_create(ranks, 2, grid.data());
  return grid;
}

void require(bool ok, const std::string& message) {
  if (!ok) throw mesh::DecompositionError("distributed FFT: " + message);
}

template <class Index>
KOKKOS_INLINE_FUNCTION Complex& element(const ComplexPencil& v, const Index& axis, long kept, long gathered,
                                        long scattered) {
  long i[3];
  i[axis[0]] = kept, i[axis[1]] = gathered, i[axis[2]] = scattered;
  return v(i[0], i[1], i[2]);
}

}  // namespace

DistributedFFT::DistributedFFT(MPI_Comm comm, std::array<long, 3> cells, std::array<int, 2> process_grid,
                               PlanEffort effort)
    : cells_(cells), dims_(choose_grid(comm, cells, process_grid)) {
  const long nx = cells[0], ny = cells[1], nz = cells[2], nxh = nx / 2 + 1;
  const int p1 = dims_[0], p2 = dims_[1];
  require(ny >= p1 && nxh >= p1, "the first process-grid axis (" + std::to_string(p1) +
                                     ") exceeds ny or nx/2+1; use fewer ranks or another grid");
  require(nz >= p2 && ny >= p2, "the second process-grid axis (" + std::to_string(p2) + ") exceeds nz or ny");
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
  // Forward: x-pencil (z, y, kx) -> y-pencil (z, kx, y) within a row, then -> z-pencil (kx, ky, kz)
  // within a column; backward retraces the same two steps.
  x_to_y_ = Transpose{row_, p1, c1, zn, ny, nxh, {0, 1, 2}, {0, 2, 1}};
  y_to_z_ = Transpose{column_, p2, c2, kxn, nz, ny, {1, 0, 2}, {0, 2, 1}};
  z_to_y_ = Transpose{column_, p2, c2, kxn, ny, nz, {0, 1, 2}, {1, 2, 0}};
  y_to_x_ = Transpose{row_, p1, c1, zn, nxh, ny, {0, 1, 2}, {0, 2, 1}};
  const int x_rows = static_cast<int>(zn * yn), y_rows = static_cast<int>(zn * kxn), z_rows = static_cast<int>(kxn * kyn);
  r2c_ = LocalFFT(Transform::real_to_complex, static_cast<int>(nx), x_rows, effort);
  c2r_ = LocalFFT(Transform::complex_to_real, static_cast<int>(nx), x_rows, effort);
  y_forward_ = LocalFFT(Transform::complex_forward, static_cast<int>(ny), y_rows, effort);
  y_backward_ = LocalFFT(Transform::complex_backward, static_cast<int>(ny), y_rows, effort);
  z_forward_ = LocalFFT(Transform::complex_forward, static_cast<int>(nz), z_rows, effort);
  z_backward_ = LocalFFT(Transform::complex_backward, static_cast<int>(nz), z_rows, effort);
  const auto pencil = [](const Block& b, const std::string& label) {
    return ComplexPencil(label, static_cast<std::size_t>(b.count[0]), static_cast<std::size_t>(b.count[1]),
                         static_cast<std::size_t>(b.count[2]));
  };
  x_work_ = pencil(x_spectral_, "fft::x_pencil");
  y_work_ = pencil(y_pencil_, "fft::y_pencil");
  y_work2_ = pencil(y_pencil_, "fft::y_pencil_2");
  z_work_ = pencil(spectral_, "fft::z_pencil");
  const long largest = std::max({x_spectral_.size(), y_pencil_.size(), spectral_.size()});
  send_ = Kokkos::View<double*>("fft::send", static_cast<std::size_t>(2 * largest));
  receive_ = Kokkos::View<double*>("fft::receive", static_cast<std::size_t>(2 * largest));
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

void DistributedFFT::transpose(const Transpose& t, const ComplexPencil& from, const ComplexPencil& to) {
  timing::ScopedTimer timer("fft transpose");
  const auto from_axis = t.from_axis, to_axis = t.to_axis;
  if (t.parts == 1) {  // nothing to exchange: one local reordering instead of pack, copy and unpack
    const long kept = t.kept, gathered = t.gathered, scattered = t.scattered;
    Kokkos::parallel_for(
        "fft::reorder", Kokkos::RangePolicy<>(0, kept * gathered * scattered), KOKKOS_LAMBDA(const long n) {
          const long k = n / (gathered * scattered), g = (n / scattered) % gathered, s = n % scattered;
          element(to, to_axis, k, g, s) = element(from, from_axis, k, g, s);
        });
    Kokkos::fence();
    return;
  }
  std::vector<int> send_counts(t.parts), send_offsets(t.parts), receive_counts(t.parts), receive_offsets(t.parts);
  const long my_gathered = block_size(t.gathered, t.parts, t.me), my_scattered = block_size(t.scattered, t.parts, t.me);
  long sent = 0, received = 0;
  const Kokkos::View<Complex*> send(reinterpret_cast<Complex*>(send_.data()), send_.extent(0) / 2);
  const Kokkos::View<Complex*> receive(reinterpret_cast<Complex*>(receive_.data()), receive_.extent(0) / 2);
  const long kept = t.kept;
  for (int p = 0; p < t.parts; ++p) {
    // To rank p goes the slice of the scattered axis it will own; packed in (kept, gathered, scattered) order.
    const long width = block_size(t.scattered, t.parts, p), first = block_offset(t.scattered, t.parts, p);
    const long offset = sent;
    Kokkos::parallel_for(
        "fft::pack", Kokkos::RangePolicy<>(0, kept * my_gathered * width), KOKKOS_LAMBDA(const long n) {
          const long k = n / (my_gathered * width), g = (n / width) % my_gathered, s = n % width;
          send(offset + n) = element(from, from_axis, k, g, first + s);
        });
    send_counts[p] = static_cast<int>(2 * kept * my_gathered * width);
    send_offsets[p] = static_cast<int>(2 * offset);
    sent += kept * my_gathered * width;
    const long from_p = block_size(t.gathered, t.parts, p);
    receive_counts[p] = static_cast<int>(2 * kept * from_p * my_scattered);
    receive_offsets[p] = static_cast<int>(2 * received);
    received += kept * from_p * my_scattered;
  }
  Kokkos::fence();
  auto send_host = Kokkos::create_mirror_view(send_);
  auto receive_host = Kokkos::create_mirror_view(receive_);
  Kokkos::deep_copy(send_host, send_);
  MPI_Alltoallv(send_host.data(), send_counts.data(), send_offsets.data(), MPI_DOUBLE, receive_host.data(),
                receive_counts.data(), receive_offsets.data(), MPI_DOUBLE, t.comm);
  Kokkos::deep_copy(receive_, receive_host);
  for (int p = 0; p < t.parts; ++p) {
    const long height = block_size(t.gathered, t.parts, p), first = block_offset(t.gathered, t.parts, p);
    const long offset = receive_offsets[p] / 2;
    Kokkos::parallel_for(
        "fft::unpack", Kokkos::RangePolicy<>(0, kept * height * my_scattered), KOKKOS_LAMBDA(const long n) {
          const long k = n / (height * my_scattered), g = (n / my_scattered) % height, s = n % my_scattered;
          element(to, to_axis, k, first + g, s) = receive(offset + n);
        });
  }
  Kokkos::fence();
}

namespace {
double* doubles(const ComplexPencil& v) { return reinterpret_cast<double*>(v.data()); }
}  // namespace

void DistributedFFT::run_local(const LocalFFT& fft, const double* in, double* out) {
  timing::ScopedTimer timer("fft local");
  fft.execute(in, out);
  Kokkos::fence();
}

void DistributedFFT::forward(const RealPencil& in, const ComplexPencil& out) {
  run_local(r2c_, in.data(), doubles(x_work_));
  transpose(x_to_y_, x_work_, y_work_);
  run_local(y_forward_, doubles(y_work_), doubles(y_work2_));
  transpose(y_to_z_, y_work2_, z_work_);
  run_local(z_forward_, doubles(z_work_), doubles(out));
}

void DistributedFFT::backward(const ComplexPencil& in, const RealPencil& out) {
  run_local(z_backward_, doubles(in), doubles(z_work_));
  transpose(z_to_y_, z_work_, y_work2_);
  run_local(y_backward_, doubles(y_work2_), doubles(y_work_));
  transpose(y_to_x_, y_work_, x_work_);
  run_local(c2r_, doubles(x_work_), out.data());
  const double scale = 1.0 / static_cast<double>(global_cells());
  const long n = static_cast<long>(out.size());
  double* values = out.data();
  Kokkos::parallel_for(
      "fft::normalise", Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(const long i) { values[i] *= scale; });
  Kokkos::fence();
}

}  // namespace meridian::fft
