// QuantLib's Monte Carlo engine on the arithmetic-average Asian call of bench/monte_carlo_benchmark.sh, timed:
// the library meridian's Monte Carlo pricer is compared against. One core, no MPI, no Kokkos.
//
// Option: S = 100, K = 100, r = 0.05, q = 0, sigma = 0.2, T = 1, fixings at t = i/252, i = 1..252 (not t = 0).
// Engine: MCDiscreteArithmeticAPEngine<PseudoRandom> (Mersenne Twister + inverse cumulative normal), no control
// variate, no antithetic paths, no Brownian bridge (MakeMCDiscreteArithmeticAPEngine's default is a bridge;
// the paths are built step by step as meridian builds them), a fixed number of samples. The Black-Scholes-Merton
// process on flat curves steps the log price exactly, so the model is meridian's; the random numbers are not.
//
// Fixing times: the curves and the volatility use Actual252 below, Actual365Fixed with 252 in place of 365
// (a QuantLib DayCounter whose year fraction is calendar days / 252, as cheap to evaluate); with fixing dates
// today + i days, i = 1..252, and expiry on the last fixing, the process's fixing times are exactly i/252 and
// T = 1. Actual365Fixed itself can only come within half a day, 0.0014 years, of each i/252. QuantLib's own
// Business252 also gives i/252 exactly (business days / 252, on NullCalendar), but the process checks every
// step's time against the curves' range by counting business days to Date::maxDate() (year 2199), so it slows
// the engine by orders of magnitude. The program checks the times it hands the engine.
//
// Timed: the option's NPV(), which runs the whole simulation (time grid, path generation, pricing, statistics).
//
// Prints on stdout:
//   quantlib_path_steps_per_second <samples x 252 / seconds of NPV()>
//   quantlib_price <NPV>
//   quantlib_standard_error <QuantLib's errorEstimate()>
//   quantlib_paths <samples>
//   quantlib_seconds <seconds of NPV()>
//
// usage: quantlib_asian [--paths N] [--seed S]
//   --paths N    samples (paths) to simulate (default 100000)
//   --seed S     seed of QuantLib's Mersenne Twister (default 42; 0 would make QuantLib seed from the clock)
//
// Build: g++ -O3 -std=c++17 bench/quantlib_asian.cpp -o quantlib_asian -lQuantLib   (Debian: libquantlib0-dev)

// The headers of what it uses, not <ql/quantlib.hpp>: QuantLib's umbrella header took 37 s of the CI build.
#include <ql/exercise.hpp>
#include <ql/instruments/asianoption.hpp>
#include <ql/instruments/payoffs.hpp>
#include <ql/pricingengines/asian/mc_discr_arith_av_price.hpp>
#include <ql/processes/blackscholesprocess.hpp>
#include <ql/quotes/simplequote.hpp>
#include <ql/settings.hpp>
#include <ql/termstructures/volatility/equityfx/blackconstantvol.hpp>
#include <ql/termstructures/yield/flatforward.hpp>
#include <ql/time/calendars/nullcalendar.hpp>
#include <ql/time/daycounter.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "command_line.hpp"

namespace {

namespace ql = QuantLib;
using Clock = std::chrono::steady_clock;

// The option (the benchmark's, fixed).
constexpr double spot = 100.0;
constexpr double strike = 100.0;
constexpr double rate = 0.05;             // 1/year, continuously compounded
constexpr double dividend_yield = 0.0;    // 1/year
constexpr double volatility = 0.2;        // 1/sqrt(year)
constexpr int fixings = 252;              // t = i/252 years, i = 1..fixings
constexpr double days_per_year = 252.0;   // Actual252's year

// Actual/252: calendar days / 252 (QuantLib's Actual365Fixed with 252 days in a year).
class Actual252 : public ql::DayCounter {
 public:
  Actual252() : ql::DayCounter(ql::ext::make_shared<Impl>()) {}

 private:
  class Impl : public ql::DayCounter::Impl {
   public:
    std::string name() const override { return "Actual/252"; }
    ql::Time yearFraction(const ql::Date& d1, const ql::Date& d2, const ql::Date&, const ql::Date&) const override {
      return ql::daysBetween(d1, d2) / days_per_year;
    }
  };
};

struct Options {
  long paths = 100000;
  unsigned long seed = 42;
};

constexpr bench::Usage usage{"quantlib_asian", "quantlib_asian [--paths N] [--seed S]"};

Options parse_options(int argc, char** argv) {
  Options options;
  bench::parse_flags(argc, argv, usage,
                     {{"--paths", [&](const char* v) { options.paths = std::atol(v); }},
                      {"--seed", [&](const char* v) { options.seed = std::strtoul(v, nullptr, 10); }}});
  if (options.paths < 2 || options.seed == 0)
    bench::usage_error(usage, "--paths must be at least 2 and --seed positive");
  return options;
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse_options(argc, argv);

  const ql::Date today(2, ql::January, 2026);
  ql::Settings::instance().evaluationDate() = today;
  const ql::DayCounter day_counter = Actual252();

  std::vector<ql::Date> fixing_dates;
  for (int i = 1; i <= fixings; ++i) fixing_dates.push_back(today + i);

  const auto flat = [&](double value) {
    return ql::Handle<ql::YieldTermStructure>(ql::ext::make_shared<ql::FlatForward>(today, value, day_counter));
  };
  const auto process = ql::ext::make_shared<ql::BlackScholesMertonProcess>(
      ql::Handle<ql::Quote>(ql::ext::make_shared<ql::SimpleQuote>(spot)), flat(dividend_yield), flat(rate),
      ql::Handle<ql::BlackVolTermStructure>(
          ql::ext::make_shared<ql::BlackConstantVol>(today, ql::NullCalendar(), volatility, day_counter)));

  // The engine's time grid is the process's times of the fixing dates: check they are i/252.
  double worst_time_error = 0;
  for (int i = 1; i <= fixings; ++i)
    worst_time_error = std::max(worst_time_error, std::abs(process->time(fixing_dates[i - 1]) - i / days_per_year));
  if (worst_time_error > 1e-12) {
    std::fprintf(stderr, "quantlib_asian: fixing times differ from i/252 by up to %g\n", worst_time_error);
    return 1;
  }

  ql::DiscreteAveragingAsianOption option(
      ql::Average::Arithmetic, 0.0, 0, fixing_dates,
      ql::ext::make_shared<ql::PlainVanillaPayoff>(ql::Option::Call, strike),
      ql::ext::make_shared<ql::EuropeanExercise>(fixing_dates.back()));
  option.setPricingEngine(ql::MakeMCDiscreteArithmeticAPEngine<ql::PseudoRandom>(process)
                              .withSamples(static_cast<ql::Size>(options.paths))
                              .withSeed(options.seed)
                              .withBrownianBridge(false)
                              .withAntitheticVariate(false)
                              .withControlVariate(false));

  const auto t0 = Clock::now();
  const double price = option.NPV();
  const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  const double error = option.errorEstimate();

  std::printf("quantlib_path_steps_per_second %.4e\n", static_cast<double>(options.paths) * fixings / seconds);
  std::printf("quantlib_price %.6f\n", price);
  std::printf("quantlib_standard_error %.6f\n", error);
  std::printf("quantlib_paths %ld\n", options.paths);
  std::printf("quantlib_seconds %.4f\n", seconds);
  return 0;
}
