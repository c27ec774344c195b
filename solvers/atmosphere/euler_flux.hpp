#pragma once
// The arithmetic of the atmosphere's kernels, direction-generic and written once for 2-D and 3-D (the
// component count a template parameter, so the 2-D kernels carry no fifth component): the flux of the
// conserved perturbation variables through one face (miniWeather's 4th-order reconstruction with
// hyperviscosity, or WRF's 5th-order upwind advection with centred acoustic terms; optional constant eddy
// viscosity and diffusivity), the pressure perturbation, the Rayleigh layer's relaxation, and the sound
// speed. Free host-device functions: the solver's kernels only set up the launch.
#include "solvers/common/kokkos_math.hpp"
#include "solvers/common/wrf_interpolation.hpp"

#include <utility>

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
// background, and the full momenta; rho v (3-D only) last, so that the 2-D state is the 3-D one's
// first four components and keeps its layout.
enum Component { density = 0, momentum_x = 1, momentum_z = 2, rho_theta = 3, momentum_y = 4 };
// Components of the state of a Dims-dimensional atmosphere (2: x-z, 3: x-y-z).
template <int Dims>
inline constexpr int components_of = Dims + 2;

KOKKOS_INLINE_FUNCTION constexpr bool is_momentum(int c) { return c != density && c != rho_theta; }

// The momentum normal to the faces across mesh axis `axis`: the vertical is a Dims-dimensional grid's
// last axis, y (3-D) its second.
template <int Dims>
KOKKOS_INLINE_FUNCTION constexpr int normal_momentum(int axis) {
  return axis == 0 ? momentum_x : axis == Dims - 1 ? momentum_z : momentum_y;
}

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
// beyond, which agrees with it to rounding. SeriesOnly leaves out the libm branch, whose calls keep a host
// loop scalar: its caller redoes the result where `beyond_series` says the series did not reach.
template <bool SeriesOnly = false>
KOKKOS_FORCEINLINE_FUNCTION double pressure_perturbation(double rt_perturbation, double rt_background,
                                                         double p_background, bool& beyond_series) {
  const double x = rt_perturbation / rt_background;
  beyond_series = !(km::fabs(x) <= power_series_reach);
  if constexpr (SeriesOnly) {
    return p_background * power_gamma_minus_one_series(x);
  } else {
    const double ratio_minus_one =
        beyond_series ? km::expm1(gamma_d * km::log1p(x)) : power_gamma_minus_one_series(x);
    return p_background * ratio_minus_one;
  }
}
KOKKOS_INLINE_FUNCTION double pressure_perturbation(double rt_perturbation, double rt_background,
                                                    double p_background) {
  bool beyond_series;
  return pressure_perturbation(rt_perturbation, rt_background, p_background, beyond_series);
}

// The hydrostatic background where a face or a cell sits: density, rho theta, pressure.
struct BackgroundPoint {
  double rho, rho_theta, pressure;
};

// value(c) for a component `c` known only at run time (the face's normal momentum), without indexing an
// array by it: a dynamic index puts the whole array in local memory on a GPU (ptxas, sm_90: a 192-byte
// stack frame in the 2-D face-flux kernel, 288 in 3-D); this unrolls to N - 1 selects in registers.
template <class Value, int... K>
KOKKOS_FORCEINLINE_FUNCTION double at_component(int c, const Value& value, std::integer_sequence<int, K...>) {
  double selected = 0;
  ((selected = K == c ? value(K) : selected), ...);
  return selected;
}

template <int N, class Value>
KOKKOS_FORCEINLINE_FUNCTION double at_component(int c, const Value& value) {
  return at_component(c, value, std::make_integer_sequence<int, N>{});
}

// What a face-flux function knows at compile time, its KnownNormal parameter. normal_at_run_time: nothing (every
// face on a GPU; on the host the rows next to a one-sided wall closure, and those redone). Otherwise the host's
// vector loop over a row's faces (face_fluxes in dynamics_kernels.cpp) gives the normal momentum, every stencil is
// interior, and the pressure perturbation is its series alone, that loop redoing at run time any row where a face
// was beyond the series' reach: the branches and libm calls these leave out kept the loop scalar.
inline constexpr int normal_at_run_time = -1;

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

// The down-gradient fluxes rho nu du_i/dn of every momentum and rho kappa dtheta'/dn through a face of
// density `rho`, from the states of the two cells beside it; theta' is about the background, so a
// stable stratification is not diffused.
template <int N>
KOKKOS_FORCEINLINE_FUNCTION void add_viscous_flux(const double below[N], const double above[N], double rho,
                                                  const FaceInputs& in, double flux[N]) {
  const BackgroundPoint &b = in.cell[2], &a = in.cell[3];
  const double rho_l = below[density] + b.rho, rho_r = above[density] + a.rho;
  const double theta_l = (below[rho_theta] + b.rho_theta) / rho_l - b.rho_theta / b.rho;
  const double theta_r = (above[rho_theta] + a.rho_theta) / rho_r - a.rho_theta / a.rho;
  const double scale = rho / in.spacing;
  for (int c = 0; c < N; ++c)
    if (is_momentum(c)) flux[c] -= in.viscosity * scale * (above[c] / rho_r - below[c] / rho_l);
  flux[rho_theta] -= in.diffusivity * scale * (theta_r - theta_l);
}

