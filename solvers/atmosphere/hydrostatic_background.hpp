#pragma once
// The resting, hydrostatically balanced atmosphere the solver's state is a perturbation of: an analytic
// profile (constant potential temperature, or constant buoyancy frequency N), and its discrete form,
// built so that the discrete relation the z-momentum equation uses holds to round-off:
//   (p_face(k+1) - p_face(k)) / dz = -g rho_cell(k).
// The face pressures are the profile's exact values; each cell's density is then the difference of its
// faces' pressures over g dz, which is also the exact cell average of the profile's density (integrate
// dp/dz = -g rho over the cell). Subtracting this balance from the full equations leaves the
// perturbation form with nothing dropped: a resting atmosphere has zero tendency.
#include <string>
#include <vector>

#include "solvers/atmosphere/euler_flux.hpp"

namespace meridian::atmosphere {

struct Profile {
  double surface_theta = 300;        // K
  double buoyancy_frequency = 0;     // 1/s; 0: constant theta
  // Potential temperature and Exner pressure (p/p0)^(rd/cp) at height z (m), with p = p0 at z = 0.
  double theta(double z) const;
  double exner(double z) const;
  double pressure(double z) const;
  double rho_theta(double z) const;  // (p / c0)^(1/gamma)
  double density(double z) const;    // rho_theta / theta
  // The highest z at which the Exner pressure is still positive (infinity where it stays so).
  double top_supported() const;
};

// The discrete background of cells first_cell .. first_cell + cells - 1 (global indices; negative
// and beyond the top for halos) and of the faces first_cell .. first_cell + cells (face k is the
// lower face of cell k), each cell's rho theta the 3-point Gauss average of the profile's.
// A moist background's cells also hold their water: the partial densities of vapour and cloud (kg/m^3).
struct WaterPoint {
  double vapour, cloud;
};
struct DiscreteBackground {
  std::vector<BackgroundPoint> cells, faces;
  std::vector<WaterPoint> water;  // by cell; empty for dry air
};
DiscreteBackground discretise(const Profile& profile, double dz, long first_cell, long cells);

using BackgroundView = Kokkos::View<BackgroundPoint*>;

}  // namespace meridian::atmosphere
