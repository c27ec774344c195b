#include "solvers/finance/closed_forms.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <queue>
#include <stdexcept>
#include <string>

namespace meridian::finance {
namespace {

constexpr double pi = 3.14159265358979323846;

void require(bool condition, const char* what) {
  if (!condition) throw std::invalid_argument(std::string("closed_forms: ") + what);
}

double sign_of(OptionType type) { return type == OptionType::call ? 1.0 : -1.0; }

// ---- Quadrature -------------------------------------------------------------------------------------------

struct QuadratureRule {
  std::vector<double> nodes;    // on [-1, 1]
  std::vector<double> weights;  // summing to 2
};

// n-point Gauss-Legendre rule: Newton's method on P_n from Tricomi's initial guesses, to round-off.
QuadratureRule gauss_legendre(int n) {
  QuadratureRule rule{std::vector<double>(n), std::vector<double>(n)};
  for (int i = 0; i < (n + 1) / 2; ++i) {
    double x = std::cos(pi * (i + 0.75) / (n + 0.5));
    double derivative = 0.0;
    for (int iteration = 0; iteration < 100; ++iteration) {
      double p = 1.0, p_previous = 0.0;  // P_j(x), P_{j-1}(x) by Bonnet's recursion
      for (int j = 1; j <= n; ++j) {
        const double p_next = ((2 * j - 1) * x * p - (j - 1) * p_previous) / j;
        p_previous = p;
        p = p_next;
      }
      derivative = n * (x * p - p_previous) / (x * x - 1.0);
      const double step = p / derivative;
      x -= step;
      if (std::abs(step) < 1e-16) break;
    }
    const double weight = 2.0 / ((1.0 - x * x) * derivative * derivative);
    rule.nodes[i] = -x;
    rule.nodes[n - 1 - i] = x;
    rule.weights[i] = rule.weights[n - 1 - i] = weight;
  }
  return rule;
}

// Gauss-Kronrod 7/15 (QUADPACK's qk15): nodes from the end of [-1, 1] inwards, the last being 0; the 7-point
// Gauss rule uses the odd-indexed nodes.
constexpr double kronrod_nodes[8] = {0.991455371120812639206854697526329, 0.949107912342758524526189684047851,
                                     0.864864423359769072789712788640926, 0.741531185599394439863864773280788,
                                     0.586087235467691130294144845693013, 0.405845151377397166906606412076961,
                                     0.207784955007898467600689403773245, 0.0};
constexpr double kronrod_weights[8] = {0.022935322010529224963732008058970, 0.063092092629978553290700663189204,
                                       0.104790010322250183839876322541518, 0.140653259715525918745189590510238,
                                       0.169004726639267902826583426598550, 0.190350578064785409913256402421014,
                                       0.204432940075298892414161999234649, 0.209482141084727828012999174891714};
constexpr double gauss_weights[4] = {0.129484966168869693270611432679082, 0.279705391489276667901467771423780,
                                     0.381830050505118944950369775488975, 0.417959183673469387755102040816327};

struct Segment {
  double lower, upper;
  double integral;  // 15-point Kronrod estimate
  double error;     // |Kronrod - Gauss|, pessimistic for smooth integrands
  bool operator<(const Segment& other) const { return error < other.error; }
};

template <class Integrand>
Segment gauss_kronrod_15(const Integrand& f, double lower, double upper) {
  const double centre = 0.5 * (lower + upper), half_width = 0.5 * (upper - lower);
  const double f_centre = f(centre);
  double kronrod = kronrod_weights[7] * f_centre, gauss = gauss_weights[3] * f_centre;
  for (int i = 0; i < 7; ++i) {
    const double pair = f(centre - half_width * kronrod_nodes[i]) + f(centre + half_width * kronrod_nodes[i]);
    kronrod += kronrod_weights[i] * pair;
    if (i % 2 == 1) gauss += gauss_weights[i / 2] * pair;
  }
  return {lower, upper, kronrod * half_width, std::abs(kronrod - gauss) * half_width};
}

// Globally adaptive: bisect the segment with the largest error estimate until the total is below tolerance.
template <class Integrand>
double integrate_adaptive(const Integrand& f, double lower, double upper, double tolerance, int max_segments) {
  std::priority_queue<Segment> segments;
  segments.push(gauss_kronrod_15(f, lower, upper));
  double integral = segments.top().integral, error = segments.top().error;
  while (error > tolerance && int(segments.size()) < max_segments) {
    const Segment worst = segments.top();
    segments.pop();
    const double middle = 0.5 * (worst.lower + worst.upper);
    const Segment left = gauss_kronrod_15(f, worst.lower, middle), right = gauss_kronrod_15(f, middle, worst.upper);
    integral += left.integral + right.integral - worst.integral;
    error += left.error + right.error - worst.error;
    segments.push(left);
    segments.push(right);
  }
  return integral;
}

// ---- Black-Scholes building blocks -----------------------------------------------------------------------

struct D1D2 {
  double d1, d2;
};

// d1,2 = ln(F / K) / s +- s / 2 for a lognormal X with E[X] = forward and std dev of ln X = s.
D1D2 d1_d2(double forward, double strike, double stddev) {
  const double d1 = std::log(forward / strike) / stddev + 0.5 * stddev;
  return {d1, d1 - stddev};
}

// Black's formula: discount * E[max(w (X - K), 0)] for that X (Haug p.9). Intrinsic value when s = 0.
double black_formula(OptionType type, double forward, double strike, double stddev, double discount) {
  const double w = sign_of(type);
  if (stddev <= 0.0) return discount * std::max(w * (forward - strike), 0.0);
  const D1D2 d = d1_d2(forward, strike, stddev);
  return discount * w * (forward * normal_cdf(w * d.d1) - strike * normal_cdf(w * d.d2));
}

double forward_price(const BlackScholesMarket& market, double maturity) {
  return market.spot * std::exp((market.rate - market.dividend_yield) * maturity);
}

void check(const BlackScholesMarket& market, const EuropeanOption& option) {
  require(market.spot > 0.0 && option.strike > 0.0, "spot and strike must be positive");
  require(option.maturity >= 0.0 && market.volatility >= 0.0, "maturity and volatility must be non-negative");
}

// Option on exp(Y), Y normal with the given mean and variance, paid at T: the geometric averages.
double lognormal_option(const BlackScholesMarket& market, const EuropeanOption& option, double log_mean,
                        double log_variance) {
  return black_formula(option.type, std::exp(log_mean + 0.5 * log_variance), option.strike,
                       std::sqrt(log_variance), std::exp(-market.rate * option.maturity));
}

// ---- Barrier: the terms A..F of Reiner & Rubinstein as in Haug p.70 -------------------------------------

class BarrierTerms {
 public:
  BarrierTerms(const BlackScholesMarket& market, const BarrierOption& option)
      : spot_(market.spot),
        strike_(option.strike),
        barrier_(option.barrier),
        rebate_(option.rebate),
        asset_discount_(std::exp(-market.dividend_yield * option.maturity)),
        cash_discount_(std::exp(-market.rate * option.maturity)),
        stddev_(market.volatility * std::sqrt(option.maturity)) {
    const double variance_rate = market.volatility * market.volatility;
    mu_ = (market.rate - market.dividend_yield) / variance_rate - 0.5;
    lambda_ = std::sqrt(mu_ * mu_ + 2.0 * market.rate / variance_rate);
  }

