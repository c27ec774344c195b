// The driver's step length towards an output time (apps/driver.hpp, step_towards): the stable step far from
// it; equal steps, up to four, that land exactly on it; no step below three quarters of the one before.
#include <gtest/gtest.h>

#include <vector>

#include "apps/driver.hpp"

using meridian::app::step_towards;

namespace {

// The steps from `start` to the output time 1 with the stable step `stable` throughout.
std::vector<double> steps_to_one(double start, double stable) {
  std::vector<double> steps;
  double time = start;
  for (;;) {
    const auto choice = step_towards(1 - time, stable);
    steps.push_back(choice.dt);
    if (choice.lands) return steps;
    time += choice.dt;
  }
}

}  // namespace

TEST(StepLength, FarFromAnOutputTimeTheStableStep) {
  const auto choice = step_towards(1.0, 0.1);
  EXPECT_EQ(choice.dt, 0.1);
  EXPECT_FALSE(choice.lands);
}

TEST(StepLength, TheLastStepsAreEqualAndLandExactly) {
  // 1.05 stable steps left: two halves, not a whole step and a twentieth.
  const auto halves = steps_to_one(1 - 0.105, 0.1);
  ASSERT_EQ(halves.size(), 2u);
  EXPECT_DOUBLE_EQ(halves[0], 0.0525);
  EXPECT_DOUBLE_EQ(halves[1], 0.0525);
  // 10.1 stable steps left: seven stable ones, then four of 0.0775 (3.1 steps' worth in four).
  const auto steps = steps_to_one(1 - 1.01, 0.1);
  ASSERT_EQ(steps.size(), 11u);
  for (std::size_t n = 0; n < 7; ++n) EXPECT_EQ(steps[n], 0.1) << n;
  for (std::size_t n = 7; n < 11; ++n) EXPECT_NEAR(steps[n], 0.0775, 1e-15) << n;
}

TEST(StepLength, NoStepIsBelowThreeQuartersOfTheOneBefore) {
  for (double left = 0.001; left < 0.9; left += 0.0137) {
    const auto steps = steps_to_one(1 - left, 0.1);
    for (std::size_t n = 1; n < steps.size(); ++n) EXPECT_GE(steps[n], 0.75 * steps[n - 1]) << left << " " << n;
    double sum = 0;
    for (const double dt : steps) sum += dt;
    EXPECT_NEAR(sum, left, 1e-15) << left;
  }
}

TEST(StepLength, AStepJustOverTheStableOneByRoundingLandsInOne) {
  const auto choice = step_towards(0.1 * (1 + 1e-12), 0.1);
  EXPECT_TRUE(choice.lands);
  EXPECT_EQ(choice.dt, 0.1 * (1 + 1e-12));
}