// Where a face sits with respect to the walls, for the `one_sided` wall closure: its 4-cell stencil
// inside the domain (interior), reaching one cell across a wall (next_to_wall), or on a wall with the
// domain above it (wall_below: the ground, the wall at x = 0 or y = 0) or below it (wall_above: the lid,
// the wall at x = width or y = depth).
// miniWeather's closure treats every face as interior and reads the halos across the walls.
enum class FaceStencil { interior, next_to_wall, wall_below, wall_above };

// The face value and the hyperviscosity's third difference of one component, from the cells at `q`
// (the cell above the face) and `stride` apart. Next to a wall, the 2nd-order centred value from the two
// cells beside the face; on a wall, the linear extrapolation of the two cells inside; both without
// hyperviscosity, so nothing across a wall is read. The halo copies leave a first-order error in the
// face values next to a wall, this closure a second-order one. (Third-order closures from three cells
// inside, or halos extrapolated by a quadratic, went unstable on the 2 km and 1 km grids of the linear
// gravity wave.)
// Interior: the stencil known to be the interior one.
template <bool Interior = false>
KOKKOS_FORCEINLINE_FUNCTION void face_value(const double* q, long stride, FaceStencil stencil, double& value,
                                            double& third_difference) {
  third_difference = 0;
  if constexpr (!Interior) {
    switch (stencil) {
      case FaceStencil::next_to_wall: value = (q[-stride] + q[0]) / 2; return;
      case FaceStencil::wall_below: value = (3 * q[0] - q[stride]) / 2; return;
      case FaceStencil::wall_above: value = (3 * q[-stride] - q[-2 * stride]) / 2; return;
      case FaceStencil::interior: break;
    }
  }
  const double qm2 = q[-2 * stride], qm1 = q[-stride], q0 = q[0], q1 = q[stride];
  value = (-qm2 + 7 * qm1 + 7 * q0 - q1) / 12;
  third_difference = -qm2 + 3 * qm1 - 3 * q0 + q1;
}

// The flux through the face between the cell at `above` and the one a `stride` below it, of the N
// components `component_stride` apart in memory, `normal` the momentum normal to the face:
// miniWeather's, every component interpolated to the face at 4th order (or by `stencil` at a wall),
// the flux evaluated there.
template <int N, int KnownNormal = normal_at_run_time>
KOKKOS_FORCEINLINE_FUNCTION void face_flux(const double* above, long stride, long component_stride, int normal,
                                           const FaceInputs& in, bool wall, FaceStencil stencil, double flux[N],
                                           bool& beyond_series) {
  if constexpr (KnownNormal != normal_at_run_time) normal = KnownNormal;
  double value[N], third_difference[N], below_cell[N], above_cell[N];
  for (int c = 0; c < N; ++c) {
    const double* q = above + c * component_stride;
    face_value<KnownNormal != normal_at_run_time>(q, stride, stencil, value[c], third_difference[c]);
    below_cell[c] = q[-stride];
    above_cell[c] = q[0];
  }
  const double rho = value[density] + in.face.rho;
  double velocity[N] = {};
  for (int c = 0; c < N; ++c)
    if (is_momentum(c)) velocity[c] = value[c] / rho;
  const double theta = (value[rho_theta] + in.face.rho_theta) / rho;
  const double pressure =
      pressure_perturbation<KnownNormal != normal_at_run_time>(value[rho_theta], in.face.rho_theta, in.face.pressure,
                                                                beyond_series);
  double normal_velocity;
  if constexpr (KnownNormal != normal_at_run_time)
    normal_velocity = wall ? 0.0 : velocity[KnownNormal];
  else
    normal_velocity = wall ? 0.0 : at_component<N>(normal, [&](int c) { return velocity[c]; });
  if (wall) third_difference[density] = 0;  // no mass through a wall, from hyperviscosity either
  const double hv = in.hyperviscosity;
  flux[density] = rho * normal_velocity - hv * third_difference[density];
  for (int c = 0; c < N; ++c)
    if (is_momentum(c))
      flux[c] = rho * normal_velocity * velocity[c] + (c == normal ? pressure : 0.0) - hv * third_difference[c];
  flux[rho_theta] = rho * normal_velocity * theta - hv * third_difference[rho_theta];
  if ((in.viscosity > 0 || in.diffusivity > 0) && !wall) add_viscous_flux<N>(below_cell, above_cell, rho, in, flux);
}

