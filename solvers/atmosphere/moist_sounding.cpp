#include "solvers/atmosphere/moist_sounding.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "solvers/atmosphere/moist_thermodynamics.hpp"

namespace meridian::atmosphere::moist {

double SaturatedState::rho_theta_m() const {
  const double theta = temperature * std::pow(p0 / pressure, rd / cp);
  return dry_density * theta * (1 + vapour * rv / rd);
}

SaturatedSounding::SaturatedSounding(double theta_e, double total_water, double surface_pressure, double top, double step)
    : log_theta_e_(std::log(theta_e)), total_water_(total_water), top_(top), step_(step) {
  const auto require = [](bool ok, const std::string& what) {
    if (!ok) throw std::invalid_argument("saturated sounding: " + what + " must be positive");
  };
  require(theta_e > 0, "theta_e");
  require(total_water > 0, "the total water mixing ratio");
  require(surface_pressure > 0, "the surface pressure");
  require(top > 0, "the top");
  require(step > 0, "the integration step");
  pressures_.push_back(surface_pressure);
  for (double z = 0; z < top; z += step) {
    const double p = climb(pressures_.back(), step);
    if (!(p > saturation_vapour_pressure(state_at_pressure(p).temperature)))
      throw std::invalid_argument("saturated sounding: the pressure falls to the vapour's own below the top (" +
                                  std::to_string(top) + " m), at " + std::to_string(z + step) + " m");
    pressures_.push_back(p);
  }
}

namespace {
// The dry density of saturated air at pressure p and temperature t: the partial pressures add up to p.
KOKKOS_INLINE_FUNCTION double saturated_dry_density(double p, double t) {
  return (p - saturation_vapour_pressure(t)) / (rd * t);
}

// ln theta_e of saturated air at pressure p and temperature t, minus the sounding's (a host-device callable, as
// temperature_root wants).
struct SaturatedResidual {
  double p, total_water, log_theta_e;
  KOKKOS_INLINE_FUNCTION double operator()(double t) const {
    const double rho_d = saturated_dry_density(p, t);
    return log_equivalent_potential_temperature(t, rho_d, saturation_mixing_ratio(t, rho_d), total_water) - log_theta_e;
  }
};
}  // namespace

// The saturated temperature at this pressure: the root of ln theta_e(T) - ln theta_e from 280 K.
SaturatedState SaturatedSounding::state_at_pressure(double p) const {
  const double t = temperature_root(SaturatedResidual{p, total_water_, log_theta_e_}, 280.0);
  const double rho_d = saturated_dry_density(p, t), qv = saturation_mixing_ratio(t, rho_d);
  return {p, t, rho_d, qv, total_water_ - qv};
}

double SaturatedSounding::climb(double p, double dz) const {
  const auto slope = [&](double pressure) { return -gravity * state_at_pressure(pressure).dry_density * (1 + total_water_); };
  const double k1 = slope(p), k2 = slope(p + 0.5 * dz * k1), k3 = slope(p + 0.5 * dz * k2), k4 = slope(p + dz * k3);
  return p + dz / 6 * (k1 + 2 * k2 + 2 * k3 + k4);
}

SaturatedState SaturatedSounding::at(double z) const {
  if (!(z <= top_)) throw std::out_of_range("saturated sounding: height above the top");
  if (z < 0) {  // below the ground (a solver's halo): down from the surface in steps of at most `step`
    const double steps = std::ceil(-z / step_);
    double p = pressures_[0];
    for (double n = 0; n < steps; ++n) p = climb(p, z / steps);
    return state_at_pressure(p);
  }
  const auto below = std::min(static_cast<std::size_t>(z / step_), pressures_.size() - 1);
  const double rest = z - static_cast<double>(below) * step_;
  return state_at_pressure(rest > 0 ? climb(pressures_[below], rest) : pressures_[below]);
}

}  // namespace meridian::atmosphere::moist
