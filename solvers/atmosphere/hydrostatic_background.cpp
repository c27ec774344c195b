#include "solvers/atmosphere/hydrostatic_background.hpp"

#include <cmath>
#include <limits>

#include "solvers/common/gauss_rule.hpp"

namespace meridian::atmosphere {

// Constant N: theta = theta0 exp(N^2 z / g), and the hydrostatic Exner pressure
// d(exner)/dz = -g / (cp theta) integrates to 1 - g^2 / (cp N^2) (theta - theta0) / (theta theta0).
double Profile::theta(double z) const {
  if (buoyancy_frequency == 0) return surface_theta;
  return surface_theta * std::exp(buoyancy_frequency * buoyancy_frequency / gravity * z);
}

double Profile::exner(double z) const {
  if (buoyancy_frequency == 0) return 1 - gravity * z / (cp * surface_theta);
  const double n2 = buoyancy_frequency * buoyancy_frequency, t = theta(z);
  return 1 - gravity * gravity / (cp * n2) * (t - surface_theta) / (t * surface_theta);
}

double Profile::pressure(double z) const { return p0 * std::pow(exner(z), cp / rd); }

double Profile::rho_theta(double z) const { return std::pow(pressure(z) / c0, 1 / gamma_d); }

double Profile::density(double z) const { return rho_theta(z) / theta(z); }

double Profile::top_supported() const {
  if (buoyancy_frequency == 0) return cp * surface_theta / gravity;
  // exner -> 1 - g^2 / (cp N^2 theta0) as theta grows without bound; zero where theta reaches this.
  const double n2 = buoyancy_frequency * buoyancy_frequency;
  const double limit = 1 - gravity * gravity / (cp * n2 * surface_theta);
  if (limit > 0) return std::numeric_limits<double>::infinity();
  const double theta_zero = surface_theta / (1 - cp * n2 * surface_theta / (gravity * gravity));
  return gravity / n2 * std::log(theta_zero / surface_theta);
}

DiscreteBackground discretise(const Profile& profile, double dz, long first_cell, long cells) {
  using solvers::GaussRule;
  DiscreteBackground b;
  for (long k = first_cell; k <= first_cell + cells; ++k) {
    const double z = k * dz, p = profile.pressure(z);
    b.faces.push_back({profile.density(z), profile.rho_theta(z), p});
  }
  for (long n = 0; n < cells; ++n) {
    const double z = (first_cell + n) * dz;
    double rt = 0;
    for (int q = 0; q < GaussRule::points; ++q) rt += GaussRule::weight(q) * profile.rho_theta(z + (0.5 + GaussRule::node(q)) * dz);
    const double rho = (b.faces[n].pressure - b.faces[n + 1].pressure) / (gravity * dz);
    b.cells.push_back({rho, rt, c0 * std::pow(rt, gamma_d)});
  }
  return b;
}

}  // namespace meridian::atmosphere
