#include "solvers/finance/monte_carlo_pricer.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <numeric>
#include <sstream>

#include "parallel/copies.hpp"
#include "parallel/launch_policy.hpp"
#include "solvers/common/memory_budget.hpp"
#include "solvers/common/step_progress.hpp"
#include "solvers/common/stop_request.hpp"
#include "parallel/team_shape.hpp"
#include "solvers/finance/closed_form_prices.hpp"
#include "solvers/finance/longstaff_schwartz.hpp"
#include "solvers/finance/moments.hpp"
#include "solvers/finance/vector_math.hpp"


namespace meridian::finance {

namespace {

using SampleValues = MonteCarloPricer::SampleValues;

struct Scenario {
  double spot_factor = 1, volatility_shift = 0;
};

template <class M>
M bumped(M model, const Scenario& s);

template <>
MultiAssetGbm bumped(MultiAssetGbm m, const Scenario& s) {
  for (int a = 0; a < m.assets; ++a) m.spot[a] *= s.spot_factor, m.volatility[a] += s.volatility_shift;
  return m;
}

// Heston's "vega" bumps the initial volatility sqrt(v0).
template <>
Heston bumped(Heston m, const Scenario& s) {
  m.spot *= s.spot_factor;
  const double vol = std::sqrt(m.v0) + s.volatility_shift;
  m.v0 = vol * vol;
  return m;
}


// The four sample values of one simulated path of scenario k, added into (quantity, product, sample):
// 0 the discounted payoff, 1 the control variate, 2 and 3 the delta and vega samples (pathwise where
// the payoff allows, common-random-number central differences of the bumped scenarios elsewhere).
struct SampleTerms {
  ProductTerms terms;
  double spot, signs;
  bool pathwise_vega;  // GBM: the path carries d ln S / d sigma
  Kokkos::Array<double, 5> bump_weight;  // scenario k's weight in the delta (k = 1, 2) and vega (3, 4) samples
};

KOKKOS_INLINE_FUNCTION void add_samples(const SampleValues& values, const Kokkos::View<const Payoff*>& payoffs,
                                        const SampleTerms& t, const PathRecord& r, int k, long sample) {
  for (int p = 0; p < static_cast<int>(payoffs.extent(0)); ++p) {
    const double payoff = discounted_payoff(payoffs(p), r, t.terms);
    double dp = 0, vp = 0;
    const bool pathwise = t.pathwise_vega && pathwise_greeks(payoffs(p), r, t.terms, t.spot, dp, vp);
    if (k == 0) {
      values(0, p, sample) += payoff / t.signs;
      values(1, p, sample) += control_variate(payoffs(p), r, t.terms) / t.signs;
      if (pathwise) values(2, p, sample) += dp / t.signs, values(3, p, sample) += vp / t.signs;
    } else if (!pathwise) {
      values(k < 3 ? 2 : 3, p, sample) += t.bump_weight[k] * payoff;
    }
  }
}

// The samples of `blocks` blocks, global block `first_block + b * block_stride` for b = 0, 1, ...:
// a team per group of paths of a block, each team thread simulating `lanes` paths as the lanes of its
// vector loop (path_simulation.hpp), in the precision Real; their values are written as structure of
// arrays (quantity, product, sample) so neighbouring lanes write neighbouring addresses. A thread's
// lanes past the end of its block simulate paths nobody keeps, so the loops stay whole. A functor, not a
// lambda: nvcc's wrapper of an extended host-device lambda copies its captures (4.4 KB here, the bumped
// models) to the host heap at every launch. A model of one asset (one_asset) has a kernel of its own, whose
// path state a GPU thread holds in registers.
template <class Real, class M, bool one_asset>
struct PathKernel {
  Kokkos::Array<M, 5> models;
  PathSetup setup;
  SampleTerms sample_terms;
  Kokkos::View<const Payoff*> payoffs;
  SampleValues values;
  random::Philox4x32::Key key;
  long first_block, block_stride, block_size, groups;
  int threads, lanes, products, scenarios, signs;

  KOKKOS_INLINE_FUNCTION void operator()(const parallel::TeamMember& team) const {
    const long b = team.league_rank() / groups, group = team.league_rank() % groups;
    const long first_path = (first_block + b * block_stride) * block_size;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, threads), [&](const int thread) {
      const long first_in_block = (group * threads + thread) * lanes;
      const long first_sample = b * block_size + first_in_block;
      const long kept = block_size - first_in_block;  // lanes at or past this are outside the block
      for_each_lane(team, lanes, [&](const int lane) {
        if (lane >= kept) return;
        for (int p = 0; p < products; ++p)
          for (int q = 0; q < 4; ++q) values(q, p, first_sample + lane) = 0;
      });
      LaneState<Real> paths;
      for (int k = 0; k < scenarios; ++k)
        for (int n = 0; n < signs; ++n) {
          const Draws first{key, static_cast<std::uint64_t>(first_path + first_in_block), 0, n == 0 ? 1.0 : -1.0};
          simulate_lanes<one_asset>(team, lanes, models[k], setup, first, paths);
          for_each_lane(team, lanes, [&](const int lane) {
            if (lane >= kept) return;
            const PathRecord r = record_of<one_asset>(paths, slot_of(lane), models[k].assets, setup);
            add_samples(values, payoffs, sample_terms, r, k, first_sample + lane);
          });
        }
    });
  }
};

template <class Real, bool one_asset, class M>
void simulate_blocks(const M& base, const PricerSettings& s, const Kokkos::View<const Payoff*>& payoffs,
                     long first_block, long block_stride, long blocks, const SampleValues& values) {
  PathKernel<Real, M, one_asset> kernel;
  kernel.scenarios = s.scenarios();
  const Scenario bumps[5] = {{}, {1 + s.spot_bump, 0}, {1 - s.spot_bump, 0}, {1, s.volatility_bump}, {1, -s.volatility_bump}};
  for (int k = 0; k < kernel.scenarios; ++k) kernel.models[k] = bumped(base, bumps[k]);
  const double spot = s.model == Model::gbm ? s.gbm.spot[0] : s.heston.spot;
  kernel.signs = s.antithetic ? 2 : 1;
  const double delta_scale = 1 / (2 * s.spot_bump * spot) / kernel.signs, vega_scale = 1 / (2 * s.volatility_bump) / kernel.signs;
  kernel.sample_terms = {s.terms, spot, static_cast<double>(kernel.signs), s.path.volatility > 0,
                         {0, delta_scale, -delta_scale, vega_scale, -vega_scale}};
  kernel.setup = s.path;
  kernel.payoffs = payoffs;
  kernel.values = values;
  kernel.key = random::key_of(s.seed);
  kernel.products = static_cast<int>(s.products.size());
  kernel.first_block = first_block, kernel.block_stride = block_stride, kernel.block_size = s.block_size;
  // On the host a thread's vector loop is its lane state's host_lanes paths.
  const parallel::TeamShape shape =
      parallel::device_memory_is_host ? parallel::TeamShape{1, host_lanes} : parallel::path_team_shape();
  kernel.threads = shape.threads, kernel.lanes = shape.lanes;
  kernel.groups = (kernel.block_size + shape.items() - 1) / shape.items();  // per block
  Kokkos::parallel_for("finance::paths", shape.policy(blocks * kernel.groups), kernel);
}

