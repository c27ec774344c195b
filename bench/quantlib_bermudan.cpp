// QuantLib on a Bermudan put or call under Black-Scholes, two ways:
//  fd: the finite-difference price (FdBlackScholesVanillaEngine with a BermudanExercise), the reference
//      tests/integration/bermudan_put_fd.sh holds meridian's Longstaff-Schwartz prices to, computed side by side;
//      DATES_PER_YEAR 0: the American (AmericanExercise), the reference of the Richardson extrapolation;
//  fd-heston: the same under Heston (FdHestonVanillaEngine), on the same 7-day clock: there the variance, its
//      mean reversion, its level and its volatility scale too (v' = v Y, kappa' = kappa Y, theta' = theta Y,
//      sigma' = sigma Y: the process in the clock's time is the same process);
//  mc: its Longstaff-Schwartz Monte Carlo (MCAmericanEngine, pseudo-random, exercise at every one of STEPS evenly
//      spaced steps: the Bermudan dates), the engine bench/early_exercise_benchmark.sh times meridian against.
//
// QuantLib's dates are whole days, and evenly spaced dates a year are not (50 a year: 7.3 days). So the dates are
// 7 days apart and the rate and variance are rescaled to that clock: a year of 7 N days, r' = r Y and
// sigma'^2 = sigma^2 Y with Y = 365 / (7 N), leaves r t and sigma^2 t at every date, and so the price, unchanged
// (with no dividend yield, the prices depend on nothing else).
//
// usage: quantlib_bermudan fd put|call SPOT STRIKE RATE VOLATILITY MATURITY DATES_PER_YEAR [TIME_STEPS SPACE_STEPS]
//        quantlib_bermudan fd-heston put|call SPOT STRIKE RATE V0 MATURITY DATES_PER_YEAR KAPPA THETA SIGMA RHO
//                          [TIME_STEPS SPACE_STEPS VARIANCE_STEPS]
//        quantlib_bermudan mc put|call SPOT STRIKE RATE VOLATILITY MATURITY DATES_PER_YEAR CALIBRATION_PATHS PATHS
//                          [ORDER]   (monomial basis of that order, 3 by default; no antithetics or control variate)
//        prints the price; mc also its standard error and the seconds its calculation took.
// The headers of what it uses, not <ql/quantlib.hpp>: QuantLib's umbrella header took 30 s of the CI build.
#include <ql/exercise.hpp>
#include <ql/instruments/payoffs.hpp>
#include <ql/instruments/vanillaoption.hpp>
#include <ql/methods/montecarlo/lsmbasissystem.hpp>
#include <ql/models/equity/hestonmodel.hpp>
#include <ql/pricingengines/vanilla/fdblackscholesvanillaengine.hpp>
#include <ql/pricingengines/vanilla/fdhestonvanillaengine.hpp>
#include <ql/pricingengines/vanilla/mcamericanengine.hpp>
#include <ql/processes/blackscholesprocess.hpp>
#include <ql/processes/hestonprocess.hpp>
#include <ql/quotes/simplequote.hpp>
#include <ql/settings.hpp>
#include <ql/termstructures/volatility/equityfx/blackconstantvol.hpp>
#include <ql/termstructures/yield/flatforward.hpp>
#include <ql/time/calendars/nullcalendar.hpp>
#include <ql/time/daycounters/actual365fixed.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

using namespace QuantLib;

