#include "mesh/timers.hpp"

#include <Kokkos_Core.hpp>

#include "mesh/message_buffer.hpp"

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
  static bool on = !mesh::device_memory_is_host;
  return on;
}

void fence_if_asked() {
  if (fence_switch()) Kokkos::fence();
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
  fence_if_asked();
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
