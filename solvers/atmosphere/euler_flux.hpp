#pragma once
// The arithmetic of the atmosphere's kernels, direction-generic: the flux of the four conserved
// perturbation variables through one face (miniWeather's 4th-order reconstruction with
// hyperviscosity, plus optional constant eddy viscosity and diffusivity), the pressure perturbation,
// and the sound speed. Free host-device functions: the solver's kernels only set up the launch.
#include "solvers/common/kokkos_math.hpp"

namespace meridian::atmosphere {

// Dry air (miniWeather's constants, so its test bounds apply).
inline constexpr double gravity = 9.8;                        // m/s^2
inline constexpr double cp = 1004.0;                          // J/(kg K)
inline constexpr double cv = 717.0;                           // J/(kg K)
inline constexpr double rd = 287.0;                           // J/(kg K), p = rho rd T
inline constexpr double p0 = 1.0e5;                           // Pa, reference pressure of theta and Exner
inline constexpr double gamma_d = 1.40027894002789400278940027894;  // cp / cv
inline constexpr double c0 = 27.5629410929725921310572974482; // p = c0 (rho theta)^gamma, = rd^gamma / p0^(rd/cv)

// The state's components: perturbations of density and of rho theta about the hydrostatic
// background, and the full momenta.
enum Component { density = 0, momentum_x = 1, momentum_z = 2, rho_theta = 3, components = 4 };

// The pressure perturbation p - p_background for a rho theta perturbation about `rt_background`
// whose pressure is `p_background`, without the cancellation of c0 (rt)^gamma - p_background:
// exactly zero for a zero perturbation.
KOKKOS_INLINE_FUNCTION double pressure_perturbation(double rt_perturbation, double rt_background,
                                                    double p_background) {
  return p_background * km::expm1(gamma_d * km::log1p(rt_perturbation / rt_background));
}

// The hydrostatic background where a face or a cell sits: density, rho theta, pressure.
struct BackgroundPoint {
  double rho, rho_theta, pressure;
};

// What a face's flux needs besides the state: the background at the face, the background of the two
// cells beside it (for the viscous terms' theta perturbation), the hyperviscosity coefficient
// (miniWeather's -beta h / (16 dt)), the spacing along the axis, the eddy viscosity and diffusivity,
// and whether the face is a wall (no normal flow, no mass hyperviscosity, no viscous stress).
struct FaceInputs {
  BackgroundPoint face;
  double rho_below, rt_below, rho_above, rt_above;  // background of the cells on either side
  double hyperviscosity, spacing, viscosity, diffusivity;
  bool wall;
};

// The flux through the face between the cell at `above` and the one a `stride` below it, along
// `axis` (0: x, 1: the vertical), of the four components `component_stride` apart in memory.
KOKKOS_FORCEINLINE_FUNCTION void face_flux(const double* above, long stride, long component_stride, int axis,
                                           const FaceInputs& in, double flux[components]) {
  double value[components], third_difference[components], below_cell[components], above_cell[components];
  for (int c = 0; c < components; ++c) {
    const double* q = above + c * component_stride;
    const double qm2 = q[-2 * stride], qm1 = q[-stride], q0 = q[0], q1 = q[stride];
    value[c] = (-qm2 + 7 * qm1 + 7 * q0 - q1) / 12;          // 4th-order interpolation to the face
    third_difference[c] = -qm2 + 3 * qm1 - 3 * q0 + q1;      // for the hyperviscosity
    below_cell[c] = qm1;
    above_cell[c] = q0;
  }
  const double rho = value[density] + in.face.rho;
  const double u = value[momentum_x] / rho, w = value[momentum_z] / rho;
  const double theta = (value[rho_theta] + in.face.rho_theta) / rho;
  const double pressure = pressure_perturbation(value[rho_theta], in.face.rho_theta, in.face.pressure);
  const double normal = in.wall ? 0.0 : (axis == 0 ? u : w);
  if (in.wall) third_difference[density] = 0;  // no mass through a wall, from hyperviscosity either
  const double hv = in.hyperviscosity;
  flux[density] = rho * normal - hv * third_difference[density];
  flux[momentum_x] = rho * normal * u + (axis == 0 ? pressure : 0.0) - hv * third_difference[momentum_x];
  flux[momentum_z] = rho * normal * w + (axis == 1 ? pressure : 0.0) - hv * third_difference[momentum_z];
  flux[rho_theta] = rho * normal * theta - hv * third_difference[rho_theta];
  if ((in.viscosity > 0 || in.diffusivity > 0) && !in.wall) {
    // Down-gradient fluxes rho nu du/dn, rho nu dw/dn and rho kappa dtheta'/dn, from the two cells
    // beside the face; theta' is about the background, so a stable stratification is not diffused.
    const double rho_l = below_cell[density] + in.rho_below, rho_r = above_cell[density] + in.rho_above;
    const double theta_l = (below_cell[rho_theta] + in.rt_below) / rho_l - in.rt_below / in.rho_below;
    const double theta_r = (above_cell[rho_theta] + in.rt_above) / rho_r - in.rt_above / in.rho_above;
    const double scale = rho / in.spacing;
    flux[momentum_x] -= in.viscosity * scale * (above_cell[momentum_x] / rho_r - below_cell[momentum_x] / rho_l);
    flux[momentum_z] -= in.viscosity * scale * (above_cell[momentum_z] / rho_r - below_cell[momentum_z] / rho_l);
    flux[rho_theta] -= in.diffusivity * scale * (theta_r - theta_l);
  }
}

// The Rayleigh layer's relaxation of a cell towards the background: rate x (target - state) for the
// momenta (towards the background wind `wind` and no vertical motion) and for rho theta (towards
// theta' = 0 at the cell's density); the density is left alone, so mass stays conserved. Zero for the
// resting background itself.
KOKKOS_INLINE_FUNCTION void rayleigh_tendency(const double state[components], const BackgroundPoint& cell, double wind,
                                              double rate, double tendency[components]) {
  const double rho = state[density] + cell.rho;
  tendency[density] = 0;
  tendency[momentum_x] = rate * (rho * wind - state[momentum_x]);
  tendency[momentum_z] = -rate * state[momentum_z];
  tendency[rho_theta] = rate * (state[density] * cell.rho_theta / cell.rho - state[rho_theta]);
}

// The fastest signal along each axis in a cell, |u| + c and |w| + c, with c^2 = gamma p / rho.
KOKKOS_INLINE_FUNCTION void signal_speeds(const double state[components], const BackgroundPoint& cell, double& along_x,
                                          double& along_z) {
  const double rho = state[density] + cell.rho;
  const double p = cell.pressure + pressure_perturbation(state[rho_theta], cell.rho_theta, cell.pressure);
  const double c = km::sqrt(gamma_d * p / rho);
  along_x = km::fabs(state[momentum_x] / rho) + c;
  along_z = km::fabs(state[momentum_z] / rho) + c;
}

}  // namespace meridian::atmosphere
