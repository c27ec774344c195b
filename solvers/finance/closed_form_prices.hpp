#pragma once
// The closed form (or semi-analytic price) of a product under the pricer's model, where one exists;
// NaN otherwise. Connects the deck's settings to the formulas in closed_forms.hpp.
#include "solvers/finance/monte_carlo_pricer.hpp"

namespace meridian::finance {

double closed_form_of(Payoff product, const PricerSettings& settings);

}  // namespace meridian::finance