namespace {

struct Case {
  Option::Type type;
  double spot, strike, rate, volatility, maturity;
  int per_year;
};

// The Bermudan option on the 7-day clock, with the market's spot and curves on it: what both FD engines price.
struct SevenDayClock {
  double year;  // this clock's years per real year
  Date today{1, January, 2026};
  DayCounter days = Actual365Fixed();
  Handle<Quote> spot;
  Handle<YieldTermStructure> rate, dividend;
  std::unique_ptr<VanillaOption> option;
  explicit SevenDayClock(const Case& c) : year(365.0 / (7.0 * c.per_year)) {
    Settings::instance().evaluationDate() = today;
    std::vector<Date> exercise;
    for (int k = 1; k <= static_cast<int>(std::lround(c.per_year * c.maturity)); ++k) exercise.push_back(today + 7 * k);
    option = std::make_unique<VanillaOption>(ext::make_shared<PlainVanillaPayoff>(c.type, c.strike),
                                             ext::make_shared<BermudanExercise>(exercise));
    spot = Handle<Quote>(ext::make_shared<SimpleQuote>(c.spot));
    rate = Handle<YieldTermStructure>(ext::make_shared<FlatForward>(today, c.rate * year, days, Continuous));
    dividend = Handle<YieldTermStructure>(ext::make_shared<FlatForward>(today, 0.0, days, Continuous));
  }
};

// The American option on the calendar's clock, the maturity a whole number of days of a 365-day year (1 and 2
// years here), with the market's spot and curves: what the FD engine prices for DATES_PER_YEAR 0 (the reference
// of meridian's Richardson extrapolation) and MCAmericanEngine prices with exercise at every step.
struct CalendarClock {
  DayCounter days = Actual365Fixed();
  Date today{1, January, 2026};
  Handle<Quote> spot;
  Handle<YieldTermStructure> rate, dividend;
  Handle<BlackVolTermStructure> volatility;
  std::unique_ptr<VanillaOption> option;
  explicit CalendarClock(const Case& c) {
    Settings::instance().evaluationDate() = today;
    option = std::make_unique<VanillaOption>(
        ext::make_shared<PlainVanillaPayoff>(c.type, c.strike),
        ext::make_shared<AmericanExercise>(today, today + static_cast<Integer>(std::lround(365 * c.maturity))));
    spot = Handle<Quote>(ext::make_shared<SimpleQuote>(c.spot));
    rate = Handle<YieldTermStructure>(ext::make_shared<FlatForward>(today, c.rate, days, Continuous));
    dividend = Handle<YieldTermStructure>(ext::make_shared<FlatForward>(today, 0.0, days, Continuous));
    volatility = Handle<BlackVolTermStructure>(ext::make_shared<BlackConstantVol>(today, NullCalendar(), c.volatility, days));
  }
  ext::shared_ptr<BlackScholesMertonProcess> process() const {
    return ext::make_shared<BlackScholesMertonProcess>(spot, dividend, rate, volatility);
  }
};

double american_finite_differences(const Case& c, Size time_steps, Size space_steps) {
  CalendarClock clock(c);
  clock.option->setPricingEngine(ext::make_shared<FdBlackScholesVanillaEngine>(clock.process(), time_steps, space_steps));
  return clock.option->NPV();
}

double finite_differences(const Case& c, Size time_steps, Size space_steps) {
  if (c.per_year == 0) return american_finite_differences(c, time_steps, space_steps);
  SevenDayClock clock(c);
  const Handle<BlackVolTermStructure> v(
      ext::make_shared<BlackConstantVol>(clock.today, NullCalendar(), c.volatility * std::sqrt(clock.year), clock.days));
  clock.option->setPricingEngine(ext::make_shared<FdBlackScholesVanillaEngine>(
      ext::make_shared<BlackScholesMertonProcess>(clock.spot, clock.dividend, clock.rate, v), time_steps, space_steps));
  return clock.option->NPV();
}

struct HestonParameters {
  double kappa, theta, sigma, rho;
};

// c.volatility carries v0.
double heston_finite_differences(const Case& c, const HestonParameters& h, Size time_steps, Size space_steps,
                                 Size variance_steps) {
  SevenDayClock clock(c);
  const double y = clock.year;
  const auto model = ext::make_shared<HestonModel>(ext::make_shared<HestonProcess>(
      clock.rate, clock.dividend, clock.spot, c.volatility * y, h.kappa * y, h.theta * y, h.sigma * y, h.rho));
  clock.option->setPricingEngine(ext::make_shared<FdHestonVanillaEngine>(model, time_steps, space_steps, variance_steps));
  return clock.option->NPV();
}

// Exercise at every one of the time steps: the Bermudan dates.
void monte_carlo(const Case& c, Size calibration, Size paths, Size order) {
  CalendarClock clock(c);
  const Size steps = static_cast<Size>(std::lround(c.per_year * c.maturity));
  clock.option->setPricingEngine(MakeMCAmericanEngine<PseudoRandom>(clock.process())
                                     .withSteps(steps)
                                     .withAntitheticVariate(false)
                                     .withControlVariate(false)
                                     .withCalibrationSamples(calibration)
                                     .withSamples(paths)
                                     .withPolynomialOrder(order)
                                     .withBasisSystem(LsmBasisSystem::Monomial)
                                     .withSeed(42));
  const auto start = std::chrono::steady_clock::now();
  const double price = clock.option->NPV();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%.6f %.6f %.3f\n", price, clock.option->errorEstimate(), seconds);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (argc < 9 || (mode != "fd" && mode != "mc" && mode != "fd-heston") || (mode == "mc" && argc < 11) ||
      (mode == "fd-heston" && argc < 13)) {
    std::fprintf(stderr, "usage: %s fd|mc put|call SPOT STRIKE RATE VOLATILITY MATURITY DATES_PER_YEAR ...\n", argv[0]);
    return 2;
  }
  const Case c{std::string(argv[2]) == "call" ? Option::Call : Option::Put, std::atof(argv[3]), std::atof(argv[4]),
               std::atof(argv[5]), std::atof(argv[6]), std::atof(argv[7]), std::atoi(argv[8])};
  if (mode == "fd-heston") {
    const HestonParameters h{std::atof(argv[9]), std::atof(argv[10]), std::atof(argv[11]), std::atof(argv[12])};
    std::printf("%.6f\n", heston_finite_differences(c, h, argc > 13 ? std::atoi(argv[13]) : 200,
                                                     argc > 14 ? std::atoi(argv[14]) : 200, argc > 15 ? std::atoi(argv[15]) : 100));
  } else if (mode == "fd") {
    std::printf("%.6f\n", finite_differences(c, argc > 9 ? std::atoi(argv[9]) : 2000, argc > 10 ? std::atoi(argv[10]) : 800));
  } else {
    monte_carlo(c, std::atol(argv[9]), std::atol(argv[10]), argc > 11 ? std::atoi(argv[11]) : 3);
  }
  return 0;
}
