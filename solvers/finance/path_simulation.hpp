#pragma once
// Paths of a model, summarised for the payoffs: terminal prices, averages, extremes and the barrier,
// simulated a group at a time with the paths as the inner, vector loop (simulate_lanes). Between
// monitoring dates the Brownian bridge gives the probability that the path crossed the barrier,
// exp(-2 a b / (sigma^2 dt)) for log-distances a, b from it at the two dates (Beaglehole, Dybvig &
// Zhou 1997); weighting by the survival probability instead of the indicator prices the continuously
// monitored barrier from discrete dates, and smoothly. A knock-out rebate is paid at the hit, so it is
// discounted from a hitting time drawn from the bridge's law given a crossing.
#include <utility>

#include "parallel/device_memory.hpp"
#include "solvers/finance/exercise_rule.hpp"
#include "solvers/finance/models.hpp"
#include "solvers/finance/products.hpp"

namespace meridian::finance {

struct PathSetup {
  int steps = 1;
  double dt = 1, rate = 0;
  bool average_includes_start = false;
  bool has_barrier = false, down_barrier = true, bridge_correction = true;
  double log_barrier = 0, rebate = 0;
  // GBM asset 0, for the pathwise vega: d ln S_t/dsigma = (ln S_t - ln S_0 - vega_drift t) / sigma,
  // with vega_drift = r - q + sigma^2/2 (zero sigma: no pathwise vega).
  double volatility = 0, vega_drift = 0;
  // Early exercise (a Bermudan product): at each rule's dates before maturity a path not yet exercised under it
  // checks it. Several rules (levels) run on the same paths where the American price is extrapolated; none
  // without early exercise.
  int exercise_levels = 0;
  Kokkos::Array<ExerciseRule, max_exercise_levels> exercise;
};

// When, as a fraction of the step, the Brownian bridge from log-distance alpha to beta from the barrier
// (both in units of the step's standard deviation; beta taken as |beta|, the end beyond the barrier
// being a sure crossing) first reaches it, given that it does, from a standard normal z and a uniform u.
// The bridge is ((1 - s) Y(s / (1 - s))) for Y a Brownian motion from alpha with drift beta, whose
// hitting time given a hit is inverse Gaussian with mean alpha / beta and shape alpha^2; drawn by
// Michael, Schucany & Haas (1976) with xi = (that time) / alpha^2, written without cancellation and
// finite at beta = 0. The two roots of their quadratic are the hit seen from the start and from the end.
template <class Real>
KOKKOS_INLINE_FUNCTION Real bridge_hitting_fraction(Real alpha, Real beta, Real z, Real u) {
  const Real y = z * z, root = km::sqrt(4 * alpha * beta * y + y * y);
  const Real xi = 4 * y / ((root + y) * (root + y));
  const Real x = alpha * beta * xi;
  return u * (1 + x) < 1 ? 1 - 1 / (1 + alpha * alpha * xi) : 1 / (1 + beta * beta * xi);
}

// A team thread simulates a group of paths together, the time steps outside and the paths inside, as
// the lanes of a vector loop (Kokkos::ThreadVectorRange): on the host Philox, log, cos and exp then run
// across the paths in SIMD registers; on a GPU each lane is a thread with its own path. A thread keeps
// its paths' state in slots: on the host one per lane of its loop, on a GPU the one of its own lane
// (so there `lanes` must be the team's vector length: one loop iteration per CUDA thread).
inline constexpr int host_lanes = 16;
inline constexpr int lane_slots = parallel::device_memory_is_host ? host_lanes : 1;
KOKKOS_INLINE_FUNCTION int slot_of(int lane) { return lane % lane_slots; }

// body(lane) for the lanes of a thread's group; on the host always host_lanes of them, a constant
// trip count for the vectoriser.
template <class TeamMember, class Body>
KOKKOS_INLINE_FUNCTION void for_each_lane(const TeamMember& team, int lanes, const Body& body) {
  Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, parallel::device_memory_is_host ? host_lanes : lanes), body);
}

