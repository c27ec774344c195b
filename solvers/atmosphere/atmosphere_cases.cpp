#include "solvers/atmosphere/atmosphere_cases.hpp"

#include <algorithm>
#include <cmath>

#include "solvers/atmosphere/moist_thermodynamics.hpp"

namespace meridian::atmosphere {

namespace {

// cos^2 bubble of amplitude `amplitude` inside the ellipsoid of radii `radii` about `centre`, as
// miniWeather's. The 2-D slice's points sit at the centre's y, whose term is then exactly zero.
double ellipse_cosine(const Point& p, double amplitude, const Point& centre, const Point& radii) {
  const double dx = p.x - centre.x, dy = p.y - centre.y, dz = p.z - centre.z;
  const double distance =
      std::sqrt(dx * dx / (radii.x * radii.x) + dy * dy / (radii.y * radii.y) + dz * dz / (radii.z * radii.z)) * pi / 2;
  return distance <= pi / 2 ? amplitude * std::cos(distance) * std::cos(distance) : 0.0;
}

}  // namespace

double theta_perturbation(const Settings& s, const Point& p, bool& constant_pressure) {
  constant_pressure = s.initial == Case::density_current || s.initial == Case::gravity_wave ||
                      s.initial == Case::linear_gravity_wave || s.initial == Case::bryan_fritsch;
  const double xc = s.width / 2, yc = s.depth / 2;
  switch (s.initial) {
    case Case::rest: return 0;
    case Case::thermal: return ellipse_cosine(p, 3, {xc, yc, 2000}, {2000, 2000, 2000});
    case Case::bryan_fritsch: return ellipse_cosine(p, 2, {xc, yc, 2000}, {2000, 2000, 2000});
    case Case::colliding_thermals:
      return ellipse_cosine(p, 20, {xc, yc, 2000}, {2000, 2000, 2000}) +
             ellipse_cosine(p, -20, {xc, yc, 8000}, {2000, 2000, 2000});
    case Case::density_current:
      return ellipse_cosine(p, -15, {xc, yc, 3000}, {4000, 4000, 2000}) / s.profile.exner(p.z);
    case Case::gravity_wave: {
      const double a = 5000, x0 = s.width / 3;
      return 0.01 * std::sin(pi * p.z / s.height) / (1 + (p.x - x0) * (p.x - x0) / (a * a));
    }
    case Case::linear_gravity_wave: {
      const double d = 5000, x0 = s.width / 3, delta = gravity / (rd * s.profile.surface_theta);
      const double temperature =
          0.01 * std::exp(delta * p.z / 2 - (p.x - x0) * (p.x - x0) / (d * d)) * std::sin(pi * p.z / s.height);
      return temperature / s.profile.exner(p.z);
    }
  }
  return 0;
}

namespace {
// theta_rho of saturated air with total water r_t at pressure p and temperature t (its dry density from the
// partial pressures), minus a target: a host-device callable, as temperature_root wants.
struct SaturatedThetaRhoResidual {
  double p, total_water, target;
  KOKKOS_INLINE_FUNCTION double operator()(double t) const {
    const double rho_d = (p - moist::saturation_vapour_pressure(t)) / (rd * t);
    const double qv = moist::saturation_mixing_ratio(t, rho_d);
    return t * km::exp(rd / cp * km::log(p0 / p)) * (1 + qv * moist::rv / rd) / (1 + total_water) - target;
  }
};
}  // namespace

WaterPerturbation saturated_bubble(const moist::SaturatedSounding& sounding, double total_water, double theta_ratio,
                                   double z) {
  const moist::SaturatedState base = sounding.at(z);
  const double p = base.pressure, exner = std::pow(p / p0, rd / cp);
  const double theta_rho = base.temperature / exner * (1 + base.vapour * moist::rv / rd) / (1 + total_water);
  const double t = moist::temperature_root(SaturatedThetaRhoResidual{p, total_water, theta_rho * theta_ratio},
                                           base.temperature);
  const double rho_d = (p - moist::saturation_vapour_pressure(t)) / (rd * t);
  const double qv = std::min(moist::saturation_mixing_ratio(t, rho_d), total_water);
  return {(rho_d - base.dry_density) * (1 + total_water), rho_d * qv - base.dry_density * base.vapour,
          rho_d * (total_water - qv) - base.dry_density * base.cloud};
}

double coldest_perturbation(Case c) {
  if (c == Case::colliding_thermals) return -20;
  if (c == Case::density_current) return -15 / 0.8;  // divided by Exner; 0.8 is below its value at 3 km
  return 0;
}

}  // namespace meridian::atmosphere
