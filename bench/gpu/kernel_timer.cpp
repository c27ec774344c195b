// A Kokkos Tools library that times each kernel on a GPU: the device is synchronised where a kernel begins and
// where it ends, and per kernel name it sums the calls, the time inside and the time since the previous kernel
// ended (what ran between: library calls such as cuFFT's, copies, host work). The synchronisations serialise
// the run, so totals exceed an unobserved run's; per-call times are what it is for. Kokkos-free CUDA, loaded by
// Kokkos 4 from KOKKOS_TOOLS_LIBS; the table goes to KERNEL_TIMER_OUT (default standard error) at finalize:
//   calls  inside_ms  before_ms  kernel
// scripts/gpu/device_check.sh runs the direct pressure solve under it.
#include <cuda_runtime_api.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

namespace {

struct Totals {
  long calls = 0;
  double inside = 0, before = 0;  // seconds
};

using Clock = std::chrono::steady_clock;

struct Timer {
  std::map<std::string, Totals> kernels;
  Totals* current = nullptr;
  Clock::time_point began, last_end;
  bool ended_once = false;
};

Timer& timer() {
  static Timer t;
  return t;
}

double seconds(Clock::time_point from, Clock::time_point to) { return std::chrono::duration<double>(to - from).count(); }

void begin(const char* name, uint64_t* id) {
  cudaDeviceSynchronize();
  Timer& t = timer();
  const auto now = Clock::now();
  t.current = &t.kernels[name];
  if (t.ended_once) t.current->before += seconds(t.last_end, now);
  t.began = now;
  *id = 0;
}

void end() {
  cudaDeviceSynchronize();
  Timer& t = timer();
  const auto now = Clock::now();
  if (!t.current) return;
  t.current->inside += seconds(t.began, now);
  ++t.current->calls;
  t.last_end = now;
  t.ended_once = true;
  t.current = nullptr;
}

}  // namespace

extern "C" {

void kokkosp_init_library(const int, const uint64_t, const uint32_t, void*) {}

void kokkosp_finalize_library() {
  const char* path = std::getenv("KERNEL_TIMER_OUT");
  std::FILE* out = path ? std::fopen(path, "w") : stderr;
  if (!out) return;
  std::fprintf(out, "%-8s %12s %12s  %s\n", "calls", "inside_ms", "before_ms", "kernel");
  for (const auto& [name, totals] : timer().kernels)
    std::fprintf(out, "%-8ld %12.4f %12.4f  %s\n", totals.calls, 1e3 * totals.inside, 1e3 * totals.before, name.c_str());
  if (path) std::fclose(out);
}

void kokkosp_begin_parallel_for(const char* name, const uint32_t, uint64_t* id) { begin(name, id); }
void kokkosp_end_parallel_for(const uint64_t) { end(); }
void kokkosp_begin_parallel_reduce(const char* name, const uint32_t, uint64_t* id) { begin(name, id); }
void kokkosp_end_parallel_reduce(const uint64_t) { end(); }
void kokkosp_begin_parallel_scan(const char* name, const uint32_t, uint64_t* id) { begin(name, id); }
void kokkosp_end_parallel_scan(const uint64_t) { end(); }

}  // extern "C"