// The samples of a launch, in the precision and for the model of the settings.
template <class Real>
void simulate_model_blocks(const PricerSettings& s, const Kokkos::View<const Payoff*>& payoffs, long first_block,
                           long block_stride, long blocks, const SampleValues& values) {
  if (s.model == Model::heston)
    simulate_blocks<Real, true>(s.heston, s, payoffs, first_block, block_stride, blocks, values);
  else if (s.gbm.assets == 1)
    simulate_blocks<Real, true>(s.gbm, s, payoffs, first_block, block_stride, blocks, values);
  else
    simulate_blocks<Real, false>(s.gbm, s, payoffs, first_block, block_stride, blocks, values);
}

void simulate_launch(const PricerSettings& s, const Kokkos::View<const Payoff*>& payoffs, long first_block,
                     long block_stride, long blocks, const SampleValues& values) {
  if (s.precision == solvers::Precision::single)
    simulate_model_blocks<float>(s, payoffs, first_block, block_stride, blocks, values);
  else
    simulate_model_blocks<double>(s, payoffs, first_block, block_stride, blocks, values);
}

// The moments of each block's samples (moments.hpp), in a fixed order whatever the backend: per
// chunk of `chunk` samples in two passes (means, then centred sums), then the chunks merged in order.
void block_moments(const SampleValues& values, const MonteCarloPricer::ChunkSums& chunks,
                   const MonteCarloPricer::BlockSums& sums, long blocks, long block_size) {
  constexpr int chunk = MonteCarloPricer::chunk;
  const int products = static_cast<int>(values.extent(1));
  const long per_block = (block_size + chunk - 1) / chunk;
  Kokkos::parallel_for(
      "finance::chunk_moments", parallel::FlatPolicy(0, blocks * per_block * products), KOKKOS_LAMBDA(const long n) {
        const int p = static_cast<int>(n % products);
        const long c = (n / products) % per_block, b = n / (products * per_block);
        const long first = b * block_size + c * chunk, count = min_of(static_cast<long>(chunk), block_size - c * chunk);
        double mean[4] = {};
        for (long i = first; i < first + count; ++i)
          for (int q = 0; q < 4; ++q) mean[q] += values(q, p, i);
        for (int q = 0; q < 4; ++q) mean[q] /= static_cast<double>(count);
        double m[moments] = {mean[0], 0, mean[1], 0, 0, mean[2], 0, mean[3], 0};
        for (long i = first; i < first + count; ++i) {
          const double ey = values(0, p, i) - mean[0], ex = values(1, p, i) - mean[1];
          const double ed = values(2, p, i) - mean[2], eg = values(3, p, i) - mean[3];
          m[y_m2] += ey * ey, m[x_m2] += ex * ex, m[xy_c] += ex * ey, m[d_m2] += ed * ed, m[g_m2] += eg * eg;
        }
        for (int k = 0; k < moments; ++k) chunks(b * per_block + c, p, k) = m[k];
      });
  Kokkos::parallel_for(
      "finance::block_moments", parallel::FlatPolicy(0, blocks * products), KOKKOS_LAMBDA(const long n) {
        const int p = static_cast<int>(n % products);
        const long b = n / products;
        double total[moments] = {}, next[moments];
        for (long c = 0; c < per_block; ++c) {
          for (int k = 0; k < moments; ++k) next[k] = chunks(b * per_block + c, p, k);
          const double count = static_cast<double>(min_of(static_cast<long>(chunk), block_size - c * chunk));
          merge_moments(total, static_cast<double>(min_of(c * chunk, block_size)), next, count);
        }
        for (int k = 0; k < moments; ++k) sums(b, p, k) = total[k];
      });
}

std::vector<double> cholesky(const std::vector<double>& c, int n) {
  std::vector<double> l(static_cast<std::size_t>(n * n), 0.0);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j <= i; ++j) {
      double sum = c[i * n + j];
      for (int k = 0; k < j; ++k) sum -= l[i * n + k] * l[j * n + k];
      if (i == j) {
        if (!(sum > 1e-14)) return {};  // not positive definite
        l[i * n + i] = std::sqrt(sum);
      } else {
        l[i * n + j] = sum / l[j * n + j];
      }
    }
  return l;
}

}  // namespace

const std::vector<std::string>& payoff_names() {
  static const std::vector<std::string> names{
      "european_call", "european_put", "digital_call", "digital_put",
      "asian_arithmetic_call", "asian_arithmetic_put", "asian_geometric_call", "asian_geometric_put",
      "barrier_down_in_call", "barrier_down_out_call", "barrier_up_in_call", "barrier_up_out_call",
      "barrier_down_in_put", "barrier_down_out_put", "barrier_up_in_put", "barrier_up_out_put",
      "basket_call", "basket_put", "max_call", "min_call", "lookback_call", "lookback_put",
      "bermudan_put", "bermudan_call", "bermudan_max_call"};
  return names;
}

int PricerSettings::scenarios() const {
  const bool bumped = std::any_of(products.begin(), products.end(), [this](Payoff p) {
    return path.volatility <= 0 || !has_pathwise_greeks(p);
  });
  return greeks && bumped ? 5 : 1;
}

bool is_barrier(Payoff p) { return p >= Payoff::barrier_down_in_call && p <= Payoff::barrier_up_out_put; }

bool is_bermudan(Payoff p) { return p >= Payoff::bermudan_put; }

bool is_down_barrier(Payoff p) {
  return p == Payoff::barrier_down_in_call || p == Payoff::barrier_down_out_call || p == Payoff::barrier_down_in_put ||
         p == Payoff::barrier_down_out_put;
}

