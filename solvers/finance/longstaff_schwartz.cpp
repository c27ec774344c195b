#include "solvers/finance/longstaff_schwartz.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "parallel/copies.hpp"
#include "parallel/launch_policy.hpp"
#include "parallel/team_shape.hpp"
#include "solvers/common/random/philox.hpp"
#include "solvers/finance/least_squares.hpp"
#include "solvers/finance/path_simulation.hpp"
#include "solvers/finance/vector_math.hpp"

namespace meridian::finance {

namespace {

constexpr int chunk = 32;  // paths summed in order by one thread

// (date, asset, path of this rank): the paths fastest, so neighbouring GPU threads read neighbouring prices.
using Prices = Kokkos::View<double***, Kokkos::LayoutRight>;

// This rank's share of the calibration blocks: a contiguous run, so that gathering the ranks' block sums in rank
// order puts them in global block order.
struct BlockPlan {
  int block_size = 1;
  long blocks = 0, first = 0, mine = 0;
  std::vector<int> blocks_of_rank, first_of_rank;
  BlockPlan(long total_blocks, int size, MPI_Comm comm) : block_size(size), blocks(total_blocks) {
    int rank = 0, ranks = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &ranks);
    for (int r = 0; r < ranks; ++r) {
      const long begin = total_blocks * r / ranks, end = total_blocks * (r + 1) / ranks;
      blocks_of_rank.push_back(static_cast<int>(end - begin));
      first_of_rank.push_back(static_cast<int>(begin));
    }
    first = first_of_rank[rank], mine = blocks_of_rank[rank];
  }
  long paths() const { return mine * block_size; }
};

// The chunks' and the blocks' sums, made once for all the dates.
struct SumScratch {
  Kokkos::View<double**> chunks;                         // (chunk of this rank, sum)
  Kokkos::View<double*> blocks;                          // (block of this rank, sum), the first `count` sums
  std::vector<double> mine, all;
  SumScratch(const BlockPlan& plan, int count)
      : chunks("lsm::chunk_sums", plan.mine * ((plan.block_size + chunk - 1) / chunk), count),
        blocks("lsm::block_sums", static_cast<std::size_t>(plan.mine) * count),
        mine(static_cast<std::size_t>(plan.mine) * count),
        all(static_cast<std::size_t>(plan.blocks) * count) {}
};

// Per block, `count` sums of terms(path, sums) over its paths, with the same bits on every backend and rank count:
// a thread per chunk of paths adds them in path order, a thread per block and sum adds the chunks in order; the
// blocks are then gathered from every rank and added in global block order on each.
template <class Terms>
std::vector<double> ordered_sums(const Terms& terms, int count, const BlockPlan& plan, SumScratch& scratch, MPI_Comm comm) {
  const long chunks_per_block = (plan.block_size + chunk - 1) / chunk, block_size = plan.block_size;
  const auto chunk_sums = scratch.chunks;
  const Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::MemoryUnmanaged> block_sums(scratch.blocks.data(), plan.mine,
                                                                                      count);
  Kokkos::parallel_for(
      "lsm::chunk_sums", parallel::FlatPolicy(0, plan.mine * chunks_per_block), KOKKOS_LAMBDA(const long c) {
        double sums[max_normal_sums] = {};
        const long block = c / chunks_per_block, first = block * block_size + (c % chunks_per_block) * chunk;
        const long last = min_of(first + chunk, (block + 1) * block_size);
        for (long path = first; path < last; ++path) terms(path, sums);
        for (int k = 0; k < count; ++k) chunk_sums(c, k) = sums[k];
      });
  Kokkos::parallel_for(
      "lsm::block_sums", parallel::FlatPolicy(0, plan.mine * count), KOKKOS_LAMBDA(const long n) {
        const long block = n / count;
        const int k = static_cast<int>(n % count);
        double sum = 0;
        for (long c = 0; c < chunks_per_block; ++c) sum += chunk_sums(block * chunks_per_block + c, k);
        block_sums(block, k) = sum;
      });
  std::vector<double>&mine = scratch.mine, &all = scratch.all;
  parallel::copy<parallel::Copy::device_to_host>(
      Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(mine.data(), plan.mine, count),
      block_sums);
  std::vector<int> counts, displacements;
  for (std::size_t r = 0; r < plan.blocks_of_rank.size(); ++r) {
    counts.push_back(plan.blocks_of_rank[r] * count);
    displacements.push_back(plan.first_of_rank[r] * count);
  }
  MPI_Allgatherv(mine.data(), static_cast<int>(plan.mine * count), MPI_DOUBLE, all.data(), counts.data(),
                 displacements.data(), MPI_DOUBLE, comm);
  std::vector<double> total(static_cast<std::size_t>(count), 0.0);
  for (long b = 0; b < plan.blocks; ++b)
    for (int k = 0; k < count; ++k) total[k] += all[static_cast<std::size_t>(b) * count + k];
  return total;
}

// The calibration paths' prices at every exercise date, in double, by the pricer's own path steps and draws (path
// index calibration_first_path + the global path), a team thread's `lanes` paths as its vector loop
// (path_simulation.hpp); the lanes past this rank's paths simulate paths nobody keeps.
template <bool one_asset, class M>
void simulate_to_dates(const M& model, const ExerciseRule& rule, const PricerSettings& s, const BlockPlan& plan,
                       const Prices& prices) {
  const auto key = random::key_of(s.seed);
  PathSetup setup = s.path;
  setup.exercise_levels = 0, setup.has_barrier = false, setup.volatility = 0;
  const int steps = s.path.steps, assets = model.assets;
  const Kokkos::View<const int*> date_at_step = rule.date_at_step;
  const long paths = plan.paths();
  const std::uint64_t first_path = calibration_first_path + static_cast<std::uint64_t>(plan.first * plan.block_size);
  const parallel::TeamShape shape =
      parallel::device_memory_is_host ? parallel::TeamShape{1, host_lanes} : parallel::path_team_shape();
  const int threads = shape.threads, lanes = shape.lanes;
  Kokkos::parallel_for(
      "lsm::calibration_paths", shape.policy((paths + shape.items() - 1) / shape.items()),
      KOKKOS_LAMBDA(const parallel::TeamMember& team) {
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, threads), [&](const int thread) {
          const long first = (team.league_rank() * static_cast<long>(threads) + thread) * lanes;
          LaneState<double> state;
          for_each_lane(team, lanes,
                        [&](const int lane) { start_path<one_asset>(model, setup, state, slot_of(lane)); });
          for (int step = 0; step < steps; ++step) {
            for_each_lane(team, lanes, [&](const int lane) {
              const Draws draws{key, first_path + static_cast<std::uint64_t>(first + lane), static_cast<std::uint64_t>(step), 1.0};
              advance_path<one_asset>(model, setup, draws, state, slot_of(lane));
            });
            const int d = date_at_step(step);
            if (d >= 0)
              for_each_lane(team, lanes, [&](const int lane) {
                if (first + lane < paths)
                  for (int a = 0; a < simulated_assets<one_asset>(assets); ++a)
                    prices(d, a, first + lane) = km::exp(state.log_price[a][slot_of(lane)]);
              });
          }
        });
      });
}

