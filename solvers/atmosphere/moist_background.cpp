#include "solvers/atmosphere/moist_background.hpp"

#include <cmath>

#include "solvers/atmosphere/moist_thermodynamics.hpp"
#include "solvers/common/gauss_rule.hpp"

namespace meridian::atmosphere {

namespace {
// Saturated air of dry density rho_d at pressure p: rho_d R_d T + e_s(T) - p, zero at its temperature (the
// vapour's partial pressure is e_s). A host-device callable, as temperature_root wants.
struct SaturatedPressureResidual {
  double rho_d, p;
  KOKKOS_INLINE_FUNCTION double operator()(double t) const {
    return rho_d * rd * t + moist::saturation_vapour_pressure(t) - p;
  }
};
}  // namespace

DiscreteBackground discretise_saturated(const moist::SaturatedSounding& sounding, double total_water, double dz,
                                        long first_cell, long cells) {
  using solvers::GaussRule;
  DiscreteBackground b;
  for (long k = first_cell; k <= first_cell + cells; ++k) {
    const moist::SaturatedState s = sounding.at(static_cast<double>(k) * dz);
    b.faces.push_back({s.dry_density * (1 + total_water), s.rho_theta_m(), s.pressure});
  }
  for (long n = 0; n < cells; ++n) {
    const double z = static_cast<double>(first_cell + n) * dz;
    double rt = 0;
    for (int q = 0; q < GaussRule::points; ++q)
      rt += GaussRule::weight(q) * sounding.at(z + (0.5 + GaussRule::node(q)) * dz).rho_theta_m();
    const double rho = (b.faces[n].pressure - b.faces[n + 1].pressure) / (gravity * dz);
    const double p = c0 * std::pow(rt, gamma_d), rho_d = rho / (1 + total_water);
    const double t = moist::temperature_root(SaturatedPressureResidual{rho_d, p}, sounding.at(z + dz / 2).temperature);
    // Where r_t cannot saturate the cell, all of it is vapour (not so in Bryan & Fritsch's column).
    const double vapour = std::min(moist::saturation_mixing_ratio(t, rho_d), total_water);
    b.cells.push_back({rho, rt, p});
    b.water.push_back({rho_d * vapour, rho_d * (total_water - vapour)});
  }
  return b;
}

void add_uniform_vapour(DiscreteBackground& background, double mixing_ratio) {
  background.water.clear();
  for (const BackgroundPoint& c : background.cells)
    background.water.push_back({c.rho * mixing_ratio / (1 + mixing_ratio), 0.0});
}

}  // namespace meridian::atmosphere