void declare_keys(io::Schema& schema) {
  using io::KeyType;
  const std::string f = "finance";
  const auto add = [&schema](io::KeySpec spec) { schema.add(std::move(spec)); };
  add({f, "model", KeyType::string, std::string("gbm"), "",
       "gbm: correlated geometric Brownian motions, exact log-normal steps; heston: one asset with stochastic variance",
       {"gbm", "heston"}});
  add({f, "spot", KeyType::real_list, std::vector<double>{100.0}, "price", "initial price of each asset", {}, 0, 1e12, true});
  add({f, "volatility", KeyType::real_list, std::vector<double>{0.2}, "1/sqrt(year)",
       "log-normal volatility per asset (gbm); a deterministic path (zero) has no Monte Carlo to do", {}, 0, 10, true});
  add({f, "dividend_yield", KeyType::real_list, std::vector<double>{0.0}, "1/year", "continuous dividend yield per asset", {}, -1, 1});
  add({f, "correlation", KeyType::real_list, std::vector<double>{}, "1",
       "correlation matrix of the assets' Brownian motions, row by row (empty: independent); must be positive definite",
       {}, -1, 1});
  add({f, "rate", KeyType::real, 0.05, "1/year", "continuously compounded risk-free rate", {}, -1, 1});
  add({f, "maturity", KeyType::real, 1.0, "years", "time to expiry T", {}, 0, 100, true});
  add({f, "steps", KeyType::integer, 252L, "1", "time steps per path, evenly spaced: the fixing and monitoring dates", {}, 1, 1e6});
  add({f, "heston_v0", KeyType::real, 0.04, "1/year", "initial variance", {}, 0, 10});
  add({f, "heston_kappa", KeyType::real, 1.0, "1/year", "mean-reversion speed", {}, 0, 100, true});
  add({f, "heston_theta", KeyType::real, 0.04, "1/year", "long-run variance", {}, 0, 10});
  add({f, "heston_sigma", KeyType::real, 0.5, "1/year", "volatility of variance", {}, 0, 10, true});
  add({f, "heston_rho", KeyType::real, -0.5, "1", "correlation of the price and variance noises", {}, -1, 1});
  add({f, "heston_scheme", KeyType::string, std::string("qe"), "",
       "qe: Andersen's quadratic-exponential scheme; euler: full-truncation Euler", {"qe", "euler"}});
  add({f, "products", KeyType::string_list, std::vector<std::string>{"european_call"}, "",
       "the portfolio, priced on the same paths (single-asset payoffs use asset 0)", payoff_names()});
  add({f, "strike", KeyType::real, 100.0, "price", "strike K of every product", {}, 0, 1e12, true});
  add({f, "barrier", KeyType::real, 0.0, "price", "barrier level H of the barrier products (below spot for down, above for up)", {}, 0, 1e12});
  add({f, "rebate", KeyType::real, 0.0, "price", "rebate: at expiry for knock-ins never hit, at the hit for knock-outs", {}, 0, 1e12});
  add({f, "barrier_correction", KeyType::boolean, true, "",
       "weight each path by its Brownian-bridge survival probability between dates, pricing the continuous barrier; false: discrete monitoring"});
  add({f, "average_includes_start", KeyType::boolean, false, "", "Asian averages include the price at t = 0 as a fixing"});
  add({f, "basket_weights", KeyType::real_list, std::vector<double>{}, "1", "basket weights per asset (empty: equal)", {}, -1e6, 1e6});
  add({f, "paths", KeyType::integer, 1000000L, "paths", "paths to simulate (rounded up to whole blocks)", {}, 1, 1e15});
  add({f, "block_size", KeyType::integer, 4096L, "samples", "samples per block: the unit of work and of reproducibility", {}, 1, 1e8});
  add({f, "blocks_per_step", KeyType::integer, 16L, "blocks", "blocks per step; the target error is tested after each step", {}, 1, 1e6});
  add({f, "seed", KeyType::integer, 1L, "1", "seed of the counter-based generator", {}, 0, 4e18});
  add({f, "antithetic", KeyType::boolean, false, "", "pair every path with its antithetic (negated normals); a sample is a pair"});
  add({f, "control_variates", KeyType::boolean, true, "",
       "discounted asset for vanillas and digitals, geometric Asian for arithmetic Asians (gbm)"});
  add({f, "greeks", KeyType::boolean, false, "",
       "delta and vega: pathwise for vanillas and Asians under gbm, else by common-random-number central "
       "differences (relative spot bump 1%, volatility bump 0.01)"});
  add({f, "exercise_dates_per_year", KeyType::integer, 0L, "1/year",
       "the bermudan_* products' exercise dates, evenly spaced up to maturity, maturity included: finance.maturity "
       "times this must be whole and divide finance.steps",
       {}, 0, 1e6});
  add({f, "exercise_dates", KeyType::real_list, std::vector<double>{}, "years",
       "the bermudan_* products' exercise dates instead of finance.exercise_dates_per_year: increasing times after "
       "0 on the paths' steps (multiples of finance.maturity / finance.steps), the last finance.maturity",
       {}, 0, 100});
  add({f, "exercise_extrapolation", KeyType::string, std::string("none"), "",
       "none: the bermudan_* product at its dates; richardson: the American price, extrapolated (Geske & Johnson "
       "1984) from the Bermudans with N, 2N and 4N dates a year (N = finance.exercise_dates_per_year: 50 gives "
       "50, 100 and 200; finance.steps a multiple of 4N times the maturity), each rule fitted on the calibration "
       "paths and all three priced on the same paths: (8 P_4N - 6 P_2N + P_N) / 3 path by path, so its standard "
       "error is the combination's; the report adds each Bermudan's in-sample price and the three-point minus the "
       "two-point (2 P_4N - P_2N) extrapolation as the extrapolation's own error",
       {"none", "richardson"}});
  add({f, "regression_basis", KeyType::string, std::string("monomial"), "",
       "Longstaff-Schwartz basis in x = S / K (several assets: products over the assets of total degree up to the "
       "order, and the exercise value / K): monomial x^k; laguerre: 1 and exp(-x/2) L_k(x) (Longstaff & Schwartz "
       "2001); hermite: He_k(x)",
       {"monomial", "laguerre", "hermite"}});
  add({f, "regression_order", KeyType::integer, 3L, "1",
       "highest degree of the regression basis (at most 24 functions in all)", {}, 1, max_basis_order});
  add({f, "calibration_paths", KeyType::integer, 65536L, "paths",
       "paths of the early-exercise regression, from a stream of their own (rounded up to whole blocks); the price "
       "comes from finance.paths, out of sample (low-biased), the in-sample price is reported beside it",
       {}, 1, 1e12});
  add({f, "target_standard_error", KeyType::real, 0.0, "price",
       "stop once every product's standard error is below this (0: run all paths)", {}, 0, 1e12, false, true});
  solvers::declare_precision_key(schema, "paths (log prices, variance, a path's running sums)");
}

