#pragma once
// Copies a three-axis box of values from one strided layout to another: the pencil transposes' packing,
// unpacking and own shares (fft::DistributedFFT) and the direct solver's reshapes. Where the two layouts are
// contiguous along different axes the copy is a transpose, and on the host a naive one runs at a third of the
// memory's speed: the rows of a tile lie a plane apart, a multiple of 4 KiB on power-of-two grids, so they
// share cache sets, and every line written is first read. A host thread therefore moves a square tile through
// a buffer of its own, reading rows of the source and writing rows of the target, and writes boxes larger than
// the last-level cache with non-temporal stores (a 256^3 spectrum's transpose: 51 -> 24 ms, a copy takes 19 ms).
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <array>
#include <cstring>
#include <type_traits>

#include "parallel/device_memory.hpp"
#include "parallel/launch_policy.hpp"

#if defined(__SSE2__)
#include <immintrin.h>
#endif

namespace meridian::parallel {

// Where index (a, b, c) of a box lies in an array.
struct BoxPlacement {
  Kokkos::Array<long, 3> stride{};
  long first = 0;
  KOKKOS_INLINE_FUNCTION long at(long a, long b, long c) const {
    return first + a * stride[0] + b * stride[1] + c * stride[2];
  }
};

// A box's values in order, the last axis fastest, from `first` on: how they travel in a message.
inline BoxPlacement packed_placement(const std::array<long, 3>& extent, long first) {
  return {{extent[1] * extent[2], extent[2], 1}, first};
}

// The axis along which a placement's values are contiguous: the smallest stride of an axis with more than one
// index (2 where none has).
inline int contiguous_axis(const std::array<long, 3>& extent, const BoxPlacement& placement) {
  int axis = 2;
  for (int a = 1; a >= 0; --a)
    if (extent[a] > 1 && (extent[axis] == 1 || placement.stride[a] < placement.stride[axis])) axis = a;
  return axis;
}

// Boxes whose target is larger than this are written past the cache: the next stage cannot find them there.
inline constexpr long streamed_bytes = 32L << 20;

// A store that bypasses the cache, and so neither reads the line first nor evicts what the cache holds; values
// of whole 8-byte words on x86-64 (doubles, complex doubles), a plain store elsewhere.
template <class T>
inline void stream_store(T* target, const T& value) {
#if defined(__SSE2__) && defined(__x86_64__)
  if constexpr (sizeof(T) % 8 == 0 && std::is_trivially_copyable_v<T>) {
    long long words[sizeof(T) / 8];
    std::memcpy(words, &value, sizeof(T));
    for (std::size_t w = 0; w < sizeof(T) / 8; ++w) _mm_stream_si64(reinterpret_cast<long long*>(target) + w, words[w]);
    return;
  }
#endif
  *target = value;
}

inline void end_streamed_stores() {
#if defined(__SSE2__) && defined(__x86_64__)
  _mm_sfence();  // streamed stores are weakly ordered: they must be visible before the launch ends
#endif
}

// One host thread's tile of a transposing copy: `edge` indices along the source's contiguous axis `read` by as
// many along the target's `written`, at one index of the third axis.
template <class T>
struct HostTileCopy {
  static constexpr long edge = std::max<long>(256 / static_cast<long>(sizeof(T)), 1);  // rows of 4 cache lines
  const T* from;
  T* to;
  BoxPlacement in, out;
  int read, written;
  std::array<long, 3> extent;
  double scale;
  bool streamed;

  long tiles_along(int axis) const { return (extent[axis] + edge - 1) / edge; }
  long tiles() const { return tiles_along(read) * tiles_along(written) * extent[3 - read - written]; }

  void operator()(const long tile) const {
    const int third = 3 - read - written;
    const long read_tiles = tiles_along(read), written_tiles = tiles_along(written);
    const long r0 = tile % read_tiles * edge, w0 = tile / read_tiles % written_tiles * edge;
    const long t = tile / (read_tiles * written_tiles);
    const long rn = std::min(edge, extent[read] - r0), wn = std::min(edge, extent[written] - w0);
    const T* source = from + in.first + t * in.stride[third] + r0 * in.stride[read] + w0 * in.stride[written];
    T* target = to + out.first + t * out.stride[third] + r0 * out.stride[read] + w0 * out.stride[written];
    T buffer[edge][edge];
    for (long w = 0; w < wn; ++w)
      for (long r = 0; r < rn; ++r) buffer[w][r] = source[w * in.stride[written] + r * in.stride[read]];
    for (long r = 0; r < rn; ++r) {
      T* row = target + r * out.stride[read];
      if (streamed) {
        for (long w = 0; w < wn; ++w) stream_store(row + w * out.stride[written], T(scale * buffer[w][r]));
      } else {
        for (long w = 0; w < wn; ++w) row[w * out.stride[written]] = scale * buffer[w][r];
      }
    }
    if (streamed) end_streamed_stores();
  }
};

// to[written.at(a, b, c)] = scale * from[read.at(a, b, c)] over the box [0, extent). On a GPU the warps run
// along the target's contiguous axis, so the stores coalesce.
template <class T>
void copy_box(const char* label, const std::array<long, 3>& extent, const T* from, const BoxPlacement& read,
              T* to, const BoxPlacement& written, double scale = 1.0) {
  if (extent[0] * extent[1] * extent[2] <= 0) return;
  const int r = contiguous_axis(extent, read), w = contiguous_axis(extent, written);
  const Cells range{{0, 0, 0}, {extent[0], extent[1], extent[2]}};
  const auto body = KOKKOS_LAMBDA(const long a, const long b, const long c) {
    to[written.at(a, b, c)] = scale * from[read.at(a, b, c)];
  };
  if constexpr (device_memory_is_host) {
    if (r == w) {  // whole rows along the axis both sides hold contiguously
      Tile<3> tile{1, 1, 1};
      tile[r] = extent[r];
      Kokkos::parallel_for(label, policy_with_tile(range, tile), body);
      return;
    }
    const bool streamed = range.count() * static_cast<long>(sizeof(T)) > streamed_bytes;
    const HostTileCopy<T> copy{from, to, read, written, r, w, extent, scale, streamed};
    Kokkos::parallel_for(label, FlatPolicy(0, copy.tiles()), copy);
  } else {
    Kokkos::parallel_for(label, policy_with_tile(range, gpu_tile(range, static_cast<std::size_t>(w))), body);
  }
}

}  // namespace meridian::parallel
