#pragma once
// Moist air for the atmosphere core, as Bryan & Fritsch (2002, Mon. Wea. Rev. 130, 2917-2928; section 2) define
// it: water vapour and cloud water carried as mixing ratios per kg of dry air (q_v, q_c; total water r_t), the
// latent heat of vaporisation varying with temperature (Kirchhoff: L_v = L_v0 - (c_l - c_pv)(T - T0)), Bolton's
// (1980, eq. 10) saturation vapour pressure over liquid, and as the quantity that reversible moist processes keep,
// the equivalent potential temperature of Emanuel (1994, Atmospheric Convection, eq. 4.5.11)
//   theta_e = T (p_d / p0)^(-R_d / c_pt) H^(-q_v R_v / c_pt) exp(L_v q_v / (c_pt T)),   c_pt = c_pd + c_l r_t,
// with p_d the dry air's partial pressure and H = e / e_s the relative humidity. The dry constants are the
// core's (euler_flux.hpp: miniWeather's R_d = 287, c_pd = 1004, so one equation of state holds for the dry and the
// moist runs); Bryan & Fritsch's are 287.04 and 1005.7, which moves theta_e by about 0.1% at a given state. The
// water constants are theirs (as CM1 has them). Free host-device functions, as euler_flux.hpp's.
#include "solvers/atmosphere/euler_flux.hpp"

namespace meridian::atmosphere::moist {

inline constexpr double rv = 461.5;      // J/(kg K), water vapour's gas constant
inline constexpr double cpv = 1870.0;    // J/(kg K), vapour at constant pressure
inline constexpr double cl = 4190.0;     // J/(kg K), liquid water
inline constexpr double lv0 = 2.501e6;   // J/kg, latent heat of vaporisation at t0
inline constexpr double t0 = 273.15;     // K

KOKKOS_INLINE_FUNCTION double latent_heat(double t) { return lv0 - (cl - cpv) * (t - t0); }

// Bolton (1980), eq. 10, in Pa.
KOKKOS_INLINE_FUNCTION double saturation_vapour_pressure(double t) {
  return 611.2 * km::exp(17.67 * (t - t0) / (t - 29.65));
}

// The saturation mixing ratio where the dry air's density is rho_d: the saturated vapour density e_s / (R_v T)
// over rho_d. At a given volume it depends on the temperature alone, which is what lets the adjustment below hold
// the dry density fixed.
KOKKOS_INLINE_FUNCTION double saturation_mixing_ratio(double t, double rho_d) {
  return saturation_vapour_pressure(t) / (rv * t * rho_d);
}

// ln theta_e (Emanuel's 4.5.11) of air at temperature t and dry density rho_d with vapour q_v and total water r_t.
KOKKOS_INLINE_FUNCTION double log_equivalent_potential_temperature(double t, double rho_d, double qv, double rt) {
  const double cpt = cp + cl * rt;
  double value = km::log(t) - rd / cpt * km::log(rho_d * rd * t / p0) + latent_heat(t) * qv / (cpt * t);
  // H^(-q_v R_v / c_pt), H = e / e_s with e = rho_d q_v R_v T; no vapour, no term (its limit).
  if (qv > 0) value -= qv * rv / cpt * km::log(rho_d * qv * rv * t / saturation_vapour_pressure(t));
  return value;
}

// The same for saturated air, q_v = q_vs(T) (H = 1: no humidity term), one logarithm and one exponential: the
// residual the adjustment's root finder evaluates.
KOKKOS_INLINE_FUNCTION double log_saturated_equivalent_potential_temperature(double t, double rho_d, double rt) {
  const double cpt = cp + cl * rt, kappa = rd / cpt;
  return (1 - kappa) * km::log(t) - kappa * km::log(rho_d * rd / p0) +
         latent_heat(t) * saturation_mixing_ratio(t, rho_d) / (cpt * t);
}

// Iterations the root finder allows; the secant method needs 3-5.
inline constexpr int adjustment_iterations = 40;

// The root near `t` of the residual g(T): the secant method from t and t + 0.01 K, to |dT| <= 1e-14 T (a few ulps,
// so that cells whose states differ by rounding, a bubble's mirror images, land on the same root). One evaluation
// of g an iteration: Newton's method with a centred difference quotient took three, and most of a moist step, as
// sound moves nearly every cell off saturation by more than the adjustment's tolerance.
template <class Residual>
KOKKOS_INLINE_FUNCTION double temperature_root(const Residual& g, double t) {
  double previous = t + 1e-2, g_previous = g(previous), g_t = g(t);
  for (int n = 0; n < adjustment_iterations && g_t != g_previous; ++n) {
    const double step = g_t * (t - previous) / (g_t - g_previous);
    previous = t, g_previous = g_t;
    t -= step;
    if (!(km::fabs(step) > 1e-14 * t)) break;
    g_t = g(t);
  }
  return t;
}

// The temperature near `t` where air of dry density rho_d and total water rt, with vapour vapour(T), has
// ln theta_e = target, to |dT| <= 1e-14 T.
template <class Vapour>
KOKKOS_INLINE_FUNCTION double temperature_of(double target, double t, double rho_d, double rt, const Vapour& vapour) {
  return temperature_root(
      [&](double temperature) {
        return log_equivalent_potential_temperature(temperature, rho_d, vapour(temperature), rt) - target;
      },
      t);
}

// Saturation adjustment at constant dry density, keeping r_t = q_v + q_c and theta_e: supersaturated air condenses
// and cloud in subsaturated air evaporates (all of it where the air cannot hold it at saturation), the latent heat
// going into the temperature. Clear air below saturation is left as it is (to the bit). Afterwards either q_c > 0
// and q_v = q_vs(T), or q_c = 0 and q_v <= q_vs(T).
KOKKOS_INLINE_FUNCTION void adjust_to_saturation(double rho_d, double& t, double& qv, double& qc) {
  if (!(qc > 0) && qv <= saturation_mixing_ratio(t, rho_d)) return;
  const double rt = qv + qc, target = log_equivalent_potential_temperature(t, rho_d, qv, rt);
  const double saturated = temperature_root(
      [&](double temperature) { return log_saturated_equivalent_potential_temperature(temperature, rho_d, rt) - target; },
      t);
  const double vapour = saturation_mixing_ratio(saturated, rho_d);
  if (vapour <= rt) {
    t = saturated, qv = vapour, qc = rt - vapour;
    return;
  }
  // Too warm to stay saturated: every drop evaporates and the air ends below saturation.
  t = temperature_of(target, t, rho_d, rt, [&](double) { return rt; });
  qv = rt, qc = 0;
}

}  // namespace meridian::atmosphere::moist
