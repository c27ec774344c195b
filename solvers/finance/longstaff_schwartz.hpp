#pragma once
// The regression of Longstaff & Schwartz (2001) that fits an ExerciseRule: calibration paths are simulated to
// every exercise date and kept there (dates x assets x paths, on the device), then, from the last date back, the
// discounted cash flows of the paths in the money are regressed on the basis of their prices at the date, and
// the paths whose exercise value beats the fit exercise there. The normal equations are summed per block of
// paths in a fixed order (chunks of 32 paths in path order, then the chunks), the blocks gathered from every rank
// and added in global block order on each: the same coefficients, bit for bit, on any rank count and backend.
// The calibration paths come from a stream of their own (the seed's key, other path indices), so the price is
// then estimated out of sample on the pricer's paths: low-biased; the in-sample estimate (the calibration
// paths' own cash flows, high-biased by the fit's foresight) comes with it.
#include <mpi.h>

#include <vector>

#include "solvers/finance/exercise_rule.hpp"
#include "solvers/finance/monte_carlo_pricer.hpp"

namespace meridian::finance {

struct Calibration {
  ExerciseRule rule;                // with its coefficients
  double in_sample_price = 0, in_sample_error = 0;
  std::vector<double> condition;    // per date before maturity, of the scaled normal equations (0: no path in the money)
  std::vector<long> in_the_money;   // per date, the calibration paths regressed
  long paths = 0;
};

// Path indices of the calibration stream start here: far above any pricing path, below the top bit that the
// barrier's hitting times take (models.hpp).
inline constexpr std::uint64_t calibration_first_path = std::uint64_t(1) << 62;

// The degrees of the basis functions: every product of the family's polynomials in the assets' S / K of total
// degree at most `order` (one asset: degrees 0 .. order). Throws std::invalid_argument past max_basis_functions.
std::vector<int> basis_degrees(int assets, int order);

// Sets rule.dates and rule.date_at_step from the number of path steps done at each exercise date (increasing, the
// last `steps`: maturity).
void set_exercise_steps(ExerciseRule& rule, const std::vector<int>& steps_at_dates, int steps);
// Sets rule.degrees from basis_degrees(rule.assets, rule.order).
void set_basis_degrees(ExerciseRule& rule, const std::vector<int>& degrees);

// Fits `rule` (its coefficients ignored) on `paths` calibration paths (rounded up to whole blocks of
// settings.block_size) of the model in `settings`, whose steps rule.date_at_step covers. Collective.
Calibration calibrate(const PricerSettings& settings, ExerciseRule rule, long paths, MPI_Comm comm);

}  // namespace meridian::finance