// A path's prices at a date, as the rule reads them.
struct DatePrices {
  double value[max_assets];
  KOKKOS_INLINE_FUNCTION DatePrices(const Prices& prices, int date, long path, int assets) {
    value[0] = prices(date, 0, path);  // every rule reads asset 0
    for (int a = 1; a < assets; ++a) value[a] = prices(date, a, path);
  }
};

// The normal equations' terms of a path in the money at `date`: phi_i phi_j (i <= j, row by row), phi_i y, and 1.
struct NormalTerms {
  ExerciseRule rule;
  Prices prices;
  Kokkos::View<const double*> cash;
  int date;
  KOKKOS_INLINE_FUNCTION void operator()(const long path, double* sums) const {
    const DatePrices at(prices, date, path, rule.assets);
    const double value = rule.value(at.value);
    if (!(value > 0)) return;
    double phi[max_basis_functions];
    rule.basis_values(at.value, value, phi);
    const int n = rule.functions();
    int k = 0;
    for (int i = 0; i < n; ++i)
      for (int j = i; j < n; ++j) sums[k++] += phi[i] * phi[j];
    for (int i = 0; i < n; ++i) sums[k++] += phi[i] * cash(path);
    sums[k] += 1;
  }
  static int count(int functions) { return functions * (functions + 1) / 2 + functions + 1; }
};

