#include "mesh/halo_exchange.hpp"

#include <algorithm>
#include <stdexcept>

#include "mesh/timers.hpp"

namespace meridian::mesh {
namespace {

enum class Direction { pack, unpack };

// Copies a box of every component of a field to or from a buffer starting at `offset`.
void copy_box(const Field& field, const Kokkos::View<double*>& buffer, long offset, const std::array<long, 3>& lo,
              const std::array<long, 3>& hi, Direction direction) {
  const long nx = hi[0] - lo[0], ny = hi[1] - lo[1], nz = hi[2] - lo[2];
  const long per_component = nx * ny * nz;
  const long count = per_component * static_cast<long>(field.extent(0));
  const long x0 = lo[0], y0 = lo[1], z0 = lo[2];
  const bool pack = direction == Direction::pack;
  Kokkos::parallel_for(
      pack ? "halo::pack" : "halo::unpack", Kokkos::RangePolicy<>(0, count), KOKKOS_LAMBDA(const long n) {
        const long c = n / per_component;
        long r = n % per_component;
        const long k = r / (nx * ny);
        r %= nx * ny;
        const long j = r / nx, i = r % nx;
        double& cell = field(c, z0 + k, y0 + j, x0 + i);
        if (pack)
          buffer(offset + n) = cell;
        else
          cell = buffer(offset + n);
      });
}

long max_slab_cells(const Decomposition& d) {
  long largest = 0;
  for (int axis = 0; axis < 3; ++axis) {
    long cells = d.halo(axis);
    for (int other = 0; other < 3; ++other)
      if (other != axis) cells *= d.local_cells(other) + 2 * d.halo(other);
    largest = std::max(largest, cells);
  }
  return largest;
}

}  // namespace

HaloExchange::HaloExchange(const Decomposition& decomp, int components) : decomp_(decomp), components_(components) {
  const long size = max_slab_cells(decomp) * components;
  for (int side = 0; side < 2; ++side) {
    send_[side] = Buffer("halo::send", size);
    recv_[side] = Buffer("halo::recv", size);
    send_host_[side] = Kokkos::create_mirror_view(send_[side]);
    recv_host_[side] = Kokkos::create_mirror_view(recv_[side]);
  }
}

HaloExchange::Box HaloExchange::slab(int axis, bool upper, bool halo_side, Corners corners) const {
  Box box;
  for (int a = 0; a < 3; ++a) {
    const long h = decomp_.halo(a), n = decomp_.local_cells(a);
    // Axes exchanged earlier already hold valid halos; carrying them fills the corners.
    const bool widen = corners == Corners::fill && a < axis;
    box.lo[a] = widen ? 0 : h;
    box.hi[a] = widen ? n + 2 * h : n + h;
  }
  const long h = decomp_.halo(axis), n = decomp_.local_cells(axis);
  if (halo_side)
    box.lo[axis] = upper ? n + h : 0;
  else
    box.lo[axis] = upper ? n : h;
  box.hi[axis] = box.lo[axis] + h;
  return box;
}

void HaloExchange::exchange(const std::vector<Field>& fields, Corners corners) {
  timing::ScopedTimer timer("halo exchange");
  long total = 0;
  for (const auto& f : fields) total += static_cast<long>(f.extent(0));
  if (total > components_) throw std::logic_error("HaloExchange: more components than the buffers were sized for");
  for (int axis = 0; axis < decomp_.dimensions(); ++axis) exchange_axis(fields, axis, corners);
}

void HaloExchange::exchange_axis(const std::vector<Field>& fields, int axis, Corners corners) {
  const std::array<int, 2> neighbour{decomp_.lower_neighbour(axis), decomp_.upper_neighbour(axis)};
  // A message travelling towards the upper neighbour carries tag 0, towards the lower one tag 1,
  // so that two messages between the same pair of ranks (two ranks, periodic) never mix.
  const std::array<int, 2> send_tag{1, 0}, recv_tag{0, 1};
  std::array<long, 2> count{};
  for (int side = 0; side < 2; ++side) {
    if (neighbour[side] == MPI_PROC_NULL) continue;
    const Box box = slab(axis, side == 1, false, corners);
    for (const auto& f : fields) {
      copy_box(f, send_[side], count[side], box.lo, box.hi, Direction::pack);
      count[side] += box.volume() * static_cast<long>(f.extent(0));
    }
  }
  Kokkos::fence();
  std::array<MPI_Request, 4> requests{MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  for (int side = 0; side < 2; ++side) {
    if (neighbour[side] == MPI_PROC_NULL) continue;
    Kokkos::deep_copy(send_host_[side], send_[side]);
    // Both sides exchange slabs of the same shape, so the receive count equals the send count.
    MPI_Irecv(recv_host_[side].data(), static_cast<int>(count[side]), MPI_DOUBLE, neighbour[side], recv_tag[side],
              decomp_.comm(), &requests[side]);
    MPI_Isend(send_host_[side].data(), static_cast<int>(count[side]), MPI_DOUBLE, neighbour[side], send_tag[side],
              decomp_.comm(), &requests[2 + side]);
  }
  MPI_Waitall(4, requests.data(), MPI_STATUSES_IGNORE);
  for (int side = 0; side < 2; ++side) {
    if (neighbour[side] == MPI_PROC_NULL) continue;
    Kokkos::deep_copy(recv_[side], recv_host_[side]);
    const Box box = slab(axis, side == 1, true, corners);
    long offset = 0;
    for (const auto& f : fields) {
      copy_box(f, recv_[side], offset, box.lo, box.hi, Direction::unpack);
      offset += box.volume() * static_cast<long>(f.extent(0));
    }
  }
  Kokkos::fence();
}

}  // namespace meridian::mesh