namespace {

std::vector<Payoff> products_of(const io::Deck& deck) {
  std::vector<Payoff> products;
  const auto& names = payoff_names();
  for (const auto& name : deck.strings("finance", "products")) {
    const auto p = static_cast<Payoff>(std::find(names.begin(), names.end(), name) - names.begin());
    if (std::find(products.begin(), products.end(), p) != products.end())
      deck.fail("finance", "products", "'" + name + "' appears twice");
    products.push_back(p);
  }
  if (products.size() > 16) deck.fail("finance", "products", "at most 16 products in one run");
  return products;
}

// The per-asset lists must agree in length, and the correlation must be a valid correlation matrix.
MultiAssetGbm gbm_of(const io::Deck& deck, double rate) {
  MultiAssetGbm m;
  const auto& spot = deck.reals("finance", "spot");
  m.assets = static_cast<int>(spot.size());
  if (m.assets < 1 || m.assets > max_assets)
    deck.fail("finance", "spot", "between 1 and " + std::to_string(max_assets) + " assets");
  for (const char* key : {"volatility", "dividend_yield"})
    if (deck.reals("finance", key).size() != spot.size())
      deck.fail("finance", key, "needs one entry per asset (" + std::to_string(m.assets) + ")");
  m.rate = rate;
  for (int a = 0; a < m.assets; ++a) {
    m.spot[a] = spot[a];
    m.volatility[a] = deck.reals("finance", "volatility")[a];
    m.dividend[a] = deck.reals("finance", "dividend_yield")[a];
  }
  std::vector<double> c = deck.reals("finance", "correlation");
  const int n = m.assets;
  if (c.empty()) {
    c.assign(static_cast<std::size_t>(n * n), 0.0);
    for (int a = 0; a < n; ++a) c[a * n + a] = 1;
  }
  if (c.size() != static_cast<std::size_t>(n * n))
    deck.fail("finance", "correlation", "needs " + std::to_string(n * n) + " entries (an n x n matrix, row by row)");
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (c[i * n + j] != c[j * n + i] || (i == j && c[i * n + j] != 1))
        deck.fail("finance", "correlation", "must be symmetric with a unit diagonal");
  const auto l = cholesky(c, n);
  if (l.empty()) deck.fail("finance", "correlation", "is not positive definite (its Cholesky factorisation fails)");
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) m.cholesky[i * max_assets + j] = j <= i ? l[i * n + j] : 0.0;
  return m;
}

// The path steps done at each exercise date, from N a year (times `refinement`) or from a list of times: every
// date on the paths' step grid, increasing, after the start, the last the maturity.
std::vector<int> exercise_steps_of(const io::Deck& deck, const PricerSettings& s, long refinement) {
  const long per_year = deck.integer("finance", "exercise_dates_per_year") * refinement;
  const std::vector<double>& times = deck.reals("finance", "exercise_dates");
  if ((per_year > 0) == !times.empty())
    deck.fail("finance", times.empty() ? "exercise_dates_per_year" : "exercise_dates",
              "a bermudan_* product needs its exercise dates: give finance.exercise_dates_per_year or "
              "finance.exercise_dates, not both");
  std::vector<int> steps;
  if (per_year > 0) {
    const double dates = static_cast<double>(per_year) * s.maturity;
    if (std::fabs(dates - std::round(dates)) > 1e-9 * dates || std::round(dates) < 1)
      deck.fail("finance", "exercise_dates_per_year",
                "times finance.maturity must be a whole number of dates (" + std::to_string(dates) + ")");
    const int n = static_cast<int>(std::lround(dates));
    if (s.path.steps % n != 0) deck.fail("finance", "steps", "must be a multiple of the " + std::to_string(n) + " exercise dates");
    for (int d = 1; d <= n; ++d) steps.push_back(d * (s.path.steps / n));
    return steps;
  }
  for (const double t : times) {
    if (!(t > 0) || t > s.maturity * (1 + 1e-12))
      deck.fail("finance", "exercise_dates",
                "every date must lie after the start (0) and at or before finance.maturity (" + std::to_string(s.maturity) +
                    "): " + std::to_string(t));
    const double k = t / s.path.dt;
    if (std::fabs(k - std::round(k)) > 1e-9 * std::max(1.0, k))
      deck.fail("finance", "exercise_dates",
                std::to_string(t) + " is not on the paths' steps (finance.maturity / finance.steps = " +
                    std::to_string(s.path.dt) + " apart)");
    const int step = static_cast<int>(std::lround(k));
    if (!steps.empty() && step <= steps.back()) deck.fail("finance", "exercise_dates", "the dates must increase");
    steps.push_back(step);
  }
  if (steps.back() != s.path.steps) deck.fail("finance", "exercise_dates", "the last date must be finance.maturity");
  return steps;
}

// The Bermudan product's exercise rule on the host: its dates' steps and its basis as plain vectors (validation runs
// without Kokkos; the pricer puts them on the device, and the calibration fits the coefficients): one such product a run,
// its dates a whole number dividing the steps, its basis within the functions' limit.
void early_exercise_of(const io::Deck& deck, PricerSettings& s) {
  const bool has_dates = deck.integer("finance", "exercise_dates_per_year") > 0 || !deck.reals("finance", "exercise_dates").empty();
  std::vector<Payoff> bermudan;
  std::copy_if(s.products.begin(), s.products.end(), std::back_inserter(bermudan), is_bermudan);
  if (bermudan.empty()) {
    if (has_dates)
      deck.fail("finance", deck.reals("finance", "exercise_dates").empty() ? "exercise_dates_per_year" : "exercise_dates",
                "no product here exercises early: only the bermudan_* products do (barriers, Asians and the others "
                "have no early exercise)");
    return;
  }
  if (bermudan.size() > 1) deck.fail("finance", "products", "one bermudan_* product a run: the regression fits its payoff");
  for (const auto p : s.products)
    if (is_barrier(p)) deck.fail("finance", "products", "a barrier product has no early exercise: price it in a run of its own");
  ExerciseRule rule;
  rule.kind = bermudan.front() == Payoff::bermudan_put    ? ExerciseKind::put
              : bermudan.front() == Payoff::bermudan_call ? ExerciseKind::call
                                                          : ExerciseKind::max_call;
  const std::string basis = deck.string("finance", "regression_basis");
  rule.basis = basis == "laguerre" ? Basis::laguerre : basis == "hermite" ? Basis::hermite : Basis::monomial;
  rule.order = static_cast<int>(deck.integer("finance", "regression_order"));
  rule.assets = s.model == Model::gbm ? s.gbm.assets : 1;
  rule.strike = s.terms.strike;
  try {
    s.basis_degrees = basis_degrees(rule.assets, rule.order);
  } catch (const std::invalid_argument& e) {
    deck.fail("finance", "regression_order", e.what());
  }
  s.calibration_paths = deck.integer("finance", "calibration_paths");
  const bool richardson = deck.string("finance", "exercise_extrapolation") == "richardson";
  if (richardson && deck.integer("finance", "exercise_dates_per_year") == 0)
    deck.fail("finance", "exercise_extrapolation",
              "richardson refines finance.exercise_dates_per_year (N: the Bermudans with N, 2N and 4N dates a year); "
              "a list of dates (finance.exercise_dates) has no refinement");
  // Richardson's weights for an error c1 / N + c2 / N^2.
  const double weights[max_exercise_levels] = {1.0 / 3, -2.0, 8.0 / 3};
  const int levels = richardson ? max_exercise_levels : 1;
  s.path.exercise_levels = levels;
  for (int level = 0; level < levels; ++level) {
    s.exercise_steps.push_back(exercise_steps_of(deck, s, 1L << level));
    rule.dates = static_cast<int>(s.exercise_steps.back().size());
    s.path.exercise[level] = rule;
    s.terms.exercise_weights[level] = richardson ? weights[level] : 1.0;
  }
}

