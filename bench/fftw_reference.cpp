// Plain FFTW on one core: the time of one 3-D real-to-complex transform and its complex-to-real inverse on
// an N x N x N cube, the reference that bench/cfd_benchmark.sh compares the solver's distributed FFT against.
// No MPI, no Kokkos, no threads: one fftw_plan_dft_r2c_3d and one fftw_plan_dft_c2r_3d, out of place.
//
// Planned twice: with FFTW_ESTIMATE (what the solver's cfd.fft_planning = "estimate", its default, uses for
// its 1-D transforms) and with FFTW_MEASURE (FFTW's timed choice of algorithm). ESTIMATE is planned first,
// and wisdom is forgotten in between, so neither plan borrows the other's choices.
//
// Flop convention (FFTW's own, for comparing transform sizes, not a count of the operations executed): a
// complex transform of M points counts 5 M log2(M); a real one (r2c or c2r) counts half of that,
// 2.5 M log2(M). Here M = N^3, so one r2c + c2r pair counts 5 N^3 log2(N^3).
//
// Prints on stdout:
//   # flops per r2c or c2r transform: 2.5 M log2(M), M = N^3 (FFTW's convention); a pair counts 5 M log2(M)
//   fftw_r2c_c2r_seconds <best time of one r2c + c2r pair, FFTW_MEASURE>
//   fftw_r2c_c2r_gflops <that pair's flops by the convention above / its time, 1e9 per second>
//   fftw_r2c_c2r_estimate_seconds <the same with FFTW_ESTIMATE>
//   fftw_r2c_c2r_estimate_gflops <...>
//
// usage: fftw_reference N [--repetitions R]
//   N                  cells per side of the cube (the 3-D transform has N^3 real points)
//   --repetitions R    timed pairs per plan, at least (default 10): after one untimed pair, as many as take about
//                      a quarter second; the best one is reported

#include <fftw3.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "command_line.hpp"
#include "timing_window.hpp"

namespace {

using bench::Clock;

struct Options {
  int cells_per_side = 0;
  int repetitions = 10;
};

constexpr bench::Usage usage{"fftw_reference", "fftw_reference N [--repetitions R]"};

Options parse_options(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string argument = argv[i];
    if (argument == "--repetitions") {
      if (i + 1 >= argc) bench::usage_error(usage, "missing value after --repetitions");
      options.repetitions = std::atoi(argv[++i]);
    } else if (options.cells_per_side == 0 && !argument.empty() && argument[0] != '-') {
      options.cells_per_side = std::atoi(argument.c_str());
    } else {
      bench::usage_error(usage, "unexpected argument " + argument);
    }
  }
  if (options.cells_per_side < 2 || options.repetitions < 1)
    bench::usage_error(usage, "N must be at least 2 and --repetitions positive");
  return options;
}

// The input of every pair, refilled before each one (out of the timing): the c2r destroys its complex
// input, and the unnormalised pair multiplies the real field by N^3.
double input_value(long index) { return std::sin(0.001 * static_cast<double>(index)) + 0.5; }

// FFTW's arrays, aligned by fftw_malloc, freed on every path out.
struct Arrays {
  long real_count, complex_count;
  double* real;
  double* round_trip;
  fftw_complex* spectrum;
  explicit Arrays(long n)
      : real_count(n * n * n),
        complex_count(n * n * (n / 2 + 1)),
        real(fftw_alloc_real(real_count)),
        round_trip(fftw_alloc_real(real_count)),
        spectrum(fftw_alloc_complex(complex_count)) {}
  ~Arrays() {
    fftw_free(real);
    fftw_free(round_trip);
    fftw_free(spectrum);
  }
  Arrays(const Arrays&) = delete;
  Arrays& operator=(const Arrays&) = delete;
};

// Best seconds of one r2c + c2r pair over `repetitions`, planned with `effort`; exits on a wrong round trip.
double best_pair_seconds(Arrays& a, int n, unsigned effort, int repetitions) {
  // Planning with FFTW_MEASURE overwrites the arrays, so they are filled after it.
  const fftw_plan forward = fftw_plan_dft_r2c_3d(n, n, n, a.real, a.spectrum, effort);
  const fftw_plan backward = fftw_plan_dft_c2r_3d(n, n, n, a.spectrum, a.round_trip, effort);
  if (!forward || !backward) {
    std::fprintf(stderr, "fftw_reference: FFTW could not plan a %d^3 transform\n", n);
    std::exit(1);
  }
  const auto pair_seconds = [&] {
    for (long i = 0; i < a.real_count; ++i) a.real[i] = input_value(i);
    const auto t0 = Clock::now();
    fftw_execute(forward);
    fftw_execute(backward);
    return bench::seconds_between(t0, Clock::now());
  };
  // One untimed pair (first touches), then as many as bench::repetitions_for asks.
  const int timed = bench::repetitions_for(pair_seconds(), repetitions);
  double best_seconds = 1e300;
  for (int r = 0; r < timed; ++r) best_seconds = std::min(best_seconds, pair_seconds());
  // The unnormalised pair returns N^3 times the input; checking it keeps the work observable.
  const double cells = static_cast<double>(a.real_count);
  for (long i : {0L, a.real_count / 3, a.real_count - 1}) {
    if (std::fabs(a.round_trip[i] / cells - input_value(i)) > 1e-9) {
      std::fprintf(stderr, "fftw_reference: wrong round trip at %ld: %g, not %g\n", i, a.round_trip[i] / cells,
                   input_value(i));
      std::exit(1);
    }
  }
  fftw_destroy_plan(forward);
  fftw_destroy_plan(backward);
  return best_seconds;
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse_options(argc, argv);
  const int n = options.cells_per_side;
  Arrays arrays(n);
  if (!arrays.real || !arrays.round_trip || !arrays.spectrum) {
    std::fprintf(stderr, "fftw_reference: cannot allocate a %d^3 cube\n", n);
    return 1;
  }
  const double points = static_cast<double>(arrays.real_count);
  const double flops_per_pair = 5.0 * points * std::log2(points);  // 2 x 2.5 M log2(M), see above

  const double estimate_seconds = best_pair_seconds(arrays, n, FFTW_ESTIMATE, options.repetitions);
  fftw_forget_wisdom();
  const double measure_seconds = best_pair_seconds(arrays, n, FFTW_MEASURE, options.repetitions);

  std::printf("# flops per r2c or c2r transform: 2.5 M log2(M), M = N^3 (FFTW's convention); a pair counts 5 M log2(M)\n");
  std::printf("fftw_r2c_c2r_seconds %.6e\n", measure_seconds);
  std::printf("fftw_r2c_c2r_gflops %.3f\n", flops_per_pair / measure_seconds / 1e9);
  std::printf("fftw_r2c_c2r_estimate_seconds %.6e\n", estimate_seconds);
  std::printf("fftw_r2c_c2r_estimate_gflops %.3f\n", flops_per_pair / estimate_seconds / 1e9);
  fftw_cleanup();
  return 0;
}
