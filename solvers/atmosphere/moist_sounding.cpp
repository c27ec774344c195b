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

// Newton's method with a centred difference quotient on ln theta_e(T) at this pressure, from 280 K.
SaturatedState SaturatedSounding::state_at_pressure(double p) const {
  const auto state = [&](double t) {
    const double rho_d = (p - saturation_vapour_pressure(t)) / (rd * t);
    const double qv = saturation_mixing_ratio(t, rho_d);
    return SaturatedState{p, t, rho_d, qv, total_water_ - qv};
  };
  const auto residual = [&](double t) {
    const SaturatedState s = state(t);
    return log_equivalent_potential_temperature(t, s.dry_density, s.vapour, total_water_) - log_theta_e_;
  };
  double t = 280;
  for (int n = 0; n < adjustment_iterations; ++n) {
    const double h = 1e-4;
    const double change = residual(t) * 2 * h / (residual(t + h) - residual(t - h));
    t -= change;
    if (!(std::abs(change) > 1e-12 * t)) break;
  }
  return state(t);
}

double SaturatedSounding::climb(double p, double dz) const {
  const auto slope = [&](double pressure) { return -gravity * state_at_pressure(pressure).dry_density * (1 + total_water_); };
  const double k1 = slope(p), k2 = slope(p + 0.5 * dz * k1), k3 = slope(p + 0.5 * dz * k2), k4 = slope(p + dz * k3);
  return p + dz / 6 * (k1 + 2 * k2 + 2 * k3 + k4);
}

SaturatedState SaturatedSounding::at(double z) const {
  if (!(z >= 0 && z <= top_)) throw std::out_of_range("saturated sounding: height outside [0, top]");
  const auto below = std::min(static_cast<std::size_t>(z / step_), pressures_.size() - 1);
  const double rest = z - static_cast<double>(below) * step_;
  return state_at_pressure(rest > 0 ? climb(pressures_[below], rest) : pressures_[below]);
}

}  // namespace meridian::atmosphere::moist
