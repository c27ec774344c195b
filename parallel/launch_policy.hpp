#pragma once
// Every kernel launch in the tree (cells of a field, boxes of components, planes, transposes, flat ranges of
// values) gets its policy here and nowhere else, so the rules a GPU needs hold for all of them; team launches
// take their shapes from team_shape.hpp.
//
// Index ranges are in View order: slowest index first, the last one contiguous (LayoutRight).
//
// Tiles on a GPU (Kokkos 4.6.01 CUDA, read in core/src/Cuda/Kokkos_Cuda_Parallel_MDRange.hpp and
// core/src/impl/KokkosExp_IterateTileGPU.hpp):
// - a rank-2/3 tile (t0, t1, t2) becomes the block (t0, t1, min(t2, 64)), while the loop still steps tiles
//   t2 apart: a last entry over 64 silently skips indices, so no entry exceeds 64;
// - index 0 is threadIdx.x whatever the Iterate direction (later releases may map the last index there), so
//   a warp walks the contiguous index only when that index alone is tiled: it gets min(extent, 64) and, where
//   that is a warp or more, every other entry 1, which holds whichever index a release maps to threadIdx.x;
// - a block holds at most 1024 threads; a 64-thread block leaves room for 32 of them on an SM;
// - a contiguous index shorter than a warp (a halo slab across x, a periodic axis' images) would make blocks of
//   that many threads, most of each warp idle and tens of thousands of blocks for one slab, so the next slower
//   index fills the block to 64 threads; such short rows split a warp whatever the tile.
// Reductions over an MDRange keep only one tile's worth of threads per block busy there, so on a GPU reductions
// run over a flattened RangePolicy instead (reduce below).
//
// On the host a tile is a whole row of the contiguous index, so the innermost loop runs along it and
// vectorises (Kokkos' default host tiles are a few cells wide).
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>

#include "parallel/device_memory.hpp"

