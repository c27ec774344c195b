#pragma once
// Monte Carlo pricing of a portfolio of products on the same paths, across MPI ranks with Kokkos
// kernels. Paths come in fixed-size blocks with global indices; each rank takes its share of the
// blocks of a step, and the partial sums are added in global block order on every rank, so the
// price, its standard error and the Greeks have the same bits on any rank count and after a restart.
// A solver "step" is a batch of blocks; the driver's time is the fraction of the paths done.
#include <mpi.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "io/deck.hpp"
#include "parallel/device_memory.hpp"
#include "solvers/common/precision.hpp"
#include "solvers/finance/models.hpp"
#include "solvers/finance/moments.hpp"
#include "solvers/finance/path_simulation.hpp"
#include "solvers/finance/products.hpp"
#include "solvers/solver.hpp"

namespace meridian::finance {

enum class Model { gbm, heston };

struct PricerSettings {
  Model model = Model::gbm;
  MultiAssetGbm gbm;
  Heston heston;
  double maturity = 1;
  PathSetup path;
  std::vector<Payoff> products;
  ProductTerms terms;
  long blocks = 1;           // total; paths = blocks * block_size (pairs when antithetic)
  int block_size = 1024;     // samples per block
  int blocks_per_step = 16;  // a step, and the granularity at which the target error is tested
  std::uint64_t seed = 1;
  bool antithetic = false, control_variates = true, greeks = false;
  double target_standard_error = 0;
  double spot_bump = 0.01, volatility_bump = 0.01;  // relative spot, absolute volatility
  solvers::Precision precision = solvers::Precision::double_;  // of the paths; sums are in double either way
  long calibration_paths = 0;  // of the early-exercise regression (path.exercise), on a stream of their own
  // Per exercise rule (path.exercise_levels of them) the steps done at each of its dates, and the basis' degrees
  // (longstaff_schwartz.hpp), which the pricer puts on the device (path.exercise's views).
  std::vector<std::vector<int>> exercise_steps;
  std::vector<int> basis_degrees;
  // Scenarios simulated per sample: the base, and with Greeks on the four bumped ones (spot up and
  // down, volatility up and down) where a product takes finite differences (no pathwise Greeks).
  int scenarios() const;
};

// One product's estimate from the sums so far.
struct Estimate {
  double price = 0, standard_error = 0, delta = 0, delta_error = 0, vega = 0, vega_error = 0;
};

void declare_keys(io::Schema& schema);
// Every check of build but allocation: for `meridian check` (collective).
void validate(const io::Deck& deck, MPI_Comm comm);
std::unique_ptr<solvers::Solver> build(const io::Deck& deck, MPI_Comm comm);

class MonteCarloPricer final : public solvers::Solver {
 public:
  // Moments kept per product over the samples (moments.hpp): of y (the discounted payoff), x (the
  // control variate) and, for the Greeks, the per-sample delta d and vega g.
  static constexpr int sums = moments;
  // Samples are summed in fixed chunks, in order, so the block sums have the same bits on every
  // backend and thread count.
  static constexpr int chunk = 32;
  // Per sample of a launch, structure of arrays: y (discounted payoff), x (control), and the
  // delta and vega samples.
  using SampleValues = Kokkos::View<double***, Kokkos::LayoutRight>;  // (quantity 0-3, product, sample)
  using ChunkSums = Kokkos::View<double***, Kokkos::LayoutRight>;     // (chunk, product, Moment)
  using BlockSums = Kokkos::View<double***, Kokkos::LayoutRight>;     // (block, product, Moment)
  // The work arrays of one launch stay under this; launches last about this long.
  static constexpr double launch_bytes = 256.0 * 1024 * 1024;
  static constexpr double launch_seconds_low = 0.1, launch_seconds_high = 0.25;

  MonteCarloPricer(PricerSettings settings, MPI_Comm comm);

  double stable_dt(double time) override;
  void step(double time, double dt) override;
  bool step_interrupted() const override { return interrupted_; }
  std::vector<solvers::Scalar> diagnostics(double time) override;
  std::vector<solvers::Scalar> progress(double dt) const override;
  bool finished() const override;
  double work_per_step() const override;
  // The driver's time here is the fraction of the paths done, not a date.
  io::TimeAxis time_axis(const std::string&) const override { return {"1", "fraction of the paths done", false}; }
  std::string work_unit() const override { return "path-steps"; }
  std::string layout() const override;
  std::string report() const override;
  // Lines warning of products whose paths all paid the same where the closed form disagrees.
  std::string degenerate_warnings() const;
  const std::vector<io::HostDataset>& output_fields() override;
  const std::vector<io::HostDataset>& state() override;
  std::vector<io::DatasetBox> state_layout() const override;
  void restore(const std::vector<io::HostDataset>& state) override;
  std::vector<solvers::Scalar> state_scalars() const override { return {{"blocks_done", double(blocks_done_)}}; }
  void restore_scalars(const std::vector<solvers::Scalar>& s) override { blocks_done_ = std::lround(s.at(0).value); }

  Estimate estimate(std::size_t product) const;
  long samples() const { return blocks_done_ * settings_.block_size; }
  // The closed form of a product where one exists (NaN otherwise), for the report and the output.
  double closed_form(std::size_t product) const;

 private:
  void run_blocks(long first, long count);
  long run_launches(long first, long count);
  void make_output_datasets();
  double control_mean(std::size_t product) const;

  PricerSettings settings_;
  MPI_Comm comm_;
  // Per exercise rule, the early-exercise regression's in-sample estimate (high-biased) and its standard error;
  // the worst condition number over the rules' regressions.
  std::vector<double> in_sample_price_, in_sample_error_;
  double worst_condition_ = 0, calibration_seconds_ = 0;
  std::string early_exercise_report() const;
  // The in-sample estimate of the product as priced: the rules' in-sample prices weighted as their path values are,
  // its standard error the weighted sum of theirs (an upper bound: the rules share their calibration paths).
  struct InSample {
    double price = 0, standard_error = 0;
  };
  InSample in_sample() const;
  Kokkos::View<const Payoff*> payoffs_;
  SampleValues values_;
  ChunkSums chunk_sums_;
  BlockSums block_sums_;
  // Read on the host after every launch: pinned, so the copy goes straight from the device instead of through the
  // CUDA runtime's staging of pageable memory.
  Kokkos::View<double***, Kokkos::LayoutRight, parallel::PinnedSpace> block_sums_host_;
  long max_launch_blocks_ = 1, launch_blocks_ = 1;
  bool interrupted_ = false;
  int rank_ = 0, ranks_ = 1;
  long blocks_done_ = 0;
  std::vector<double> totals_;           // [product][Moment], merged in global block order
  std::vector<double> mine_, gathered_;  // a step's block sums: this rank's, and every rank's
  std::vector<int> counts_, offsets_;    // of the gather
  std::vector<io::HostDataset> results_, staged_state_;  // output and checkpoint staging, made once
};

}  // namespace meridian::finance
