// A tight single-core loop pricing the arithmetic-average Asian call of bench/monte_carlo_benchmark.sh with
// meridian's own random numbers: the ceiling the Monte Carlo pricer's throughput is compared against.
// No MPI, no threads, no Kokkos runtime (solvers/common/random/philox.hpp is header-only and inline).
//
// Option: S = 100, K = 100, r = 0.05, q = 0, sigma = 0.2, T = 1, fixings at t = i/252, i = 1..252 (not t = 0),
// payoff exp(-r T) max(mean of the 252 fixings - K, 0). Exact log-normal steps of GBM, dt = 1/252.
//
// Random numbers: exactly meridian's stream for one asset (solvers/finance/models.hpp, Draws and
// MultiAssetGbm): the normal of (path, step) is z0 of Box-Muller on Philox4x32-10 with counter
// counter_of(path, 4 * step) and key key_of(seed), paths numbered from 0. For one asset meridian draws z0 of
// that pair only (Draws::normal), so only cos is needed here (no sin). With the same seed and path count
// the price matches meridian's to rounding (the vector log/cos/exp differ from libm's in the last bits).
// With --precision single the loop is meridian's numerics.precision = "single": log prices and running sums
// in float, uniforms from the top 24 bits (finance::unit_open<float>), Box-Muller and exp in float.
//
// Shape: paths in blocks of 16 with the lanes as the inner `#pragma omp simd` loop and the time steps outside
// it, so Philox's 32x32->64 multiplies, log, sqrt, cos and exp all run across 16 paths at once. GCC 12 only
// calls glibc's vector math (libmvec) when the functions carry a `declare simd` declaration; glibc 2.36's
// <math.h> gives them one only under -ffast-math (__FAST_MATH__), so this file declares log, cos and exp
// itself (and logf, cosf, expf for single). It also needs -fno-math-errno (else sqrt keeps a scalar errno branch) and -fno-trapping-math (else
// the int-to-double conversion in to_unit_open's select blocks if-conversion). Neither changes a result.
// Build: g++ -O3 -march=native -fopenmp-simd -fno-math-errno -fno-trapping-math -std=c++17
//            -I<repo> -isystem /usr/include/trilinos bench/mc_reference_loop.cpp    (libmvec comes with -lm)
//
// Prints on stdout:
//   reference_path_steps_per_second <paths x 252 / best time of one pass over all paths>
//   reference_price <discounted mean payoff>
//   reference_standard_error <sample standard deviation / sqrt(paths)>
//   reference_paths <paths>
//   reference_seconds <that best time>
//
// usage: mc_reference_loop [--paths N] [--seed S] [--repetitions R] [--precision double|single]
//   --paths N          paths to simulate (default 2^20)
//   --seed S           seed of the counter-based generator (default 2026, configs/finance/portfolio.toml's)
//   --repetitions R    timed passes over all paths, the best one is reported (default 3)
//   --precision P      the paths' floating-point type, double (default) or single

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "command_line.hpp"
#include "solvers/common/random/philox.hpp"
#include "solvers/finance/models.hpp"

#if defined(__x86_64__) && defined(__GLIBC__) && !defined(__FAST_MATH__)
// libmvec's vector variants of the three functions in the hot loop (see above); the declarations are glibc's
// own, plus the simd clause its <bits/math-vector.h> adds only under -ffast-math.
extern "C" {
#pragma omp declare simd notinbranch
double log(double) noexcept;
#pragma omp declare simd notinbranch
double cos(double) noexcept;
#pragma omp declare simd notinbranch
double exp(double) noexcept;
#pragma omp declare simd notinbranch
float logf(float) noexcept;
#pragma omp declare simd notinbranch
float cosf(float) noexcept;
#pragma omp declare simd notinbranch
float expf(float) noexcept;
}
#endif

