#pragma once
// The arithmetic of the atmosphere's kernels, direction-generic: the flux of the four conserved
// perturbation variables through one face (miniWeather's 4th-order reconstruction with hyperviscosity,
// or WRF's 5th-order upwind advection with centred acoustic terms; optional constant eddy viscosity
// and diffusivity), the pressure perturbation, the Rayleigh layer's relaxation, and the sound speed. Free host-device functions: the solver's kernels only set up the launch.
#include "solvers/common/kokkos_math.hpp"
#include "solvers/common/wrf_interpolation.hpp"

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

// C(gamma_d, k) = gamma_d (gamma_d - 1) ... (gamma_d - k + 1) / k!, the binomial series' coefficients of
// (1 + x)^gamma_d.
KOKKOS_INLINE_FUNCTION constexpr double binomial_coefficient_of_gamma(int k) {
  double c = 1;
  for (int j = 0; j < k; ++j) c = c * (gamma_d - j) / (j + 1);
  return c;
}

// C(gamma_d, K) + C(gamma_d, K + 1) x + ... + C(gamma_d, K + 2^Level - 1) x^(2^Level - 1) by Estrin's scheme,
// `powers` holding x, x^2, x^4, ...: the two halves are independent, so the chain of dependent multiplies and
// adds is Level deep where Horner's rule's is 2^Level - 1 (measured on the thermal: Horner's series took 10% off
// the step, this one 24%). The coefficients are folded at compile time.
template <int K, int Level>
KOKKOS_FORCEINLINE_FUNCTION double binomial_series_segment(const double powers[]) {
  if constexpr (Level == 0) {
    constexpr double c = binomial_coefficient_of_gamma(K);
    return c;
  } else {
    constexpr int half = 1 << (Level - 1);
    return binomial_series_segment<K, Level - 1>(powers) +
           powers[Level - 1] * binomial_series_segment<K + half, Level - 1>(powers);
  }
}

// (1 + x)^gamma_d - 1 for |x| <= 1/8 by its binomial series to x^16: the first term left out, C(gamma_d,
// 17) / gamma_d 8^-16 = 1.2e-18 of the result, is below its rounding. Multiplies and adds only, where the
// libm's expm1 and log1p took half the atmosphere's step.
inline constexpr double power_series_reach = 0.125;

KOKKOS_FORCEINLINE_FUNCTION double power_gamma_minus_one_series(double x) {
  const double x2 = x * x, x4 = x2 * x2, x8 = x4 * x4;
  const double powers[4] = {x, x2, x4, x8};
  return x * binomial_series_segment<1, 4>(powers);
}

// The pressure perturbation p - p_background = p_background ((1 + x)^gamma - 1), x = rt'/rt_background,
// for a rho theta perturbation about `rt_background` whose pressure is `p_background`, without the
// cancellation of c0 (rt)^gamma - p_background: exactly zero for a zero perturbation. The series near the
// background (the theta perturbations of the cases are a few per cent of theta); expm1(gamma log1p(x))
// beyond, which agrees with it to rounding.
KOKKOS_INLINE_FUNCTION double pressure_perturbation(double rt_perturbation, double rt_background,
                                                    double p_background) {
  const double x = rt_perturbation / rt_background;
  const double ratio_minus_one = km::fabs(x) <= power_series_reach
                                     ? power_gamma_minus_one_series(x)
                                     : km::expm1(gamma_d * km::log1p(x));
  return p_background * ratio_minus_one;
}

// The hydrostatic background where a face or a cell sits: density, rho theta, pressure.
struct BackgroundPoint {
  double rho, rho_theta, pressure;
};

// What a face's flux needs besides the state: the background at the face and at the six cells about it
// (cell[s] is the cell s - 3 from the face's upper cell: cell[2] below the face, cell[3] above it; the
// 4th-order flux reads cell[1] to cell[4] only), the hyperviscosity coefficient (miniWeather's
// -beta h / (16 dt)), the spacing along the axis, and the eddy viscosity and diffusivity: the same for
// a row of faces. The flux functions take besides whether the face is a wall (no normal flow, no mass
// hyperviscosity, no viscous stress).
struct FaceInputs {
  BackgroundPoint face;
  BackgroundPoint cell[6];
  double hyperviscosity, spacing, viscosity, diffusivity;
};

