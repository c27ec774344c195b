// QuantLib's finite-difference price of a Bermudan put or call under Black-Scholes (FdBlackScholesVanillaEngine with
// a BermudanExercise), the reference tests/integration/bermudan_put_fd.sh holds meridian's Longstaff-Schwartz
// prices to, computed side by side.
//
// QuantLib's dates are whole days, and evenly spaced dates a year are not (50 a year: 7.3 days). So the dates are
// 7 days apart and the rate and variance are rescaled to that clock: a year of 7 N days, r' = r Y and
// sigma'^2 = sigma^2 Y with Y = 365 / (7 N), leaves r t and sigma^2 t at every date, and so the price, unchanged
// (with no dividend yield, the prices depend on nothing else).
//
// usage: quantlib_bermudan put|call SPOT STRIKE RATE VOLATILITY MATURITY DATES_PER_YEAR [TIME_STEPS SPACE_STEPS]
#include <ql/quantlib.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

using namespace QuantLib;

int main(int argc, char** argv) {
  if (argc < 8) {
    std::fprintf(stderr, "usage: %s put|call SPOT STRIKE RATE VOLATILITY MATURITY DATES_PER_YEAR [TIME_STEPS SPACE_STEPS]\n", argv[0]);
    return 2;
  }
  const Option::Type type = std::string(argv[1]) == "call" ? Option::Call : Option::Put;
  const double spot = std::atof(argv[2]), strike = std::atof(argv[3]), rate = std::atof(argv[4]);
  const double volatility = std::atof(argv[5]), maturity = std::atof(argv[6]);
  const int per_year = std::atoi(argv[7]);
  const Size time_steps = argc > 8 ? std::atoi(argv[8]) : 2000, space_steps = argc > 9 ? std::atoi(argv[9]) : 800;
  const int dates = static_cast<int>(std::lround(per_year * maturity));
  const double year = 365.0 / (7.0 * per_year);  // this clock's years per real year
  const DayCounter days = Actual365Fixed();
  const Date today(1, January, 2026);
  Settings::instance().evaluationDate() = today;
  std::vector<Date> exercise;
  for (int k = 1; k <= dates; ++k) exercise.push_back(today + 7 * k);
  VanillaOption option(ext::make_shared<PlainVanillaPayoff>(type, strike), ext::make_shared<BermudanExercise>(exercise));
  const Handle<Quote> s(ext::make_shared<SimpleQuote>(spot));
  const Handle<YieldTermStructure> r(ext::make_shared<FlatForward>(today, rate * year, days, Continuous));
  const Handle<YieldTermStructure> q(ext::make_shared<FlatForward>(today, 0.0, days, Continuous));
  const Handle<BlackVolTermStructure> v(ext::make_shared<BlackConstantVol>(today, NullCalendar(), volatility * std::sqrt(year), days));
  option.setPricingEngine(ext::make_shared<FdBlackScholesVanillaEngine>(ext::make_shared<BlackScholesMertonProcess>(s, q, r, v),
                                                                        time_steps, space_steps));
  std::printf("%.6f\n", option.NPV());
  return 0;
}
