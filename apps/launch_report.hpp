#pragma once
// What each phase of a run launched, for `meridian run --count-launches` (parallel/launch_counts.hpp): the first
// step apart (it may make plans or start a multistep scheme), the other steps as the mean and the largest per
// step, and the work between steps (a diagnostics record, an output, a checkpoint) per call. Rank 0's counts:
// the ranks of one grid launch alike, and their messages are counted where they are staged.
#include <array>
#include <string>

#include "parallel/launch_counts.hpp"

namespace meridian::app {

enum class CountedPhase { first_step, step, diagnostics, output, checkpoint };

class LaunchReport {
 public:
  void add(CountedPhase phase, const parallel::LaunchCounts& counts);
  // One line per phase that ran: calls, kernels, reductions, library calls, fences, distributed FFTs, halo
  // exchanges, copies by direction, MB
  // between host and device, and the launch-bound milliseconds these imply on a GPU. Rows are named
  // first_step, step_mean, step_max, diagnostics, output and checkpoint (per call), one word each, for scripts.
  std::string table() const;

 private:
  struct Tally {
    long calls = 0;
    parallel::LaunchCounts sum, largest;
  };
  std::array<Tally, 5> tallies_;
};

// Adds what runs during its lifetime to a report's phase; does nothing unless counting is enabled.
class CountedScope {
 public:
  CountedScope(LaunchReport& report, CountedPhase phase);
  ~CountedScope();
  CountedScope(const CountedScope&) = delete;
  CountedScope& operator=(const CountedScope&) = delete;

 private:
  LaunchReport& report_;
  CountedPhase phase_;
  parallel::LaunchCounts start_;
};

}  // namespace meridian::app