// The down-gradient fluxes rho nu du/dn, rho nu dw/dn and rho kappa dtheta'/dn through a face of
// density `rho`, from the states of the two cells beside it; theta' is about the background, so a
// stable stratification is not diffused.
KOKKOS_FORCEINLINE_FUNCTION void add_viscous_flux(const double below[components], const double above[components],
                                                  double rho, const FaceInputs& in, double flux[components]) {
  const BackgroundPoint &b = in.cell[2], &a = in.cell[3];
  const double rho_l = below[density] + b.rho, rho_r = above[density] + a.rho;
  const double theta_l = (below[rho_theta] + b.rho_theta) / rho_l - b.rho_theta / b.rho;
  const double theta_r = (above[rho_theta] + a.rho_theta) / rho_r - a.rho_theta / a.rho;
  const double scale = rho / in.spacing;
  flux[momentum_x] -= in.viscosity * scale * (above[momentum_x] / rho_r - below[momentum_x] / rho_l);
  flux[momentum_z] -= in.viscosity * scale * (above[momentum_z] / rho_r - below[momentum_z] / rho_l);
  flux[rho_theta] -= in.diffusivity * scale * (theta_r - theta_l);
}

// The flux through the face between the cell at `above` and the one a `stride` below it, along
// `axis` (0: x, 1: the vertical), of the four components `component_stride` apart in memory:
// miniWeather's, every component interpolated to the face at 4th order, the flux evaluated there.
KOKKOS_FORCEINLINE_FUNCTION void face_flux(const double* above, long stride, long component_stride, int axis,
                                           const FaceInputs& in, bool wall, double flux[components]) {
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
  const double normal = wall ? 0.0 : (axis == 0 ? u : w);
  if (wall) third_difference[density] = 0;  // no mass through a wall, from hyperviscosity either
  const double hv = in.hyperviscosity;
  flux[density] = rho * normal - hv * third_difference[density];
  flux[momentum_x] = rho * normal * u + (axis == 0 ? pressure : 0.0) - hv * third_difference[momentum_x];
  flux[momentum_z] = rho * normal * w + (axis == 1 ? pressure : 0.0) - hv * third_difference[momentum_z];
  flux[rho_theta] = rho * normal * theta - hv * third_difference[rho_theta];
  if ((in.viscosity > 0 || in.diffusivity > 0) && !wall) add_viscous_flux(below_cell, above_cell, rho, in, flux);
}

// The same flux the WRF way: the mass flux through the face and the pressure perturbation there by the
// 6th-order centred interpolation (the acoustic terms, whose waves run both ways), u, w and theta
// carried by that mass flux at their 5th-order upwind face values (the advection), and miniWeather's
// hyperviscosity from the four cells nearest the face. Reads three cells each way.
KOKKOS_FORCEINLINE_FUNCTION void fifth_order_face_flux(const double* above, long stride, long component_stride,
                                                       int axis, const FaceInputs& in, bool wall,
                                                       double flux[components]) {
  double q[components][6], third_difference[components];
  for (int c = 0; c < components; ++c) {
    for (int s = 0; s < 6; ++s) q[c][s] = above[c * component_stride + (s - 3) * stride];
    third_difference[c] = -q[c][1] + 3 * q[c][2] - 3 * q[c][3] + q[c][4];
  }
  const auto centred = [&](int c) {
    return solvers::sixth_order_centred(q[c][0], q[c][1], q[c][2], q[c][3], q[c][4], q[c][5]);
  };
  // Cell values of the carried quantities: u, w and the full theta.
  double carried[3][6];
  for (int s = 0; s < 6; ++s) {
    const double rho = q[density][s] + in.cell[s].rho;
    carried[0][s] = q[momentum_x][s] / rho;
    carried[1][s] = q[momentum_z][s] / rho;
    carried[2][s] = (q[rho_theta][s] + in.cell[s].rho_theta) / rho;
  }
  const double mass_flux = wall ? 0.0 : centred(axis == 0 ? momentum_x : momentum_z);
  const double sign = mass_flux > 0 ? 1.0 : -1.0;
  double face_value[3];
  for (int v = 0; v < 3; ++v)
    face_value[v] = solvers::fifth_order_upwind(carried[v][0], carried[v][1], carried[v][2], carried[v][3],
                                                carried[v][4], carried[v][5], sign);
  const double pressure = pressure_perturbation(centred(rho_theta), in.face.rho_theta, in.face.pressure);
  if (wall) third_difference[density] = 0;
  const double hv = in.hyperviscosity;
  flux[density] = mass_flux - hv * third_difference[density];
  flux[momentum_x] = mass_flux * face_value[0] + (axis == 0 ? pressure : 0.0) - hv * third_difference[momentum_x];
  flux[momentum_z] = mass_flux * face_value[1] + (axis == 1 ? pressure : 0.0) - hv * third_difference[momentum_z];
  flux[rho_theta] = mass_flux * face_value[2] - hv * third_difference[rho_theta];
  if ((in.viscosity > 0 || in.diffusivity > 0) && !wall) {
    double below_cell[components], above_cell[components];
    for (int c = 0; c < components; ++c) below_cell[c] = q[c][2], above_cell[c] = q[c][3];
    add_viscous_flux(below_cell, above_cell, centred(density) + in.face.rho, in, flux);
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