// The pricer's settings from a deck, every check a deck can fail included.
PricerSettings settings_of(const io::Deck& deck) {
  PricerSettings s;
  s.model = deck.string("finance", "model") == "heston" ? Model::heston : Model::gbm;
  // The driver's time is the fraction of the paths done.
  if (deck.real("run", "end_time") > 1)
    deck.fail("run", "end_time", "a Monte Carlo run's time is the fraction of the paths done: at most 1");
  if (s.model == Model::heston && deck.reals("finance", "spot").size() != 1)
    deck.fail("finance", "spot", "the Heston model prices one asset: give one spot");
  // Zero variance now and in the long run: the variance process never leaves zero.
  if (s.model == Model::heston && deck.real("finance", "heston_v0") == 0 && deck.real("finance", "heston_theta") == 0)
    deck.fail("finance", "heston_v0", "with heston_theta = 0 too the variance stays zero: a deterministic path");
  const double rate = deck.real("finance", "rate");
  s.gbm = gbm_of(deck, rate);
  s.heston = Heston{rate, deck.reals("finance", "dividend_yield")[0], deck.reals("finance", "spot")[0],
                    deck.real("finance", "heston_v0"), deck.real("finance", "heston_kappa"),
                    deck.real("finance", "heston_theta"), deck.real("finance", "heston_sigma"),
                    deck.real("finance", "heston_rho"), deck.string("finance", "heston_scheme") == "qe"};
  s.maturity = deck.real("finance", "maturity");
  s.products = products_of(deck);
  const int steps = static_cast<int>(deck.integer("finance", "steps"));
  s.path = PathSetup{steps, s.maturity / steps, rate, deck.boolean("finance", "average_includes_start")};
  s.terms.strike = deck.real("finance", "strike");
  s.terms.discount = std::exp(-rate * s.maturity);
  s.terms.assets = s.gbm.assets;
  const auto& weights = deck.reals("finance", "basket_weights");
  if (!weights.empty() && weights.size() != static_cast<std::size_t>(s.gbm.assets))
    deck.fail("finance", "basket_weights", "needs one weight per asset, or none for equal weights");
  for (int a = 0; a < s.gbm.assets; ++a) s.terms.basket_weights[a] = weights.empty() ? 1.0 / s.gbm.assets : weights[a];
  const double barrier = deck.real("finance", "barrier"), spot = s.gbm.spot[0];
  for (const auto p : s.products) {
    if (!is_barrier(p)) continue;
    if (is_down_barrier(p) ? !(barrier > 0 && barrier < spot) : !(barrier > spot))
      deck.fail("finance", "barrier",
                std::string("a ") + (is_down_barrier(p) ? "down" : "up") + " barrier must lie " +
                    (is_down_barrier(p) ? "between 0 and" : "above") + " the spot " + std::to_string(spot));
    s.path.has_barrier = true;
    s.path.down_barrier = is_down_barrier(p);
  }
  s.path.log_barrier = barrier > 0 ? std::log(barrier) : 0.0;
  s.path.rebate = deck.real("finance", "rebate");
  if (s.model == Model::gbm && deck.boolean("finance", "greeks")) {  // asset 0's parameters for the pathwise vegas
    s.path.volatility = s.gbm.volatility[0];
    s.path.vega_drift = rate - s.gbm.dividend[0] + 0.5 * s.gbm.volatility[0] * s.gbm.volatility[0];
  }
  s.path.bridge_correction = deck.boolean("finance", "barrier_correction");
  s.terms.barrier = barrier;
  s.terms.rebate = s.path.rebate;
  s.antithetic = deck.boolean("finance", "antithetic");
  s.control_variates = deck.boolean("finance", "control_variates");
  s.greeks = deck.boolean("finance", "greeks");
  s.precision = solvers::precision(deck);
  s.block_size = static_cast<int>(deck.integer("finance", "block_size"));
  s.blocks_per_step = static_cast<int>(deck.integer("finance", "blocks_per_step"));
  const long samples = (deck.integer("finance", "paths") + (s.antithetic ? 1 : 0)) / (s.antithetic ? 2 : 1);
  s.blocks = (samples + s.block_size - 1) / s.block_size;
  s.seed = static_cast<std::uint64_t>(deck.integer("finance", "seed"));
  s.target_standard_error = deck.real("finance", "target_standard_error");
  early_exercise_of(deck, s);
  return s;
}

// Bytes a rank needs: the sample values of its largest launch (at least one whole block), their chunk
// and block sums, and the block sums of a step gathered from every rank.
void require_memory(const io::Deck& deck, const PricerSettings& s, MPI_Comm comm) {
  int ranks = 1;
  MPI_Comm_size(comm, &ranks);
  const std::uint64_t products = s.products.size(), block = static_cast<std::uint64_t>(s.block_size);
  const std::uint64_t per_block = solvers::saturating_product({4, products, block, sizeof(double)});
  const std::uint64_t launch = std::max<std::uint64_t>(per_block, MonteCarloPricer::launch_bytes);
  const std::uint64_t gathered = solvers::saturating_product(
      {2, static_cast<std::uint64_t>(s.blocks_per_step), products, MonteCarloPricer::sums, sizeof(double)});
  solvers::require_memory(deck, "finance", "block_size", solvers::saturating_sum(launch, gathered),
                          "the sample values of a launch (finance.block_size) and a step's block sums "
                          "(finance.blocks_per_step)",
                          comm);
  if (s.path.exercise_levels == 0) return;
  // The calibration keeps its paths' prices at every date (regenerating them backwards from the counter-based
  // stream would trade this memory for a simulation a date), with a cash flow each and its chunk sums.
  const std::uint64_t paths = static_cast<std::uint64_t>((s.calibration_paths + s.block_size - 1) / s.block_size) *
                              static_cast<std::uint64_t>(s.block_size) / static_cast<std::uint64_t>(ranks) + 1;
  const ExerciseRule& finest = s.path.exercise[s.path.exercise_levels - 1];
  const std::uint64_t per_path = static_cast<std::uint64_t>(finest.dates) * finest.assets + 1 +
                                 (max_normal_sums + 31) / 32;
  solvers::require_memory(deck, "finance", "calibration_paths", solvers::saturating_product({paths, per_path, sizeof(double)}),
                          "the early-exercise calibration's prices at every exercise date (finance.calibration_paths "
                          "x dates x assets)",
                          comm);
}

}  // namespace

