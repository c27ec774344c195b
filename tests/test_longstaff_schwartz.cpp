// Early exercise by Longstaff-Schwartz (solvers/finance/longstaff_schwartz.hpp): the least-squares solve against
// exact fits, the basis' sizes, the same fitted rule on any rank count (bitwise), and the two-asset Bermudan max
// call against the binomial values of Andersen & Broadie (2004), in the form of bound.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "deck_for_tests.hpp"
#include "solvers/finance/least_squares.hpp"
#include "solvers/finance/longstaff_schwartz.hpp"

using namespace meridian::finance;

namespace {

// Normal equations of the samples' basis rows.
void normal_equations(const std::vector<std::vector<double>>& rows, const std::vector<double>& y,
                      std::vector<double>& gram, std::vector<double>& moment) {
  const std::size_t n = rows.front().size();
  gram.assign(n * n, 0.0), moment.assign(n, 0.0);
  for (std::size_t s = 0; s < rows.size(); ++s)
    for (std::size_t i = 0; i < n; ++i) {
      moment[i] += rows[s][i] * y[s];
      for (std::size_t j = 0; j < n; ++j) gram[i * n + j] += rows[s][i] * rows[s][j];
    }
}

TEST(LeastSquares, ExactPolynomialFit) {
  std::vector<std::vector<double>> rows;
  std::vector<double> y;
  for (int s = 0; s < 20; ++s) {  // prices near 40: x^k spans orders of magnitude, the scaling's case
    const double x = 30 + s;
    rows.push_back({1, x, x * x, x * x * x});
    y.push_back(1 + 2 * x - 0.5 * x * x);
  }
  std::vector<double> gram, moment;
  normal_equations(rows, y, gram, moment);
  const LeastSquaresFit fit = least_squares(gram, moment);
  const double exact[4] = {1, 2, -0.5, 0};
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(fit.coefficients[i], exact[i], 1e-6 * (1 + std::abs(exact[i]))) << i;
  EXPECT_EQ(fit.rank, 4);
  EXPECT_GT(fit.condition, 1e6);  // monomials of x in [30, 49], scaled: nearly collinear, and said so
}

TEST(LeastSquares, DropsADirectionTheDataDoNotDetermine) {
  std::vector<std::vector<double>> rows;
  std::vector<double> y;
  for (int s = 0; s < 10; ++s) {
    rows.push_back({1, double(s), 2.0 * s, 0.0});  // the third a multiple of the second, the fourth never nonzero
    y.push_back(3 + s);
  }
  std::vector<double> gram, moment;
  normal_equations(rows, y, gram, moment);
  const LeastSquaresFit fit = least_squares(gram, moment);
  EXPECT_EQ(fit.rank, 2);
  EXPECT_TRUE(std::isinf(fit.condition));
  EXPECT_EQ(fit.coefficients[3], 0.0);
  for (std::size_t s = 0; s < rows.size(); ++s) {
    double fitted = 0;
    for (int i = 0; i < 4; ++i) fitted += fit.coefficients[i] * rows[s][i];
    EXPECT_NEAR(fitted, y[s], 1e-10);
  }
}

TEST(LongstaffSchwartz, BasisSizes) {
  EXPECT_EQ(basis_degrees(1, 3), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(basis_degrees(2, 2).size() / 2, 6u);  // 1, x, y, x^2, xy, y^2 (and the payoff beside them)
  EXPECT_THROW(basis_degrees(5, 3), std::invalid_argument);
}

PricerSettings put_settings(double spot, double volatility, double maturity, int dates) {
  PricerSettings s;
  s.gbm.assets = 1;
  s.gbm.rate = 0.06;
  s.gbm.spot[0] = spot, s.gbm.volatility[0] = volatility, s.gbm.dividend[0] = 0;
  s.gbm.cholesky[0] = 1;
  s.maturity = maturity;
  s.path = PathSetup{dates, maturity / dates, 0.06, false};
  s.block_size = 512;
  s.seed = 11;
  return s;
}

ExerciseRule put_rule(int dates, Basis basis) {
  ExerciseRule rule;
  rule.kind = ExerciseKind::put;
  rule.basis = basis;
  rule.strike = 40;
  std::vector<int> steps;
  for (int d = 1; d <= dates; ++d) steps.push_back(d);
  set_exercise_steps(rule, steps, dates);
  set_basis_degrees(rule, basis_degrees(1, rule.order));
  return rule;
}

std::vector<double> coefficients_of(const Calibration& c) {
  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c.rule.coefficients);
  return std::vector<double>(host.data(), host.data() + host.size());
}

// Run on 1, 2 and 3 ranks: the fit on all of them against the fit by this rank alone, to the bit.
TEST(LongstaffSchwartz, SameRuleOnEveryRankCount) {
  for (const Basis basis : {Basis::monomial, Basis::laguerre, Basis::hermite}) {
    const PricerSettings s = put_settings(38, 0.4, 1, 20);
    const Calibration all = calibrate(s, put_rule(20, basis), 7 * 512, MPI_COMM_WORLD);
    const Calibration alone = calibrate(s, put_rule(20, basis), 7 * 512, MPI_COMM_SELF);
    const std::vector<double> a = coefficients_of(all), b = coefficients_of(alone);
    ASSERT_EQ(a.size(), 19u * 4u);
    EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(double)), 0);
    EXPECT_EQ(all.in_sample_price, alone.in_sample_price);
    EXPECT_EQ(all.in_the_money, alone.in_the_money);
    EXPECT_GT(all.in_the_money.front(), 0);
    // The in-sample value of the put: above the European's (about 5.06 + the early exercise) and its intrinsic 2.
    EXPECT_GT(all.in_sample_price, 5.0);
  }
}

