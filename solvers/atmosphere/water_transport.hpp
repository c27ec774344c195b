#pragma once
// The water species' arithmetic: their face values, carried by the whole air's mass flux, and the saturation
// adjustment of a cell. Water is held as partial densities rho_k (kg/m^3: vapour, cloud), advanced in flux form with
// the face flux F rho_k / rho, F the air's whole mass flux through the face (its hyperviscous part included) and
// rho_k / rho the species' mass fraction at the face: mass is then conserved species by species, and a uniform
// fraction stays uniform to round-off, since the air's density takes the same flux. The fraction's face value is
// upwind and limited, without hyperviscosity of its own (that would break positivity and make spurious
// supersaturation): the third-order (kappa = 1/3) upwind-biased value under Koren's (1993) limiter, which keeps it
// between the upwind cell's value and the downwind cell's and within twice the upwind cell's, so a forward-Euler
// stage keeps rho_k >= 0 while the outflow's Courant number stays below 1/2 (the advective Courant number is about
// a tenth of the acoustic one the step is set by).
#include "solvers/atmosphere/euler_flux.hpp"
#include "solvers/atmosphere/hydrostatic_background.hpp"
#include "solvers/atmosphere/moist_thermodynamics.hpp"

namespace meridian::atmosphere {

// The water species the state carries, in this order; the next issue's rain goes after them.
enum WaterSpecies { vapour = 0, cloud = 1 };
inline constexpr int water_species = 2;

// The face value of a fraction from the cell upwind of the face, the one beyond it and the one downwind.
KOKKOS_FORCEINLINE_FUNCTION double limited_upwind_value(double far_upwind, double upwind, double downwind) {
  const double behind = upwind - far_upwind, ahead = downwind - upwind;
  if (!(behind * ahead > 0)) return upwind;  // an extremum or a flat stretch: first order
  const double b = km::fabs(behind), a = km::fabs(ahead);
  const double step = min_of(a, min_of((b + 2 * a) / 6, b));  // Koren's phi(r) = min(2r, (1 + 2r) / 3, 2)
  return upwind + (behind > 0 ? step : -step);
}

// The face value of the fraction at the face between cells[1] (below) and cells[2] (above), cells[0] and
// cells[3] beyond them, for a mass flux of sign `mass_flux`.
KOKKOS_FORCEINLINE_FUNCTION double fraction_at_face(const double fraction[4], double mass_flux) {
  return mass_flux > 0 ? limited_upwind_value(fraction[0], fraction[1], fraction[2])
                       : limited_upwind_value(fraction[3], fraction[2], fraction[1]);
}

// The dry core expands and compresses moist air along the dry adiabat, T ~ p^(R_d / c_pd) at fixed water, where
// moist air of R_m = R_d + q_v R_v and c_pm = c_pd + q_v c_pv + q_c c_l (per kg of dry air) follows T ~ p^(R_m /
// c_pm): with Bryan & Fritsch's water 3.5% less cooling per unit of ln p. The correction raises theta_m by
// (R_m / c_pm - R_d / c_pd) times the change of ln p the air goes through, at constant density. Zero without water
// or without a change of pressure, to the bit.
KOKKOS_INLINE_FUNCTION void moist_expansion_correction(double& rt_perturbation, const BackgroundPoint& cell,
                                                       const double water[water_species], double rho,
                                                       double log_pressure_change) {
  const double rho_d = rho - water[vapour] - water[cloud];
  const double qv = water[vapour] / rho_d, qc = water[cloud] / rho_d;
  const double excess = (rd + moist::rv * qv) / (cp + moist::cpv * qv + moist::cl * qc) - rd / cp;
  if (excess == 0 || log_pressure_change == 0) return;
  rt_perturbation += (rt_perturbation + cell.rho_theta) * km::expm1(excess * log_pressure_change);
}

// A cell's temperature from its whole density, pressure and water: p = rho_d (R_d + R_v q_v) T.
KOKKOS_INLINE_FUNCTION double cell_temperature(double rho, double pressure, const WaterPoint& water) {
  const double rho_d = rho - water.vapour - water.cloud;
  return pressure / (rho_d * rd + water.vapour * moist::rv);
}

// The water's internal energy (J/m^3) beyond what the dry core's energy diagnostic counts, c_v p / R_d (which
// takes the vapour's share of the pressure for dry air), at temperature t. Moist air's internal energy is
// c_vd rho_d T + rho_v (c_vv T + e00) + rho_c c_l T with c_vv = c_pv - R_v and e00 = L_v0 - (c_pv - c_l) T0, so
// that the vapour's enthalpy less the liquid's is L_v(T) (moist_thermodynamics.hpp); with p = (rho_d R_d + rho_v
// R_v) T what c_v p / R_d leaves out is this, free of cancellation.
KOKKOS_INLINE_FUNCTION double water_internal_energy(double rho_v, double rho_c, double t) {
  constexpr double e00 = moist::lv0 - (moist::cpv - moist::cl) * moist::t0;
  return rho_v * ((moist::cpv - moist::rv - cv * moist::rv / rd) * t + e00) + rho_c * moist::cl * t;
}

KOKKOS_INLINE_FUNCTION double cell_pressure(double rt_perturbation, const BackgroundPoint& cell) {
  return cell.pressure + pressure_perturbation(rt_perturbation, cell.rho_theta, cell.pressure);
}

// Moist air in a cell, as the state holds it: the whole density, rho theta_rho's perturbation about the
// background's, and the water's partial densities. The saturation adjustment (moist_thermodynamics.hpp, at the
// cell's constant dry density) acts on it where the air is supersaturated, or holds cloud away from saturation by
// more than `tolerance` relative: the temperature from p = rho_d (R_d + R_v q_v) T, adjusted, and rho theta_rho
// from the new pressure. Air already within the tolerance is left as it is, to the bit, so a saturated resting
// state stays at rest. Returns whether it adjusted.
KOKKOS_INLINE_FUNCTION bool saturation_adjustment(double rho, double& rt_perturbation, const BackgroundPoint& cell,
                                                  double water[water_species], double tolerance) {
  const double rho_d = rho - water[vapour] - water[cloud];
  double qv = water[vapour] / rho_d, qc = water[cloud] / rho_d;
  double t = cell_pressure(rt_perturbation, cell) / (rho_d * (rd + moist::rv * qv));
  const double saturated = moist::saturation_mixing_ratio(t, rho_d);
  const bool clear_below = !(qc > 0) && qv <= saturated;
  const bool cloud_at_saturation = qc > 0 && km::fabs(qv - saturated) <= tolerance * saturated;
  if (clear_below || cloud_at_saturation) return false;
  moist::adjust_to_saturation(rho_d, t, qv, qc);
  const double adjusted = rho_d * (rd + moist::rv * qv) * t;
  // (p / p_b)^(1 / gamma) - 1 about the background, without the cancellation of rho theta_rho - its background's.
  rt_perturbation = cell.rho_theta * km::expm1(km::log1p((adjusted - cell.pressure) / cell.pressure) / gamma_d);
  water[vapour] = rho_d * qv;
  water[cloud] = rho_d * qc;
  return true;
}

// The end of a moist step for one cell: the moist expansion's correction for the step's change of ln p along the
// air's path, then (with `adjustment`) the saturation adjustment at constant density. The change along the path is
// the cell's own since the last step ended (`last_pressure`, after its adjustment: so the expansion that gives
// back the pressure an adjustment's latent heat added, and sound, are corrected too) plus the vertical advection
// of pressure, taken as hydrostatic, -rho g w dt (the horizontal advection of p' is left out). A saturated parcel
// of Bryan & Fritsch's column lifted from 2 to 8 km in 100 m steps so keeps theta_e to 6e-5; without the
// correction it loses 1.6% (5 K), with only the hydrostatic part 0.12% (tests/test_moist_thermodynamics.cpp,
// LiftedColumnKeepsThetaE). Returns whether the water changed; `last_pressure` becomes the cell's pressure.
KOKKOS_INLINE_FUNCTION bool moist_step(double rho, double w, double dt, double& rt_perturbation,
                                       const BackgroundPoint& cell, double water[water_species], double& last_pressure,
                                       bool adjustment, double tolerance) {
  const double p = cell_pressure(rt_perturbation, cell);
  const double local = p == last_pressure ? 0.0 : km::log(p / last_pressure);
  moist_expansion_correction(rt_perturbation, cell, water, rho, local - rho * gravity * w * dt / p);
  // The pressure the correction itself adds at constant density is not the air's expansion: it is left out of
  // the next step's change (else corrected again, a lift from 2 to 8 km gains 4e-4 of theta_e at any step).
  const double own = cell_pressure(rt_perturbation, cell) / p;
  const bool adjusted = adjustment && saturation_adjustment(rho, rt_perturbation, cell, water, tolerance);
  last_pressure = own == 1 ? cell_pressure(rt_perturbation, cell) : cell_pressure(rt_perturbation, cell) / own;
  return adjusted;
}

}  // namespace meridian::atmosphere