void validate(const io::Deck& deck, MPI_Comm comm) { require_memory(deck, settings_of(deck), comm); }

std::unique_ptr<solvers::Solver> build(const io::Deck& deck, MPI_Comm comm) {
  const PricerSettings s = settings_of(deck);
  require_memory(deck, s, comm);
  return std::make_unique<MonteCarloPricer>(s, comm);
}

MonteCarloPricer::MonteCarloPricer(PricerSettings settings, MPI_Comm comm)
    : settings_(std::move(settings)), comm_(comm), totals_(settings_.products.size() * sums, 0.0) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &ranks_);
  // Made once: the payoffs on the device, the work arrays of the largest launch, and the host
  // arrays the block sums of a step are gathered in.
  const int products = static_cast<int>(settings_.products.size());
  Kokkos::View<Payoff*> payoffs("finance::payoffs", products);
  auto host = Kokkos::create_mirror_view(payoffs);
  for (int p = 0; p < products; ++p) host(p) = settings_.products[p];
  parallel::copy<parallel::Copy::host_to_device>(payoffs, host);
  payoffs_ = payoffs;
  const long my_blocks_per_step = (settings_.blocks_per_step + ranks_ - 1) / ranks_;
  const double bytes_per_block = 4.0 * sizeof(double) * products * settings_.block_size;
  max_launch_blocks_ = std::clamp(static_cast<long>(launch_bytes / bytes_per_block), 1L, my_blocks_per_step);
  const long chunks = (settings_.block_size + chunk - 1) / chunk;
  values_ = SampleValues("finance::values", 4, products, max_launch_blocks_ * settings_.block_size);
  chunk_sums_ = ChunkSums("finance::chunk_sums", max_launch_blocks_ * chunks, products, sums);
  block_sums_ = BlockSums("finance::block_sums", max_launch_blocks_, products, sums);
  block_sums_host_ = Kokkos::create_mirror_view(parallel::PinnedSpace(), block_sums_);
  mine_.reserve(static_cast<std::size_t>(my_blocks_per_step) * totals_.size());
  gathered_.reserve(static_cast<std::size_t>(settings_.blocks_per_step) * totals_.size());
  counts_.resize(ranks_);
  offsets_.resize(ranks_);
  const auto start = std::chrono::steady_clock::now();
  for (int level = 0; level < settings_.path.exercise_levels; ++level) {
    ExerciseRule& rule = settings_.path.exercise[level];
    set_exercise_steps(rule, settings_.exercise_steps[level], settings_.path.steps);
    set_basis_degrees(rule, settings_.basis_degrees);
    const Calibration c = calibrate(settings_, rule, settings_.calibration_paths, comm_);
    rule = c.rule;
    in_sample_price_.push_back(c.in_sample_price), in_sample_error_.push_back(c.in_sample_error);
    for (const double condition : c.condition) worst_condition_ = std::max(worst_condition_, condition);
  }
  calibration_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  make_output_datasets();
}

double MonteCarloPricer::stable_dt(double) {
  return static_cast<double>(settings_.blocks_per_step) / static_cast<double>(settings_.blocks);
}

void MonteCarloPricer::step(double time, double dt) {
  // The driver's time is the fraction of blocks done; a shortened step does fewer blocks.
  const long end = std::min(settings_.blocks, std::lround((time + dt) * static_cast<double>(settings_.blocks)));
  run_blocks(blocks_done_, std::max(0L, end - blocks_done_));
}

// This rank's blocks first + rank_, first + rank_ + ranks_, ..., `count` of them, in launches of
// whole blocks sized by wall time; their sums are appended to mine_ in block order. Every rank runs
// launches of the same size and agrees after each whether to go on, so a stop request ends the step
// at the same launch everywhere, within a launch's time. Returns the launches' total size: every
// rank has then done its blocks below that many rounds, together the first ranks_ times as many.
long MonteCarloPricer::run_launches(long first, long count) {
  const long width = static_cast<long>(totals_.size());
  long rounds = 0;
  for (;;) {
    const long blocks = std::clamp(count - rounds, 0L, launch_blocks_);
    const auto start = std::chrono::steady_clock::now();
    if (blocks > 0) {
      const long first_block = first + rank_ + rounds * ranks_;
      simulate_launch(settings_, payoffs_, first_block, ranks_, blocks, values_);
      block_moments(values_, chunk_sums_, block_sums_, blocks, settings_.block_size);
      const std::pair<long, long> launched(0, blocks);
      const auto sums_host = Kokkos::subview(block_sums_host_, launched, Kokkos::ALL, Kokkos::ALL);
      const auto sums = Kokkos::subview(block_sums_, launched, Kokkos::ALL, Kokkos::ALL);
      parallel::copy<parallel::Copy::device_to_host>(sums_host, sums);
      const double* sums_of_launch = block_sums_host_.data();
      mine_.insert(mine_.end(), sums_of_launch, sums_of_launch + blocks * width);
    }
    rounds += launch_blocks_;
    if (count > 0) solvers::report_step_progress(std::min(1.0, static_cast<double>(rounds) / static_cast<double>(count)));
    // Launches of a tenth to a quarter of a second: long enough to fill a GPU, short enough that a
    // stop request is seen promptly. The sizes change no result (sums are per block).
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    long next = launch_blocks_;
    if (seconds < launch_seconds_low && blocks == launch_blocks_)
      next = std::min(2 * launch_blocks_, max_launch_blocks_);
    else if (seconds > launch_seconds_high)
      next = std::max(launch_blocks_ / 2, 1L);
    // Agreed by all: anyone left with blocks, anyone asked to stop, and the smallest next size.
    int agreed[3] = {count > rounds, solvers::stop_requested_now(), static_cast<int>(-next)};
    MPI_Allreduce(MPI_IN_PLACE, agreed, 3, MPI_INT, MPI_MAX, comm_);
    launch_blocks_ = -agreed[2];
    if (!agreed[0]) return rounds;
    if (agreed[1]) {
      interrupted_ = true;
      return rounds;
    }
  }
}

