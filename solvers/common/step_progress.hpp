#pragma once
// Progress inside a long step, for solvers whose step runs in parts (Monte Carlo launches): they
// report the fraction of the step done after each part, and the driver decides whether to print
// it. Without a reporter installed, reports go nowhere.
#include <functional>

namespace meridian::solvers {

using StepProgressReporter = std::function<void(double fraction_done)>;
void set_step_progress_reporter(StepProgressReporter reporter);
void report_step_progress(double fraction_done);

}  // namespace meridian::solvers
