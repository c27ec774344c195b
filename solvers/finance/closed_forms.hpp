#pragma once
// Closed-form and semi-analytic European option prices: the references a Monte Carlo pricer is checked against.
// Host-only, double precision, no state. Conventions throughout:
//   - rates r (risk-free) and q (dividend yield) are flat and continuously compounded, per year;
//   - times (maturity T, fixing times) are in years from today; volatilities per sqrt(year);
//   - a price is today's value of the payoff paid at T (a knock-out rebate is paid when the barrier is hit).
// Sources: E. G. Haug, "The Complete Guide to Option Pricing Formulas", McGraw-Hill 1998 (cited as Haug);
// the formulas are those QuantLib's analytic engines implement, and tests/test_closed_forms.cpp checks them
// against the published values collected in tests/data/option_reference_prices.csv.
#include <vector>

namespace meridian::finance {

enum class OptionType { call, put };

// One asset under Black-Scholes: dS = (r - q) S dt + sigma S dW.
struct BlackScholesMarket {
  double spot = 0.0;            // S0
  double rate = 0.0;            // r, 1/year
  double dividend_yield = 0.0;  // q, 1/year
  double volatility = 0.0;      // sigma, 1/sqrt(year)
};

// A European payoff max(w (S_T - K), 0), w = +1 for a call and -1 for a put.
struct EuropeanOption {
  OptionType type = OptionType::call;
  double strike = 0.0;    // K
  double maturity = 0.0;  // T, years
};

// ---- Normal distributions -------------------------------------------------------------------------------

double normal_pdf(double x);
double normal_cdf(double x);  // through erfc: full relative accuracy in the lower tail
// P(X <= a, Y <= b) for standard normals with correlation rho in [-1, 1]. Genz's algorithm (A. Genz,
// "Numerical computation of rectangular bivariate and trivariate normal and t probabilities", Statistics and
// Computing 14, 2004, 251-260; the Drezner-Wesolowsky 1990 formulas with 6/12/20-point Gauss-Legendre rules):
// absolute error below 1e-15 (1.4e-16 at worst against a 30-digit quadrature); not relative, so probabilities
// far below that in the tails come out as round-off.
double bivariate_normal_cdf(double a, double b, double rho);

// ---- Black-Scholes (Haug pp.1-16) -------------------------------------------------------------------------

// Sensitivities of the price. Units: vega per unit of volatility (not per 1%), theta per year of calendar
// time (dV/dt = -dV/dT), rho per unit of rate; gamma per unit of spot squared.
struct Greeks {
  double price = 0.0;
  double delta = 0.0;
  double gamma = 0.0;
  double vega = 0.0;
  double theta = 0.0;
  double rho = 0.0;
};

double black_scholes_price(const BlackScholesMarket& market, const EuropeanOption& option);
Greeks black_scholes_greeks(const BlackScholesMarket& market, const EuropeanOption& option);
// Cash-or-nothing digital: pays 1 at T if the option finishes in the money (Haug p.88): exp(-rT) N(+-d2).
double cash_or_nothing_price(const BlackScholesMarket& market, const EuropeanOption& option);

// Put-call parity: C - P = S exp(-qT) - K exp(-rT), the value of a forward contract struck at K. Holds for any
// model where S exp(-(r - q) t) is a martingale (Black-Scholes, Heston).
double forward_contract_value(double spot, double strike, double maturity, double rate, double dividend_yield);

// ---- Geometric-average Asian options -----------------------------------------------------------------------

// Payoff on G = exp(mean of ln S over [0, T]), averaged continuously (Kemna & Vorst 1990; Haug pp.96-97).
double geometric_asian_continuous_price(const BlackScholesMarket& market, const EuropeanOption& option);
// Payoff on G = (S(t_1) ... S(t_n))^(1/n), fixing times 0 <= t_i <= T (any order, repeats allowed), paid at T.
// Exact: ln G is normal (Clewlow & Strickland, "Implementing Derivatives Models", 1998, pp.118-123).
double geometric_asian_discrete_price(const BlackScholesMarket& market, const EuropeanOption& option,
                                      const std::vector<double>& fixing_times);

// ---- Continuously monitored single barrier (Reiner & Rubinstein 1991; Haug p.69-72) ----------------------

enum class BarrierType { down_in, up_in, down_out, up_out };

struct BarrierOption {
  OptionType type = OptionType::call;
  BarrierType barrier_type = BarrierType::down_out;
  double strike = 0.0;    // K
  double barrier = 0.0;   // H
  double rebate = 0.0;    // R: knock-in pays it at T if never hit; knock-out pays it at the hitting time
  double maturity = 0.0;  // T, years
};

// A spot already at or beyond the barrier counts as hit: knock-ins are then vanillas, knock-outs pay R now.
double barrier_price(const BlackScholesMarket& market, const BarrierOption& option);

// ---- European option on the minimum or maximum of two assets (Stulz 1982; Haug pp.56-58) -----------------

struct Asset {
  double spot = 0.0;            // S_i(0)
  double dividend_yield = 0.0;  // q_i, 1/year
  double volatility = 0.0;      // sigma_i, 1/sqrt(year)
};

struct TwoAssetMarket {
  Asset first;
  Asset second;
  double correlation = 0.0;  // of the two Brownian motions
  double rate = 0.0;         // r, 1/year
};

enum class Extremum { minimum, maximum };

// Payoff max(w (extremum(S1_T, S2_T) - K), 0). Calls by Stulz's formula; puts from the parity
// P(K) = K exp(-rT) - C(0) + C(K), C(0) being the value of the extremum itself (Margrabe exchange option).
// Needs a non-degenerate spread: sigma1^2 + sigma2^2 - 2 rho sigma1 sigma2 > 0.
double two_asset_extremum_price(const TwoAssetMarket& market, Extremum extremum, const EuropeanOption& option);

// ---- Heston stochastic volatility (Heston 1993) -----------------------------------------------------------

// dS = (r - q) S dt + sqrt(v) S dW1,  dv = kappa (theta - v) dt + sigma sqrt(v) dW2,  d<W1, W2> = rho dt.
struct HestonModel {
  double spot = 0.0;               // S0
  double rate = 0.0;               // r, 1/year
  double dividend_yield = 0.0;     // q, 1/year
  double initial_variance = 0.0;   // v0, 1/year
  double mean_reversion = 0.0;     // kappa, 1/year
  double long_run_variance = 0.0;  // theta, 1/year
  double vol_of_variance = 0.0;    // sigma (> 0), 1/year
  double correlation = 0.0;        // rho in [-1, 1]
};

// Lewis's (2001) single-integral form with the "little Heston trap" characteristic function (Albrecher, Mayer,
// Schoutens, Tistaert, Wilmott Magazine, Jan 2007), integrated by adaptive Gauss-Kronrod (7/15) over [0, inf).
// Calls and puts come from the same integral, so put-call parity holds to round-off. Absolute error a few
// 1e-14 on Lewis's reference prices and on harder cases (T from 0.02 to 30, rho sigma > 2 kappa, |rho| = 0.95)
// checked against an independent 30-digit computation. Needs sigma > 0 (sigma = 1e-6 is fine).
double heston_price(const HestonModel& model, const EuropeanOption& option);

}  // namespace meridian::finance
