#include "solvers/common/fft/real_to_real_rows.hpp"

#include <fftw3.h>

#include <Kokkos_Core.hpp>

#include <array>
#include <stdexcept>
#include <string>

#include "parallel/launch_counts.hpp"
#include "solvers/common/fft/local_fft.hpp"

namespace meridian::fft {

std::mutex& fftw_planner_lock() {
  static std::mutex lock;
  return lock;
}

void plan_with_threads(int threads) {
#ifdef MERIDIAN_FFTW_OPENMP
  static const bool ready = fftw_init_threads() != 0;
  if (ready) fftw_plan_with_nthreads(threads);
#else
  (void)threads;
#endif
}

int host_threads() { return Kokkos::DefaultHostExecutionSpace().concurrency(); }

bool fftw_has_threads() {
#ifdef MERIDIAN_FFTW_OPENMP
  return true;
#else
  return false;
#endif
}

// FFTW runs a plan only on arrays like those it was made for: in place or not, SIMD-aligned or not.
// Indexed [in place][unaligned].
struct RealToRealRows::Plans {
  std::array<std::array<fftw_plan, 2>, 2> plan{};
  ~Plans() {
    std::lock_guard<std::mutex> lock(fftw_planner_lock());
    for (auto& row : plan)
      for (fftw_plan p : row)
        if (p) fftw_destroy_plan(p);
  }
};

namespace {

fftw_r2r_kind fftw_kind(RealKind kind) {
  switch (kind) {
    case RealKind::r2hc: return FFTW_R2HC;
    case RealKind::hc2r: return FFTW_HC2R;
    case RealKind::redft10: return FFTW_REDFT10;
    case RealKind::redft01: return FFTW_REDFT01;
    case RealKind::rodft10: return FFTW_RODFT10;
    case RealKind::rodft01: return FFTW_RODFT01;
    case RealKind::redft11: return FFTW_REDFT11;
    case RealKind::rodft11: return FFTW_RODFT11;
    case RealKind::rodft00: return FFTW_RODFT00;
  }
  return FFTW_R2HC;
}

}  // namespace

RealToRealRows::RealToRealRows(RealKind kind, int n, int batch, int inner) : plans_(std::make_unique<Plans>()) {
  if (inner < 1 || batch % inner != 0)
    throw std::invalid_argument("RealToRealRows: " + std::to_string(batch) + " rows are not whole groups of " +
                                std::to_string(inner));
  count_backend_allocation();
  const fftw_r2r_kind fftw = fftw_kind(kind);
  // FFTW's guru interface: the transform along a dimension of stride `inner`, over the groups of rows (n inner
  // apart) and the rows of a group (adjacent).
  const fftw_iodim along{n, inner, inner};
  const fftw_iodim over[2] = {{batch / inner, n * inner, n * inner}, {inner, 1, 1}};
  const std::size_t values = static_cast<std::size_t>(n) * static_cast<std::size_t>(batch);
  double* in = fftw_alloc_real(values);
  double* out = fftw_alloc_real(values);
  // FFTW_NO_BUFFERING (fftw3.h, beyond the guru flags): a buffered sub-plan allocates its buffer each time it
  // runs, which inside these kinds' per-row plans is once a row. At 48^3 that was 2,352 aligned mallocs a
  // transform and a third of the viscous and pressure solves' time; without it, one a group of rows.
  const unsigned flags = FFTW_ESTIMATE | FFTW_PRESERVE_INPUT | FFTW_NO_BUFFERING;
  {
    std::lock_guard<std::mutex> lock(fftw_planner_lock());
    plan_with_threads(host_threads());
    for (int in_place = 0; in_place < 2; ++in_place)
      for (int unaligned = 0; unaligned < 2; ++unaligned)
        plans_->plan[in_place][unaligned] =
            fftw_plan_guru_r2r(1, &along, 2, over, in, in_place ? in : out, &fftw, flags | (unaligned ? FFTW_UNALIGNED : 0U));
  }
  fftw_free(in);
  fftw_free(out);
  for (const auto& row : plans_->plan)
    for (fftw_plan p : row)
      if (!p) throw std::runtime_error("FFTW could not plan a real-to-real transform of length " + std::to_string(n));
}

RealToRealRows::RealToRealRows() = default;
RealToRealRows::~RealToRealRows() = default;
RealToRealRows::RealToRealRows(RealToRealRows&&) noexcept = default;
RealToRealRows& RealToRealRows::operator=(RealToRealRows&&) noexcept = default;

void RealToRealRows::execute(const double* in, double* out) const {
  parallel::count_library_call();  // a device build makes one cuFFT call in its place (axis_transform.hpp)
  auto* input = const_cast<double*>(in);  // FFTW's new-array execute takes non-const input
  const bool aligned = fftw_alignment_of(input) == 0 && fftw_alignment_of(out) == 0;
  fftw_execute_r2r(plans_->plan[in == out][aligned ? 0 : 1], input, out);
}

}  // namespace meridian::fft