std::unique_ptr<meridian::solvers::Solver> run_to_the_end(const std::vector<std::string>& settings) {
  auto solver = build(meridian::testing::deck_of("monte_carlo", settings), MPI_COMM_WORLD);
  double t = 0;
  while (t < 1 && !solver->finished()) {
    const double dt = std::min(solver->stable_dt(t), 1 - t);
    solver->step(t, dt);
    t += dt;
  }
  return solver;
}

Estimate priced(const std::vector<std::string>& settings) {
  return dynamic_cast<const MonteCarloPricer&>(*run_to_the_end(settings)).estimate(0);
}

double diagnostic(meridian::solvers::Solver& solver, const std::string& name) {
  for (const auto& d : solver.diagnostics(1.0))
    if (d.name == name) return d.value;
  ADD_FAILURE() << "no diagnostic " << name;
  return std::nan("");
}

// A list of dates on the steps prices as the same dates given as a number a year, to the bit; uneven dates differ.
TEST(LongstaffSchwartz, DatesListMatchesDatesPerYear) {
  const std::vector<std::string> put{"finance.spot=[36.0]", "finance.strike=40.0", "finance.rate=0.06",
                                     "finance.volatility=[0.2]", "finance.steps=8", "finance.products=[\"bermudan_put\"]",
                                     "finance.paths=16384", "finance.calibration_paths=8192", "finance.block_size=1024"};
  auto with = [&](const std::string& dates) {
    std::vector<std::string> settings = put;
    settings.push_back(dates);
    return priced(settings);
  };
  const Estimate per_year = with("finance.exercise_dates_per_year=4");
  const Estimate listed = with("finance.exercise_dates=[0.25, 0.5, 0.75, 1.0]");
  const Estimate uneven = with("finance.exercise_dates=[0.125, 0.5, 0.875, 1.0]");
  EXPECT_EQ(per_year.price, listed.price);
  EXPECT_EQ(per_year.standard_error, listed.standard_error);
  EXPECT_NE(per_year.price, uneven.price);
}

// The European put held to maturity on the same path is the Bermudan's control variate: a smaller error, the same
// price within it.
TEST(LongstaffSchwartz, EuropeanControlVariateNarrowsTheError) {
  const std::vector<std::string> put{"finance.spot=[40.0]", "finance.strike=40.0", "finance.rate=0.06",
                                     "finance.volatility=[0.2]", "finance.steps=20", "finance.exercise_dates_per_year=20",
                                     "finance.products=[\"bermudan_put\"]", "finance.paths=65536",
                                     "finance.calibration_paths=16384", "finance.block_size=4096"};
  std::vector<std::string> with = put, without = put;
  with.push_back("finance.control_variates=true");
  without.push_back("finance.control_variates=false");
  const Estimate controlled = priced(with), plain = priced(without);
  EXPECT_LT(controlled.standard_error, 0.9 * plain.standard_error);
  EXPECT_LT(std::abs(controlled.price - plain.price), 3 * plain.standard_error);
}

