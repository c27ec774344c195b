// STREAM triad, a[i] = b[i] + s * c[i], on one core: the memory bandwidth a streaming kernel can reach,
// the bound that bench/advection_benchmark.sh compares the advection throughput against.
//
// Bytes counted per element: 24 (read b, read c, write a; 8 bytes each), as STREAM counts them. A store to
// a line not in cache first reads that line (write-allocate) unless the compiler emits non-temporal stores,
// which would add 8 bytes per element to the real traffic; like STREAM we leave it out of the count.
//
// Prints one line on stdout:  triad_bandwidth_GBps <best bandwidth over the repetitions, 1e9 bytes/s>
//
// usage: stream_triad [--elements N] [--repetitions R] [--start-at EPOCH_SECONDS --duration SECONDS]
//   --elements N       doubles per array (default 2^25: three arrays of 256 MiB, far beyond any cache)
//   --repetitions R    timed repetitions, the best one is reported (default 10)
//   --start-at T       sleep until wall-clock time T (seconds since the Unix epoch, fractional) after the
//                      arrays are filled, then repeat until T + duration; only repetitions that finish inside
//                      that window count. Copies started at once with the same window all run during every
//                      counted repetition, so the sum of their results is the aggregate bandwidth.
//   --duration S       length of that window in seconds (default 3)

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "command_line.hpp"
#include "timing_window.hpp"

namespace {

constexpr double bytes_per_element = 24.0;  // 2 reads + 1 write of a double; write-allocate would add 8
constexpr double triad_scalar = 3.0;

struct Options {
  long elements = 1L << 25;
  bench::Timing timing;
};

constexpr bench::Usage usage{
    "stream_triad", "stream_triad [--elements N] [--repetitions R] [--start-at EPOCH_SECONDS --duration SECONDS]"};

Options parse_options(int argc, char** argv) {
  Options options;
  bench::parse_flags(argc, argv, usage,
                     {{"--elements", [&](const char* v) { options.elements = std::atol(v); }},
                      {"--repetitions", [&](const char* v) { options.timing.repetitions = std::atoi(v); }},
                      {"--start-at", [&](const char* v) { options.timing.start_at_epoch_seconds = std::atof(v); }},
                      {"--duration", [&](const char* v) { options.timing.duration_seconds = std::atof(v); }}});
  if (options.elements < 1 || options.timing.repetitions < 1 || options.timing.duration_seconds <= 0)
    bench::usage_error(usage, "--elements, --repetitions and --duration must be positive");
  return options;
}

// Kept out of line so the compiler cannot merge repetitions or drop stores it sees are overwritten.
__attribute__((noinline)) void triad(double* __restrict a, const double* __restrict b, const double* __restrict c,
                                     double s, long n) {
  for (long i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse_options(argc, argv);
  const long n = options.elements;
  // Filling the arrays here also touches every page, so page faults stay out of the timed loop.
  std::vector<double> a(n, 0.0), b(n, 1.0), c(n, 2.0);

  const double seconds =
      bench::best_seconds(options.timing, [&] { triad(a.data(), b.data(), c.data(), triad_scalar, n); });
  if (seconds == 0) {
    std::fprintf(stderr, "stream_triad: no repetition finished inside the window; lengthen --duration\n");
    return 1;
  }
  // Every a[i] is 1 + 3 * 2 = 7; checking it keeps the stores observable.
  if (a[0] != 7.0 || a[n - 1] != 7.0) {
    std::fprintf(stderr, "stream_triad: wrong result %g\n", a[n - 1]);
    return 1;
  }
  std::printf("triad_bandwidth_GBps %.3f\n", bytes_per_element * static_cast<double>(n) / seconds / 1e9);
  return 0;
}
