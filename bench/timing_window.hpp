// Timing of the standalone benchmark programs in bench/: the best of a number of repetitions, or the best
// of those that finish inside a wall-clock window shared by copies started at once, so that the sum of the
// copies' results is what the machine gives when they all run (the bound for a run on as many ranks).
#pragma once

#include <algorithm>
#include <chrono>
#include <thread>

namespace bench {

using Clock = std::chrono::steady_clock;

inline double seconds_between(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

// Converts a wall-clock time (seconds since the epoch) to the steady clock, so the window is shared between
// processes but timed with a monotonic clock.
inline Clock::time_point steady_time_of(double epoch_seconds) {
  const double now_epoch =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(epoch_seconds - now_epoch));
}

struct Timing {
  int repetitions = 10;
  double start_at_epoch_seconds = -1.0;  // negative: no window, run `repetitions` at once
  double duration_seconds = 3.0;
};

// How many timed calls a best-of measurement makes: at least `at_least`, and as many as take about
// `total_seconds` when one takes `one_call_seconds` (an untimed first call's), at most `at_most`. On the 2-core
// development VM the best of three calls under a few milliseconds still carried an interruption now and then:
// a 64^3 direct Poisson solve read 3.6 ms at best of 3 and 1.7 ms at best of 100 on the same build.
inline int repetitions_for(double one_call_seconds, int at_least, double total_seconds = 0.25, int at_most = 1000) {
  const double wanted = one_call_seconds > 0 ? total_seconds / one_call_seconds : at_most;
  return std::max(at_least, static_cast<int>(std::min(wanted, static_cast<double>(at_most))));
}

// The best seconds of one call of `work` (0 when no repetition finished inside the window).
template <class Work>
double best_seconds(const Timing& timing, Work&& work) {
  double best = 0;
  const auto count = [&best](Clock::time_point t0, Clock::time_point t1) {
    const double s = seconds_between(t0, t1);
    best = best == 0 ? s : std::min(best, s);
  };
  if (timing.start_at_epoch_seconds < 0) {
    for (int r = 0; r < timing.repetitions; ++r) {
      const auto t0 = Clock::now();
      work();
      count(t0, Clock::now());
    }
    return best;
  }
  const auto window_start = steady_time_of(timing.start_at_epoch_seconds);
  const auto window_end =
      window_start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timing.duration_seconds));
  std::this_thread::sleep_until(window_start);
  while (Clock::now() < window_end) {
    const auto t0 = Clock::now();
    work();
    const auto t1 = Clock::now();
    if (t1 <= window_end) count(t0, t1);
  }
  return best;
}

}  // namespace bench