  // phi = +1 call, -1 put; eta = +1 down, -1 up. Haug's x1, x2, y1, y2 are the logs of S/K, S/H, H^2/(S K),
  // H/S, standardized.
  double A(double phi) const { return pair(phi, phi, standardized(spot_ / strike_), 1.0, 1.0); }
  double B(double phi) const { return pair(phi, phi, standardized(spot_ / barrier_), 1.0, 1.0); }
  double C(double eta, double phi) const {
    const double y1 = standardized(barrier_ * barrier_ / (spot_ * strike_));
    return pair(phi, eta, y1, reflected(2.0 * mu_ + 2.0), reflected(2.0 * mu_));
  }
  double D(double eta, double phi) const {
    return pair(phi, eta, standardized(barrier_ / spot_), reflected(2.0 * mu_ + 2.0), reflected(2.0 * mu_));
  }
  // Knock-in rebate, paid at T if the barrier was never hit.
  double E(double eta) const {
    const double x2 = standardized(spot_ / barrier_), y2 = standardized(barrier_ / spot_);
    const double never_hit = normal_cdf(eta * (x2 - stddev_)) -
                             weighted(reflected(2.0 * mu_), normal_cdf(eta * (y2 - stddev_)));
    return rebate_ * cash_discount_ * never_hit;
  }
  // Knock-out rebate, paid at the hitting time: R E[exp(-r tau) 1{tau <= T}].
  double F(double eta) const {
    const double z = std::log(barrier_ / spot_) / stddev_ + lambda_ * stddev_;
    return rebate_ * (weighted(reflected(mu_ + lambda_), normal_cdf(eta * z)) +
                      weighted(reflected(mu_ - lambda_), normal_cdf(eta * (z - 2.0 * lambda_ * stddev_))));
  }

