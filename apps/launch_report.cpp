#include "apps/launch_report.hpp"

#include <algorithm>
#include <iomanip>
#include <sstream>

namespace meridian::app {
namespace {

using parallel::Copy;
using parallel::LaunchCounts;

// One row: the counts divided by `per` (a mean over calls, or 1).
void write_row(std::ostringstream& out, const char* name, long calls, const LaunchCounts& c, double per) {
  const auto column = [&](double value, int width) { out << std::setw(width) << value / per; };
  out << "  " << std::left << std::setw(12) << name << std::right << std::setw(7) << calls << std::fixed
      << std::setprecision(1);
  column(static_cast<double>(c.kernels), 9);
  column(static_cast<double>(c.reductions), 12);
  column(static_cast<double>(c.library_calls), 9);
  column(static_cast<double>(c.fences), 8);
  column(static_cast<double>(c.transforms), 12);
  column(static_cast<double>(c.exchanges), 11);
  for (const Copy d : {Copy::host_to_device, Copy::device_to_host, Copy::device_to_device})
    column(static_cast<double>(c.copies[static_cast<int>(d)]), 6);
  out << std::setprecision(3);
  column((c.copy_bytes[static_cast<int>(Copy::host_to_device)] + c.copy_bytes[static_cast<int>(Copy::device_to_host)]) /
             1e6,
         11);
  column(1e3 * parallel::launch_bound_seconds(c), 14);
  out << "\n";
}

}  // namespace

void LaunchReport::add(CountedPhase phase, const LaunchCounts& counts) {
  Tally& t = tallies_[static_cast<int>(phase)];
  ++t.calls;
  t.sum += counts;
  t.largest.combine(counts, [](auto a, auto b) { return std::max(a, b); });
}

std::string LaunchReport::table() const {
  std::ostringstream out;
  out << "  launches (rank 0, per call; a GPU pays about " << 1e6 * parallel::seconds_per_launch
      << " us a launch or library call and " << 1e6 * parallel::seconds_per_synchronisation
      << " us a synchronisation)\n"
      << "  phase          calls  kernels  reductions  library  fences  transforms  exchanges   h2d   d2h   d2d  "
         "h2d+d2h MB  "
         "launch-bound ms\n";
  const auto row = [&](CountedPhase phase, const char* name, bool largest = false) {
    const Tally& t = tallies_[static_cast<int>(phase)];
    if (t.calls == 0) return;
    if (largest)
      write_row(out, name, t.calls, t.largest, 1.0);
    else
      write_row(out, name, t.calls, t.sum, static_cast<double>(t.calls));
  };
  row(CountedPhase::first_step, "first_step");
  row(CountedPhase::step, "step_mean");
  row(CountedPhase::step, "step_max", true);
  row(CountedPhase::diagnostics, "diagnostics");
  row(CountedPhase::output, "output");
  row(CountedPhase::checkpoint, "checkpoint");
  return out.str();
}

CountedScope::CountedScope(LaunchReport& report, CountedPhase phase)
    : report_(report), phase_(phase), start_(parallel::launch_counts()) {}

CountedScope::~CountedScope() {
  if (parallel::launch_counting_enabled()) report_.add(phase_, parallel::launch_counts() - start_);
}

}  // namespace meridian::app
