#pragma once
// The `cfd_projection` solver kind: the deck, the driver's Solver interface, output and checkpoints
// around the MAC projection core (mac_projection.hpp): 2-D and 3-D boxes with walls (a moving lid), free
// slip, inflow, outflow or periodic faces (the lid-driven cavity, channels, Taylor-Green).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "io/deck.hpp"
#include "solvers/cfd/mac_projection.hpp"
#include "solvers/solver.hpp"

namespace meridian::cfd {

struct ProjectionSettings {
  mesh::GridSpec grid;
  MacSettings mac;
  double courant = 0.5, fixed_dt = 0;
  bool stop_unconverged = true;  // else warn and go on
  bool taylor_green = false;     // the initial field; at rest otherwise
  std::vector<double> probes;    // two points for the pressure difference, or none
  double reference_velocity = 1, reference_size = 1;  // of the force coefficients (2-D: a length, 3-D: an area)
};

void declare_projection_keys(io::Schema& schema);
// What a run of `deck` holds in the default memory space on this rank of `comm` (device memory on a GPU), in
// bytes: the deck's check against the memory there. Counted from what MacProjection allocates. Collective;
// throws mesh::DecompositionError where the grid does not split over the ranks.
std::uint64_t projection_bytes_per_rank(const io::Deck& deck, MPI_Comm comm);
void validate_projection(const io::Deck& deck, MPI_Comm comm);
std::unique_ptr<solvers::Solver> build_projection(const io::Deck& deck, MPI_Comm comm);

class ProjectionSolver final : public solvers::Solver {
 public:
  ProjectionSolver(const ProjectionSettings& settings, MPI_Comm comm);

  double stable_dt(double time) override;
  void step(double time, double dt) override;
  std::vector<solvers::Scalar> diagnostics(double time) override;
  std::vector<solvers::Scalar> progress(double dt) const override;
  double work_per_step() const override;
  std::string work_unit() const override { return "cell-updates"; }
  std::string layout() const override;
  const std::vector<io::HostDataset>& output_fields() override;
  const std::vector<io::HostDataset>& state() override;
  std::vector<io::DatasetBox> state_layout() const override;
  void restore(const std::vector<io::HostDataset>& state) override;
  std::vector<solvers::Scalar> state_scalars() const override;
  void restore_scalars(const std::vector<solvers::Scalar>& scalars) override;

 private:
  io::DatasetBox box(const std::string& name, const std::string& units) const;
  // Stops the run (or warns, as the deck says) when a solve missed its tolerance.
  void check(const sparse::SolveResult& result, const char* which);

  ProjectionSettings s_;
  MacProjection mac_;
  PressureProbes probes_;  // the deck's two points, or none
  int warned_ = 0;
  std::vector<io::HostDataset> output_, staged_state_;
};

}  // namespace meridian::cfd
