#include "solvers/registry.hpp"

#include "solvers/advection/advection_solver.hpp"
#include "solvers/atmosphere/atmosphere_solver.hpp"
#include "solvers/cfd/projection_solver.hpp"
#include "solvers/cfd/spectral_navier_stokes.hpp"
#include "solvers/finance/monte_carlo_pricer.hpp"

namespace meridian::solvers {

const std::vector<SolverEntry>& registry() {
  static const std::vector<SolverEntry> entries{
      {"advection", "flux-form 5th-order upwind tracer transport with WRF RK3 and optional FCT",
       advection::declare_keys, advection::validate, advection::build},
      {"atmosphere",
       "dry compressible Euler with gravity on a 2-D x-z slice about a discretely balanced hydrostatic "
       "background (miniWeather's 4th-order or WRF's 5th-order fluxes, RK3 split or unsplit)",
       atmosphere::declare_keys, atmosphere::validate, atmosphere::build},
      {"cfd_spectral", "pseudo-spectral incompressible Navier-Stokes on a periodic box (distributed FFT)",
       cfd::declare_keys, cfd::validate, cfd::build},
      {"cfd_projection",
       "incompressible Navier-Stokes on a 2-D or 3-D staggered grid with immersed bodies, pressure projection by a "
       "direct FFT and tridiagonal solve (or multigrid-preconditioned CG)",
       cfd::declare_projection_keys, cfd::validate_projection, cfd::build_projection},
      {"monte_carlo", "Monte Carlo option pricing (GBM and Heston), bitwise reproducible on any rank count",
       finance::declare_keys, finance::validate, finance::build},
  };
  return entries;
}

const SolverEntry& find_solver(const std::string& kind, const std::string& deck_path) {
  std::string known;
  for (const auto& e : registry()) {
    if (e.kind == kind) return e;
    known += " " + e.kind;
  }
  throw io::DeckError(deck_path + ": key 'solver.kind': unknown solver '" + kind + "' (allowed: one of" + known + ")");
}

}  // namespace meridian::solvers
