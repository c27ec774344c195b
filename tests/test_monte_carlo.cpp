// Monte Carlo prices against closed forms and published values, within three standard errors, with
// a standard error small enough to mean something (below 0.5% of the price). Reference values are
// those of tests/data/option_reference_prices.csv (case names given).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "deck_for_tests.hpp"
#include "solvers/finance/closed_forms.hpp"
#include "solvers/finance/monte_carlo_pricer.hpp"

namespace {

using meridian::finance::MonteCarloPricer;

// Runs a deck to the end of its paths; the pricer is returned for its estimates.
std::unique_ptr<meridian::solvers::Solver> priced(const std::vector<std::string>& settings) {
  auto solver = meridian::finance::build(meridian::testing::deck_of("monte_carlo", settings), MPI_COMM_WORLD);
  double t = 0;
  while (t < 1 && !solver->finished()) {
    const double dt = std::min(solver->stable_dt(t), 1 - t);
    solver->step(t, dt);
    t += dt;
  }
  return solver;
}

void expect_price(const std::vector<std::string>& settings, std::size_t product, double reference,
                  double reference_uncertainty = 0) {
  const auto solver = priced(settings);
  const auto& pricer = dynamic_cast<const MonteCarloPricer&>(*solver);
  const auto e = pricer.estimate(product);
  EXPECT_LT(e.standard_error, 0.005 * reference) << "the test needs more paths to mean something";
  EXPECT_LT(std::fabs(e.price - reference), 3 * e.standard_error + reference_uncertainty)
      << "price " << e.price << " +- " << e.standard_error << ", reference " << reference;
}

std::vector<std::string> with(std::vector<std::string> base, const std::vector<std::string>& more) {
  base.insert(base.end(), more.begin(), more.end());
  return base;
}

const std::vector<std::string> common{"finance.seed=7", "finance.block_size=4096", "finance.blocks_per_step=8"};

TEST(MonteCarlo, BlackScholesEuropeans) {
  // bs_european Haug_1 (call), Haug_2 (put), Haug_3 (put).
  expect_price(with(common, {"finance.spot=[60.0]", "finance.volatility=[0.3]", "finance.rate=0.08",
                             "finance.maturity=0.25", "finance.strike=65.0", "finance.steps=1",
                             "finance.products=[\"european_call\"]", "finance.paths=200000"}),
               0, 2.1334);
  expect_price(with(common, {"finance.spot=[100.0]", "finance.volatility=[0.2]", "finance.dividend_yield=[0.05]",
                             "finance.rate=0.1", "finance.maturity=0.5", "finance.strike=95.0", "finance.steps=1",
                             "finance.products=[\"european_put\"]", "finance.paths=200000"}),
               0, 2.4648);
  expect_price(with(common, {"finance.spot=[19.0]", "finance.volatility=[0.28]", "finance.dividend_yield=[0.1]",
                             "finance.rate=0.1", "finance.maturity=0.75", "finance.strike=19.0", "finance.steps=1",
                             "finance.products=[\"european_put\"]", "finance.paths=200000"}),
               0, 1.7011);
}

TEST(MonteCarlo, DiscreteGeometricAsian) {
  // asian_geom discrete_ClewlowStrickland: 10 fixings at t = 0.1 .. 1.0.
  expect_price(with(common, {"finance.spot=[100.0]", "finance.volatility=[0.2]", "finance.dividend_yield=[0.03]",
                             "finance.rate=0.06", "finance.maturity=1.0", "finance.strike=100.0", "finance.steps=10",
                             "finance.products=[\"asian_geometric_call\"]", "finance.paths=200000"}),
               0, 5.3425606635);
}

TEST(MonteCarlo, ArithmeticAsianWithGeometricControl) {
  // asian_arith Levy_n12 put: fixings at 0, 1/12, ..., 11/12. Levy's 1.69800 is an approximation;
  // the true value is 1.69927 +- 0.00002 (10^7 paths with the geometric control variate).
  expect_price(with(common, {"finance.spot=[90.0]", "finance.volatility=[0.13]", "finance.dividend_yield=[0.06]",
                             "finance.rate=0.025", "finance.maturity=0.9166666666666666", "finance.strike=87.0",
                             "finance.steps=11", "finance.average_includes_start=true",
                             "finance.products=[\"asian_arithmetic_put\"]", "finance.paths=200000"}),
               0, 1.69927, 2e-5);
}

TEST(MonteCarlo, ContinuousBarriersThroughTheBrownianBridge) {
  // barrier_cont Haug_DownOut_H95 and Haug_UpOut_H105, rebate 3 paid at the hit.
  const std::vector<std::string> market{"finance.spot=[100.0]", "finance.volatility=[0.25]",
                                        "finance.dividend_yield=[0.04]", "finance.rate=0.08", "finance.maturity=0.5",
                                        "finance.rebate=3.0", "finance.steps=20", "finance.paths=200000"};
  expect_price(with(with(common, market), {"finance.strike=90.0", "finance.barrier=95.0",
                                           "finance.products=[\"barrier_down_out_call\"]"}),
               0, 9.0246);
  expect_price(with(with(common, market), {"finance.strike=100.0", "finance.barrier=105.0",
                                           "finance.products=[\"barrier_up_out_call\"]"}),
               0, 2.3580);
}

// Issue #9: a knock-out rebate is paid when the barrier is hit, inside a step as often as not. Paid
// at the monitoring date after the crossing it lost 0.0105 of barrier_cont Haug_UpOut_H105 at 5 dates
// (6.7 standard errors at these paths); 20 dates, as above, hide that inside three.
TEST(MonteCarlo, KnockOutRebateIsDiscountedAtTheHitBetweenDates) {
  expect_price(with(common, {"finance.spot=[100.0]", "finance.volatility=[0.25]", "finance.dividend_yield=[0.04]",
                             "finance.rate=0.08", "finance.maturity=0.5", "finance.rebate=3.0", "finance.steps=5",
                             "finance.strike=100.0", "finance.barrier=105.0",
                             "finance.products=[\"barrier_up_out_call\"]", "finance.paths=400000"}),
               0, 2.3580, 5e-5);
}

// The bridge's hitting time given a crossing, against its law: with u = s / (1 - s), the time change
// of bridge_hitting_fraction, P(hit by s) = N((beta u - alpha) / sqrt u) + e^(2 alpha beta)
// N(-(alpha + beta u) / sqrt u), the first-passage distribution of a Brownian motion with drift (Karatzas
// & Shreve 1991, 3.5.12). At every decile the empirical fraction must lie within 4 binomial errors.
TEST(MonteCarlo, BridgeHittingTimeFollowsTheFirstPassageLaw) {
  using namespace meridian::finance;
  constexpr int samples = 100000;
  const double cases[][2] = {{0.5, 0.8}, {1.0, 0.3}, {0.2, 2.5}, {0.6, 0.0}};
  for (const auto& c : cases) {
    const double alpha = c[0], beta = c[1];
    std::vector<double> fractions(samples);
    for (int i = 0; i < samples; ++i) {
      const Draws draws{meridian::random::key_of(11), static_cast<std::uint64_t>(i), 0, 1.0};
      double z, unused;
      draws.normals(0, z, unused);
      fractions[i] = bridge_hitting_fraction(alpha, beta, z, draws.uniform(1));
    }
    for (int decile = 1; decile <= 9; ++decile) {
      const double s = decile / 10.0, u = s / (1 - s);
      const double law = normal_cdf((beta * u - alpha) / std::sqrt(u)) +
                         std::exp(2 * alpha * beta) * normal_cdf(-(alpha + beta * u) / std::sqrt(u));
      const double seen = static_cast<double>(std::count_if(fractions.begin(), fractions.end(),
                                                            [s](double f) { return f <= s; })) / samples;
      EXPECT_NEAR(seen, law, 4 * std::sqrt(law * (1 - law) / samples) + 1e-9)
          << "alpha " << alpha << " beta " << beta << " s " << s;
    }
  }
}

TEST(MonteCarlo, TwoAssetMinimumCall) {
  // basket2 MinCall_rho0.9 (Stulz): the reference is given to 1e-3.
  expect_price(with(common, {"finance.spot=[100.0, 100.0]", "finance.volatility=[0.3, 0.3]",
                             "finance.dividend_yield=[0.0, 0.0]", "finance.correlation=[1.0, 0.9, 0.9, 1.0]",
                             "finance.rate=0.05", "finance.maturity=1.0", "finance.strike=100.0", "finance.steps=1",
                             "finance.products=[\"min_call\"]", "finance.paths=400000"}),
               0, 10.898, 5e-4);
}

TEST(MonteCarlo, HestonEuropeanWithQuadraticExponential) {
  // heston AlanLewis_K100 call; 100 QE steps a year leave a bias well inside the error.
  expect_price(with(common, {"finance.model=heston", "finance.spot=[100.0]", "finance.volatility=[0.2]",
                             "finance.dividend_yield=[0.02]", "finance.rate=0.01", "finance.maturity=1.0",
                             "finance.heston_v0=0.04", "finance.heston_kappa=4.0", "finance.heston_theta=0.25",
                             "finance.heston_sigma=1.0", "finance.heston_rho=-0.5", "finance.strike=100.0",
                             "finance.steps=100", "finance.products=[\"european_call\"]", "finance.paths=200000"}),
               0, 16.070154917028834);
}

TEST(MonteCarlo, GreeksMatchBlackScholes) {
  const auto solver = priced(with(common, {"finance.spot=[100.0]", "finance.volatility=[0.2]", "finance.rate=0.05",
                                           "finance.maturity=1.0", "finance.strike=100.0", "finance.steps=1",
                                           "finance.products=[\"european_call\"]", "finance.greeks=true",
                                           "finance.paths=200000"}));
  const auto e = dynamic_cast<const MonteCarloPricer&>(*solver).estimate(0);
  // Black-Scholes: delta N(d1) = 0.636831, vega S sqrt(T) n(d1) = 37.524; central differences of
  // width 1% and 0.01 add O(h^2) biases far below the errors.
  EXPECT_LT(std::fabs(e.delta - 0.636831), 3 * e.delta_error + 1e-4) << e.delta << " +- " << e.delta_error;
  EXPECT_LT(std::fabs(e.vega - 37.5240), 3 * e.vega_error + 1e-2) << e.vega << " +- " << e.vega_error;
}

}  // namespace

