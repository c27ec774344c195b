#pragma once
// Wall-clock time per phase of a run (compute, halo exchange, FFT, output, ...), summed over the run.
// One process-wide table, so the layers that do the work record it without being handed a timer.
// Phases nest: a timer started inside another records under "outer/inner", so the FFT time spent in
// a time step is told apart from the FFT time spent writing output.
#include <chrono>
#include <map>
#include <string>

namespace meridian::timing {

std::map<std::string, double>& phase_seconds();

class ScopedTimer {
 public:
  explicit ScopedTimer(const std::string& phase);
  ~ScopedTimer();
  ScopedTimer(const ScopedTimer&) = delete;
  ScopedTimer& operator=(const ScopedTimer&) = delete;

 private:
  std::string path_, outer_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace meridian::timing
