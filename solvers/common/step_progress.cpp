#include "solvers/common/step_progress.hpp"

#include <utility>

namespace meridian::solvers {
namespace {
StepProgressReporter& reporter() {
  static StepProgressReporter installed;
  return installed;
}
}  // namespace

void set_step_progress_reporter(StepProgressReporter r) { reporter() = std::move(r); }

void report_step_progress(double fraction_done) {
  if (reporter()) reporter()(fraction_done);
}

}  // namespace meridian::solvers