// The American put of Longstaff & Schwartz's first case (S = 36, K = 40, r = 0.06, sigma = 0.2, T = 1) by Richardson
// extrapolation over the Bermudans with 50, 100 and 200 dates a year, all three on the same paths. QuantLib's
// FdBlackScholesVanillaEngine with an AmericanExercise (bench/quantlib_bermudan fd put 36 40 0.06 0.2 1 0): 4.486172,
// 4.486439, 4.486560 on 1000 x 400, 2000 x 800, 4000 x 1600; its Bermudans with 50, 100, 200 dates 4.477797,
// 4.482222, 4.484438, whose extrapolation is 4.486656. The extrapolated Monte Carlo price must lie within
// 3 SE + max(0.02, 1%) of 4.4866 (either side: extrapolating low-biased estimates need not stay low) and above the
// Bermudan's with 50 dates on the same paths (by 0.006-0.014 over three seeds; 0.0089 by FD).
TEST(LongstaffSchwartz, RichardsonAmericanPut) {
  const std::vector<std::string> put{"finance.spot=[36.0]", "finance.strike=40.0", "finance.rate=0.06",
                                     "finance.volatility=[0.2]", "finance.steps=200", "finance.exercise_dates_per_year=50",
                                     "finance.regression_basis=\"laguerre\"", "finance.products=[\"bermudan_put\"]",
                                     "finance.paths=131072", "finance.calibration_paths=65536", "finance.block_size=4096",
                                     "finance.blocks_per_step=32", "finance.control_variates=true"};
  std::vector<std::string> american = put;
  american.push_back("finance.exercise_extrapolation=\"richardson\"");
  const auto solver = run_to_the_end(american);
  const Estimate e = dynamic_cast<const MonteCarloPricer&>(*solver).estimate(0), bermudan = priced(put);
  const double reference = 4.4866, slack = std::max(0.02, 0.01 * reference);
  EXPECT_NEAR(e.price, reference, 3 * e.standard_error + slack) << e.price << " +- " << e.standard_error;
  // Both estimators in the diagnostics: the in-sample one extrapolated alike (its error bound is looser).
  const double in_sample = diagnostic(*solver, "bermudan_put_in_sample_price");
  EXPECT_NEAR(in_sample, reference, 3 * diagnostic(*solver, "bermudan_put_in_sample_standard_error") + slack);
  EXPECT_GT(diagnostic(*solver, "bermudan_put_worst_condition_number"), 1.0);
  EXPECT_GT(e.price, bermudan.price);
  EXPECT_LT(e.standard_error, 2 * bermudan.standard_error);
}

// Each level's rule is the one a run with that level's dates alone fits (the same calibration paths and dates), and
// all price on the same paths, so the extrapolated price is (8 P_200 - 6 P_100 + P_50) / 3 of the three Bermudans
// priced alone, to rounding.
TEST(LongstaffSchwartz, RichardsonCombinesTheBermudansPathByPath) {
  const std::vector<std::string> put{"finance.spot=[40.0]", "finance.strike=40.0", "finance.rate=0.06",
                                     "finance.volatility=[0.4]", "finance.steps=40", "finance.products=[\"bermudan_put\"]",
                                     "finance.paths=16384", "finance.calibration_paths=8192", "finance.block_size=1024"};
  auto with = [&](const std::vector<std::string>& more) {
    std::vector<std::string> settings = put;
    settings.insert(settings.end(), more.begin(), more.end());
    return priced(settings).price;
  };
  const double american = with({"finance.exercise_dates_per_year=10", "finance.exercise_extrapolation=\"richardson\""});
  const double p10 = with({"finance.exercise_dates_per_year=10"}), p20 = with({"finance.exercise_dates_per_year=20"});
  const double p40 = with({"finance.exercise_dates_per_year=40"});
  EXPECT_NEAR(american, (8 * p40 - 6 * p20 + p10) / 3, 1e-12 * american) << p10 << " " << p20 << " " << p40;
  EXPECT_LT(p10, p40);
}

// Andersen & Broadie (2004) and Glasserman (2004, p. 462): max call on two assets, K = 100, r = 0.05, q = 0.10,
// sigma = 0.2, rho = 0, T = 3, 9 exercise dates; binomial values 8.08, 13.90, 21.34 at S0 = 90, 100, 110. The
// out-of-sample price must lie in [reference - 3 SE - max(0.02, 1%), reference + 3 SE] (the bound: a
// low-biased estimator, rounded references).
TEST(LongstaffSchwartz, MaxCallAgainstBinomialValues) {
  const double spots[3] = {90, 100, 110}, references[3] = {8.08, 13.90, 21.34};
  for (int k = 0; k < 3; ++k) {
    const std::string spot = std::to_string(spots[k]);
    const Estimate e = priced({"finance.spot=[" + spot + ", " + spot + "]", "finance.volatility=[0.2, 0.2]",
                               "finance.dividend_yield=[0.1, 0.1]", "finance.rate=0.05", "finance.maturity=3.0",
                               "finance.steps=9", "finance.exercise_dates_per_year=3", "finance.strike=100.0",
                               "finance.products=[\"bermudan_max_call\"]", "finance.regression_order=2",
                               "finance.calibration_paths=65536", "finance.paths=131072", "finance.block_size=4096",
                               "finance.blocks_per_step=32", "finance.control_variates=false", "finance.seed=5"});
    const double slack = std::max(0.02, 0.01 * references[k]);
    EXPECT_LE(e.price, references[k] + 3 * e.standard_error) << "S0 = " << spot;
    EXPECT_GE(e.price, references[k] - 3 * e.standard_error - slack) << "S0 = " << spot << ": " << e.price << " +- " << e.standard_error;
  }
}

}  // namespace
