#pragma once
// Wall-clock time per phase of a run (compute, halo exchange, FFT, output, ...), summed over the run.
// One process-wide table, so the layers that do the work record it without being handed a timer.
// Phases nest: a timer started inside another records under "outer/inner", so the FFT time spent in
// a time step is told apart from the FFT time spent writing output.
//
// Kernels launch asynchronously on a GPU: a timer reads the clock when its phase's work has been launched,
// not run, unless timers fence (set_fences, the deck's run.fenced_timing), when it waits for the device
// before each reading, so each phase holds the work launched inside it at two synchronisations a phase
// (gpu-review.md C2). Off by default on every backend; host backends run kernels to completion anyway.
// A timer allocates nothing once its phase has been seen, so timing a step allocates nothing.
#include <chrono>
#include <functional>
#include <map>
#include <string>

namespace meridian::timing {

std::map<std::string, double, std::less<>>& phase_seconds();

// Whether timers fence before reading the clock (default: off).
bool fences();
void set_fences(bool on);

class ScopedTimer {
 public:
  explicit ScopedTimer(const char* phase);
  ~ScopedTimer();
  ScopedTimer(const ScopedTimer&) = delete;
  ScopedTimer& operator=(const ScopedTimer&) = delete;

 private:
  std::size_t outer_length_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace meridian::timing
