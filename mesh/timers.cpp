#include "mesh/timers.hpp"

#include <exception>

#include "parallel/fence.hpp"

namespace meridian::timing {
namespace {
// The path of the phases open now, "outer/inner"; its capacity is kept, so growing it again does
// not allocate.
std::string& current_path() {
  static std::string path = [] {
    std::string p;
    p.reserve(256);
    return p;
  }();
  return path;
}

bool& fence_switch() {
  static bool on = false;
  return on;
}

void fence_if_asked() {
  if (fence_switch()) parallel::fence();
}

// A destructor may run while a fence's exception unwinds the stack, and after a device fault its own fence
// throws again: a second exception in flight is std::terminate. The fault is not lost: every later fence
// throws it too.
void fence_in_destructor() noexcept {
  try {
    fence_if_asked();
  } catch (const std::exception&) {
  }
}
}  // namespace

std::map<std::string, double, std::less<>>& phase_seconds() {
  static std::map<std::string, double, std::less<>> table;
  return table;
}

bool fences() { return fence_switch(); }
void set_fences(bool on) { fence_switch() = on; }

ScopedTimer::ScopedTimer(const char* phase) : outer_length_(current_path().size()) {
  fence_if_asked();
  std::string& path = current_path();
  if (!path.empty()) path += '/';
  path += phase;
  start_ = std::chrono::steady_clock::now();
}

ScopedTimer::~ScopedTimer() {
  fence_in_destructor();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::string& path = current_path();
  auto& table = phase_seconds();
  const auto it = table.find(path);
  if (it == table.end())
    table.emplace(path, seconds);
  else
    it->second += seconds;
  path.resize(outer_length_);
}

}  // namespace meridian::timing