namespace {

using Clock = std::chrono::steady_clock;
namespace random = meridian::random;

// The option (the benchmark's, fixed).
constexpr double spot = 100.0;
constexpr double strike = 100.0;
constexpr double rate = 0.05;             // 1/year, continuously compounded
constexpr double dividend_yield = 0.0;    // 1/year
constexpr double volatility = 0.2;        // 1/sqrt(year)
constexpr double maturity = 1.0;          // years
constexpr int fixings = 252;              // t = i * maturity / fixings, i = 1..fixings; one time step each
constexpr int lanes = 16;                 // paths per block: the vector loop's length

struct Options {
  long paths = 1L << 20;
  std::uint64_t seed = 2026;
  int repetitions = 3;
  bool single = false;
};

struct Sums {
  double payoff = 0, payoff_squared = 0;  // undiscounted
};

constexpr bench::Usage usage{"mc_reference_loop",
                             "mc_reference_loop [--paths N] [--seed S] [--repetitions R] [--precision double|single]"};

Options parse_options(int argc, char** argv) {
  Options options;
  bench::parse_flags(argc, argv, usage,
                     {{"--paths", [&](const char* v) { options.paths = std::atol(v); }},
                      {"--seed", [&](const char* v) { options.seed = std::strtoull(v, nullptr, 10); }},
                      {"--repetitions", [&](const char* v) { options.repetitions = std::atoi(v); }},
                      {"--precision", [&](const char* v) {
                         if (std::string(v) != "double" && std::string(v) != "single")
                           bench::usage_error(usage, "--precision is double or single");
                         options.single = std::string(v) == "single";
                       }}});
  if (options.paths < 2 || options.repetitions < 1)
    bench::usage_error(usage, "--paths must be at least 2, --repetitions positive");
  return options;
}

// One pass over all paths, 16 at a time, in the precision Real; lanes past the last path are simulated
// and dropped. The constants are computed in double and rounded to Real, as meridian does.
template <class Real>
Sums simulate(long paths, std::uint64_t seed) {
  const auto key = random::key_of(seed);
  const double dt = maturity / fixings;
  const Real drift = static_cast<Real>((rate - dividend_yield - 0.5 * volatility * volatility) * dt);
  const Real diffusion = static_cast<Real>(volatility * std::sqrt(dt));
  const Real log_spot = static_cast<Real>(std::log(spot));
  const Real two_pi = static_cast<Real>(2.0 * meridian::pi);
  Sums sums;
  for (long first = 0; first < paths; first += lanes) {
    Real log_price[lanes], price_sum[lanes];
    for (int lane = 0; lane < lanes; ++lane) log_price[lane] = log_spot, price_sum[lane] = 0;
    for (int step = 0; step < fixings; ++step) {
      const std::uint64_t draw = static_cast<std::uint64_t>(step) * 4;  // meridian's counter: (path, 4 step + 0)
#pragma omp simd
      for (int lane = 0; lane < lanes; ++lane) {
        const auto bits =
            random::Philox4x32::generate(random::counter_of(static_cast<std::uint64_t>(first + lane), draw), key);
        // Box-Muller's z0, spelled out (random::normal_pair also makes z1, with a sin that keeps GCC scalar).
        const Real u0 = meridian::finance::unit_open<Real>(bits[0], bits[1]);
        const Real u1 = meridian::finance::unit_open<Real>(bits[2], bits[3]);
        const Real z = std::sqrt(Real(-2) * std::log(u0)) * std::cos(two_pi * u1);
        log_price[lane] += drift + diffusion * z;
        price_sum[lane] += std::exp(log_price[lane]);
      }
    }
    for (int lane = 0; lane < lanes && first + lane < paths; ++lane) {
      const double payoff = std::max(static_cast<double>(price_sum[lane]) / fixings - strike, 0.0);
      sums.payoff += payoff;
      sums.payoff_squared += payoff * payoff;
    }
  }
  return sums;
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse_options(argc, argv);
  double best_seconds = 1e300;
  Sums sums;
  for (int r = 0; r < options.repetitions; ++r) {
    const auto t0 = Clock::now();
    // The same every pass; using it keeps the work observable.
    sums = options.single ? simulate<float>(options.paths, options.seed)
                          : simulate<double>(options.paths, options.seed);
    best_seconds = std::min(best_seconds, std::chrono::duration<double>(Clock::now() - t0).count());
  }
  const double n = static_cast<double>(options.paths), discount = std::exp(-rate * maturity);
  const double mean = discount * sums.payoff / n;
  const double variance = discount * discount * (sums.payoff_squared - sums.payoff * sums.payoff / n) / (n - 1);
  std::printf("reference_path_steps_per_second %.4e\n", n * fixings / best_seconds);
  std::printf("reference_price %.6f\n", mean);
  std::printf("reference_standard_error %.6f\n", std::sqrt(std::max(variance, 0.0) / n));
  std::printf("reference_paths %ld\n", options.paths);
  std::printf("reference_seconds %.4f\n", best_seconds);
  return 0;
}
