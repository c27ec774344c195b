#pragma once
// Counter-based random numbers: Philox4x32-10 (Salmon, Moraes, Dror, Shaw, "Parallel random numbers: as easy
// as 1, 2, 3", SC 2011; reference code: Random123). A draw is a pure function of (counter, key), so a kernel
// keys it by what it is computing (global wavenumber; path, time step, factor) and the result does not depend
// on the decomposition, the backend or the order of evaluation. No state, nothing to seed or to split.
//
// Reproducibility: generate(), counter_of(), key_of() use only 32/64-bit integer arithmetic and give bitwise
// identical words on every backend (checked against Random123's known answers in tests/test_philox.cpp).
// to_unit_open() is exact as well. normal_pair() goes through log/sqrt/cos/sin, whose last bits differ between
// the host's libm and CUDA's: normals agree between CPU and GPU to a few ulps, not bitwise.
#include <cstdint>

#include <Kokkos_Core.hpp>

#include "solvers/common/kokkos_math.hpp"

namespace meridian::random {

struct Philox4x32 {
  using Counter = Kokkos::Array<std::uint32_t, 4>;
  using Key = Kokkos::Array<std::uint32_t, 2>;

  static constexpr int rounds = 10;  // Random123's default; the known-answer vectors are for 10 rounds
  static constexpr std::uint32_t multiplier_0 = 0xD2511F53u;
  static constexpr std::uint32_t multiplier_1 = 0xCD9E8D57u;
  static constexpr std::uint32_t weyl_0 = 0x9E3779B9u;  // golden ratio
  static constexpr std::uint32_t weyl_1 = 0xBB67AE85u;  // sqrt(3) - 1

  KOKKOS_INLINE_FUNCTION static Counter generate(Counter c, Key k) {
    for (int round = 0; round < rounds; ++round) {
      if (round > 0) {  // the first round uses the key as given, as in Random123
        k[0] += weyl_0;
        k[1] += weyl_1;
      }
      // A 64-bit product gives mulhi and mullo at once, without compiler intrinsics (same code on host and GPU).
      const std::uint64_t p0 = std::uint64_t(multiplier_0) * c[0];
      const std::uint64_t p1 = std::uint64_t(multiplier_1) * c[2];
      const std::uint32_t hi0 = std::uint32_t(p0 >> 32), lo0 = std::uint32_t(p0);
      const std::uint32_t hi1 = std::uint32_t(p1 >> 32), lo1 = std::uint32_t(p1);
      c = Counter{{hi1 ^ c[1] ^ k[0], lo1, hi0 ^ c[3] ^ k[1], lo0}};
    }
    return c;
  }
};

// Two 64-bit indices as one counter, low word first (e.g. a = global index, b = time step or stream).
KOKKOS_INLINE_FUNCTION Philox4x32::Counter counter_of(std::uint64_t a, std::uint64_t b) {
  return Philox4x32::Counter{{std::uint32_t(a), std::uint32_t(a >> 32), std::uint32_t(b), std::uint32_t(b >> 32)}};
}

KOKKOS_INLINE_FUNCTION Philox4x32::Key key_of(std::uint64_t seed) {
  return Philox4x32::Key{{std::uint32_t(seed), std::uint32_t(seed >> 32)}};
}

// A double in the open interval (0, 1) from the top 53 bits of (hi, lo): m * 2^-53 for m in [0, 2^53).
// Why it is never 0 or 1: the largest value is (2^53 - 1) * 2^-53 = 1 - 2^-53, exact (m fits a double's
// significand), so no rounding can reach 1; the single m that would give 0 is moved to the centre of its cell,
// 2^-54. (The tempting (m + 0.5) * 2^-53 needs 54 significant bits and rounds to exactly 1.0 for m = 2^53 - 1.)
KOKKOS_INLINE_FUNCTION double to_unit_open(std::uint32_t hi, std::uint32_t lo) {
  constexpr double two_to_minus_53 = 1.0 / 9007199254740992.0;
  const std::uint64_t m = (std::uint64_t(hi) << 21) | (lo >> 11);
  return m != 0 ? double(m) * two_to_minus_53 : 0.5 * two_to_minus_53;
}

// Box-Muller: two independent standard normals from one Philox output (words 0,1 and 2,3 as two uniforms).
// u0 > 0 keeps log finite; u0 < 1 keeps the radius > 0. Largest |z| is sqrt(2 * 54 ln 2), about 8.65.
KOKKOS_INLINE_FUNCTION void normal_pair(const Philox4x32::Counter& bits, double& z0, double& z1) {
  const double u0 = to_unit_open(bits[0], bits[1]);
  const double u1 = to_unit_open(bits[2], bits[3]);
  const double radius = km::sqrt(-2.0 * km::log(u0));
  const double angle = 2.0 * pi * u1;
  z0 = radius * km::cos(angle);
  z1 = radius * km::sin(angle);
}

}  // namespace meridian::random
