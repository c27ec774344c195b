#pragma once
// The run loop: time stepping, output at fixed simulated times, diagnostics, checkpoints and
// the end-of-run summary. Knows solvers only through solvers::Solver.
#include <mpi.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "io/deck.hpp"
#include "solvers/registry.hpp"

namespace meridian::app {

struct RunOptions {
  std::string deck_path;
  std::vector<io::Override> overrides;
  std::string restart;     // empty, "latest" or a checkpoint path
  std::string output_dir;  // overrides run.output_dir when set
};

class RestartError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The full schema for a deck: [solver], [run] and the keys of the solver the deck names.
io::Schema schema_for(const solvers::SolverEntry& solver);

// The [run] checks beyond the schema's (run.epoch is a date and time): io::DeckError naming the key. `meridian
// check` makes them as `run` does.
void validate_run_keys(const io::Deck& deck);

// The next step towards an output time `remaining` ahead (> 0), a step of `stable` being the solver's limit:
// the stable step, except that the last steps before the output time, up to four, are made equal, so that the
// last lands exactly on it and no step is a small fraction of the one before (a step a tenth of the last
// upsets a multistep scheme's extrapolation and a projection's pressure increment, and the records around
// it). `lands`: this step reaches the output time.
struct StepChoice {
  double dt;
  bool lands;
};
StepChoice step_towards(double remaining, double stable);

// Runs a deck to its end; returns an ExitCode. Throws io::DeckError, RestartError or others.
int run(const RunOptions& options, MPI_Comm comm);

}  // namespace meridian::app
