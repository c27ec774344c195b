#pragma once
// Products: payoffs evaluated from a summary of one simulated path. A payoff does not know how the
// path was made (QuantLib's separation of products, models and engines).
#include <Kokkos_Core.hpp>

#include <string>
#include <vector>

#include "solvers/finance/exercise_rule.hpp"
#include "solvers/finance/models.hpp"

namespace meridian::finance {

enum class Payoff {
  european_call, european_put, digital_call, digital_put,
  asian_arithmetic_call, asian_arithmetic_put, asian_geometric_call, asian_geometric_put,
  barrier_down_in_call, barrier_down_out_call, barrier_up_in_call, barrier_up_out_call,
  barrier_down_in_put, barrier_down_out_put, barrier_up_in_put, barrier_up_out_put,
  basket_call, basket_put, max_call, min_call, lookback_call, lookback_put,
  bermudan_put, bermudan_call, bermudan_max_call  // early exercise at the dates of the run's ExerciseRule
};

// Deck names, in the order of the enum.
const std::vector<std::string>& payoff_names();
bool is_barrier(Payoff p);
bool is_bermudan(Payoff p);
bool is_down_barrier(Payoff p);

// What a path leaves behind for the payoffs (asset 0 unless a payoff says otherwise).
struct PathRecord {
  double terminal[max_assets];
  double arithmetic_sum = 0, log_sum = 0;
  int fixings = 0;
  double maximum = 0, minimum = 0;  // over the fixings and the start
  double survival = 1;              // probability the path stayed on the live side of the barrier
  double rebate_value = 0;          // discounted knock-out rebate, paid at the (expected) hit time
  // For pathwise vegas under GBM: d ln S_T / d sigma, and the sums over the fixings of
  // S_t d ln S_t / d sigma and of d ln S_t / d sigma.
  double log_vega = 0, arithmetic_vega_sum = 0, log_vega_sum = 0;
  // Per exercise rule (level), the discounted exercise value where the path exercised before maturity, else negative.
  double exercised[max_exercise_levels] = {-1, -1, -1};
};

struct ProductTerms {
  double strike = 100, barrier = 0, rebate = 0, discount = 1;  // discount = exp(-r T)
  int assets = 1;
  Kokkos::Array<double, max_assets> basket_weights;
  // A Bermudan's value is sum_l w_l (the path's value under exercise rule l): one rule of weight 1, or the
  // Richardson weights of the Bermudans with N, 2N and 4N dates, whose combination estimates the American; the
  // rules not priced weigh 0.
  Kokkos::Array<double, max_exercise_levels> exercise_weights{{1, 0, 0}};
};

KOKKOS_INLINE_FUNCTION double call(double s, double k) { return s > k ? s - k : 0.0; }
KOKKOS_INLINE_FUNCTION double put(double s, double k) { return s < k ? k - s : 0.0; }

// A Bermudan's discounted value on one path, `held` if held to maturity: per exercise rule, the exercise value
// where the rule exercised, else `held`, weighted as the terms say.
KOKKOS_INLINE_FUNCTION double early_exercised(const PathRecord& r, const ProductTerms& t, double held) {
  double value = 0;
  for (int l = 0; l < max_exercise_levels; ++l) value += t.exercise_weights[l] * (r.exercised[l] >= 0 ? r.exercised[l] : held);
  return value;
}

// The largest (or smallest) terminal price of the assets.
KOKKOS_INLINE_FUNCTION double extreme_price(const PathRecord& r, const ProductTerms& t, bool largest) {
  double extreme = r.terminal[0];
  for (int a = 1; a < t.assets; ++a) extreme = largest ? max_of(extreme, r.terminal[a]) : min_of(extreme, r.terminal[a]);
  return extreme;
}

// The discounted payoff of one path. Not recursive: a device function that calls itself has a stack the
// compiler cannot size, and CUDA's default of 1 KiB a thread then overflowed in the path kernel on the H200.
KOKKOS_INLINE_FUNCTION double discounted_payoff(Payoff p, const PathRecord& r, const ProductTerms& t) {
  const double s = r.terminal[0], k = t.strike, d = t.discount;
  const double mean = r.arithmetic_sum / r.fixings, geometric = km::exp(r.log_sum / r.fixings);
  const double never_hit = r.survival, hit = 1 - r.survival;
  switch (p) {
    case Payoff::european_call: return d * call(s, k);
    case Payoff::european_put: return d * put(s, k);
    case Payoff::digital_call: return d * (s > k ? 1.0 : 0.0);
    case Payoff::digital_put: return d * (s < k ? 1.0 : 0.0);
    case Payoff::asian_arithmetic_call: return d * call(mean, k);
    case Payoff::asian_arithmetic_put: return d * put(mean, k);
    case Payoff::asian_geometric_call: return d * call(geometric, k);
    case Payoff::asian_geometric_put: return d * put(geometric, k);
    // Knock-ins pay the vanilla if hit and the rebate at expiry if not; knock-outs pay the
    // vanilla if never hit and the rebate when hit (Haug 1998; QuantLib's conventions).
    case Payoff::barrier_down_in_call:
    case Payoff::barrier_up_in_call: return d * (hit * call(s, k) + never_hit * t.rebate);
    case Payoff::barrier_down_in_put:
    case Payoff::barrier_up_in_put: return d * (hit * put(s, k) + never_hit * t.rebate);
    case Payoff::barrier_down_out_call:
    case Payoff::barrier_up_out_call: return d * never_hit * call(s, k) + r.rebate_value;
    case Payoff::barrier_down_out_put:
    case Payoff::barrier_up_out_put: return d * never_hit * put(s, k) + r.rebate_value;
    case Payoff::basket_call:
    case Payoff::basket_put: {
      double basket = 0;
      for (int a = 0; a < t.assets; ++a) basket += t.basket_weights[a] * r.terminal[a];
      return d * (p == Payoff::basket_call ? call(basket, k) : put(basket, k));
    }
    case Payoff::max_call: return d * call(extreme_price(r, t, true), k);
    case Payoff::min_call: return d * call(extreme_price(r, t, false), k);
    case Payoff::lookback_call: return d * (s - r.minimum);  // floating strike
    case Payoff::lookback_put: return d * (r.maximum - s);
    case Payoff::bermudan_put: return early_exercised(r, t, d * put(s, k));
    case Payoff::bermudan_call: return early_exercised(r, t, d * call(s, k));
    case Payoff::bermudan_max_call: return early_exercised(r, t, d * call(extreme_price(r, t, true), k));
  }
  return 0.0;
}

// A control variate with known mean, or zero where the product has none: the discounted asset
// for the vanilla payoffs, the geometric Asian of the same type for the arithmetic Asians, the European of the
// same payoff for the Bermudans (held to maturity on the same path; its mean the closed form, where one exists).
KOKKOS_INLINE_FUNCTION double control_variate(Payoff p, const PathRecord& r, const ProductTerms& t) {
  switch (p) {
    case Payoff::european_call:
    case Payoff::european_put:
    case Payoff::digital_call:
    case Payoff::digital_put: return t.discount * r.terminal[0];
    case Payoff::asian_arithmetic_call: return discounted_payoff(Payoff::asian_geometric_call, r, t);
    case Payoff::asian_arithmetic_put: return discounted_payoff(Payoff::asian_geometric_put, r, t);
    case Payoff::bermudan_put: return discounted_payoff(Payoff::european_put, r, t);
    case Payoff::bermudan_call: return discounted_payoff(Payoff::european_call, r, t);
    case Payoff::bermudan_max_call: return discounted_payoff(Payoff::max_call, r, t);
    default: return 0.0;
  }
}

// Whether the payoff's delta and vega come pathwise (below) under GBM; the others (digitals, barriers,
// several assets) take bumped paths.
KOKKOS_INLINE_FUNCTION bool has_pathwise_greeks(Payoff p) {
  return p == Payoff::european_call || p == Payoff::european_put || p == Payoff::asian_arithmetic_call ||
         p == Payoff::asian_arithmetic_put || p == Payoff::asian_geometric_call || p == Payoff::asian_geometric_put;
}

// Pathwise delta and vega (Glasserman 2004, section 7.2) of the payoffs that are Lipschitz in the
// path, under GBM: S_t scales with S_0, so dS_t/dS_0 = S_t/S_0, and dS_t/dsigma = S_t d ln S_t/dsigma.
// Returns false for the others (has_pathwise_greeks).
KOKKOS_INLINE_FUNCTION bool pathwise_greeks(Payoff p, const PathRecord& r, const ProductTerms& t, double spot,
                                            double& delta, double& vega) {
  const double s = r.terminal[0], k = t.strike, d = t.discount;
  const double mean = r.arithmetic_sum / r.fixings, geometric = km::exp(r.log_sum / r.fixings);
  double sign = 1, level = 0, level_vega = 0;
  switch (p) {
    case Payoff::european_put: sign = -1; [[fallthrough]];
    case Payoff::european_call: level = s, level_vega = s * r.log_vega; break;
    case Payoff::asian_arithmetic_put: sign = -1; [[fallthrough]];
    case Payoff::asian_arithmetic_call: level = mean, level_vega = r.arithmetic_vega_sum / r.fixings; break;
    case Payoff::asian_geometric_put: sign = -1; [[fallthrough]];
    case Payoff::asian_geometric_call: level = geometric, level_vega = geometric * r.log_vega_sum / r.fixings; break;
    default: return false;
  }
  const double in_the_money = sign * (level - k) > 0 ? 1.0 : 0.0;
  delta = d * in_the_money * sign * level / spot;
  vega = d * in_the_money * sign * level_vega;
  return true;
}

}  // namespace meridian::finance
