#pragma once
// The interface between the driver and a solver. The driver owns time, output cadence,
// checkpoints and progress; a solver owns its physics and says what its state is as named
// global datasets, so io/ can write and read it back on any rank count.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "io/dataset.hpp"

namespace meridian::solvers {

struct Scalar {
  std::string name;
  double value = 0;
  // False for values that are NaN by design when not applicable (an error norm with no exact solution);
  // any other non-finite diagnostic stops the run.
  bool must_be_finite = true;
  std::string unit;  // stored with the diagnostics dataset ("1" for a pure number)
};

class Solver {
 public:
  virtual ~Solver() = default;

  // Largest step the method allows at `time` (collective).
  virtual double stable_dt(double time) = 0;
  // Advances the state from `time` to `time + dt`.
  virtual void step(double time, double dt) = 0;
  // Whether the last step ended early because a stop was requested (solvers::stop_requested_now),
  // agreed by every rank, at a point the state continues from: the same step(time, dt) called again,
  // after a checkpoint and restart too, finishes it with the bits of an uninterrupted step.
  virtual bool step_interrupted() const { return false; }

  // Scalars recorded in the diagnostics time series (collective; equal on every rank).
  virtual std::vector<Scalar> diagnostics(double time) = 0;
  // What the driver's time is, for the output's CF time axis: physical time in seconds since `epoch` (the
  // deck's run.epoch, "YYYY-MM-DD hh:mm:ss"), unless a solver's time is another quantity.
  virtual io::TimeAxis time_axis(const std::string& epoch) const { return {"seconds since " + epoch, "time", true}; }
  // The same columns for a record between output times, where a solver may put NaN in place of what
  // is costly to compute (advection's error norms evaluate the exact solution at 9 points a cell).
  virtual std::vector<Scalar> diagnostics_between_outputs(double time) { return diagnostics(time); }
  // A few numbers for the progress line, e.g. the Courant number of the last step. The driver asks every
  // rank at the same steps and prints rank 0's, so this may reduce over ranks (what a step does not need,
  // such as the Courant number of a fixed dt, is computed here, every progress line, not every step).
  virtual std::vector<Scalar> progress(double dt) const = 0;
  // The solver's own end condition (e.g. a target standard error); the driver also stops at end_time.
  virtual bool finished() const { return false; }

  // Work done by one step and its unit, for the throughput report ("cell-updates", "path-steps").
  virtual double work_per_step() const = 0;
  virtual std::string work_unit() const = 0;
  // The parallel layout in words, for the run summary.
  virtual std::string layout() const = 0;
  // The solver's own lines for the end of the run (prices beside their closed forms, say).
  virtual std::string report() const { return {}; }

  // Fields written at output times, staged to the host into buffers the solver made once.
  virtual const std::vector<io::HostDataset>& output_fields() = 0;
  // Everything needed to continue bitwise, staged to the host likewise.
  virtual const std::vector<io::HostDataset>& state() = 0;
  // The boxes this rank holds of each state dataset, to read a checkpoint into.
  virtual std::vector<io::DatasetBox> state_layout() const = 0;
  virtual void restore(const std::vector<io::HostDataset>& state) = 0;
  // Scalars that belong to the state too (running sums, the previous record of a rate), stored as
  // checkpoint attributes; restore_scalars receives the same names with the saved values.
  virtual std::vector<Scalar> state_scalars() const { return {}; }
  virtual void restore_scalars(const std::vector<Scalar>& scalars) {}
};

}  // namespace meridian::solvers