namespace {

// Pathwise Greeks of a geometric Asian against central differences of its closed form.
TEST(MonteCarlo, PathwiseGreeksOfAGeometricAsianMatchItsClosedForm) {
  using namespace meridian::finance;
  const auto solver = priced(with(common, {"finance.spot=[100.0]", "finance.volatility=[0.25]",
                                           "finance.dividend_yield=[0.01]", "finance.rate=0.04",
                                           "finance.maturity=1.0", "finance.strike=100.0", "finance.steps=12",
                                           "finance.products=[\"asian_geometric_call\"]", "finance.greeks=true",
                                           "finance.paths=200000"}));
  const auto e = dynamic_cast<const MonteCarloPricer&>(*solver).estimate(0);
  std::vector<double> fixings;
  for (int i = 1; i <= 12; ++i) fixings.push_back(i / 12.0);
  const auto price = [&](double spot, double vol) {
    return geometric_asian_discrete_price(BlackScholesMarket{spot, 0.04, 0.01, vol},
                                          EuropeanOption{OptionType::call, 100.0, 1.0}, fixings);
  };
  const double h = 1e-4;  // the closed form is smooth: central differences are exact to ~1e-8 here
  const double delta = (price(100 + h, 0.25) - price(100 - h, 0.25)) / (2 * h);
  const double vega = (price(100, 0.25 + h) - price(100, 0.25 - h)) / (2 * h);
  EXPECT_LT(std::fabs(e.delta - delta), 3 * e.delta_error) << e.delta << " +- " << e.delta_error << " vs " << delta;
  EXPECT_LT(std::fabs(e.vega - vega), 3 * e.vega_error) << e.vega << " +- " << e.vega_error << " vs " << vega;
}

}  // namespace

