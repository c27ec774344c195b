#include "mesh/timers.hpp"

namespace meridian::timing {
namespace {
std::string& current_path() {
  static std::string path;
  return path;
}
}  // namespace

std::map<std::string, double>& phase_seconds() {
  static std::map<std::string, double> table;
  return table;
}

ScopedTimer::ScopedTimer(const std::string& phase)
    : path_(current_path().empty() ? phase : current_path() + "/" + phase),
      outer_(current_path()),
      start_(std::chrono::steady_clock::now()) {
  current_path() = path_;
}

ScopedTimer::~ScopedTimer() {
  phase_seconds()[path_] += std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  current_path() = outer_;
}

}  // namespace meridian::timing
