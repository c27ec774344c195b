#pragma once
// The `atmosphere` solver kind: dry compressible Euler with gravity on a 2-D x-z slice or a 3-D x-y-z
// box, in flux form, the state (rho', rho u, rho w, (rho theta)', and rho v in 3-D) a perturbation about
// a hydrostatic background that is balanced at the discrete level (hydrostatic_background.hpp),
// p = c0 (rho theta)^gamma. miniWeather's numerics (Norman, ORNL): 4th-order interpolation to the faces
// with hyperviscosity, the Wicker-Skamarock RK3 in each direction, dimensional splitting whose order
// alternates every step (x to z, then z to x; or unsplit: every direction in every stage); optional
// constant eddy viscosity and diffusivity; free-slip ground and lid, periodic or free-slip side walls in
// x and y; an optional Rayleigh layer below the lid. The vertical (deck key mesh.nz) is the mesh's last
// axis: axis 1 in 2-D, so the slice's rows stay contiguous along x, axis 2 in 3-D.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "io/deck.hpp"
#include "mesh/decomposition.hpp"
#include "mesh/field.hpp"
#include "mesh/halo_exchange.hpp"
#include "solvers/atmosphere/atmosphere_deck.hpp"
#include "solvers/atmosphere/euler_flux.hpp"
#include "solvers/atmosphere/hydrostatic_background.hpp"
#include "solvers/atmosphere/moist_sounding.hpp"
#include "solvers/solver.hpp"

namespace meridian::atmosphere {

std::unique_ptr<solvers::Solver> build(const io::Deck& deck, MPI_Comm comm);

class AtmosphereSolver final : public solvers::Solver {
 public:
  AtmosphereSolver(const Settings& settings, MPI_Comm comm);

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

  const mesh::Decomposition& decomposition() const { return decomp_; }
  int dimensions() const { return s_.grid.dimensions; }
  // The mesh axis of the vertical: 1 in 2-D, 2 in 3-D.
  int vertical_axis() const { return s_.grid.dimensions - 1; }
  // The discrete background: cells by halo-inclusive local vertical index, faces by interior-relative
  // index (face k is the lower face of this rank's k-th cell).
  const BackgroundView& background_cells() const { return cells_; }
  const BackgroundView& background_faces() const { return faces_; }
  // By mesh axis (m): dx and dz in 2-D; dx, dy and dz in 3-D.
  double spacing(int axis) const { return spacing_[axis]; }
  const mesh::Field& fields() const { return q_; }
  // The water's partial densities (vapour, cloud; kg/m^3) where moisture is on, else an empty field.
  const mesh::Field& water() const { return water_; }
  // The background's water by halo-inclusive local vertical index (empty for dry air).
  const std::vector<WaterPoint>& background_water() const { return water_background_; }

 private:
  void sweep(int axis, double dt);
  void stage(int axis, const mesh::Field& initial, const mesh::Field& forcing, const mesh::Field& out, double dt);
  void tendencies(int axis, const mesh::Field& initial, const mesh::Field& forcing, const mesh::Field& out, double dt);
  void unsplit_step(double dt);
  // Max over cells and axes of (|u_axis| + c) / spacing (unsplit: summed), over all ranks.
  double signal_rate() const;
  void fill_halos_across(const mesh::Field& field, int axis);
  void fill_halos(const mesh::Field& field);
  void set_initial_state();
  DiscreteBackground discrete_background(double dz, long first_cell, long cells) const;
  // The water buffer that goes with an air buffer: water_ with q_, water_stage_ with stage_, and so on.
  const mesh::Field& water_of(const mesh::Field& air) const;
  void moist_physics(double dt);
  void set_last_pressure();
  void output_water(const mesh::Field::HostMirror& q);
  io::DatasetBox box(const std::string& name, const std::string& units) const;

  Settings s_;
  mesh::Decomposition decomp_;
  mesh::HaloExchange exchange_;
  int components_;  // components_of<2> or components_of<3>
  std::array<double, 3> spacing_;
  BackgroundView cells_, faces_;
  BackgroundView::HostMirror cells_host_;  // cells_ on the host, kept for output (the background does not change)
  Kokkos::View<const double*> rayleigh_rate_;  // 1/s by interior row
  mesh::Field q_, stage_, second_stage_;  // the last only for the unsplit scheme
  // Moisture: the saturated sounding (saturated_neutral only), the water's partial densities and their stage
  // buffers, their halo exchange, and the background's water by halo-inclusive level (host).
  std::optional<moist::SaturatedSounding> sounding_;
  mesh::Field water_, water_stage_, water_second_stage_;
  mesh::Field last_pressure_;  // Pa, each cell's at the end of the last step (the moist expansion's correction)
  std::unique_ptr<mesh::HaloExchange> water_exchange_;
  std::vector<WaterPoint> water_background_;
  Kokkos::View<const WaterPoint*> water_cells_;  // water_background_ on the device
  double background_water_[2] = {0, 0};          // kg of vapour and cloud (2-D: per metre along y)
  mesh::Field::HostMirror water_host_;
  Kokkos::View<double***, mesh::Layout> flux_;  // (component, row of (z, y), face) of the current sweep
  mesh::Field::HostMirror q_host_;
  bool x_first_ = true;     // the next step sweeps x to z (else z to x)
  double background_mass_ = 0, background_energy_ = 0;  // kg and J (2-D: per metre along y)
  double last_rate_ = 0;    // signal_rate() at the last step's start; set only where dt follows it
  std::vector<io::HostDataset> output_, staged_state_;
};

}  // namespace meridian::atmosphere