// Blocks first .. first+count-1: rank r takes every ranks-th block from first + r; all block sums
// are then gathered and added on every rank in block order. A stop request may end this after the
// first `done` blocks, which are added as they would have been in the whole step.
void MonteCarloPricer::run_blocks(long first, long count) {
  const std::size_t width = totals_.size();
  mine_.clear();
  interrupted_ = false;
  const long my_count = rank_ < count ? (count - rank_ + ranks_ - 1) / ranks_ : 0;
  const long rounds = run_launches(first, my_count);
  const long done = std::min(count, rounds * ranks_);
  for (int r = 0; r < ranks_; ++r) {
    const long blocks_of_r = r < done ? (done - r + ranks_ - 1) / ranks_ : 0;
    counts_[r] = static_cast<int>(blocks_of_r * static_cast<long>(width));
    offsets_[r] = r == 0 ? 0 : offsets_[r - 1] + counts_[r - 1];
  }
  gathered_.resize(static_cast<std::size_t>(done) * width);
  MPI_Allgatherv(mine_.data(), counts_[rank_], MPI_DOUBLE, gathered_.data(), counts_.data(), offsets_.data(),
                 MPI_DOUBLE, comm_);
  const double block_samples = static_cast<double>(settings_.block_size);
  for (long b = 0; b < done; ++b) {
    const int owner = static_cast<int>(b % ranks_);
    const std::size_t at = static_cast<std::size_t>(offsets_[owner]) + static_cast<std::size_t>(b / ranks_) * width;
    const double before = static_cast<double>(blocks_done_ + b) * block_samples;
    for (std::size_t p = 0; p < settings_.products.size(); ++p)
      merge_moments(&totals_[p * sums], before, &gathered_[at + p * sums], block_samples);
  }
  blocks_done_ += done;
  interrupted_ = interrupted_ && done < count;
}

double MonteCarloPricer::control_mean(std::size_t product) const {
  const Payoff p = settings_.products[product];
  if (is_bermudan(p))  // the European of the same payoff (NaN where it has no closed form: no control)
    return closed_form_of(p == Payoff::bermudan_put    ? Payoff::european_put
                          : p == Payoff::bermudan_call ? Payoff::european_call
                                                       : Payoff::max_call,
                          settings_);
  if (p == Payoff::asian_arithmetic_call || p == Payoff::asian_arithmetic_put) {
    if (settings_.model != Model::gbm) return std::nan("");
    return closed_form_of(p == Payoff::asian_arithmetic_call ? Payoff::asian_geometric_call : Payoff::asian_geometric_put,
                          settings_);
  }
  const double spot = settings_.model == Model::gbm ? settings_.gbm.spot[0] : settings_.heston.spot;
  const double q = settings_.model == Model::gbm ? settings_.gbm.dividend[0] : settings_.heston.dividend;
  return spot * std::exp(-q * settings_.maturity);  // E[exp(-rT) S_T]
}

Estimate MonteCarloPricer::estimate(std::size_t product) const {
  const double n = static_cast<double>(samples());
  const double* s = &totals_[product * sums];
  Estimate e;
  e.price = s[y_mean];
  double var = s[y_m2] / (n - 1);
  const double var_x = s[x_m2] / (n - 1), cov = s[xy_c] / (n - 1);
  const double known = control_mean(product);
  if (settings_.control_variates && var_x > 0 && std::isfinite(known)) {
    const double beta = cov / var_x;  // the variance-minimising coefficient, estimated from the same samples
    e.price -= beta * (s[x_mean] - known);
    var -= cov * cov / var_x;  // rounding alone can take a perfect control a hair below zero
  }
  e.standard_error = std::sqrt(std::max(var, 0.0) / n);
  e.delta = s[d_mean];
  e.delta_error = std::sqrt(s[d_m2] / (n - 1) / n);
  e.vega = s[g_mean];
  e.vega_error = std::sqrt(s[g_m2] / (n - 1) / n);
  return e;
}

double MonteCarloPricer::closed_form(std::size_t product) const {
  return closed_form_of(settings_.products[product], settings_);
}

bool MonteCarloPricer::finished() const {
  if (settings_.target_standard_error <= 0 || samples() < 2) return false;
  for (std::size_t p = 0; p < settings_.products.size(); ++p)
    if (estimate(p).standard_error > settings_.target_standard_error) return false;
  return true;
}

std::vector<solvers::Scalar> MonteCarloPricer::diagnostics(double) {
  std::vector<solvers::Scalar> out{
      {"paths", static_cast<double>(samples() * (settings_.antithetic ? 2 : 1)), true, "paths"}};
  for (std::size_t p = 0; p < settings_.products.size(); ++p) {
    const std::string& name = payoff_names()[static_cast<int>(settings_.products[p])];
    const Estimate e = samples() > 1 ? estimate(p) : Estimate{std::nan(""), std::nan("")};
    out.push_back({name + "_price", e.price, false, "currency of the spot"});
    out.push_back({name + "_standard_error", e.standard_error, false, "currency of the spot"});
    if (!is_bermudan(settings_.products[p])) continue;
    const InSample in = in_sample();
    out.push_back({name + "_in_sample_price", in.price, false, "currency of the spot"});
    out.push_back({name + "_in_sample_standard_error", in.standard_error, false, "currency of the spot"});
    out.push_back({name + "_worst_condition_number", worst_condition_, false, "1"});
  }
  return out;
}

MonteCarloPricer::InSample MonteCarloPricer::in_sample() const {
  InSample in;
  for (int level = 0; level < settings_.path.exercise_levels; ++level) {
    const double w = settings_.terms.exercise_weights[level];
    in.price += w * in_sample_price_[level];
    in.standard_error += std::fabs(w) * in_sample_error_[level];
  }
  return in;
}

std::vector<solvers::Scalar> MonteCarloPricer::progress(double) const {
  if (samples() < 2) return {};
  const Estimate e = estimate(0);
  return {{"price", e.price}, {"standard_error", e.standard_error}};
}

double MonteCarloPricer::work_per_step() const {
  return static_cast<double>(settings_.blocks_per_step) * settings_.block_size * settings_.path.steps *
         (settings_.antithetic ? 2 : 1) * settings_.scenarios();
}

