#pragma once
// Incompressible Navier-Stokes on a periodic box, pseudo-spectral: velocity held in Fourier space
// on the distributed FFT's pencils; the nonlinear term in rotational form u x omega evaluated in
// physical space with 2/3-rule dealiasing; pressure removed by projection onto divergence-free
// fields; viscosity integrated exactly by an integrating factor; classical RK4 in the
// integrating-factor frame (Lawson); dt from a CFL number.
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "io/deck.hpp"
#include "solvers/common/fft/distributed_fft.hpp"
#include "solvers/solver.hpp"

namespace meridian::cfd {

enum class InitialField { taylor_green, random };

struct Settings {
  std::array<long, 3> cells{32, 32, 32};
  std::array<int, 2> process_grid{0, 0};
  double length = 2 * 3.141592653589793;  // box side, the same on every axis
  double viscosity = 1.0 / 1600;          // kinematic, length^2/time
  double cfl = 1.0;
  double fixed_dt = 0;  // > 0: this step instead of the CFL one
  double forcing_rate = 0;  // linear forcing A u (Lundgren 2003), 1/time
  InitialField initial = InitialField::taylor_green;
  std::uint64_t seed = 1;
  double peak_wavenumber = 4;  // random field: E(k) ~ k^4 exp(-2 (k/k0)^2)
  double initial_energy = 0.5;
  bool passive_scalar = false;    // theta, carried by the flow: d theta/dt + u . grad theta = kappa lap theta
  double scalar_diffusivity = 0;  // kappa, length^2/time
  fft::PlanEffort planning = fft::PlanEffort::estimate;
};

void declare_keys(io::Schema& schema);
// Every check of build but allocation: for `meridian check` (collective).
void validate(const io::Deck& deck, MPI_Comm comm);
std::unique_ptr<solvers::Solver> build(const io::Deck& deck, MPI_Comm comm);

class SpectralNavierStokes final : public solvers::Solver {
 public:
  using Vector = std::array<fft::ComplexPencil, 3>;
  using RealVector = std::array<fft::RealPencil, 3>;
  // The transported fields in Fourier space: u, v, w, and theta when there is a passive scalar.
  using Fields = std::vector<fft::ComplexPencil>;

  SpectralNavierStokes(Settings settings, MPI_Comm comm);

  double stable_dt(double time) override;
  void step(double time, double dt) override;
  std::vector<solvers::Scalar> diagnostics(double time) override;
  std::vector<solvers::Scalar> progress(double dt) const override;
  double work_per_step() const override { return static_cast<double>(fft_.global_cells()); }
  std::string work_unit() const override { return "cell-updates"; }
  std::string layout() const override;
  const std::vector<io::HostDataset>& output_fields() override;
  const std::vector<io::HostDataset>& state() override;
  std::vector<io::DatasetBox> state_layout() const override;
  void restore(const std::vector<io::HostDataset>& state) override;
  std::vector<solvers::Scalar> state_scalars() const override;
  void restore_scalars(const std::vector<solvers::Scalar>& scalars) override;

 private:
  // The shell-averaged energy spectrum E(k) for integer |k| (in units of 2 pi / length), on every rank.
  void energy_spectrum(std::vector<double>& spectrum);
  void make_output_datasets();
  void nonlinear(const Fields& in, const Fields& out);
  void scalar_advection(const fft::ComplexPencil& theta_hat, const fft::ComplexPencil& out);
  void scalar_gradient(const fft::ComplexPencil& theta_hat);
  void to_physical(const Vector& spectral, const RealVector& physical);
  void set_taylor_green();
  void set_random_field();
  void set_scalar();
  double max_speed_ratio();  // max over cells of sum over axes |u_i| / h
  io::DatasetBox real_box(const std::string& name) const;

  Settings s_;
  fft::DistributedFFT fft_;
  MPI_Comm comm_;
  Fields state_, a_, b_, c_, d_, v_;
  std::vector<double> diffusivity_;  // per transported field: nu for velocity, kappa for theta
  // A step's integrating factors E(h/2), E(h) by field and shell q = ix^2 + iy^2 + iz^2 (set_decay_factors).
  Kokkos::View<double***> decay_;
  Vector u_hat_, scratch_;             // u_hat_ views the velocity part of state_
  RealVector u_, omega_;
  fft::RealPencil divergence_;
  double last_dt_ = 0, last_ratio_ = 0;
  double previous_energy_ = -1, previous_time_ = 0;
  bool velocity_is_current_ = false;  // u_ holds the state's velocity in physical space
  // Host staging, made once: output datasets, the checkpointed state, and (GPU builds) u_hat's mirror.
  std::vector<io::HostDataset> output_, staged_state_;
  std::vector<double> spectrum_local_, spectrum_;
  std::array<fft::ComplexPencil::HostMirror, 3> u_hat_host_;
};

}  // namespace meridian::cfd
