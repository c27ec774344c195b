#pragma once
// Included by the files whose kernels simulate paths (monte_carlo_pricer.cpp, longstaff_schwartz.cpp), which
// CMake also compiles with -fno-math-errno -fno-trapping-math (solvers/CMakeLists.txt).
#if defined(__x86_64__) && defined(__GLIBC__) && !defined(__FAST_MATH__) && !defined(KOKKOS_ENABLE_CUDA)
// glibc's vector variants (libmvec) of the functions in the path loop, for GCC to call across the lanes
// of the host's vector loop: <bits/math-vector.h> declares them only under -ffast-math, which would also
// change results; these are glibc's declarations plus the simd attribute it adds there. They change no
// value the scalar calls give beyond libmvec's own rounding (within 4 ulp).
extern "C" {
__attribute__((simd("notinbranch"))) double log(double) noexcept;
__attribute__((simd("notinbranch"))) double cos(double) noexcept;
__attribute__((simd("notinbranch"))) double exp(double) noexcept;
__attribute__((simd("notinbranch"))) float logf(float) noexcept;
__attribute__((simd("notinbranch"))) float cosf(float) noexcept;
__attribute__((simd("notinbranch"))) float expf(float) noexcept;
}
#endif
