#pragma once
// One path of a model, summarised for the payoffs: terminal prices, averages, extremes and the
// barrier. Between monitoring dates the Brownian bridge gives the probability that the path crossed
// the barrier, exp(-2 a b / (sigma^2 dt)) for log-distances a, b from it at the two dates
// (Beaglehole, Dybvig & Zhou 1997); weighting by the survival probability instead of the indicator
// prices the continuously monitored barrier from discrete dates, and smoothly. A knock-out rebate is
// paid at the hit, so it is discounted from a hitting time drawn from the bridge's law given a crossing.
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
};

// When, as a fraction of the step, the Brownian bridge from log-distance alpha to beta from the barrier
// (both in units of the step's standard deviation; beta taken as |beta|, the end beyond the barrier
// being a sure crossing) first reaches it, given that it does, from a standard normal z and a uniform u.
// The bridge is ((1 - s) Y(s / (1 - s))) for Y a Brownian motion from alpha with drift beta, whose
// hitting time given a hit is inverse Gaussian with mean alpha / beta and shape alpha^2; drawn by
// Michael, Schucany & Haas (1976) with xi = (that time) / alpha^2, written without cancellation and
// finite at beta = 0. The two roots of their quadratic are the hit seen from the start and from the end.
KOKKOS_INLINE_FUNCTION double bridge_hitting_fraction(double alpha, double beta, double z, double u) {
  const double y = z * z, root = km::sqrt(4 * alpha * beta * y + y * y);
  const double xi = 4 * y / ((root + y) * (root + y));
  const double x = alpha * beta * xi;
  return u * (1 + x) < 1 ? 1 - 1 / (1 + alpha * alpha * xi) : 1 / (1 + beta * beta * xi);
}

template <class Model>
KOKKOS_INLINE_FUNCTION PathRecord simulate(const Model& model, const PathSetup& setup, Draws draws) {
  double x[max_assets] = {}, variance = 0;
  model.start(x, &variance);
  PathRecord r;
  const double log_start = x[0], start = km::exp(x[0]);
  r.maximum = r.minimum = start;
  if (setup.average_includes_start) r.arithmetic_sum = start, r.log_sum = x[0], r.fixings = 1;
  for (int step = 0; step < setup.steps; ++step) {
    draws.step = static_cast<std::uint64_t>(step);
    const double before = x[0], bridge = model.bridge_variance(variance);
    model.advance(x, &variance, setup.dt, draws);
    const double s = km::exp(x[0]);
    r.arithmetic_sum += s, r.log_sum += x[0], ++r.fixings;
    if (setup.volatility > 0) {
      r.log_vega = (x[0] - log_start - setup.vega_drift * (step + 1) * setup.dt) / setup.volatility;
      r.arithmetic_vega_sum += s * r.log_vega, r.log_vega_sum += r.log_vega;
    }
    r.maximum = max_of(r.maximum, s), r.minimum = min_of(r.minimum, s);
    if (setup.has_barrier) {
      const double side = setup.down_barrier ? 1.0 : -1.0;
      const double a = side * (before - setup.log_barrier), b = side * (x[0] - setup.log_barrier);
      const double crossed = a <= 0 || b <= 0 ? 1.0
                             : setup.bridge_correction ? km::exp(-2 * a * b / (bridge * setup.dt))
                                                       : 0.0;
      if (setup.rebate > 0 && r.survival * crossed > 0) {
        // Discrete monitoring sees the hit at the date; the bridge places it inside the step.
        double fraction = 1;
        const double deviation = km::sqrt(bridge * setup.dt);
        if (setup.bridge_correction && deviation > 0) {
          const Draws hit = draws.hitting_times();
          double z, unused;
          hit.normals(0, z, unused);
          fraction = bridge_hitting_fraction(a / deviation, (b < 0 ? -b : b) / deviation, z, hit.uniform(1));
        }
        r.rebate_value += r.survival * crossed * setup.rebate * km::exp(-setup.rate * (step + fraction) * setup.dt);
      }
      r.survival *= 1 - crossed;
    }
  }
  for (int a = 0; a < model.assets; ++a) r.terminal[a] = km::exp(x[a]);
  return r;
}

}  // namespace meridian::finance