namespace meridian::parallel {

// [lo, hi) along each of `rank` axes, slowest first.
template <std::size_t rank>
struct IndexRange {
  std::array<long, rank> lo{}, hi{};
  long extent(std::size_t axis) const { return hi[axis] - lo[axis]; }
  long count() const {
    long n = 1;
    for (std::size_t a = 0; a < rank; ++a) n *= std::max(extent(a), 0L);
    return n;
  }
};
using Plane = IndexRange<2>;  // (y, x) or any two axes, the second contiguous
using Cells = IndexRange<3>;  // (z, y, x)
using Boxes = IndexRange<4>;  // (component, z, y, x)

template <std::size_t rank>
using Tile = std::array<long, rank>;

// CUDA's limits on a block that the tiles must respect.
inline constexpr long tile_entry_limit = 64;     // blockDim.z (Kokkos clamps it; see above)
inline constexpr long tile_thread_limit = 1024;  // threads per block

inline constexpr long warp_size = 32;

// The tile of a GPU launch whose warps walk `along` (the contiguous index of the data written); where that is
// shorter than a warp, `filler` (the next slower index, or the next faster one for the slowest) fills the block.
template <std::size_t rank>
Tile<rank> gpu_tile(const IndexRange<rank>& range, std::size_t along = rank - 1) {
  static_assert(rank > 1, "a flat range takes FlatPolicy");
  Tile<rank> tile;
  tile.fill(1);
  tile[along] = std::clamp(range.extent(along), 1L, tile_entry_limit);
  if (tile[along] < warp_size) {
    const std::size_t filler = along > 0 ? along - 1 : along + 1;
    tile[filler] = std::clamp(tile_entry_limit / tile[along], 1L, std::max(range.extent(filler), 1L));
  }
  return tile;
}

template <std::size_t rank>
Tile<rank> host_tile(const IndexRange<rank>& range) {
  Tile<rank> tile;
  tile.fill(1);
  tile[rank - 1] = std::max(range.extent(rank - 1), 1L);
  return tile;
}

// Every launch here is marked light-weight. Kokkos 4.6's CUDA backend otherwise passes a kernel whose functor
// and policy exceed 512 bytes (the MAC stencils: four fields and the grid) through constant memory, and that
// launch first waits on the host until the previous such kernel has finished, then copies the functor there
// (core/src/Cuda/Kokkos_Cuda_KernelLaunch.hpp). Light-weight kernels up to 4 KiB go as kernel arguments,
// larger ones through global memory, neither with a wait; the host backends ignore the hint.
using LightWeight = Kokkos::Experimental::WorkItemProperty::HintLightWeight_t;
template <std::size_t rank>
using MDPolicy = Kokkos::MDRangePolicy<Kokkos::Rank<rank, Kokkos::Iterate::Right, Kokkos::Iterate::Right>,
                                       Kokkos::IndexType<long>, LightWeight>;
using FlatPolicy = Kokkos::RangePolicy<Kokkos::IndexType<long>, LightWeight>;

template <std::size_t rank>
MDPolicy<rank> policy_with_tile(const IndexRange<rank>& range, const Tile<rank>& tile) {
  typename MDPolicy<rank>::point_type lo, hi;
  typename MDPolicy<rank>::tile_type t;
  for (std::size_t a = 0; a < rank; ++a) lo[a] = range.lo[a], hi[a] = range.hi[a], t[a] = tile[a];
  return MDPolicy<rank>(lo, hi, t);
}

// The policy of a kernel over `range` on this backend.
template <std::size_t rank>
MDPolicy<rank> policy(const IndexRange<rank>& range) {
  return policy_with_tile(range, device_memory_is_host ? host_tile(range) : gpu_tile(range));
}

// The same range less one axis that holds a single index (a 2-D grid's one z plane, a 2-D spectrum's one kz).
template <std::size_t rank>
IndexRange<rank - 1> without_axis(const IndexRange<rank>& range, int axis) {
  IndexRange<rank - 1> less;
  for (std::size_t a = 0, b = 0; a < rank; ++a)
    if (a != static_cast<std::size_t>(axis)) less.lo[b] = range.lo[a], less.hi[b] = range.hi[a], ++b;
  return less;
}

// A kernel of (z, y, x) run over one plane's (y, x); of (c, z, y, x) over one plane's (c, y, x).
template <class Body>
struct OnPlane {
  Body body;
  long plane;
  KOKKOS_INLINE_FUNCTION void operator()(const long j, const long i) const { body(plane, j, i); }
};
template <class Body>
struct OnRows {
  Body body;
  long column;
  KOKKOS_INLINE_FUNCTION void operator()(const long k, const long j) const { body(k, j, column); }
};
template <class Body>
struct OnComponentPlane {
  Body body;
  long plane;
  KOKKOS_INLINE_FUNCTION void operator()(const long c, const long j, const long i) const { body(c, plane, j, i); }
};

// The axis of a range of cells (of boxes) that holds a single index and is launched away: z (a 2-D grid's one
// plane), else x for cells (a 2-D spectrum's one kz); -1 where none is.
inline int single_index_axis(const Cells& range) { return range.extent(0) == 1 ? 0 : range.extent(2) == 1 ? 2 : -1; }
inline int single_index_axis(const Boxes& range) { return range.extent(1) == 1 ? 1 : -1; }

// body(i0, ..., i_{rank-1}) for every index of `range`. A range of cells or boxes one z plane thick (a 2-D
// grid), or cells one index wide along the contiguous axis, runs as a launch of one rank less, whose tile
// then lies along an axis with more than one index.
template <class Body>
void for_each(const std::string& label, const Plane& range, const Body& body) {
  Kokkos::parallel_for(label, policy(range), body);
}
template <class Body>
void for_each(const std::string& label, const Cells& range, const Body& body) {
  const int single = single_index_axis(range);
  if (single == 0)
    Kokkos::parallel_for(label, policy(without_axis(range, 0)), OnPlane<Body>{body, range.lo[0]});
  else if (single == 2)
    Kokkos::parallel_for(label, policy(without_axis(range, 2)), OnRows<Body>{body, range.lo[2]});
  else
    Kokkos::parallel_for(label, policy(range), body);
}
template <class Body>
void for_each(const std::string& label, const Boxes& range, const Body& body) {
  if (single_index_axis(range) == 1) {
    Kokkos::parallel_for(label, policy(without_axis(range, 1)), OnComponentPlane<Body>{body, range.lo[1]});
  } else {
    Kokkos::parallel_for(label, policy(range), body);
  }
}

// Recurrences down the slowest axis of a (rows x columns) array, independent per column (a tridiagonal solve per
// mode): body(first, last) steps columns [first, last), at most Block of them, together, row by row. A GPU
// thread takes one column (Block = column_block = 1), so at each row a warp's loads are contiguous; a host thread
// takes a block of columns, so its inner loop runs along contiguous memory and vectorises (one column per host
// thread strode a row apart at every step: 38% of a 2048^2 direct Poisson solve). Block is the body's to know at
// compile time: a GPU thread keeps its column's carried values in registers.
inline constexpr long host_column_block = 256;
inline constexpr long column_block = device_memory_is_host ? host_column_block : 1;
template <class Body>
struct ColumnBlocks {
  Body body;
  long block, columns;
  KOKKOS_INLINE_FUNCTION void operator()(const long b) const {
    body(b * block, b * block + block < columns ? b * block + block : columns);
  }
};
template <long Block, class Body>
void for_each_column_block(const std::string& label, long columns, const Body& body) {
  Kokkos::parallel_for(label, FlatPolicy(0, (columns + Block - 1) / Block), ColumnBlocks<Body>{body, Block, columns});
}

// The value a reduction result carries: a Kokkos reducer's value_type, or the type of a plain result.
template <class Result, class = void>
struct ReducedValue {
  using type = std::remove_cv_t<std::remove_reference_t<Result>>;
};
template <class Result>
struct ReducedValue<Result, std::void_t<typename std::decay_t<Result>::reducer>> {
  using type = typename std::decay_t<Result>::value_type;
};

// body(k, j, i, value) over a range of cells as one flat index, so that every thread of a GPU block is busy.
template <class Body, class Value>
struct FlatCells {
  Body body;
  long ny, nx, z0, y0, x0;
  KOKKOS_INLINE_FUNCTION void operator()(const long n, Value& value) const {
    const long row = n / nx;
    body(z0 + row / ny, y0 + row % ny, x0 + n % nx, value);
  }
};

// A plane's body(j, i, value) as a body of cells one plane thick.
template <class Body, class Value>
struct PlaneAsCells {
  Body body;
  KOKKOS_INLINE_FUNCTION void operator()(const long, const long j, const long i, Value& value) const {
    body(j, i, value);
  }
};

// body(k, j, i, value) reduced over a range of cells: flat on a GPU; on the host over whole rows, whose inner
// loop needs no index division (the flat form's two divisions a cell slowed the host's reductions).
template <class Body, class Result>
void reduce(const std::string& label, const Cells& range, const Body& body, Result&& result) {
  if constexpr (device_memory_is_host) {
    Kokkos::parallel_reduce(label, policy(range), body, std::forward<Result>(result));
  } else {
    using Flat = FlatCells<Body, typename ReducedValue<Result>::type>;
    const Flat flat{body, std::max(range.extent(1), 1L), std::max(range.extent(2), 1L), range.lo[0], range.lo[1],
                    range.lo[2]};
    Kokkos::parallel_reduce(label, FlatPolicy(0, range.count()), flat, std::forward<Result>(result));
  }
}

// body(j, i, value) reduced over a plane.
template <class Body, class Result>
void reduce(const std::string& label, const Plane& range, const Body& body, Result&& result) {
  using AsCells = PlaneAsCells<Body, typename ReducedValue<Result>::type>;
  reduce(label, Cells{{0, range.lo[0], range.lo[1]}, {1, range.hi[0], range.hi[1]}}, AsCells{body},
         std::forward<Result>(result));
}

}  // namespace meridian::parallel