struct CashMoments {
  Kokkos::View<const double*> cash;
  KOKKOS_INLINE_FUNCTION void operator()(const long path, double* sums) const {
    sums[0] += cash(path), sums[1] += cash(path) * cash(path);
  }
};

// Exercise where the rule says at `date` (the cash flow becomes the exercise value), then discount one date back.
void exercise_and_discount(const ExerciseRule& rule, const Prices& prices, const Kokkos::View<double*>& cash, int date,
                           double discount) {
  Kokkos::parallel_for(
      "lsm::exercise", parallel::FlatPolicy(0, cash.extent(0)), KOKKOS_LAMBDA(const long path) {
        const DatePrices at(prices, date, path, rule.assets);
        const double value = rule.value(at.value);
        double phi[max_basis_functions];
        if (value > 0) {
          rule.basis_values(at.value, value, phi);
          if (value >= rule.continuation(date, phi)) cash(path) = value;
        }
        cash(path) *= discount;
      });
}

// The fit at one date from its summed normal equations; returns the coefficients.
std::vector<double> fit_date(const std::vector<double>& sums, int n, Calibration& c) {
  std::vector<double> gram(static_cast<std::size_t>(n) * n), moment(static_cast<std::size_t>(n));
  int k = 0;
  for (int i = 0; i < n; ++i)
    for (int j = i; j < n; ++j) gram[static_cast<std::size_t>(i) * n + j] = gram[static_cast<std::size_t>(j) * n + i] = sums[k++];
  for (int i = 0; i < n; ++i) moment[i] = sums[k++];
  const long paths = std::lround(sums[k]);
  c.in_the_money.insert(c.in_the_money.begin(), paths);
  if (paths == 0) {
    c.condition.insert(c.condition.begin(), 0.0);
    return std::vector<double>(static_cast<std::size_t>(n), 0.0);
  }
  const LeastSquaresFit fit = least_squares(gram, moment);
  c.condition.insert(c.condition.begin(), fit.condition);
  return fit.coefficients;
}

}  // namespace

std::vector<int> basis_degrees(int assets, int order) {
  std::vector<int> degrees;
  std::vector<int> d(static_cast<std::size_t>(assets), 0);
  for (int total = 0; total <= order; ++total) {
    // Every split of `total` among the assets, the first asset's degree falling.
    const auto split = [&](auto&& self, int asset, int left) -> void {
      if (asset == assets - 1) {
        d[asset] = left;
        degrees.insert(degrees.end(), d.begin(), d.end());
        return;
      }
      for (int k = left; k >= 0; --k) {
        d[asset] = k;
        self(self, asset + 1, left - k);
      }
    };
    split(split, 0, total);
  }
  const int functions = static_cast<int>(degrees.size()) / assets + (assets > 1 ? 1 : 0);
  if (functions > max_basis_functions)
    throw std::invalid_argument("order " + std::to_string(order) + " on " + std::to_string(assets) + " assets makes " +
                                std::to_string(functions) + " basis functions, more than " +
                                std::to_string(max_basis_functions));
  return degrees;
}

void set_exercise_steps(ExerciseRule& rule, const std::vector<int>& steps_at_dates, int steps) {
  if (steps_at_dates.empty() || steps_at_dates.back() != steps)
    throw std::logic_error("set_exercise_steps: the last exercise date must be the maturity");
  std::vector<int> date_at_step(static_cast<std::size_t>(steps), -1);
  for (std::size_t d = 0; d < steps_at_dates.size(); ++d) {
    if (steps_at_dates[d] < 1 || (d > 0 && steps_at_dates[d] <= steps_at_dates[d - 1]))
      throw std::logic_error("set_exercise_steps: exercise dates must increase, after the start");
    date_at_step[static_cast<std::size_t>(steps_at_dates[d] - 1)] = static_cast<int>(d);
  }
  Kokkos::View<int*> on_device("finance::date_at_step", static_cast<std::size_t>(steps));
  parallel::copy<parallel::Copy::host_to_device>(
      on_device, Kokkos::View<const int*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(date_at_step.data(), date_at_step.size()));
  rule.date_at_step = on_device;
  rule.dates = static_cast<int>(steps_at_dates.size());
}