std::string MonteCarloPricer::layout() const {
  std::ostringstream out;
  out << ranks_ << " ranks over " << settings_.blocks << " blocks of " << settings_.block_size
      << (settings_.antithetic ? " antithetic pairs" : " paths") << ", " << settings_.path.steps << " steps, "
      << settings_.products.size() << " product(s), " << solvers::precision_name(settings_.precision) << " precision";
  // A step is blocks_per_step whole blocks on every rank count (so a target error stops at the same
  // block on any of them): ranks beyond that have no block to take.
  const int first_idle = settings_.blocks_per_step, last_idle = ranks_ - 1;
  if (last_idle > first_idle)
    out << "; ranks " << first_idle << "-" << last_idle << " idle";
  else if (last_idle == first_idle)
    out << "; rank " << first_idle << " idles";
  if (last_idle >= first_idle) out << " (finance.blocks_per_step = " << first_idle << " is below the rank count)";
  return out.str();
}

std::string MonteCarloPricer::report() const {
  if (samples() < 2) return {};
  std::ostringstream out;
  out << "\nprices (" << samples() * (settings_.antithetic ? 2 : 1) << " paths)\n"
      << "  product                     Monte Carlo    std error   closed form   (MC - exact)/se\n";
  for (std::size_t p = 0; p < settings_.products.size(); ++p) {
    const Estimate e = estimate(p);
    const double exact = closed_form(p);
    out << "  " << std::left << std::setw(26) << payoff_names()[static_cast<int>(settings_.products[p])] << std::right
        << std::fixed << std::setprecision(6) << std::setw(13) << e.price << std::setw(13) << e.standard_error;
    if (std::isfinite(exact))
      out << std::setw(14) << exact << std::setw(12) << std::setprecision(2) << (e.price - exact) / e.standard_error;
    out << "\n";
    if (settings_.greeks)
      out << "    delta " << std::setprecision(6) << e.delta << " +- " << e.delta_error << ", vega " << e.vega << " +- "
          << e.vega_error << "\n";
    if (is_bermudan(settings_.products[p])) out << early_exercise_report();
  }
  out << degenerate_warnings();
  return out.str();
}

std::string MonteCarloPricer::early_exercise_report() const {
  std::ostringstream out;
  out << std::fixed << std::setprecision(6);
  const auto& rules = settings_.path.exercise;
  if (settings_.path.exercise_levels == 1) {
    out << "    out of sample (above; low-biased); in sample on the " << settings_.calibration_paths
        << " calibration paths (high-biased) " << in_sample_price_[0] << " +- " << in_sample_error_[0];
  } else {
    out << "    the American price (above): Richardson's (8 P_4N - 6 P_2N + P_N) / 3 of the Bermudans with "
        << rules[0].dates << ", " << rules[1].dates << " and " << rules[2].dates
        << " dates, path by path, out of sample\n    in sample on the " << settings_.calibration_paths
        << " calibration paths (high-biased):";
    for (int level = 0; level < settings_.path.exercise_levels; ++level)
      out << " " << rules[level].dates << " dates " << in_sample_price_[level] << " +- " << in_sample_error_[level] << ";";
    const InSample in = in_sample();
    const double two = 2 * in_sample_price_[2] - in_sample_price_[1];
    out << " extrapolated " << in.price << " +- " << in.standard_error
        << " (at most)\n    the extrapolation's own error (three-point minus two-point, in sample) " << in.price - two;
  }
  out << "\n    worst condition number of the scaled normal equations " << std::scientific << std::setprecision(2)
      << worst_condition_ << std::fixed << "; calibration " << std::setprecision(3) << calibration_seconds_
      << " s (before the run's steps)\n";
  return out.str();
}

// Every path paying the same makes a zero standard error, which claims an exact price: where the
// closed form says otherwise, the paths are degenerate (an extreme volatility over a long maturity
// sends them all to zero or to overflow) and the estimate must not be trusted.
std::string MonteCarloPricer::degenerate_warnings() const {
  std::ostringstream out;
  for (std::size_t p = 0; p < settings_.products.size(); ++p) {
    const Estimate e = estimate(p);
    const double exact = closed_form(p);
    if (e.standard_error > 0 || !std::isfinite(exact) || std::fabs(e.price - exact) <= 1e-9 * std::max(1.0, std::fabs(exact)))
      continue;
    out << std::defaultfloat << std::setprecision(6) << "warning: " << payoff_names()[static_cast<int>(settings_.products[p])]
        << ": every path paid the same (" << e.price << ", standard error 0) but the closed form is " << exact
        << ": the paths are degenerate (underflow or overflow; check finance.volatility and finance.maturity)\n";
  }
  return out.str();
}

// Per product a row: price, standard error, 95% interval, delta and vega with their errors, closed form.
constexpr std::size_t result_columns = 9;

void MonteCarloPricer::make_output_datasets() {
  for (const auto product : settings_.products) {
    io::HostDataset d{io::DatasetBox{"results/" + payoff_names()[static_cast<int>(product)],
                                     {result_columns}, {0}, {rank_ == 0 ? result_columns : 0}},
                      {}};
    d.box.units = "price, standard error, 95% low, 95% high, delta, its error, vega, its error, closed form";
    d.values.resize(rank_ == 0 ? result_columns : 0);
    results_.push_back(std::move(d));
  }
  staged_state_.push_back({state_layout()[0], {}});
  staged_state_.back().values.resize(rank_ == 0 ? totals_.size() : 0);
}

const std::vector<io::HostDataset>& MonteCarloPricer::output_fields() {
  if (rank_ != 0) return results_;
  for (std::size_t p = 0; p < settings_.products.size(); ++p) {
    const Estimate e = samples() > 1 ? estimate(p) : Estimate{std::nan(""), std::nan("")};
    const double row[result_columns] = {e.price, e.standard_error, e.price - 1.96 * e.standard_error,
                                        e.price + 1.96 * e.standard_error, e.delta, e.delta_error, e.vega,
                                        e.vega_error, closed_form(p)};
    std::copy(row, row + result_columns, results_[p].values.begin());
  }
  return results_;
}

// The sums are the same on every rank: rank 0 writes them and reads them back, then shares them.
std::vector<io::DatasetBox> MonteCarloPricer::state_layout() const {
  return {io::DatasetBox{"state/sums", {totals_.size()}, {0}, {rank_ == 0 ? totals_.size() : 0}}};
}

const std::vector<io::HostDataset>& MonteCarloPricer::state() {
  if (rank_ == 0) std::copy(totals_.begin(), totals_.end(), staged_state_[0].values.begin());
  return staged_state_;
}

void MonteCarloPricer::restore(const std::vector<io::HostDataset>& state) {
  if (rank_ == 0) totals_ = state.at(0).values;
  MPI_Bcast(totals_.data(), static_cast<int>(totals_.size()), MPI_DOUBLE, 0, comm_);
}

}  // namespace meridian::finance