// The state of a thread's paths in the precision of the paths, as arrays over the slots. Only what
// a path uses is set at its start (the log prices of the model's assets).
template <class Real>
struct LaneState {
  Real log_price[max_assets][lane_slots], variance[lane_slots], log_start[lane_slots];
  Real arithmetic_sum[lane_slots], log_sum[lane_slots], maximum[lane_slots], minimum[lane_slots];
  Real survival[lane_slots], rebate_value[lane_slots];
  Real log_vega[lane_slots], arithmetic_vega_sum[lane_slots], log_vega_sum[lane_slots];
  Real previous_log_price[lane_slots], previous_variance[lane_slots];  // at the last date, for the barrier
  double exercised[max_exercise_levels][lane_slots];  // per rule, the discounted exercise value once exercised, negative before
};

// One slot's log prices indexed by asset, as the models take them.
template <class Real>
struct SlotLogPrices {
  Real (*log_price)[lane_slots];
  int slot;
  KOKKOS_INLINE_FUNCTION Real& operator[](int asset) const { return log_price[asset][slot]; }
};

template <bool one_asset, class Real, class Model>
KOKKOS_INLINE_FUNCTION void start_path(const Model& model, const PathSetup& setup, LaneState<Real>& p, int s) {
  model.template start<one_asset>(SlotLogPrices<Real>{p.log_price, s}, p.variance[s]);
  const Real x = p.log_price[0][s], start = km::exp(x);
  p.log_start[s] = x;
  p.maximum[s] = p.minimum[s] = start;
  p.arithmetic_sum[s] = setup.average_includes_start ? start : Real(0);
  p.log_sum[s] = setup.average_includes_start ? x : Real(0);
  p.survival[s] = 1, p.rebate_value[s] = 0;
  p.log_vega[s] = p.arithmetic_vega_sum[s] = p.log_vega_sum[s] = 0;
  p.previous_log_price[s] = x, p.previous_variance[s] = p.variance[s];
  for (int l = 0; l < max_exercise_levels; ++l) p.exercised[l][s] = -1;
}

// One step of the model and the fixing at its end: what every product needs.
template <bool one_asset, class Real, class Model>
KOKKOS_INLINE_FUNCTION void advance_path(const Model& model, const PathSetup& setup, const Draws& draws,
                                         LaneState<Real>& p, int s) {
  model.template advance<one_asset>(SlotLogPrices<Real>{p.log_price, s}, p.variance[s], setup.dt, draws);
  const Real x = p.log_price[0][s], price = km::exp(x);
  p.arithmetic_sum[s] += price, p.log_sum[s] += x;
  p.maximum[s] = max_of(p.maximum[s], price), p.minimum[s] = min_of(p.minimum[s], price);
}

// The pathwise vega's derivatives at the fixing after `step`.
template <class Real>
KOKKOS_INLINE_FUNCTION void track_vega(const PathSetup& setup, int step, LaneState<Real>& p, int s) {
  const Real x = p.log_price[0][s], price = km::exp(x);
  p.log_vega[s] = (x - p.log_start[s] - static_cast<Real>(setup.vega_drift * (step + 1) * setup.dt)) /
                  static_cast<Real>(setup.volatility);
  p.arithmetic_vega_sum[s] += price * p.log_vega[s], p.log_vega_sum[s] += p.log_vega[s];
}