namespace {

// A spread tiny against the mean: a deep in-the-money call on a spot of 1e8 with volatility 1e-8
// has a discounted payoff of sd S0 sigma sqrt(T) e^{-qT} = 1 around a mean of 1e8. A variance from
// a sum of squares minus a squared sum loses every digit there (sums of 1e16 per sample against a
// variance of 1); the pairwise moments must give the standard error to the Monte Carlo accuracy of
// a standard deviation, about 1 / sqrt(2 n) relative (here 0.2%, so 5% is loose and safe).
TEST(MonteCarlo, StandardErrorSurvivesASpreadTinyAgainstTheMean) {
  const auto solver = priced({"finance.spot=[1e8]", "finance.strike=1.0", "finance.volatility=[1e-8]",
                              "finance.rate=0.0", "finance.steps=1", "finance.paths=131072",
                              "finance.control_variates=false", "finance.seed=3", "finance.block_size=4096",
                              "finance.blocks_per_step=8"});
  const auto& pricer = dynamic_cast<const MonteCarloPricer&>(*solver);
  const double n = static_cast<double>(pricer.samples());
  const double expected = std::sqrt(std::expm1(1e-16)) * 1e8 / std::sqrt(n);  // sd of S_T, over sqrt(n)
  EXPECT_NEAR(pricer.estimate(0).standard_error / expected, 1.0, 0.05)
      << "standard error " << pricer.estimate(0).standard_error << ", expected " << expected;
}

}  // namespace