// The same flux the WRF way: the mass flux through the face and the pressure perturbation there by the
// 6th-order centred interpolation (the acoustic terms, whose waves run both ways), the velocities and
// theta carried by that mass flux at their 5th-order upwind face values (the advection), and
// miniWeather's hyperviscosity from the four cells nearest the face. Reads three cells each way.
template <int N, int KnownNormal = normal_at_run_time>
KOKKOS_FORCEINLINE_FUNCTION void fifth_order_face_flux(const double* above, long stride, long component_stride,
                                                       int normal, const FaceInputs& in, bool wall, double flux[N],
                                                       bool& beyond_series) {
  if constexpr (KnownNormal != normal_at_run_time) normal = KnownNormal;
  double q[N][6], third_difference[N];
  for (int c = 0; c < N; ++c) {
    for (int s = 0; s < 6; ++s) q[c][s] = above[c * component_stride + (s - 3) * stride];
    third_difference[c] = -q[c][1] + 3 * q[c][2] - 3 * q[c][3] + q[c][4];
  }
  const auto centred = [&](int c) {
    return solvers::sixth_order_centred(q[c][0], q[c][1], q[c][2], q[c][3], q[c][4], q[c][5]);
  };
  // Cell values of the carried quantities, in the slots of their components: the velocities, and the
  // full theta in rho theta's.
  double carried[N][6];
  for (int s = 0; s < 6; ++s) {
    const double rho = q[density][s] + in.cell[s].rho;
    for (int c = 0; c < N; ++c)
      if (is_momentum(c)) carried[c][s] = q[c][s] / rho;
    carried[rho_theta][s] = (q[rho_theta][s] + in.cell[s].rho_theta) / rho;
  }
  double mass_flux;
  if constexpr (KnownNormal != normal_at_run_time)
    mass_flux = wall ? 0.0 : centred(KnownNormal);
  else
    mass_flux = wall ? 0.0 : at_component<N>(normal, centred);
  const double sign = mass_flux > 0 ? 1.0 : -1.0;
  double face_value[N];
  for (int c = 0; c < N; ++c)
    if (c != density)
      face_value[c] = solvers::fifth_order_upwind(carried[c][0], carried[c][1], carried[c][2], carried[c][3],
                                                  carried[c][4], carried[c][5], sign);
  const double pressure =
      pressure_perturbation<KnownNormal != normal_at_run_time>(centred(rho_theta), in.face.rho_theta, in.face.pressure,
                                                                beyond_series);
  if (wall) third_difference[density] = 0;
  const double hv = in.hyperviscosity;
  flux[density] = mass_flux - hv * third_difference[density];
  for (int c = 0; c < N; ++c)
    if (is_momentum(c))
      flux[c] = mass_flux * face_value[c] + (c == normal ? pressure : 0.0) - hv * third_difference[c];
  flux[rho_theta] = mass_flux * face_value[rho_theta] - hv * third_difference[rho_theta];
  if ((in.viscosity > 0 || in.diffusivity > 0) && !wall) {
    double below_cell[N], above_cell[N];
    for (int c = 0; c < N; ++c) below_cell[c] = q[c][2], above_cell[c] = q[c][3];
    add_viscous_flux<N>(below_cell, above_cell, centred(density) + in.face.rho, in, flux);
  }
}

// The Rayleigh layer's relaxation of a cell towards the background: rate x (target - state) for the
// momenta (towards the background wind `wind` along x and no motion across it) and for rho theta
// (towards theta' = 0 at the cell's density); the density is left alone, so mass stays conserved. Zero
// for the resting background itself.
template <int N>
KOKKOS_INLINE_FUNCTION void rayleigh_tendency(const double state[N], const BackgroundPoint& cell, double wind,
                                              double rate, double tendency[N]) {
  const double rho = state[density] + cell.rho;
  tendency[density] = 0;
  for (int c = 0; c < N; ++c)
    if (is_momentum(c)) tendency[c] = c == momentum_x ? rate * (rho * wind - state[c]) : -rate * state[c];
  tendency[rho_theta] = rate * (state[density] * cell.rho_theta / cell.rho - state[rho_theta]);
}

// The fastest signal along each mesh axis in a cell, |u_axis| + c, with c^2 = gamma p / rho.
// SeriesOnly as pressure_perturbation's: `beyond_series` says where the speeds must be redone without it.
template <int Dims, bool SeriesOnly = false>
KOKKOS_INLINE_FUNCTION void signal_speeds(const double state[components_of<Dims>], const BackgroundPoint& cell,
                                          double along[Dims], bool& beyond_series) {
  const double rho = state[density] + cell.rho;
  const double p =
      cell.pressure + pressure_perturbation<SeriesOnly>(state[rho_theta], cell.rho_theta, cell.pressure, beyond_series);
  const double c = km::sqrt(gamma_d * p / rho);
  for (int axis = 0; axis < Dims; ++axis) along[axis] = km::fabs(state[normal_momentum<Dims>(axis)] / rho) + c;
}

}  // namespace meridian::atmosphere
