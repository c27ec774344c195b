#include "solvers/cfd/spectral_navier_stokes.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <sstream>

#include "mesh/reductions.hpp"
#include "parallel/copies.hpp"
#include "parallel/launch_policy.hpp"
#include "solvers/common/grid_config.hpp"
#include "solvers/common/memory_budget.hpp"
#include "solvers/common/kokkos_math.hpp"
#include "solvers/common/random/philox.hpp"

namespace meridian::cfd {

using fft::Complex;
using ModePolicy = parallel::Cells;

namespace {

// Host views over a dataset's values, for copies from and to the device without a temporary.
using RealHost = Kokkos::View<double***, mesh::Layout, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
using ComplexHost = Kokkos::View<Complex***, mesh::Layout, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

// Wavenumbers of this rank's spectral block (kx, ky, kz), in units of 2 pi / length.
struct Modes {
  long nx, ny, nz, kx0, ky0;
  double unit;  // 2 pi / length

  KOKKOS_INLINE_FUNCTION static long signed_index(long i, long n) { return 2 * i <= n ? i : i - n; }
  KOKKOS_INLINE_FUNCTION void integer(int i, int j, int l, long& ix, long& iy, long& iz) const {
    ix = kx0 + i, iy = signed_index(ky0 + j, ny), iz = signed_index(l, nz);
  }
  // |k|^2 = unit^2 q: the shell q = ix^2 + iy^2 + iz^2, from 0 to largest_shell().
  KOKKOS_INLINE_FUNCTION long shell(int i, int j, int l) const {
    long ix, iy, iz;
    integer(i, j, l, ix, iy, iz);
    return ix * ix + iy * iy + iz * iz;
  }
  long largest_shell() const { return (nx / 2) * (nx / 2) + (ny / 2) * (ny / 2) + (nz / 2) * (nz / 2); }
  KOKKOS_INLINE_FUNCTION void wavevector(int i, int j, int l, double& kx, double& ky, double& kz) const {
    long ix, iy, iz;
    integer(i, j, l, ix, iy, iz);
    kx = unit * ix, ky = unit * iy, kz = unit * iz;
  }
  // Orszag's 2/3 rule: only |k| < n/3 on every axis takes part in products. A product's modes then
  // stay below 2n/3, and those the grid folds back land at n/3 or beyond, where they are dropped;
  // keeping |k| = n/3 (n divisible by 3) would let their aliases in.
  KOKKOS_INLINE_FUNCTION bool resolved(int i, int j, int l) const {
    long ix, iy, iz;
    integer(i, j, l, ix, iy, iz);
    return 3 * ix < nx && 3 * (iy < 0 ? -iy : iy) < ny && 3 * (iz < 0 ? -iz : iz) < nz;
  }
  // The r2c half spectrum holds each kx once; all but kx = 0 and Nyquist stand for a conjugate pair.
  KOKKOS_INLINE_FUNCTION double weight(int i) const {
    const long ix = kx0 + i;
    return ix == 0 || 2 * ix == nx ? 1.0 : 2.0;
  }
};

Modes modes_of(const fft::DistributedFFT& fft, double length) {
  const auto n = fft.cells();
  const auto& b = fft.spectral_block();
  return Modes{n[0], n[1], n[2], b.offset[0], b.offset[1], 2 * pi / length};
}

ModePolicy mode_policy(const fft::DistributedFFT& fft) {
  const auto& c = fft.spectral_block().count;
  return ModePolicy{{0, 0, 0}, {c[0], c[1], c[2]}};
}

ModePolicy cell_policy(const fft::DistributedFFT& fft) {
  const auto& c = fft.real_block().count;
  return ModePolicy{{0, 0, 0}, {c[0], c[1], c[2]}};
}

KOKKOS_INLINE_FUNCTION Complex times_i(const Complex& a) { return Complex(-a.imag(), a.real()); }

// The integrating factors' second index: E(h/2), E(h); no_decay stands for E(0) = 1.
constexpr int half_step = 0, full_step = 1, no_decay = -1;

SpectralNavierStokes::Vector make_vector(const fft::DistributedFFT& fft, const std::string& label) {
  return {fft.make_spectral(label + "_x"), fft.make_spectral(label + "_y"), fft.make_spectral(label + "_z")};
}

SpectralNavierStokes::RealVector make_real_vector(const fft::DistributedFFT& fft, const std::string& label) {
  return {fft.make_real(label + "_x"), fft.make_real(label + "_y"), fft.make_real(label + "_z")};
}

// omega_hat = i k x u_hat
void curl(const Modes& m, const ModePolicy& policy, const SpectralNavierStokes::Vector& u,
          const SpectralNavierStokes::Vector& omega) {
  const auto ux = u[0], uy = u[1], uz = u[2], wx = omega[0], wy = omega[1], wz = omega[2];
  parallel::for_each(
      "cfd::curl", policy, KOKKOS_LAMBDA(const int i, const int j, const int l) {
        double kx, ky, kz;
        m.wavevector(i, j, l, kx, ky, kz);
        const Complex a = ux(i, j, l), b = uy(i, j, l), c = uz(i, j, l);
        wx(i, j, l) = times_i(ky * c - kz * b);
        wy(i, j, l) = times_i(kz * a - kx * c);
        wz(i, j, l) = times_i(kx * b - ky * a);
      });
}


// u = sin x cos y cos z, v = -cos x sin y cos z, w = 0 on the grid points of this rank's real block.
void taylor_green(const fft::DistributedFFT& fft, const SpectralNavierStokes::RealVector& velocity) {
  const auto& b = fft.real_block();
  const auto n = fft.cells();
  const double h[3] = {2 * pi / n[0], 2 * pi / n[1], 2 * pi / n[2]};  // the flow's own period is the box
  const long z0 = b.offset[0], y0 = b.offset[1];
  const auto u = velocity[0], v = velocity[1], w = velocity[2];
  parallel::for_each(
      "cfd::taylor_green", cell_policy(fft), KOKKOS_LAMBDA(const int k, const int j, const int i) {
        const double x = i * h[0], y = (y0 + j) * h[1], z = (z0 + k) * h[2];
        u(k, j, i) = km::sin(x) * km::cos(y) * km::cos(z);
        v(k, j, i) = -km::cos(x) * km::sin(y) * km::cos(z);
        w(k, j, i) = 0.0;
      });
}

// theta = cos x cos y cos z on the grid points.
void initial_scalar(const fft::DistributedFFT& fft, const fft::RealPencil& theta) {
  const auto& b = fft.real_block();
  const auto n = fft.cells();
  const double h[3] = {2 * pi / n[0], 2 * pi / n[1], 2 * pi / n[2]};
  const long z0 = b.offset[0], y0 = b.offset[1];
  parallel::for_each(
      "cfd::initial_scalar", cell_policy(fft), KOKKOS_LAMBDA(const int k, const int j, const int i) {
        theta(k, j, i) = km::cos(i * h[0]) * km::cos((y0 + j) * h[1]) * km::cos((z0 + k) * h[2]);
      });
}

// A solenoidal field with E(k) ~ k^4 exp(-2 (k/k0)^2), its phases from Philox keyed by the global
// wavenumber (unscaled, and Hermitian only after a round trip through physical space).
void random_solenoidal_field(const Modes& m, const ModePolicy& policy, random::Philox4x32::Key key, double k0,
                             const SpectralNavierStokes::Vector& u_hat) {
  const auto ux = u_hat[0], uy = u_hat[1], uz = u_hat[2];
  parallel::for_each(
      "cfd::random_field", policy, KOKKOS_LAMBDA(const int i, const int j, const int l) {
        long ix, iy, iz;
        m.integer(i, j, l, ix, iy, iz);
        const double k2 = static_cast<double>(ix * ix + iy * iy + iz * iz), k = km::sqrt(k2);
        if (k2 == 0 || !m.resolved(i, j, l)) {
          ux(i, j, l) = uy(i, j, l) = uz(i, j, l) = Complex(0, 0);
          return;
        }
        const std::uint64_t mode = static_cast<std::uint64_t>((ix * m.ny + m.ky0 + j) * m.nz + l);
        double g[8];
        random::normal_pair(random::Philox4x32::generate(random::counter_of(mode, 0), key), g[0], g[1]);
        random::normal_pair(random::Philox4x32::generate(random::counter_of(mode, 1), key), g[2], g[3]);
        random::normal_pair(random::Philox4x32::generate(random::counter_of(mode, 2), key), g[4], g[5]);
        Complex r[3] = {Complex(g[0], g[1]), Complex(g[2], g[3]), Complex(g[4], g[5])};
        const double kv[3] = {static_cast<double>(ix), static_cast<double>(iy), static_cast<double>(iz)};
        const Complex along = (kv[0] * r[0] + kv[1] * r[1] + kv[2] * r[2]) / k2;
        // E(k) ~ k^4 exp(-2 (k/k0)^2) spread over a shell of about 4 pi k^2 modes.
        const double amplitude = km::sqrt(k2 * km::exp(-2 * k2 / (k0 * k0)) / (4 * pi)) / k * k;
        ux(i, j, l) = amplitude * (r[0] - kv[0] * along);
        uy(i, j, l) = amplitude * (r[1] - kv[1] * along);
        uz(i, j, l) = amplitude * (r[2] - kv[2] * along);
      });
}

// u x omega, in place of omega, in physical space.
void cross_product(const ModePolicy& cells, const SpectralNavierStokes::RealVector& u,
                   const SpectralNavierStokes::RealVector& omega) {
  const auto ux = u[0], uy = u[1], uz = u[2], wx = omega[0], wy = omega[1], wz = omega[2];
  parallel::for_each(
      "cfd::cross_product", cells, KOKKOS_LAMBDA(const int k, const int j, const int i) {
        const double a = ux(k, j, i), b = uy(k, j, i), c = uz(k, j, i);
        const double p = wx(k, j, i), q = wy(k, j, i), r = wz(k, j, i);
        wx(k, j, i) = b * r - c * q;
        wy(k, j, i) = c * p - a * r;
        wz(k, j, i) = a * q - b * p;
      });
}

// Dealiases and projects the nonlinear term onto divergence-free fields, then adds the forcing A u_hat.
void project_and_force(const Modes& m, const ModePolicy& policy, const SpectralNavierStokes::Vector& out,
                       const SpectralNavierStokes::Vector& u_hat, double forcing) {
  const auto nx = out[0], ny = out[1], nz = out[2];
  const auto vx = u_hat[0], vy = u_hat[1], vz = u_hat[2];
  parallel::for_each(
      "cfd::project", policy, KOKKOS_LAMBDA(const int i, const int j, const int l) {
        double kx, ky, kz;
        m.wavevector(i, j, l, kx, ky, kz);
        const double k2 = kx * kx + ky * ky + kz * kz;
        if (k2 == 0 || !m.resolved(i, j, l)) {
          // The mean flow is conserved and the aliased modes take no part.
          nx(i, j, l) = ny(i, j, l) = nz(i, j, l) = Complex(0, 0);
          return;
        }
        const Complex a = nx(i, j, l), b = ny(i, j, l), c = nz(i, j, l);
        const Complex along = (kx * a + ky * b + kz * c) / k2;
        nx(i, j, l) = a - kx * along + forcing * vx(i, j, l);
        ny(i, j, l) = b - ky * along + forcing * vy(i, j, l);
        nz(i, j, l) = c - kz * along + forcing * vz(i, j, l);
      });
}

// grad theta = i k theta_hat.
void gradient(const Modes& m, const ModePolicy& policy, const fft::ComplexPencil& theta_hat,
              const SpectralNavierStokes::Vector& grad) {
  const auto gx = grad[0], gy = grad[1], gz = grad[2];
  parallel::for_each(
      "cfd::scalar_gradient", policy, KOKKOS_LAMBDA(const int i, const int j, const int l) {
        double kx, ky, kz;
        m.wavevector(i, j, l, kx, ky, kz);
        const Complex t = times_i(theta_hat(i, j, l));
        gx(i, j, l) = kx * t, gy(i, j, l) = ky * t, gz(i, j, l) = kz * t;
      });
}

// -u . g in physical space.
void minus_u_dot(const ModePolicy& cells, const SpectralNavierStokes::RealVector& u,
                 const SpectralNavierStokes::RealVector& g, const fft::RealPencil& out) {
  const auto ux = u[0], uy = u[1], uz = u[2], dx = g[0], dy = g[1], dz = g[2];
  parallel::for_each(
      "cfd::scalar_advection", cells, KOKKOS_LAMBDA(const int k, const int j, const int i) {
        out(k, j, i) = -(ux(k, j, i) * dx(k, j, i) + uy(k, j, i) * dy(k, j, i) + uz(k, j, i) * dz(k, j, i));
      });
}

// Zero beyond the 2/3 cut: the initial fields hold there only the round-off of their transforms,
// which would otherwise stay in the state for good.
void truncate_to_resolved(const Modes& m, const ModePolicy& policy, const fft::ComplexPencil& field) {
  parallel::for_each(
      "cfd::truncate", policy, KOKKOS_LAMBDA(const int i, const int j, const int l) {
        if (!m.resolved(i, j, l)) field(i, j, l) = Complex(0, 0);
      });
}

// The mean of theta is conserved and the aliased modes take no part.
void dealias_scalar(const Modes& m, const ModePolicy& policy, const fft::ComplexPencil& out) {
  parallel::for_each(
      "cfd::scalar_dealias", policy, KOKKOS_LAMBDA(const int i, const int j, const int l) {
        long ix, iy, iz;
        m.integer(i, j, l, ix, iy, iz);
        if (!m.resolved(i, j, l) || (ix == 0 && iy == 0 && iz == 0)) out(i, j, l) = Complex(0, 0);
      });
}

// Max over this rank's cells of sum over axes |u_i| / h_i.
double max_speed_over_spacing(const ModePolicy& cells, const SpectralNavierStokes::RealVector& u,
                              Kokkos::Array<double, 3> inverse_h) {
  const auto ux = u[0], uy = u[1], uz = u[2];
  double largest = 0;
  parallel::reduce(
      "cfd::speed", cells,
      KOKKOS_LAMBDA(const int k, const int j, const int i, double& m) {
        const double r = km::fabs(ux(k, j, i)) * inverse_h[0] + km::fabs(uy(k, j, i)) * inverse_h[1] +
                         km::fabs(uz(k, j, i)) * inverse_h[2];
        m = max_of(m, r);
      },
      Kokkos::Max<double>(largest));
  return largest;
}

}  // namespace

void declare_keys(io::Schema& schema) {
  using io::KeyType;
  solvers::declare_mesh_keys(schema, solvers::MeshKind::spectral);
  const std::string s = "cfd";
  schema.add({s, "initial", KeyType::string, std::string("taylor_green"), "",
              "taylor_green: u = sin x cos y cos z, v = -cos x sin y cos z, w = 0 (2-D: the same at z = 0); "
              "random: a solenoidal field with E(k) ~ k^4 exp(-2 (k/k0)^2), the same for any rank count",
              {"taylor_green", "random"}});
  schema.add({s, "length", KeyType::real, 2 * pi, "length", "side of the periodic box", {}, 0, 1e12, true});
  schema.add({s, "viscosity", KeyType::real, 1.0 / 1600, "length^2/time",
              "kinematic viscosity nu (Taylor-Green at Re = 1600 with V0 = L = 1: 1/1600)", {}, 0, 1e6});
  schema.add({s, "cfl", KeyType::real, 1.0, "1", "dt = cfl / max over cells of sum over axes |u_i|/h", {}, 0, 3, true});
  schema.add({s, "dt", KeyType::real, 0.0, "time", "a fixed time step instead of the CFL one (0: use cfl)", {}, 0, 1e6});
  schema.add({s, "forcing_rate", KeyType::real, 0.0, "1/time",
              "linear forcing A u (Lundgren 2003) for statistically steady turbulence (0: decaying)", {}, -1e6, 1e6});
  schema.add({s, "seed", KeyType::integer, 1L, "1", "seed of the random initial field", {}, 0, 4e18});
  schema.add({s, "peak_wavenumber", KeyType::real, 4.0, "2 pi / length", "k0 of the random field's spectrum", {}, 0, 1e6, true});
  schema.add({s, "initial_energy", KeyType::real, 0.5, "length^2/time^2", "kinetic energy of the random field", {}, 0, 1e12, true});
  schema.add({s, "passive_scalar", KeyType::boolean, false, "",
              "carry a passive scalar theta, starting from theta = cos x cos y cos z (2-D: cos x cos y)"});
  schema.add({s, "scalar_diffusivity", KeyType::real, 1.0 / 1600, "length^2/time", "diffusivity kappa of theta",
              {}, 0, 1e6});
  schema.add({s, "fft_planning", KeyType::string, std::string("estimate"), "",
              "FFTW planning: estimate (deterministic, so restarts repeat the same bits) or measure (faster "
              "plans, possibly other bits run to run)",
              {"estimate", "measure"}});
}

namespace {
// The solver's settings from a deck, every check a deck can fail included.
Settings settings_of(const io::Deck& deck) {
  Settings s;
  s.cells = solvers::grid_cells(deck);
  // A pseudo-spectral axis needs modes to keep after dealiasing (|k| < n/3 leaves none below n = 3).
  if (s.cells[0] < 4) deck.fail("mesh", "nx", "the spectral solver needs nx >= 4");
  if (s.cells[1] < 4) deck.fail("mesh", "ny", "the spectral solver needs ny >= 4");
  if (s.cells[2] != 1 && s.cells[2] < 4) deck.fail("mesh", "nz", "the spectral solver needs nz = 1 (2-D) or nz >= 4");
  const auto& grid = deck.integers("mesh", "process_grid");
  if (grid[0] > 1) deck.fail("mesh", "process_grid", "real-space pencils keep x whole: the x entry must be 0 or 1");
  s.process_grid = {static_cast<int>(grid[1]), static_cast<int>(grid[2])};
  s.length = deck.real("cfd", "length");
  s.viscosity = deck.real("cfd", "viscosity");
  s.cfl = deck.real("cfd", "cfl");
  s.fixed_dt = deck.real("cfd", "dt");
  s.forcing_rate = deck.real("cfd", "forcing_rate");
  s.initial = deck.string("cfd", "initial") == "random" ? InitialField::random : InitialField::taylor_green;
  s.seed = static_cast<std::uint64_t>(deck.integer("cfd", "seed"));
  s.peak_wavenumber = deck.real("cfd", "peak_wavenumber");
  s.initial_energy = deck.real("cfd", "initial_energy");
  s.passive_scalar = deck.boolean("cfd", "passive_scalar");
  s.scalar_diffusivity = deck.real("cfd", "scalar_diffusivity");
  s.planning = deck.string("cfd", "fft_planning") == "measure" ? fft::PlanEffort::measure : fft::PlanEffort::estimate;
  return s;
}
}  // namespace

namespace {
// Bytes a rank needs, in pencils of its share of the modes (complex) and of the cells (real): the
// state and the RK4 stages (6 per transported field), the curl scratch (3), the FFT's four pencils
// and two message buffers, the staged checkpoint (1 per field) and, on a GPU, u_hat's host mirror (3);
// velocity, vorticity and divergence in physical space (7) and the staged output fields (7); the
// integrating factors by shell; and what the FFT library takes beside them (cuFFT's work areas and c2r copy).
void require_memory(const io::Deck& deck, const Settings& s, MPI_Comm comm) {
  int ranks = 1;
  MPI_Comm_size(comm, &ranks);
  const auto per_rank = [ranks](std::uint64_t total) { return total == UINT64_MAX ? total : (total + ranks - 1) / ranks; };
  const auto n = [&s](int axis) { return static_cast<std::uint64_t>(s.cells[axis]); };
  const std::uint64_t modes = per_rank(solvers::saturating_product({n(0) / 2 + 1, n(1), n(2)}));
  const std::uint64_t cells = per_rank(solvers::saturating_product({n(0), n(1), n(2)}));
  const std::uint64_t fields = s.passive_scalar ? 4 : 3;
  const std::uint64_t complex_pencils = 7 * fields + 3 + 6 + (parallel::device_memory_is_host ? 0 : 3);
  // The integrating factors: two per field and shell, on every rank.
  const auto square = [&n](int axis) { return solvers::saturating_product({n(axis) / 2, n(axis) / 2}); };
  const std::uint64_t shells =
      solvers::saturating_sum(solvers::saturating_sum(square(0), square(1)), solvers::saturating_sum(square(2), 1));
  const std::uint64_t bytes = solvers::saturating_sum(
      solvers::saturating_sum(solvers::saturating_sum(solvers::saturating_product({modes, complex_pencils, 16}),
                                                      solvers::saturating_product({cells, 14, 8})),
                              solvers::saturating_product({shells, fields, 2, 8})),
      fft::DistributedFFT::library_bytes(comm, s.cells, s.process_grid));
  solvers::require_memory(deck, "mesh", "nx", bytes, "the spectral state, RK4 stages and FFT pencils", comm);
}
}  // namespace

void validate(const io::Deck& deck, MPI_Comm comm) {
  const Settings s = settings_of(deck);
  try {
    fft::DistributedFFT::check_layout(comm, s.cells, s.process_grid);
  } catch (const mesh::DecompositionError& e) {
    deck.fail("mesh", e.key(), e.what());
  }
  require_memory(deck, s, comm);
}

std::unique_ptr<solvers::Solver> build(const io::Deck& deck, MPI_Comm comm) {
  const Settings s = settings_of(deck);
  try {
    require_memory(deck, s, comm);
    return std::make_unique<SpectralNavierStokes>(s, comm);
  } catch (const mesh::DecompositionError& e) {
    deck.fail("mesh", e.key(), e.what());
  }
}

SpectralNavierStokes::SpectralNavierStokes(Settings settings, MPI_Comm comm)
    : s_(settings), fft_(comm, settings.cells, settings.process_grid, settings.planning), comm_(comm) {
  diffusivity_ = {s_.viscosity, s_.viscosity, s_.viscosity};
  if (s_.passive_scalar) diffusivity_.push_back(s_.scalar_diffusivity);
  for (auto* f : {&state_, &a_, &b_, &c_, &d_, &v_})
    for (std::size_t c = 0; c < diffusivity_.size(); ++c) f->push_back(fft_.make_spectral("cfd::field"));
  decay_ = Kokkos::View<double***>("cfd::decay_factors", diffusivity_.size(), 2,
                                   static_cast<std::size_t>(modes_of(fft_, s_.length).largest_shell() + 1));
  u_hat_ = {state_[0], state_[1], state_[2]};
  scratch_ = make_vector(fft_, "cfd::scratch");
  u_ = make_real_vector(fft_, "cfd::u");
  omega_ = make_real_vector(fft_, "cfd::omega");
  divergence_ = fft_.make_real("cfd::divergence");
  if (s_.initial == InitialField::taylor_green)
    set_taylor_green();
  else
    set_random_field();
  if (s_.passive_scalar) set_scalar();
  for (const auto& field : state_) truncate_to_resolved(modes_of(fft_, s_.length), mode_policy(fft_), field);
  make_output_datasets();
  for (const auto& box : state_layout()) {
    staged_state_.push_back({box, {}});
    staged_state_.back().values.resize(box.local_values());
  }
  if (!parallel::device_memory_is_host)
    for (int c = 0; c < 3; ++c) u_hat_host_[c] = Kokkos::create_mirror(u_hat_[c]);
}

void SpectralNavierStokes::set_scalar() {
  initial_scalar(fft_, divergence_);
  fft_.forward(divergence_, state_[3]);
}

void SpectralNavierStokes::to_physical(const Vector& spectral, const RealVector& physical) {
  for (int c = 0; c < 3; ++c) fft_.backward(spectral[c], physical[c]);
}

void SpectralNavierStokes::set_taylor_green() {
  taylor_green(fft_, u_);
  for (int c = 0; c < 3; ++c) fft_.forward(u_[c], u_hat_[c]);
}

namespace {
// (1/2) <|f|^2> summed over the given fields, from their spectra: with the unnormalised
// transform, <|f|^2> = sum over k of |f_hat|^2 / N^2 (Parseval), pairs counted through the weights.
template <class Pencils>
double half_mean_square(const Modes& m, const ModePolicy& policy, const Pencils& fields, double cells, MPI_Comm comm) {
  double sum = 0;
  for (const auto& field : fields) {
    const auto f = field;
    double part = 0;
    parallel::reduce(
        "cfd::mean_square", policy,
        KOKKOS_LAMBDA(const int i, const int j, const int l, double& e) {
          // re^2 + im^2, not |f|^2 through a hypot: exact where the hypot rounds, and a fifth of the time.
          const auto v = f(i, j, l);
          e += m.weight(i) * (v.real() * v.real() + v.imag() * v.imag());
        },
        part);
    sum += part;
  }
  return 0.5 * mesh::global_sum(sum, comm) / (cells * cells);
}

void scale(const ModePolicy& policy, const SpectralNavierStokes::Vector& u, double factor) {
  for (const auto& c : u) {
    const auto v = c;
    parallel::for_each(
        "cfd::scale", policy, KOKKOS_LAMBDA(const int i, const int j, const int l) { v(i, j, l) *= factor; });
  }
}
}  // namespace

// Random phases and directions from Philox keyed by the global wavenumber, so every rank count
// draws the same field; the spectrum shape sets the amplitude of each shell.
void SpectralNavierStokes::set_random_field() {
  const Modes m = modes_of(fft_, s_.length);
  const auto policy = mode_policy(fft_);
  random_solenoidal_field(m, policy, random::key_of(s_.seed), s_.peak_wavenumber, u_hat_);
  // A real field's spectrum is Hermitian; a round trip through physical space makes it so.
  to_physical(u_hat_, u_);
  for (int c = 0; c < 3; ++c) fft_.forward(u_[c], u_hat_[c]);
  const double energy = half_mean_square(m, policy, u_hat_, static_cast<double>(fft_.global_cells()), comm_);
  if (energy > 0) scale(policy, u_hat_, std::sqrt(s_.initial_energy / energy));
}

// out = dealiased, projected FFT(u x omega) (+ A u_hat), and -FFT(u . grad theta) for the scalar:
// the right-hand sides without diffusion.
void SpectralNavierStokes::nonlinear(const Fields& in, const Fields& out) {
  const Vector u_hat{in[0], in[1], in[2]};
  const Modes m = modes_of(fft_, s_.length);
  const auto policy = mode_policy(fft_);
  curl(m, policy, u_hat, scratch_);
  // The first stage's velocity is the state's, already in physical space when dt came from the CFL.
  const bool from_state = in[0].data() == state_[0].data();
  if (!(from_state && velocity_is_current_)) to_physical(u_hat, u_);
  velocity_is_current_ = from_state;
  to_physical(scratch_, omega_);
  cross_product(cell_policy(fft_), u_, omega_);
  for (int c = 0; c < 3; ++c) fft_.forward(omega_[c], out[c]);
  project_and_force(m, policy, Vector{out[0], out[1], out[2]}, u_hat, s_.forcing_rate);
  if (s_.passive_scalar) scalar_advection(in[3], out[3]);
}

// grad theta into scratch_, in Fourier space.
void SpectralNavierStokes::scalar_gradient(const fft::ComplexPencil& theta_hat) {
  gradient(modes_of(fft_, s_.length), mode_policy(fft_), theta_hat, scratch_);
}

// -u . grad theta, with u in physical space already (left in u_ by the velocity part).
void SpectralNavierStokes::scalar_advection(const fft::ComplexPencil& theta_hat, const fft::ComplexPencil& out) {
  scalar_gradient(theta_hat);
  to_physical(scratch_, omega_);
  minus_u_dot(cell_policy(fft_), u_, omega_, divergence_);
  fft_.forward(divergence_, out);
  dealias_scalar(modes_of(fft_, s_.length), mode_policy(fft_), out);
}

double SpectralNavierStokes::max_speed_ratio() {
  to_physical(u_hat_, u_);
  velocity_is_current_ = true;
  const auto n = fft_.cells();
  const double largest = max_speed_over_spacing(cell_policy(fft_), u_, {n[0] / s_.length, n[1] / s_.length, n[2] / s_.length});
  return mesh::global_max(largest, comm_);
}

double SpectralNavierStokes::stable_dt(double) {
  last_ratio_ = max_speed_ratio();
  if (s_.fixed_dt > 0) return s_.fixed_dt;
  return last_ratio_ > 0 ? s_.cfl / last_ratio_ : 1e300;  // a flow at rest: the driver's next stop decides
}

namespace {
// E(h/2) and E(h) of every field and shell for a step of length h: two exps a shell, which every mode of the
// shell looks up. Computed mode by mode they were 6 exps a mode and field a step, most of the stage kernels'
// time on a CPU.
void set_decay_factors(const Kokkos::View<double***>& decay, const std::vector<double>& diffusivity, double unit,
                       double h) {
  Kokkos::Array<double, 4> nu{};
  for (std::size_t c = 0; c < diffusivity.size(); ++c) nu[c] = diffusivity[c];
  const parallel::Plane shells{{0, 0}, {static_cast<long>(decay.extent(0)), static_cast<long>(decay.extent(2))}};
  parallel::for_each("cfd::decay_factors", shells, KOKKOS_LAMBDA(const long c, const long q) {
    const double exponent = -nu[c] * (unit * unit * static_cast<double>(q)) * h;
    decay(c, half_step, q) = km::exp(0.5 * exponent);
    decay(c, full_step, q) = km::exp(exponent);
  });
}
}  // namespace

// Classical RK4 in the integrating-factor frame (Lawson 1967): the viscous decay exp(-nu k^2 t) of
// every mode is exact, and RK4 integrates only the nonlinear term. E(h) = exp(-nu k^2 h).
void SpectralNavierStokes::step(double, double dt) {
  const Modes m = modes_of(fft_, s_.length);
  const auto policy = mode_policy(fft_);
  const double h = dt;
  set_decay_factors(decay_, diffusivity_, m.unit, h);
  // A stage input, mode by mode: target = E(e_u) u_hat + f h E(e_x) x, each E a step fraction's factor or 1.
  const auto combine = [&](const Fields& target, int e_u, double f, const Fields& x, int e_x) {
    for (std::size_t c = 0; c < state_.size(); ++c) {
      const auto factors = Kokkos::subview(decay_, c, Kokkos::ALL, Kokkos::ALL);
      const auto t = target[c], u = state_[c], xc = x[c];
      parallel::for_each(
          "cfd::rk_stage_input", policy, KOKKOS_LAMBDA(const int i, const int j, const int l) {
            const long q = m.shell(i, j, l);
            const double factor_x = e_x == no_decay ? 1.0 : factors(e_x, q);
            t(i, j, l) = factors(e_u, q) * u(i, j, l) + f * h * factor_x * xc(i, j, l);
          });
    }
  };
  nonlinear(state_, a_);
  combine(v_, half_step, 0.5, a_, half_step);  // v = E(h/2) (u + h/2 a)
  nonlinear(v_, b_);
  combine(v_, half_step, 0.5, b_, no_decay);  // v = E(h/2) u + h/2 b
  nonlinear(v_, c_);
  combine(v_, full_step, 1.0, c_, half_step);  // v = E(h) u + h E(h/2) c
  nonlinear(v_, d_);
  for (std::size_t c = 0; c < state_.size(); ++c) {
    const auto factors = Kokkos::subview(decay_, c, Kokkos::ALL, Kokkos::ALL);
    const auto u = state_[c], a = a_[c], b = b_[c], cc = c_[c], d = d_[c];
    parallel::for_each(
        "cfd::rk_update", policy, KOKKOS_LAMBDA(const int i, const int j, const int l) {
          const long q = m.shell(i, j, l);
          const double full = factors(full_step, q), half = factors(half_step, q);
          u(i, j, l) = full * u(i, j, l) + (h / 6) * (full * a(i, j, l) + 2 * half * (b(i, j, l) + cc(i, j, l)) + d(i, j, l));
        });
  }
  last_dt_ = dt;
  velocity_is_current_ = false;
}

std::vector<solvers::Scalar> SpectralNavierStokes::diagnostics(double time) {
  const Modes m = modes_of(fft_, s_.length);
  const auto policy = mode_policy(fft_);
  const double cells = static_cast<double>(fft_.global_cells());
  const double energy = half_mean_square(m, policy, u_hat_, cells, comm_);
  curl(m, policy, u_hat_, scratch_);
  const double enstrophy = half_mean_square(m, policy, scratch_, cells, comm_);  // (1/2) <|omega|^2>
  // The divergence in physical space, from i k . u_hat.
  const auto ux = u_hat_[0], uy = u_hat_[1], uz = u_hat_[2], div = scratch_[0];
  parallel::for_each(
      "cfd::divergence", policy, KOKKOS_LAMBDA(const int i, const int j, const int l) {
        double kx, ky, kz;
        m.wavevector(i, j, l, kx, ky, kz);
        div(i, j, l) = times_i(kx * ux(i, j, l) + ky * uy(i, j, l) + kz * uz(i, j, l));
      });
  fft_.backward(div, divergence_);
  const auto d = divergence_;
  double largest = 0;
  parallel::reduce(
      "cfd::max_divergence", cell_policy(fft_),
      KOKKOS_LAMBDA(const int k, const int j, const int i, double& x) { x = max_of(x, km::fabs(d(k, j, i))); },
      Kokkos::Max<double>(largest));
  // -dE/dt between this record and the previous one (NaN at the first).
  const double decay_rate = previous_energy_ >= 0 && time > previous_time_
                                ? (previous_energy_ - energy) / (time - previous_time_)
                                : std::nan("");
  previous_energy_ = energy, previous_time_ = time;
  std::vector<solvers::Scalar> out{{"kinetic_energy", energy, true, "length^2/time^2"},
                                   {"enstrophy", enstrophy, true, "1/time^2"},
                                   {"dissipation", 2 * s_.viscosity * enstrophy, true, "length^2/time^3"},
                                   {"energy_decay_rate", decay_rate, false, "length^2/time^3"},
                                   {"max_divergence", mesh::global_max(largest, comm_), true, "1/time"}};
  if (s_.passive_scalar) {
    // Variance (1/2) <theta^2> and its dissipation kappa <|grad theta|^2>.
    scalar_gradient(state_[3]);
    out.push_back({"scalar_variance", half_mean_square(m, policy, Fields{state_[3]}, cells, comm_), true,
                   "scalar units^2"});
    out.push_back({"scalar_dissipation", 2 * s_.scalar_diffusivity * half_mean_square(m, policy, scratch_, cells, comm_),
                   true, "scalar units^2/time"});
  }
  return out;
}

std::vector<solvers::Scalar> SpectralNavierStokes::progress(double dt) const { return {{"cfl", dt * last_ratio_}}; }

std::string SpectralNavierStokes::layout() const {
  const auto n = fft_.cells();
  const auto g = fft_.process_grid();
  std::ostringstream out;
  out << g[0] * g[1] << " ranks as " << g[0] << " x " << g[1] << (g[1] == 1 ? " (slabs)" : " (pencils)") << ", "
      << n[0] << " x " << n[1] << " x " << n[2] << " modes";
  return out.str();
}

void SpectralNavierStokes::energy_spectrum(std::vector<double>& global) {
  const Modes m = modes_of(fft_, s_.length);
  const auto& count = fft_.spectral_block().count;
  const double cells = static_cast<double>(fft_.global_cells());
  std::array<fft::ComplexPencil::HostMirror, 3> u;
  for (int c = 0; c < 3; ++c) u[c] = mesh::on_host(u_hat_[c], u_hat_host_[c]);
  std::fill(spectrum_local_.begin(), spectrum_local_.end(), 0.0);
  for (int i = 0; i < count[0]; ++i)
    for (int j = 0; j < count[1]; ++j)
      for (int l = 0; l < count[2]; ++l) {
        long ix, iy, iz;
        m.integer(i, j, l, ix, iy, iz);
        const long shell = std::lround(std::sqrt(double(ix * ix + iy * iy + iz * iz)));
        double e = 0;
        for (int c = 0; c < 3; ++c) e += std::norm(std::complex<double>(u[c](i, j, l).real(), u[c](i, j, l).imag()));
        spectrum_local_[shell] += 0.5 * m.weight(i) * e / (cells * cells);
      }
  MPI_Allreduce(spectrum_local_.data(), global.data(), static_cast<int>(global.size()), MPI_DOUBLE, MPI_SUM, comm_);
}

io::DatasetBox SpectralNavierStokes::real_box(const std::string& name) const {
  const auto& b = fft_.real_block();
  const auto n = fft_.cells();
  io::DatasetBox box;
  box.name = name;
  const bool three_d = n[2] > 1;
  for (int axis = three_d ? 0 : 1; axis < 3; ++axis) {  // (z, y, x); a 2-D field drops z
    box.global.push_back(n[2 - axis]);
    box.offset.push_back(b.offset[axis]);
    box.count.push_back(b.count[axis]);
  }
  io::Geometry g;
  g.dimensions = three_d ? 3 : 2;
  // Values sit on the grid points x = i h; as cell data they belong to cells centred there.
  for (int axis = 0; axis < 3; ++axis) g.spacing[axis] = s_.length / n[axis], g.origin[axis] = -0.5 * g.spacing[axis];
  box.geometry = g;
  return box;
}

// The datasets of an output, with their values sized once: u, v, w, the vorticity, theta when
// there is one, and the energy spectrum (held by rank 0).
void SpectralNavierStokes::make_output_datasets() {
  const char* names[7] = {"u", "v", "w", "vorticity_x", "vorticity_y", "vorticity_z", "scalar"};
  const char* units[7] = {"length/time", "length/time", "length/time", "1/time", "1/time", "1/time", "scalar units"};
  const char* long_names[7] = {"x velocity", "y velocity", "z velocity", "vorticity (x component)",
                               "vorticity (y component)", "vorticity (z component)", "passive scalar"};
  for (int f = 0; f < (s_.passive_scalar ? 7 : 6); ++f) {
    io::HostDataset d{real_box(std::string("fields/") + names[f]), {}};
    d.box.units = units[f];
    d.box.long_name = long_names[f];
    d.values.resize(d.box.local_values());
    output_.push_back(std::move(d));
  }
  const auto n = fft_.cells();
  const std::size_t shells = static_cast<std::size_t>(std::sqrt(double(n[0] * n[0] + n[1] * n[1] + n[2] * n[2])) / 2) + 2;
  int rank = 0;
  MPI_Comm_rank(comm_, &rank);
  io::HostDataset e{io::DatasetBox{"spectrum/energy", {shells}, {0}, {rank == 0 ? shells : 0}}, {}};
  e.box.units = "length^3/time^2 per shell of unit width in 2 pi / length";
  e.values.resize(rank == 0 ? shells : 0);
  output_.push_back(std::move(e));
  spectrum_local_.resize(shells);
  spectrum_.resize(shells);
}

const std::vector<io::HostDataset>& SpectralNavierStokes::output_fields() {
  const Modes m = modes_of(fft_, s_.length);
  to_physical(u_hat_, u_);
  curl(m, mode_policy(fft_), u_hat_, scratch_);
  to_physical(scratch_, omega_);
  if (s_.passive_scalar) fft_.backward(state_[3], divergence_);
  for (std::size_t f = 0; f + 1 < output_.size(); ++f) {
    const fft::RealPencil& field = f < 3 ? u_[f] : f < 6 ? omega_[f - 3] : divergence_;
    const RealHost staged(output_[f].values.data(), field.extent(0), field.extent(1), field.extent(2));
    parallel::copy<parallel::Copy::device_to_host>(staged, field);
  }
  energy_spectrum(spectrum_);
  std::copy(spectrum_.begin(), spectrum_.begin() + output_.back().values.size(), output_.back().values.begin());
  return output_;
}

std::vector<io::DatasetBox> SpectralNavierStokes::state_layout() const {
  const auto& b = fft_.spectral_block();
  const auto n = fft_.cells();
  std::vector<io::DatasetBox> boxes;
  const char* names[4] = {"u_hat_x", "u_hat_y", "u_hat_z", "theta_hat"};
  for (std::size_t c = 0; c < state_.size(); ++c) {
    io::DatasetBox box{std::string("state/") + names[c],
                       {static_cast<unsigned long long>(n[0] / 2 + 1), static_cast<unsigned long long>(n[1]),
                        static_cast<unsigned long long>(n[2])},
                       {static_cast<unsigned long long>(b.offset[0]), static_cast<unsigned long long>(b.offset[1]), 0},
                       {static_cast<unsigned long long>(b.count[0]), static_cast<unsigned long long>(b.count[1]),
                        static_cast<unsigned long long>(b.count[2])}};
    box.complex = true;
    box.units = c < 3 ? "unnormalised Fourier coefficients of velocity" : "unnormalised Fourier coefficients of theta";
    boxes.push_back(box);
  }
  return boxes;
}

const std::vector<io::HostDataset>& SpectralNavierStokes::state() {
  for (std::size_t c = 0; c < state_.size(); ++c) {
    const auto& f = state_[c];
    const ComplexHost staged(reinterpret_cast<Complex*>(staged_state_[c].values.data()), f.extent(0), f.extent(1),
                             f.extent(2));
    parallel::copy<parallel::Copy::device_to_host>(staged, f);
  }
  return staged_state_;
}

void SpectralNavierStokes::restore(const std::vector<io::HostDataset>& state) {
  for (std::size_t c = 0; c < state_.size(); ++c) {
    const auto& f = state_[c];
    auto* values = const_cast<double*>(state.at(c).values.data());
    const ComplexHost stored(reinterpret_cast<Complex*>(values), f.extent(0), f.extent(1), f.extent(2));
    parallel::copy<parallel::Copy::host_to_device>(f, stored);
  }
  velocity_is_current_ = false;
}

// The energy of the last diagnostics record, so -dE/dt continues across a restart.
std::vector<solvers::Scalar> SpectralNavierStokes::state_scalars() const {
  return {{"previous_energy", previous_energy_}, {"previous_time", previous_time_}};
}

void SpectralNavierStokes::restore_scalars(const std::vector<solvers::Scalar>& scalars) {
  previous_energy_ = scalars.at(0).value;
  previous_time_ = scalars.at(1).value;
}

}  // namespace meridian::cfd
