#pragma once
// The Wicker-Skamarock (2002) three-stage Runge-Kutta scheme that WRF, miniWeather, advection and the
// atmosphere use: every stage restarts from the step's initial state q0,
//   q1 = q0 + dt/3 L(q0),  q2 = q0 + dt/2 L(q1),  q(n+1) = q0 + dt L(q2),
// third order for linear operators, second for nonlinear ones; with 5th-order upwind (4th-order
// centred) fluxes stable to Courant about 1.4 (1.26) in 1-D.
namespace meridian::solvers {

struct RkStage {
  double dt;           // the stage's step, dt / 3, dt / 2 or dt
  double time_offset;  // the stage's time, after the step's start, at which L is evaluated
};

inline RkStage wicker_skamarock_stage(int stage, double dt) {
  if (stage == 0) return {dt / 3, 0.0};
  if (stage == 1) return {dt / 2, dt / 3};
  return {dt, dt / 2};
}

inline constexpr int wicker_skamarock_stages = 3;

}  // namespace meridian::solvers
