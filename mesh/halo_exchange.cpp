#include "mesh/halo_exchange.hpp"

#include <algorithm>
#include <stdexcept>
#include <type_traits>

#include "mesh/timers.hpp"
#include "parallel/fence.hpp"
#include "parallel/launch_counts.hpp"
#include "parallel/launch_policy.hpp"

namespace meridian::mesh {
namespace {

enum class Direction { pack, unpack };

// A box of cells, per axis x, y, z, in halo-inclusive indices.
struct Box {
  std::array<long, 3> lo, hi;
  long volume() const { return (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]); }
};

// Every component of the field over the box, in the field's (component, z, y, x) order.
template <class T>
parallel::Boxes range_of(const FieldOf<T>& field, const Box& box) {
  return {{0, box.lo[2], box.lo[1], box.lo[0]}, {static_cast<long>(field.extent(0)), box.hi[2], box.hi[1], box.hi[0]}};
}

// Copies a box of every component of a field to or from a buffer from index `at` on, in the buffer's
// order (component, z, y, x), the cell's indices straight from the loop (no divisions).
template <class T>
void copy_box(const FieldOf<T>& field, const Kokkos::View<T*>& buffer, long at, const Box& box, Direction direction) {
  const long nx = box.hi[0] - box.lo[0], ny = box.hi[1] - box.lo[1], nz = box.hi[2] - box.lo[2];
  const long x0 = box.lo[0], y0 = box.lo[1], z0 = box.lo[2];
  const bool pack = direction == Direction::pack;
  parallel::for_each(
      pack ? "halo::pack" : "halo::unpack", range_of(field, box),
      KOKKOS_LAMBDA(const long c, const long k, const long j, const long i) {
        const long n = at + ((c * nz + (k - z0)) * ny + (j - y0)) * nx + (i - x0);
        T& cell = field(c, k, j, i);
        if (pack)
          buffer(n) = cell;
        else
          cell = buffer(n);
      });
}

// A periodic axis held whole by this rank: each halo is the interior slab a period away, copied within the
// field (no buffer, no message), both sides in one launch; every source is an interior cell. The axis is a
// compile-time constant, and across x a launch index is a whole row (component and z folded into the first
// index), whose 2h images one loop copies: a run-time axis, with a host tile of 2h cells a row, took 11 ns a
// cell across x, 17% of the 3-D advection step on one rank (bench/README.md).
template <class T>
void copy_periodic_images_across_x(const FieldOf<T>& field, const Box& halos, long h, long n) {
  const long planes = halos.hi[2] - halos.lo[2], z0 = halos.lo[2];
  const parallel::Cells rows{{0, halos.lo[1], 0}, {static_cast<long>(field.extent(0)) * planes, halos.hi[1], 1}};
  parallel::for_each("halo::periodic_image", rows, KOKKOS_LAMBDA(const long row, const long j, const long) {
    const long c = row / planes, k = z0 + row % planes;
    for (long t = 0; t < h; ++t) {
      field(c, k, j, t) = field(c, k, j, t + n);
      field(c, k, j, t + h + n) = field(c, k, j, t + h);
    }
  });
}

// Across y or z: `halos` spans the axis's 2h halo layers, index t standing for layer t below the cells (t < h)
// or layer t - h above them.
template <int Axis, class T>
void copy_periodic_layers(const FieldOf<T>& field, Box halos, long h, long n) {
  halos.lo[Axis] = 0;
  halos.hi[Axis] = 2 * h;
  parallel::for_each(
      "halo::periodic_image", range_of(field, halos), KOKKOS_LAMBDA(const long c, const long k, const long j, const long i) {
        constexpr long y = Axis == 1 ? 1 : 0, z = 1 - y;
        const long t = y ? j : k;
        const long to = t < h ? 0 : n, from = t < h ? n : 0;
        field(c, k + z * to, j + y * to, i) = field(c, k + z * from, j + y * from, i);
      });
}

template <class T>
void copy_periodic_images(const FieldOf<T>& field, const Box& halos, int axis, long h, long n) {
  if (axis == 0)
    copy_periodic_images_across_x(field, halos, h, n);
  else if (axis == 1)
    copy_periodic_layers<1>(field, halos, h, n);
  else
    copy_periodic_layers<2>(field, halos, h, n);
}

// The slab of cells sent (halo_side false) or received (true) across one side of an axis.
Box slab(const Decomposition& d, int axis, bool upper, bool halo_side, Corners corners) {
  Box box;
  for (int a = 0; a < 3; ++a) {
    const long h = d.halo(a), n = d.local_cells(a);
    // Axes exchanged earlier already hold valid halos; carrying them fills the corners.
    const bool widen = corners == Corners::fill && a < axis;
    box.lo[a] = widen ? 0 : h;
    box.hi[a] = widen ? n + 2 * h : n + h;
  }
  const long h = d.halo(axis), n = d.local_cells(axis);
  if (halo_side)
    box.lo[axis] = upper ? n + h : 0;
  else
    box.lo[axis] = upper ? n : h;
  box.hi[axis] = box.lo[axis] + h;
  return box;
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

template <class T>
MPI_Datatype mpi_type() {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "fields are float or double");
  return std::is_same_v<T, float> ? MPI_FLOAT : MPI_DOUBLE;
}

}  // namespace