// The barrier over `step`: the probability of a crossing, from the bridge between the dates, and the
// knock-out rebate paid at it.
template <class Real, class Model>
KOKKOS_INLINE_FUNCTION void monitor_barrier(const Model& model, const PathSetup& setup, const Draws& draws, int step,
                                            LaneState<Real>& p, int s) {
  const Real dt = static_cast<Real>(setup.dt), log_barrier = static_cast<Real>(setup.log_barrier);
  const Real side = setup.down_barrier ? Real(1) : Real(-1), bridge = model.bridge_variance(p.previous_variance[s]);
  const Real a = side * (p.previous_log_price[s] - log_barrier), b = side * (p.log_price[0][s] - log_barrier);
  const Real crossed = a <= 0 || b <= 0 ? Real(1)
                       : setup.bridge_correction ? km::exp(-2 * a * b / (bridge * dt))
                                                 : Real(0);
  if (setup.rebate > 0 && p.survival[s] * crossed > 0) {
    // Discrete monitoring sees the hit at the date; the bridge places it inside the step.
    Real fraction = 1;
    const Real deviation = km::sqrt(bridge * dt);
    if (setup.bridge_correction && deviation > 0) {
      const Draws hit = draws.hitting_times();
      fraction = bridge_hitting_fraction(a / deviation, (b < 0 ? -b : b) / deviation, hit.normal<Real>(0),
                                         hit.uniform<Real>(1));
    }
    p.rebate_value[s] += p.survival[s] * crossed * static_cast<Real>(setup.rebate) *
                         km::exp(static_cast<Real>(-setup.rate) * (static_cast<Real>(step) + fraction) * dt);
  }
  p.survival[s] *= 1 - crossed;
  p.previous_log_price[s] = p.log_price[0][s], p.previous_variance[s] = p.variance[s];
}

// Exercise under rule `level` at `date` where the rule says so (the first such date), valuing the exercise at t = 0
// by `discount`. Several assets: the rule's basis per path.
template <class Real>
KOKKOS_INLINE_FUNCTION void consider_exercise(const ExerciseRule& rule, int level, int date, double discount,
                                              LaneState<Real>& p, int s) {
  double price[max_assets];
  price[0] = km::exp(static_cast<double>(p.log_price[0][s]));  // every rule reads asset 0
  for (int a = 1; a < rule.assets; ++a) price[a] = km::exp(static_cast<double>(p.log_price[a][s]));
  const double value = rule.value(price);
  if (p.exercised[level][s] >= 0 || !(value > 0)) return;
  double phi[max_basis_functions];
  rule.basis_values(price, value, phi);
  if (value >= rule.continuation(date, phi)) p.exercised[level][s] = value * discount;
}

// The same for one asset, as loops over the lanes with the basis' recurrence outside them and its terms per slot:
// each loop is branch-free, so the host runs it across the paths in SIMD registers (the per-path form above ran
// at a third of the European pricer's path-steps/s).
template <class Real, class TeamMember>
KOKKOS_INLINE_FUNCTION void exercise_one_asset(const TeamMember& team, int lanes, const ExerciseRule& rule, int level,
                                               int date, double discount, LaneState<Real>& p) {
  double x[lane_slots], value[lane_slots], weight[lane_slots], before[lane_slots], q[lane_slots], continuation[lane_slots];
  const bool laguerre = rule.basis == Basis::laguerre;
  const double constant = rule.coefficients(date, 0);
  for_each_lane(team, lanes, [&](const int lane) {
    const int s = slot_of(lane);
    const double price = km::exp(static_cast<double>(p.log_price[0][s]));
    x[s] = price / rule.strike;
    value[s] = rule.value_of_level(price);
    weight[s] = laguerre ? km::exp(-0.5 * x[s]) : 1.0;
    before[s] = 0, q[s] = 1;
    continuation[s] = constant;
  });
  for (int k = 1; k <= rule.order; ++k) {
    const double coefficient = rule.coefficients(date, k);
    double a, b, c;
    rule.recurrence(k, a, b, c);
    for_each_lane(team, lanes, [&](const int lane) {
      const int s = slot_of(lane);
      const double next = (a + b * x[s]) * q[s] - c * before[s];
      // Laguerre's function k is exp(-x/2) q_{k-1}; the others' q_k.
      continuation[s] += coefficient * (laguerre ? weight[s] * q[s] : next);
      before[s] = q[s], q[s] = next;
    });
  }
  for_each_lane(team, lanes, [&](const int lane) {
    const int s = slot_of(lane);
    const bool exercise = p.exercised[level][s] < 0 && value[s] > 0 && value[s] >= continuation[s];
    p.exercised[level][s] = exercise ? value[s] * discount : p.exercised[level][s];
  });
}