 private:
  double standardized(double ratio) const { return std::log(ratio) / stddev_ + (1.0 + mu_) * stddev_; }
  double reflected(double power) const { return std::pow(barrier_ / spot_, power); }
  // A vanishing probability times a huge reflection weight tends to 0; do not let it become inf * 0 = NaN.
  static double weighted(double weight, double probability) { return probability == 0.0 ? 0.0 : weight * probability; }
  double pair(double phi, double eta, double x_value, double asset_weight, double cash_weight) const {
    return phi * (spot_ * asset_discount_ * weighted(asset_weight, normal_cdf(eta * x_value)) -
                  strike_ * cash_discount_ * weighted(cash_weight, normal_cdf(eta * (x_value - stddev_))));
  }

  double spot_, strike_, barrier_, rebate_;
  double asset_discount_, cash_discount_, stddev_;
  double mu_ = 0.0, lambda_ = 0.0;
};

// value = a A + b B + c C + d D + (E for a knock-in, F for a knock-out), from Haug p.71-72.
struct BarrierCombination {
  int a, b, c, d;
};
// Indexed [call, put][down_in, up_in, down_out, up_out][strike below barrier, strike at or above it].
constexpr BarrierCombination barrier_combinations[2][4][2] = {
    {{{1, -1, 0, 1}, {0, 0, 1, 0}},
     {{0, 1, -1, 1}, {1, 0, 0, 0}},
     {{0, 1, 0, -1}, {1, 0, -1, 0}},
     {{1, -1, 1, -1}, {0, 0, 0, 0}}},
    {{{1, 0, 0, 0}, {0, 1, -1, 1}},
     {{0, 0, 1, 0}, {1, -1, 0, 1}},
     {{0, 0, 0, 0}, {1, -1, 1, -1}},
     {{1, 0, -1, 0}, {0, 1, 0, -1}}},
};

bool is_down(BarrierType type) { return type == BarrierType::down_in || type == BarrierType::down_out; }
bool is_knock_in(BarrierType type) { return type == BarrierType::down_in || type == BarrierType::up_in; }

// ---- Two assets -------------------------------------------------------------------------------------------

double spread_variance(const TwoAssetMarket& market) {  // Var(ln(S1 / S2)) per year
  const double v1 = market.first.volatility, v2 = market.second.volatility;
  return v1 * v1 + v2 * v2 - 2.0 * market.correlation * v1 * v2;
}

double discounted_asset(const Asset& asset, double maturity) {  // S exp(-qT): the value today of S_T
  return asset.spot * std::exp(-asset.dividend_yield * maturity);
}

// Stulz's call on the minimum (Haug p.56): with y_i the d1/d2 of asset i against K and d those of S1 against S2,
//   S1 e^{-q1 T} M(y1.d1, -d.d1; -rho1) + S2 e^{-q2 T} M(y2.d1, d.d2; -rho2) - K e^{-rT} M(y1.d2, y2.d2; rho).
double call_on_minimum(const TwoAssetMarket& market, double strike, double maturity) {
  const Asset& one = market.first;
  const Asset& two = market.second;
  const double rho = market.correlation, sqrt_t = std::sqrt(maturity);
  const double spread_vol = std::sqrt(spread_variance(market));
  const double value_one = discounted_asset(one, maturity), value_two = discounted_asset(two, maturity);
  const double growth = std::exp(market.rate * maturity);  // value today -> forward
  const D1D2 y1 = d1_d2(value_one * growth, strike, one.volatility * sqrt_t);
  const D1D2 y2 = d1_d2(value_two * growth, strike, two.volatility * sqrt_t);
  const D1D2 d = d1_d2(value_one, value_two, spread_vol * sqrt_t);
  const double rho1 = (one.volatility - rho * two.volatility) / spread_vol;
  const double rho2 = (two.volatility - rho * one.volatility) / spread_vol;
  return value_one * bivariate_normal_cdf(y1.d1, -d.d1, -rho1) + value_two * bivariate_normal_cdf(y2.d1, d.d2, -rho2) -
         strike / growth * bivariate_normal_cdf(y1.d2, y2.d2, rho);
}

// Value of min(S1_T, S2_T) paid at T: S1 minus Margrabe's option to exchange S2 for S1 (Haug p.50).
double value_of_minimum(const TwoAssetMarket& market, double maturity) {
  const double value_one = discounted_asset(market.first, maturity);
  const double value_two = discounted_asset(market.second, maturity);
  const double spread_stddev = std::sqrt(spread_variance(market) * maturity);
  return value_one - black_formula(OptionType::call, value_one, value_two, spread_stddev, 1.0);
}

// ---- Heston -----------------------------------------------------------------------------------------------

using Complex = std::complex<double>;

// log(1 + z) to full relative accuracy for small |z| (Goldberg's trick, valid for complex z too).
Complex log_one_plus(Complex z) {
  const Complex one_plus = 1.0 + z;
  if (one_plus == 1.0) return z;
  return std::log(one_plus) * z / (one_plus - 1.0);
}

// psi(z) = E[exp(i z ln(S_T / F))], F the forward, at z = u - i/2, i.e. E[(S_T / F)^w] with w = 1/2 + i u.
// Albrecher et al.'s "little Heston trap": principal square root for d, g = (beta - d) / (beta + d) and
// exp(-d T), with which the logarithm, unlike in Heston's original form, stays on its principal branch along the
// whole path. Written with beta - d = -sigma^2 h, exact algebra that keeps full precision as sigma -> 0 (where the
// model tends to Black-Scholes) instead of cancelling.
Complex heston_shifted_characteristic_function(const HestonModel& model, double maturity, double u) {
  const double sigma_squared = model.vol_of_variance * model.vol_of_variance;
  const Complex w(0.5, u);
  const Complex beta = model.mean_reversion - model.correlation * model.vol_of_variance * w;
  const Complex w_one_minus_w = w * (1.0 - w);  // = u^2 + 1/4 on this line
  const Complex d = std::sqrt(beta * beta + sigma_squared * w_one_minus_w);
  const Complex h = w_one_minus_w / (beta + d);
  const Complex g = -sigma_squared * h / (beta + d);
  const Complex decay = std::exp(-d * maturity);
  const Complex variance_coefficient = -h * (1.0 - decay) / (1.0 - g * decay);  // Heston's D
  // ((1 - g e^{-dT}) / (1 - g) - 1) / sigma^2, so that Heston's 2/sigma^2 ln((1 - g e^{-dT}) / (1 - g)) loses nothing.
  const Complex ratio_minus_one_over_sigma2 = -h * (1.0 - decay) / ((beta + d) * (1.0 - g));
  const Complex log_term = 2.0 * log_one_plus(sigma_squared * ratio_minus_one_over_sigma2) / sigma_squared;
  const Complex constant = -model.mean_reversion * model.long_run_variance * (h * maturity + log_term);  // Heston's C
  return std::exp(constant + variance_coefficient * model.initial_variance);
}

}  // namespace

// ---- Normal distributions -------------------------------------------------------------------------------

double normal_pdf(double x) { return std::exp(-0.5 * x * x) / std::sqrt(2.0 * pi); }

double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

// Genz (2004), routine BVND: computes L(h, k, r) = P(X > h, Y > k), and P(X <= a, Y <= b) = L(-a, -b, r).
// |r| < 0.925: Gauss-Legendre on Drezner & Wesolowsky's integral over asin(r) of the Plackett identity;
// otherwise the integral from |r| to 1 with the singular part taken out analytically.
double bivariate_normal_cdf(double a, double b, double rho) {
  require(std::abs(rho) <= 1.0, "correlation outside [-1, 1]");
  static const QuadratureRule rule_6 = gauss_legendre(6), rule_12 = gauss_legendre(12), rule_20 = gauss_legendre(20);
  const double abs_rho = std::abs(rho);
  const QuadratureRule& rule = abs_rho < 0.3 ? rule_6 : abs_rho < 0.75 ? rule_12 : rule_20;
  const std::size_t points = rule.nodes.size();
  double h = -a, k = -b, hk = h * k, sum = 0.0;

  if (abs_rho < 0.925) {
    const double hs = 0.5 * (h * h + k * k), asin_rho = std::asin(rho);
    for (std::size_t i = 0; i < points; ++i) {
      const double sn = std::sin(0.5 * asin_rho * (rule.nodes[i] + 1.0));
      sum += rule.weights[i] * std::exp((sn * hk - hs) / (1.0 - sn * sn));
    }
    return sum * asin_rho / (4.0 * pi) + normal_cdf(-h) * normal_cdf(-k);
  }

  if (rho < 0.0) {
    k = -k;
    hk = -hk;
  }
  if (abs_rho < 1.0) {
    const double as = (1.0 - rho) * (1.0 + rho), bs = (h - k) * (h - k);
    const double c = (4.0 - hk) / 8.0, d = (12.0 - hk) / 16.0;
    double a_root = std::sqrt(as);
    sum = a_root * std::exp(-0.5 * (bs / as + hk)) *
          (1.0 - c * (bs - as) * (1.0 - d * bs / 5.0) / 3.0 + c * d * as * as / 5.0);
    if (hk > -160.0) {
      const double b_root = std::sqrt(bs);
      sum -= std::exp(-0.5 * hk) * std::sqrt(2.0 * pi) * normal_cdf(-b_root / a_root) * b_root *
             (1.0 - c * bs * (1.0 - d * bs / 5.0) / 3.0);
    }
    a_root *= 0.5;
    for (std::size_t i = 0; i < points; ++i) {
      const double xs = std::pow(a_root * (rule.nodes[i] + 1.0), 2);
      const double rs = std::sqrt(1.0 - xs);
      const double exponent = -0.5 * (bs / xs + hk);
      if (exponent > -100.0) {
        sum += a_root * rule.weights[i] * std::exp(exponent) *
               (std::exp(-hk * xs / (2.0 * (1.0 + rs) * (1.0 + rs))) / rs - (1.0 + c * xs * (1.0 + d * xs)));
      }
    }
    sum = -sum / (2.0 * pi);
  }
  if (rho > 0.0) return sum + normal_cdf(-std::max(h, k));
  return -sum + std::max(0.0, normal_cdf(-h) - normal_cdf(-k));
}

// ---- Black-Scholes ----------------------------------------------------------------------------------------

double black_scholes_price(const BlackScholesMarket& market, const EuropeanOption& option) {
  check(market, option);
  return black_formula(option.type, forward_price(market, option.maturity), option.strike,
                       market.volatility * std::sqrt(option.maturity), std::exp(-market.rate * option.maturity));
}

// Haug pp.11-16, with w = +1 for calls and -1 for puts.
Greeks black_scholes_greeks(const BlackScholesMarket& market, const EuropeanOption& option) {
  check(market, option);
  require(option.maturity > 0.0 && market.volatility > 0.0, "Greeks need positive maturity and volatility");
  const double w = sign_of(option.type), t = option.maturity, sqrt_t = std::sqrt(t);
  const double asset_discount = std::exp(-market.dividend_yield * t), cash_discount = std::exp(-market.rate * t);
  const D1D2 d = d1_d2(forward_price(market, t), option.strike, market.volatility * sqrt_t);
  const double asset_leg = market.spot * asset_discount * normal_cdf(w * d.d1);      // S e^{-qT} N(w d1)
  const double cash_leg = option.strike * cash_discount * normal_cdf(w * d.d2);      // K e^{-rT} N(w d2)
  const double density_term = market.spot * asset_discount * normal_pdf(d.d1);       // S e^{-qT} n(d1)
  Greeks greeks;
  greeks.price = w * (asset_leg - cash_leg);
  greeks.delta = w * asset_discount * normal_cdf(w * d.d1);
  greeks.gamma = density_term / (market.spot * market.spot * market.volatility * sqrt_t);
  greeks.vega = density_term * sqrt_t;
  greeks.theta = -density_term * market.volatility / (2.0 * sqrt_t) +
                 w * (market.dividend_yield * asset_leg - market.rate * cash_leg);
  greeks.rho = w * t * cash_leg;
  return greeks;
}

double cash_or_nothing_price(const BlackScholesMarket& market, const EuropeanOption& option) {
  check(market, option);
  require(option.maturity > 0.0 && market.volatility > 0.0, "digital needs positive maturity and volatility");
  const D1D2 d = d1_d2(forward_price(market, option.maturity), option.strike,
                       market.volatility * std::sqrt(option.maturity));
  return std::exp(-market.rate * option.maturity) * normal_cdf(sign_of(option.type) * d.d2);
}

double forward_contract_value(double spot, double strike, double maturity, double rate, double dividend_yield) {
  return spot * std::exp(-dividend_yield * maturity) - strike * std::exp(-rate * maturity);
}

// ---- Geometric Asian ----------------------------------------------------------------------------------------

// ln G = ln S + (r - q - sigma^2/2) T/2 + sigma/T * integral of W: variance sigma^2 T/3. Equivalent to Haug's
// adjusted volatility sigma/sqrt(3) and carry (r - q - sigma^2/6)/2.
double geometric_asian_continuous_price(const BlackScholesMarket& market, const EuropeanOption& option) {
  check(market, option);
  const double t = option.maturity, variance_rate = market.volatility * market.volatility;
  const double log_mean = std::log(market.spot) + (market.rate - market.dividend_yield - 0.5 * variance_rate) * t / 2.0;
  return lognormal_option(market, option, log_mean, variance_rate * t / 3.0);
}

// ln G = ln S + (r - q - sigma^2/2) mean(t_i) + sigma mean(W(t_i)), Var = sigma^2/n^2 sum_ij min(t_i, t_j).
double geometric_asian_discrete_price(const BlackScholesMarket& market, const EuropeanOption& option,
                                      const std::vector<double>& fixing_times) {
  check(market, option);
  require(!fixing_times.empty(), "no fixing times");
  std::vector<double> times(fixing_times);
  std::sort(times.begin(), times.end());
  require(times.front() >= 0.0 && times.back() <= option.maturity, "fixing times outside [0, T]");
  const double n = double(times.size());
  double time_sum = 0.0, min_sum = 0.0;  // sum_i t_i and sum_ij min(t_i, t_j)
  for (std::size_t i = 0; i < times.size(); ++i) {
    time_sum += times[i];
    min_sum += times[i] * double(2 * (times.size() - i) - 1);  // t_(i) is the min of 2(n-i)-1 ordered pairs
  }
  const double variance_rate = market.volatility * market.volatility;
  const double log_mean =
      std::log(market.spot) + (market.rate - market.dividend_yield - 0.5 * variance_rate) * time_sum / n;
  return lognormal_option(market, option, log_mean, variance_rate * min_sum / (n * n));
}

// ---- Barrier ----------------------------------------------------------------------------------------------

double barrier_price(const BlackScholesMarket& market, const BarrierOption& option) {
  const EuropeanOption vanilla{option.type, option.strike, option.maturity};
  check(market, vanilla);
  require(option.barrier > 0.0 && option.rebate >= 0.0, "barrier must be positive, rebate non-negative");
  const bool down = is_down(option.barrier_type), knock_in = is_knock_in(option.barrier_type);
  const bool hit = down ? market.spot <= option.barrier : market.spot >= option.barrier;
  if (hit) return knock_in ? black_scholes_price(market, vanilla) : option.rebate;
  require(option.maturity > 0.0 && market.volatility > 0.0, "barrier needs positive maturity and volatility");

  const BarrierTerms terms(market, option);
  const double phi = sign_of(option.type), eta = down ? 1.0 : -1.0;
  const BarrierCombination& k = barrier_combinations[option.type == OptionType::call ? 0 : 1]
                                                    [int(option.barrier_type)][option.strike >= option.barrier];
  return k.a * terms.A(phi) + k.b * terms.B(phi) + k.c * terms.C(eta, phi) + k.d * terms.D(eta, phi) +
         (knock_in ? terms.E(eta) : terms.F(eta));
}

// ---- Two assets -------------------------------------------------------------------------------------------

// Everything follows from the call on the minimum: puts by parity, and since {max, min} = {S1, S2},
// option(max) + option(min) = option(S1) + option(S2) for the same payoff.
double two_asset_extremum_price(const TwoAssetMarket& market, Extremum extremum, const EuropeanOption& option) {
  const Asset& one = market.first;
  const Asset& two = market.second;
  require(one.spot > 0.0 && two.spot > 0.0 && option.strike > 0.0 && option.maturity > 0.0,
          "spots, strike and maturity must be positive");
  require(std::abs(market.correlation) <= 1.0, "correlation outside [-1, 1]");
  require(spread_variance(market) > 0.0, "the two assets must not move together exactly");

  const double t = option.maturity, strike = option.strike;
  const double min_call = call_on_minimum(market, strike, t);
  const double on_minimum = option.type == OptionType::call
                                ? min_call
                                : strike * std::exp(-market.rate * t) - value_of_minimum(market, t) + min_call;
  if (extremum == Extremum::minimum) return on_minimum;
  const auto vanilla = [&](const Asset& asset) {
    return black_scholes_price({asset.spot, market.rate, asset.dividend_yield, asset.volatility}, option);
  };
  return vanilla(one) + vanilla(two) - on_minimum;
}

// ---- Heston -----------------------------------------------------------------------------------------------

// Lewis (2001), "A simple option formula for general jump-diffusion and other exponential Levy processes":
//   C = S e^{-qT} - sqrt(S K) e^{-(r+q)T/2} / pi * int_0^inf Re[e^{i u k} psi(u - i/2)] / (u^2 + 1/4) du,
// k = ln(F / K); the put is K e^{-rT} minus the same term (parity). The integrand is smooth, bounded at 0
// and decays exponentially; [0, inf) is mapped onto [0, 1) by u = L t / (1 - t), L the inverse of the total
// standard deviation, the scale on which the integrand decays.
double heston_price(const HestonModel& model, const EuropeanOption& option) {
  require(model.spot > 0.0 && option.strike > 0.0 && option.maturity > 0.0,
          "spot, strike and maturity must be positive");
  require(model.vol_of_variance > 0.0 && model.initial_variance >= 0.0 && model.long_run_variance >= 0.0,
          "vol of variance must be positive, variances non-negative");
  require(model.initial_variance + model.long_run_variance > 0.0, "the variance must not stay zero");
  require(std::abs(model.correlation) <= 1.0, "correlation outside [-1, 1]");
  const double t = option.maturity;
  const double log_moneyness =
      std::log(model.spot / option.strike) + (model.rate - model.dividend_yield) * t;  // ln(F / K)
  const double scale = 1.0 / std::sqrt(std::max(model.initial_variance, model.long_run_variance) * t);

  const auto integrand = [&](double mapped) {
    const double u = scale * mapped / (1.0 - mapped), jacobian = scale / ((1.0 - mapped) * (1.0 - mapped));
    const Complex value =
        std::exp(Complex(0.0, u * log_moneyness)) * heston_shifted_characteristic_function(model, t, u);
    return value.real() / (u * u + 0.25) * jacobian;
  };
  // The integral is O(1); 1e-14 on it is at most a few 1e-13 on a price (prefactor ~ spot / pi), and
  // |Kronrod - Gauss| overestimates the error of smooth integrands by orders of magnitude. 10-60 segments here.
  constexpr double integral_tolerance = 1e-14;
  constexpr int max_segments = 2000;
  const double integral = integrate_adaptive(integrand, 0.0, 1.0, integral_tolerance, max_segments);

  const double prefactor = std::sqrt(model.spot * option.strike) *
                           std::exp(-0.5 * (model.rate + model.dividend_yield) * t) / pi;
  const double upper_bound = option.type == OptionType::call ? model.spot * std::exp(-model.dividend_yield * t)
                                                             : option.strike * std::exp(-model.rate * t);
  return upper_bound - prefactor * integral;
}

}  // namespace meridian::finance