void set_basis_degrees(ExerciseRule& rule, const std::vector<int>& degrees) {
  const std::size_t functions = degrees.size() / static_cast<std::size_t>(rule.assets);
  Kokkos::View<int**, Kokkos::LayoutRight> on_device("finance::basis_degrees", functions, rule.assets);
  parallel::copy<parallel::Copy::host_to_device>(
      on_device, Kokkos::View<const int**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                     degrees.data(), functions, rule.assets));
  rule.degrees = on_device;
}

Calibration calibrate(const PricerSettings& s, ExerciseRule rule, long paths, MPI_Comm comm) {
  if (static_cast<int>(rule.date_at_step.extent(0)) != s.path.steps)
    throw std::logic_error("calibrate: the exercise dates must be set on the paths' steps");
  const BlockPlan plan((paths + s.block_size - 1) / s.block_size, s.block_size, comm);
  const Prices prices("lsm::prices", rule.dates, rule.assets, plan.paths());
  if (s.model == Model::heston)
    simulate_to_dates<true>(s.heston, rule, s, plan, prices);
  else if (s.gbm.assets == 1)
    simulate_to_dates<true>(s.gbm, rule, s, plan, prices);
  else
    simulate_to_dates<false>(s.gbm, rule, s, plan, prices);
  const int n = rule.functions();
  const Kokkos::View<double**, Kokkos::LayoutRight> coefficients("lsm::coefficients", rule.dates > 1 ? rule.dates - 1 : 0, n);
  rule.coefficients = coefficients;
  const Kokkos::View<double*> cash("lsm::cash", plan.paths());
  SumScratch scratch(plan, NormalTerms::count(n));
  // Per date, the discount factor back to the date before it (the first: to the start).
  std::vector<double> discount(static_cast<std::size_t>(rule.dates));
  {
    const auto at_step = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), rule.date_at_step);
    int before = 0;
    for (int step = 0; step < s.path.steps; ++step)
      if (at_step(step) >= 0) {
        discount[static_cast<std::size_t>(at_step(step))] = std::exp(-s.path.rate * s.path.dt * (step + 1 - before));
        before = step + 1;
      }
  }
  Calibration c;
  c.paths = plan.blocks * plan.block_size;
  {  // at maturity every path in the money exercises: the payoff
    const ExerciseRule r = rule;
    const int last = rule.dates - 1;
    const double back = discount[static_cast<std::size_t>(last)];
    Kokkos::parallel_for(
        "lsm::maturity", parallel::FlatPolicy(0, cash.extent(0)), KOKKOS_LAMBDA(const long path) {
          cash(path) = back * r.value(DatePrices(prices, last, path, r.assets).value);
        });
  }
  for (int date = rule.dates - 2; date >= 0; --date) {
    const std::vector<double> sums =
        ordered_sums(NormalTerms{rule, prices, cash, date}, NormalTerms::count(n), plan, scratch, comm);
    const std::vector<double> fitted = fit_date(sums, n, c);
    parallel::copy<parallel::Copy::host_to_device>(
        Kokkos::subview(coefficients, date, Kokkos::ALL),
        Kokkos::View<const double*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(fitted.data(), fitted.size()));
    exercise_and_discount(rule, prices, cash, date, discount[static_cast<std::size_t>(date)]);
  }
  const std::vector<double> moments = ordered_sums(CashMoments{cash}, 2, plan, scratch, comm);
  const double count = static_cast<double>(c.paths), mean = moments[0] / count;
  c.in_sample_price = mean;
  c.in_sample_error = std::sqrt(std::max(0.0, moments[1] / count - mean * mean) / (count - 1));
  c.rule = rule;
  return c;
}

}  // namespace meridian::finance
