#pragma once
// Wall-clock time per phase of a run (compute, halo exchange, output, ...), summed over the run.
// One process-wide table, so the layers that do the work record it without being handed a timer.
#include <chrono>
#include <map>
#include <string>

namespace meridian::timing {

std::map<std::string, double>& phase_seconds();

class ScopedTimer {
 public:
  explicit ScopedTimer(std::string phase) : phase_(std::move(phase)), start_(std::chrono::steady_clock::now()) {}
  ~ScopedTimer() {
    phase_seconds()[phase_] += std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  ScopedTimer(const ScopedTimer&) = delete;
  ScopedTimer& operator=(const ScopedTimer&) = delete;

 private:
  std::string phase_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace meridian::timing
