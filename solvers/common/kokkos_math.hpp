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
}  // namespace meridian
