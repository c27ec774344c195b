#include "solvers/finance/closed_form_prices.hpp"

#include <cmath>

#include "solvers/finance/closed_forms.hpp"

namespace meridian::finance {

namespace {

OptionType type_of(Payoff p) {
  switch (p) {
    case Payoff::european_put:
    case Payoff::digital_put:
    case Payoff::asian_arithmetic_put:
    case Payoff::asian_geometric_put:
    case Payoff::barrier_down_in_put:
    case Payoff::barrier_down_out_put:
    case Payoff::barrier_up_in_put:
    case Payoff::barrier_up_out_put:
    case Payoff::basket_put:
    case Payoff::lookback_put: return OptionType::put;
    default: return OptionType::call;
  }
}

BarrierType barrier_type_of(Payoff p) {
  switch (p) {
    case Payoff::barrier_down_in_call:
    case Payoff::barrier_down_in_put: return BarrierType::down_in;
    case Payoff::barrier_up_in_call:
    case Payoff::barrier_up_in_put: return BarrierType::up_in;
    case Payoff::barrier_down_out_call:
    case Payoff::barrier_down_out_put: return BarrierType::down_out;
    default: return BarrierType::up_out;
  }
}

Asset asset(const MultiAssetGbm& g, int a) { return Asset{g.spot[a], g.dividend[a], g.volatility[a]}; }

double gbm_closed_form(Payoff p, const PricerSettings& s) {
  const MultiAssetGbm& g = s.gbm;
  const BlackScholesMarket market{g.spot[0], g.rate, g.dividend[0], g.volatility[0]};
  const EuropeanOption option{type_of(p), s.terms.strike, s.maturity};
  switch (p) {
    case Payoff::european_call:
    case Payoff::european_put: return black_scholes_price(market, option);
    case Payoff::digital_call:
    case Payoff::digital_put: return cash_or_nothing_price(market, option);
    case Payoff::asian_geometric_call:
    case Payoff::asian_geometric_put: {
      std::vector<double> fixings;
      if (s.path.average_includes_start) fixings.push_back(0.0);
      for (int i = 1; i <= s.path.steps; ++i) fixings.push_back(i * s.path.dt);
      return geometric_asian_discrete_price(market, option, fixings);
    }
    case Payoff::max_call:
    case Payoff::min_call:
      if (g.assets != 2) return std::nan("");
      return two_asset_extremum_price(TwoAssetMarket{asset(g, 0), asset(g, 1), g.cholesky[max_assets], g.rate},
                                      p == Payoff::max_call ? Extremum::maximum : Extremum::minimum, option);
    default: break;
  }
  // The bridge-weighted estimator prices the continuously monitored barrier; plain discrete monitoring has
  // no closed form here.
  if (is_barrier(p) && s.path.bridge_correction)
    return barrier_price(market, BarrierOption{type_of(p), barrier_type_of(p), s.terms.strike, s.terms.barrier,
                                               s.terms.rebate, s.maturity});
  return std::nan("");
}

}  // namespace

double closed_form_of(Payoff p, const PricerSettings& s) {
  if (s.model == Model::gbm) return gbm_closed_form(p, s);
  if (p != Payoff::european_call && p != Payoff::european_put) return std::nan("");
  const Heston& h = s.heston;
  return heston_price(HestonModel{h.spot, h.rate, h.dividend, h.v0, h.kappa, h.theta, h.sigma, h.rho},
                      EuropeanOption{type_of(p), s.terms.strike, s.maturity});
}

}  // namespace meridian::finance
