#pragma once
// Math functions callable in kernels, spelled once for Kokkos 3.4 and 4.x (see docs/kokkos.md).
#include <Kokkos_Core.hpp>

namespace meridian {
#if KOKKOS_VERSION >= 40000
namespace km = Kokkos;
#else
namespace km = Kokkos::Experimental;
#endif

inline constexpr double pi = 3.141592653589793238462643383279502884;

template <class T>
KOKKOS_INLINE_FUNCTION T min_of(T a, T b) { return a < b ? a : b; }
template <class T>
KOKKOS_INLINE_FUNCTION T max_of(T a, T b) { return a < b ? b : a; }

// The max of blocks of values in eight running maxima, value i of a block into lane i % 8: a loop GCC vectorises,
// where it vectorises no max reduction of doubles by itself (to it that reorders NaNs and signed zeros). A max is
// exact, so the lanes' max is the values' in any order. A host row kernel's: it fills a block, then adds it.
struct LaneMax {
  static constexpr int lanes = 8;
  double lane[lanes];
  KOKKOS_INLINE_FUNCTION explicit LaneMax(double start) {
    for (int l = 0; l < lanes; ++l) lane[l] = start;
  }
  KOKKOS_INLINE_FUNCTION void add(const double* values, int length) {
    int i = 0;
    for (; i + lanes <= length; i += lanes)
      for (int l = 0; l < lanes; ++l) lane[l] = max_of(lane[l], values[i + l]);
    for (; i < length; ++i) lane[0] = max_of(lane[0], values[i]);
  }
  KOKKOS_INLINE_FUNCTION double value() const {
    double m = lane[0];
    for (int l = 1; l < lanes; ++l) m = max_of(m, lane[l]);
    return m;
  }
};
}  // namespace meridian
