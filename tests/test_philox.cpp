// Philox4x32-10: known answers, same words inside kernels, uniforms strictly inside (0, 1), normal moments,
// independence within a pair and the normal distribution (Kolmogorov-Smirnov).
#include "solvers/common/random/philox.hpp"

#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

namespace meridian::random {
namespace {

using Counter = Philox4x32::Counter;
using Key = Philox4x32::Key;

struct KnownAnswer {
  Counter counter;
  Key key;
  Counter expected;
};

// Random123, tests/kat_vectors, lines "philox4x32 10 ..." (github.com/DEShawResearch/random123, commit 9545ff64):
// counter (4 words), key (2 words), expected output (4 words). The third uses the first hex digits of pi.
constexpr KnownAnswer random123_kat[] = {
    {{{0x00000000, 0x00000000, 0x00000000, 0x00000000}}, {{0x00000000, 0x00000000}},
     {{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}}},
    {{{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}}, {{0xffffffff, 0xffffffff}},
     {{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}}},
    {{{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}}, {{0xa4093822, 0x299f31d0}},
     {{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}}},
};

TEST(Philox, MatchesRandom123KnownAnswers) {
  for (const KnownAnswer& kat : random123_kat) {
    const Counter out = Philox4x32::generate(kat.counter, kat.key);
    for (int w = 0; w < 4; ++w) EXPECT_EQ(out[w], kat.expected[w]) << "word " << w;
  }
}

using Words = Kokkos::View<std::uint32_t* [4], Kokkos::LayoutRight>;

// A functor rather than a lambda in the TEST body: CUDA rejects device lambdas in private members (TestBody).
struct GenerateBatch {
  Words out;
  Key key;
  KOKKOS_INLINE_FUNCTION void operator()(const int i) const {
    const Counter c = Philox4x32::generate(counter_of(std::uint64_t(i) * 0x100000001ull, ~std::uint64_t(i)), key);
    for (int w = 0; w < 4; ++w) out(i, w) = c[w];
  }
};

TEST(Philox, KernelWordsEqualHostWordsBitwise) {
  constexpr int batch = 4096;
  const Key key = key_of(0x0123456789abcdefull);
  Words device_words("philox_words", batch);
  Kokkos::parallel_for("test_philox::generate_batch", Kokkos::RangePolicy<>(0, batch),
                       GenerateBatch{device_words, key});
  auto host_words = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), device_words);
  int mismatches = 0;
  for (int i = 0; i < batch; ++i) {
    const Counter c = Philox4x32::generate(counter_of(std::uint64_t(i) * 0x100000001ull, ~std::uint64_t(i)), key);
    for (int w = 0; w < 4; ++w) mismatches += host_words(i, w) != c[w];
  }
  EXPECT_EQ(mismatches, 0);
}

TEST(Philox, UnitOpenStaysStrictlyInsideForExtremeBits) {
  const double smallest = to_unit_open(0u, 0u);
  const double largest = to_unit_open(0xffffffffu, 0xffffffffu);
  EXPECT_GT(smallest, 0.0);
  EXPECT_LT(largest, 1.0);
  EXPECT_EQ(smallest, std::ldexp(1.0, -54));
  EXPECT_EQ(largest, 1.0 - std::ldexp(1.0, -53));
}

TEST(Philox, NormalPairsHaveUnitMomentsWithinFiveStandardErrors) {
  constexpr std::uint64_t pairs = 1u << 19;  // 2^20 = 1,048,576 normals
  const Key key = key_of(20110101);
  double sum = 0.0, sum_of_squares = 0.0;
  for (std::uint64_t i = 0; i < pairs; ++i) {
    double z0 = 0.0, z1 = 0.0;
    normal_pair(Philox4x32::generate(counter_of(i, 0), key), z0, z1);
    sum += z0 + z1;
    sum_of_squares += z0 * z0 + z1 * z1;
  }
  const double n = 2.0 * pairs;
  // For N standard normals: the mean has standard error 1/sqrt(N) (9.8e-4 here); the second moment about the
  // true mean 0 estimates the variance with standard error sqrt(Var(z^2) / N) = sqrt(2 / N) (1.4e-3 here).
  EXPECT_NEAR(sum / n, 0.0, 5.0 / std::sqrt(n));
  EXPECT_NEAR(sum_of_squares / n, 1.0, 5.0 * std::sqrt(2.0 / n));
}

// The normals of pairs 0 .. pairs-1 of one key, both members of each pair.
std::vector<std::array<double, 2>> normal_pairs(std::uint64_t pairs, std::uint64_t seed) {
  const Key key = key_of(seed);
  std::vector<std::array<double, 2>> out(pairs);
  for (std::uint64_t i = 0; i < pairs; ++i)
    normal_pair(Philox4x32::generate(counter_of(i, 0), key), out[i][0], out[i][1]);
  return out;
}

// The two members of a pair are independent and normal beyond two moments: E[z0 z1] = 0 with standard error
// 1/sqrt(N), E[z^4] = 3 with standard error sqrt((E[z^8] - 9) / N) = sqrt(96 / N); five of each.
TEST(Philox, NormalPairsAreUncorrelatedWithNormalKurtosis) {
  const auto pairs = normal_pairs(1u << 19, 19700101);
  double cross = 0.0, fourth = 0.0;
  for (const auto& z : pairs) {
    cross += z[0] * z[1];
    fourth += std::pow(z[0], 4) + std::pow(z[1], 4);
  }
  const double n = static_cast<double>(pairs.size());
  EXPECT_NEAR(cross / n, 0.0, 5.0 / std::sqrt(n));
  EXPECT_NEAR(fourth / (2 * n), 3.0, 5.0 * std::sqrt(96.0 / (2 * n)));
}

// Kolmogorov-Smirnov against the normal distribution function, each member of the pair apart: the
// statistic sqrt(n) D stays below 1.95 with probability 0.999 (Kolmogorov's limit law).
TEST(Philox, NormalsPassKolmogorovSmirnov) {
  const auto pairs = normal_pairs(1u << 16, 42);
  for (int member = 0; member < 2; ++member) {
    std::vector<double> z;
    for (const auto& pair : pairs) z.push_back(pair[member]);
    std::sort(z.begin(), z.end());
    const double n = static_cast<double>(z.size());
    double distance = 0.0;
    for (std::size_t i = 0; i < z.size(); ++i) {
      const double cdf = 0.5 * std::erfc(-z[i] / std::sqrt(2.0));
      distance = std::max({distance, (i + 1) / n - cdf, cdf - i / n});
    }
    EXPECT_LT(std::sqrt(n) * distance, 1.95) << "member " << member;
  }
}

}  // namespace
}  // namespace meridian::random