template <class T>
HaloExchangeOf<T>::HaloExchangeOf(const Decomposition& decomp, int components, MessagePath path)
    : decomp_(decomp), components_(components) {
  const auto size = static_cast<std::size_t>(2 * max_slab_cells(decomp) * components);
  send_ = MessageBufferOf<T>("halo::send", size, path);
  receive_ = MessageBufferOf<T>("halo::receive", size, path);
}

template <class T>
void HaloExchangeOf<T>::check_components(const FieldOf<T>& field) const {
  if (static_cast<int>(field.extent(0)) > components_)
    throw std::logic_error("HaloExchange: more components than the buffers were sized for");
}

template <class T>
void HaloExchangeOf<T>::exchange(const FieldOf<T>& field, Corners corners) {
  timing::ScopedTimer timer("halo exchange");
  parallel::count_exchange();
  check_components(field);
  for (int axis = 0; axis < decomp_.dimensions(); ++axis) exchange_axis(field, axis, corners);
}

template <class T>
void HaloExchangeOf<T>::exchange_across(const FieldOf<T>& field, int axis) {
  timing::ScopedTimer timer("halo exchange");
  parallel::count_exchange();
  check_components(field);
  exchange_axis(field, axis, Corners::skip);
}

template <class T>
void HaloExchangeOf<T>::exchange_axis(const FieldOf<T>& field, int axis, Corners corners) {
  const std::array<int, 2> neighbour{decomp_.lower_neighbour(axis), decomp_.upper_neighbour(axis)};
  if (neighbour[0] == MPI_PROC_NULL && neighbour[1] == MPI_PROC_NULL) return;  // walls on both sides
  if (neighbour[0] == decomp_.rank() && neighbour[1] == decomp_.rank()) {
    copy_periodic_images(field, slab(decomp_, axis, false, true, corners), axis, decomp_.halo(axis),
                         decomp_.local_cells(axis));
    return;
  }
  // A message travelling towards the upper neighbour carries tag 0, towards the lower one tag 1,
  // so that two messages between the same pair of ranks (two ranks, periodic) never mix.
  const std::array<int, 2> send_tag{1, 0}, receive_tag{0, 1};
  // Both sides' messages lie one after the other in one buffer, so that a staged exchange crosses between
  // device and host once each way per axis, not once per side (gpu-review.md C9).
  std::array<std::size_t, 2> count{}, at{};
  std::size_t packed = 0;
  for (int side = 0; side < 2; ++side) {
    if (neighbour[side] == MPI_PROC_NULL) continue;
    const Box box = slab(decomp_, axis, side == 1, false, corners);
    count[side] = static_cast<std::size_t>(box.volume()) * field.extent(0);
    at[side] = packed;
    copy_box(field, send_.values(), static_cast<long>(at[side]), box, Direction::pack);
    packed += count[side];
  }
  parallel::fence();  // MPI reads the packed buffer
  T* sending = send_.send_from(packed);
  T* receiving = receive_.receive_into();
  std::array<MPI_Request, 4> requests{MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  for (int side = 0; side < 2; ++side) {
    if (neighbour[side] == MPI_PROC_NULL) continue;
    // Both sides exchange slabs of the same shape, so the receive count equals the send count.
    const int n = static_cast<int>(count[side]);
    MPI_Irecv(receiving + at[side], n, mpi_type<T>(), neighbour[side], receive_tag[side], decomp_.comm(),
              &requests[side]);
    MPI_Isend(sending + at[side], n, mpi_type<T>(), neighbour[side], send_tag[side], decomp_.comm(), &requests[2 + side]);
  }
  MPI_Waitall(4, requests.data(), MPI_STATUSES_IGNORE);
  receive_.received(packed);
  for (int side = 0; side < 2; ++side) {
    if (neighbour[side] == MPI_PROC_NULL) continue;
    copy_box(field, receive_.values(), static_cast<long>(at[side]), slab(decomp_, axis, side == 1, true, corners),
             Direction::unpack);
  }
}

template class HaloExchangeOf<float>;
template class HaloExchangeOf<double>;

}  // namespace meridian::mesh
