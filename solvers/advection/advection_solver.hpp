#pragma once
// Flux-form finite-volume transport of passive tracers in a prescribed non-divergent wind:
// WRF's 5th-order upwind fluxes, the Wicker-Skamarock RK3 integrator, and optionally Zalesak's
// flux-corrected transport on the last stage so each tracer stays within its local bounds.
// The tracers, stage values and face fluxes are in double or single precision (numerics.precision);
// sums over cells are accumulated in double either way.
#include <memory>
#include <string>
#include <vector>

#include "io/deck.hpp"
#include "mesh/decomposition.hpp"
#include "mesh/field.hpp"
#include "mesh/halo_exchange.hpp"
#include "solvers/advection/flux_form.hpp"
#include "solvers/advection/tracer_shapes.hpp"
#include "solvers/advection/winds.hpp"
#include "solvers/solver.hpp"

namespace meridian::advection {

struct Tracer {
  std::string name;
  Shape shape;
};

struct Settings {
  Wind wind;
  std::vector<Tracer> tracers;
  double courant = 0.8;
  bool limiter = false;  // Zalesak FCT
};

void declare_keys(io::Schema& schema);
// Every check of build but allocation: for `meridian check` (collective).
void validate(const io::Deck& deck, MPI_Comm comm);
std::unique_ptr<solvers::Solver> build(const io::Deck& deck, MPI_Comm comm);

// The stencil reaches three cells each way.
inline constexpr int halo_width = 3;

// Real (float or double) is the type of the tracers, the stage values and the face fluxes, and of the
// arithmetic of every flux and cell update.
template <class Real>
class AdvectionSolver final : public solvers::Solver {
 public:
  using Field = mesh::FieldOf<Real>;

  AdvectionSolver(const mesh::GridSpec& grid, Settings settings, MPI_Comm comm);

  double stable_dt(double time) override;
  void step(double time, double dt) override;
  std::vector<solvers::Scalar> diagnostics(double time) override;
  std::vector<solvers::Scalar> diagnostics_between_outputs(double time) override;
  std::vector<solvers::Scalar> progress(double dt) const override;
  double work_per_step() const override;
  std::string work_unit() const override { return "cell-updates"; }
  std::string layout() const override;
  const std::vector<io::HostDataset>& output_fields() override;
  const std::vector<io::HostDataset>& state() override;
  std::vector<io::DatasetBox> state_layout() const override;
  void restore(const std::vector<io::HostDataset>& state) override;

  const mesh::Decomposition& decomposition() const { return decomp_; }
  const Field& tracers() const { return q_; }

 private:
  // Mass, extremes and, when `with_errors` and the exact solution is known, the error norms.
  std::vector<solvers::Scalar> tracer_diagnostics(double time, bool with_errors);
  void compute_face_fluxes();
  void compute_max_courant_rate();
  void fill_cell_averages(const Field& target, double time) const;
  void rk_stage(const Field& out, const Field& in, double coefficient, double g);
  void fct_stage(const Field& out, const Field& in, double dt, double g);
  io::DatasetBox tracer_box(const Tracer& tracer) const;
  const std::vector<io::HostDataset>& stage_tracers();

  Settings settings_;
  mesh::Decomposition decomp_;
  mesh::HaloExchangeOf<Real> exchange_;
  int components_;
  double cell_volume_;
  std::array<double, 3> spacing_;
  std::array<FaceFlux<Real>, 3> face_flux_;  // volume flux through the lower face of each cell, per axis
  OpenFaces open_faces_;
  double max_courant_rate_ = 0;  // max over cells of sum over axes |u|/h, at g = 1
  double last_g_ = 1;
  Field q_, stage_a_, stage_b_;                    // state and RK stage values
  Field low_order_, limiter_ratio_;                // FCT scratch
  Kokkos::View<const Shape*> shapes_;              // the tracers' initial shapes, on the device
  typename Field::HostMirror q_host_;              // staging for output and checkpoints (GPU builds)
  std::vector<io::HostDataset> staged_;            // the tracers' interiors in double, as written, made once
  std::array<Field, 3> antidiffusive_;
};

}  // namespace meridian::advection