// body(level) for the exercise rules in use, levels 0 to `levels` - 1, each call's level a constant once inlined:
// through a runtime level, a GPU thread's whole path state would sit in local memory.
template <class Body, int... level>
KOKKOS_INLINE_FUNCTION void for_each_level(int levels, const Body& body, std::integer_sequence<int, level...>) {
  ((level < levels ? body(level) : void()), ...);
}
template <class Body>
KOKKOS_INLINE_FUNCTION void for_each_level(int levels, const Body& body) {
  for_each_level(levels, body, std::make_integer_sequence<int, max_exercise_levels>{});
}

// The steps of the group of `lanes` paths from `first.path` on (first.step is ignored). The products'
// optional parts (vega, barrier) run as loops of their own, so the common loop stays branch-free.
template <bool one_asset, class Real, class Model, class TeamMember>
KOKKOS_INLINE_FUNCTION void simulate_steps(const TeamMember& team, int lanes, const Model& model,
                                           const PathSetup& setup, const Draws& first, LaneState<Real>& paths) {
  const auto draws_of = [&](int lane, int step) {
    const auto path = first.path + static_cast<std::uint64_t>(lane);
    return Draws{first.key, path, static_cast<std::uint64_t>(step), first.sign};
  };
  for (int step = 0; step < setup.steps; ++step) {
    for_each_lane(team, lanes, [&](const int lane) {
      advance_path<one_asset>(model, setup, draws_of(lane, step), paths, slot_of(lane));
    });
    if (setup.volatility > 0)
      for_each_lane(team, lanes, [&](const int lane) { track_vega(setup, step, paths, slot_of(lane)); });
    if (setup.has_barrier)
      for_each_lane(team, lanes, [&](const int lane) {
        monitor_barrier(model, setup, draws_of(lane, step), step, paths, slot_of(lane));
      });
    for_each_level(setup.exercise_levels, [&](const int level) {
      const ExerciseRule& rule = setup.exercise[level];
      // Dates before maturity only: at maturity the payoff decides.
      const int date = rule.date_at_step(step);
      if (date < 0 || date >= rule.dates - 1) return;
      const double discount = km::exp(-setup.rate * (step + 1) * setup.dt);
      if constexpr (one_asset)
        exercise_one_asset(team, lanes, rule, level, date, discount, paths);
      else
        for_each_lane(team, lanes, [&](const int lane) {
          consider_exercise(rule, level, date, discount, paths, slot_of(lane));
        });
    });
  }
}

// The group of `lanes` paths from `first.path` on, from the start through all steps, of a model with one asset
// or (one_asset false) with model.assets.
template <bool one_asset, class Real, class Model, class TeamMember>
KOKKOS_INLINE_FUNCTION void simulate_lanes(const TeamMember& team, int lanes, const Model& model,
                                           const PathSetup& setup, const Draws& first, LaneState<Real>& paths) {
  for_each_lane(team, lanes, [&](const int lane) { start_path<one_asset>(model, setup, paths, slot_of(lane)); });
  simulate_steps<one_asset>(team, lanes, model, setup, first, paths);
}

// What the payoffs read of a simulated path, in double.
template <bool one_asset, class Real>
KOKKOS_INLINE_FUNCTION PathRecord record_of(const LaneState<Real>& p, int s, int assets, const PathSetup& setup) {
  PathRecord r;
  for (int a = 0; a < simulated_assets<one_asset>(assets); ++a) r.terminal[a] = km::exp(static_cast<double>(p.log_price[a][s]));
  r.arithmetic_sum = p.arithmetic_sum[s], r.log_sum = p.log_sum[s];
  r.fixings = setup.steps + (setup.average_includes_start ? 1 : 0);
  r.maximum = p.maximum[s], r.minimum = p.minimum[s];
  r.survival = p.survival[s], r.rebate_value = p.rebate_value[s];
  r.log_vega = p.log_vega[s], r.arithmetic_vega_sum = p.arithmetic_vega_sum[s], r.log_vega_sum = p.log_vega_sum[s];
  for (int l = 0; l < max_exercise_levels; ++l) r.exercised[l] = p.exercised[l][s];
  return r;
}

}  // namespace meridian::finance
