// FFTW backend of LocalFFT (host execution spaces).
#include <fftw3.h>
#ifdef MERIDIAN_FFTW_OPENMP
#include <omp.h>
#endif

#include <algorithm>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

#include "parallel/launch_counts.hpp"
#include "solvers/common/fft/local_fft.hpp"
#include "solvers/common/fft/real_to_real_rows.hpp"

namespace meridian::fft {

namespace {

// FFTW_ESTIMATE plans the column pass of a 2-D complex transform as one strided 1-D transform a column. On planes
// of 128 x 128 complex values and more, a column's values lie a large power of two (or multiple of one) apart,
// where the caches hold them in a few sets: at 256 x 256 the pass took 0.38 s over 129 planes, the row pass
// 0.03 s. FFTW_MEASURE finds a buffered plan (0.05 s) but may find another one on the next run, and a restart
// must repeat the same bits. So the buffering is done here around ESTIMATE's plans: a plane's rows are transformed
// along the contiguous columns, then `width` columns at a time are copied into a buffer as rows, transformed
// there and copied back. Against FFTW_ESTIMATE's 2-D plan on one core of the 2-core development machine (L2
// 512 KiB): 6.6x faster at 256 x 256, 1.1-1.9x from 128 x 128 to 192 x 192, 0.75-0.9x below (not used there).
// The host's threads take whole planes each, with a buffer each and single-threaded plans, so each plane's
// values come out the same on any thread count.
struct ColumnBlocks {
  static constexpr int width = 8;
  Planes planes;
  int threads = 1;
  fftw_plan rows_aligned = nullptr, rows_unaligned = nullptr;  // along each plane's rows, from in to out
  fftw_plan block = nullptr, rest = nullptr;                   // `width` (or the last few) columns, in a buffer
  fftw_complex* buffers = nullptr;                             // one of width x rows values a thread
  ColumnBlocks() = default;
  ColumnBlocks(const ColumnBlocks&) = delete;
  ColumnBlocks& operator=(const ColumnBlocks&) = delete;
  ~ColumnBlocks();
};

// Complex planes of at least 128 x 128 values (256 KiB) run their column pass in blocks.
bool columns_in_blocks(Transform transform, Planes planes) {
  const bool complex = transform == Transform::complex_forward || transform == Transform::complex_backward;
  return complex && planes.columns > 1 && static_cast<long>(planes.rows) * planes.columns >= 128 * 128;
}

}  // namespace

// FFTW's SIMD codelets need arrays aligned as fftw_malloc aligns them; a plan made without
// FFTW_UNALIGNED may run only on arrays with that alignment, and was measured 3.5x faster on the
// batched complex transforms here than an unaligned one. Kokkos allocates with at least that
// alignment, so the aligned plan is the one used; the unaligned one serves any other pointer.
struct LocalFFT::Plan {
  fftw_plan aligned = nullptr, unaligned = nullptr;
  Transform transform;
  std::unique_ptr<ColumnBlocks> columns;  // instead of the two plans, for planes that columns_in_blocks picks
};

namespace {

struct Scratch {
  double* values;
  explicit Scratch(std::size_t n) : values(fftw_alloc_real(n)) {}
  ~Scratch() { fftw_free(values); }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  fftw_complex* complex() const { return reinterpret_cast<fftw_complex*>(values); }
};

fftw_plan plan_rows(Transform transform, int n, int batch, RowOrder order, unsigned flags, const Scratch& in,
                    const Scratch& out) {
  const bool real = transform == Transform::real_to_complex || transform == Transform::complex_to_real;
  const int complex_length = real ? n / 2 + 1 : n;
  const bool interleaved = order == RowOrder::interleaved;
  const int stride = interleaved ? batch : 1;
  // The distance between rows: one value when interleaved, else the row's length on that side.
  const auto distance = [&](int length) { return interleaved ? 1 : length; };
  switch (transform) {
    case Transform::real_to_complex:
      return fftw_plan_many_dft_r2c(1, &n, batch, in.values, nullptr, stride, distance(n), out.complex(), nullptr, stride,
                                    distance(complex_length), flags);
    case Transform::complex_to_real:
      return fftw_plan_many_dft_c2r(1, &n, batch, in.complex(), nullptr, stride, distance(complex_length), out.values,
                                    nullptr, stride, distance(n), flags);
    default:
      return fftw_plan_many_dft(1, &n, batch, in.complex(), nullptr, stride, distance(n), out.complex(), nullptr, stride,
                                distance(n), transform == Transform::complex_forward ? FFTW_FORWARD : FFTW_BACKWARD, flags);
  }
}

fftw_plan plan_planes(Transform transform, Planes planes, unsigned flags, const Scratch& in, const Scratch& out) {
  const int n[2] = {planes.rows, planes.columns};
  const int size = planes.rows * planes.columns, half = planes.rows * (planes.columns / 2 + 1);
  switch (transform) {
    case Transform::real_to_complex:
      return fftw_plan_many_dft_r2c(2, n, planes.count, in.values, nullptr, 1, size, out.complex(), nullptr, 1, half, flags);
    case Transform::complex_to_real:
      return fftw_plan_many_dft_c2r(2, n, planes.count, in.complex(), nullptr, 1, half, out.values, nullptr, 1, size, flags);
    default: {
      const int rank = planes.columns > 1 ? 2 : 1;
      return fftw_plan_many_dft(rank, n, planes.count, in.complex(), nullptr, 1, size, out.complex(), nullptr, 1, size,
                                transform == Transform::complex_forward ? FFTW_FORWARD : FFTW_BACKWARD, flags);
    }
  }
}

// The volume's axes, slowest first as the real values lie, each with its distance on the real side and on the
// spectral side (kx, ky, kz); an axis of one value (a 2-D field's z) is left out.
fftw_plan plan_volume(Transform transform, Volume v, unsigned flags, const Scratch& in, const Scratch& out) {
  const fftw_iodim axes[3] = {{v.nz, v.nx * v.ny, 1}, {v.ny, v.nx, v.nz}, {v.nx, 1, v.ny * v.nz}};
  fftw_iodim forward[3], backward[3];
  int rank = 0;
  for (int a = 0; a < 3; ++a) {
    if (axes[a].n == 1 && a < 2) continue;
    forward[rank] = axes[a];                               // real -> spectral
    backward[rank] = {axes[a].n, axes[a].os, axes[a].is};  // spectral -> real
    ++rank;
  }
  if (transform == Transform::real_to_complex)
    return fftw_plan_guru_dft_r2c(rank, forward, 0, nullptr, in.values, out.complex(), flags);
  return fftw_plan_guru_dft_c2r(rank, backward, 0, nullptr, in.complex(), out.values, flags);
}

bool simd_aligned(const double* p) { return fftw_alignment_of(const_cast<double*>(p)) == 0; }

// The aligned and the unaligned plan. Planning needs arrays; FFTW_MEASURE writes into them, so they are
// scratch, and the plans run on other arrays later (new-array execute). PRESERVE_INPUT keeps c2r from
// destroying an input the caller keeps.
// The plans share their work among `threads`.
template <class MakePlan>
std::pair<fftw_plan, fftw_plan> plan_both(int n, std::size_t values, PlanEffort effort, Input input, int threads,
                                          MakePlan&& make) {
  count_backend_allocation();
  const Scratch in(values), out(values);
  const unsigned flags = (effort == PlanEffort::measure ? FFTW_MEASURE : FFTW_ESTIMATE) |
                         (input == Input::kept ? FFTW_PRESERVE_INPUT : FFTW_DESTROY_INPUT);
  std::lock_guard<std::mutex> lock(fftw_planner_lock());
  plan_with_threads(threads);
  const std::pair<fftw_plan, fftw_plan> plans{make(flags, in, out), make(flags | FFTW_UNALIGNED, in, out)};
  if (!plans.first || !plans.second)
    throw std::runtime_error("FFTW could not plan a transform of length " + std::to_string(n));
  return plans;
}

// The plans and buffer of a column pass in blocks (ColumnBlocks).
std::unique_ptr<ColumnBlocks> column_blocks(Transform transform, Planes planes, PlanEffort effort) {
  auto blocks = std::make_unique<ColumnBlocks>();
  blocks->planes = planes;
  blocks->threads = std::max(1, std::min(host_threads(), planes.count));  // a rank may hold no plane
  const std::size_t plane = 2 * static_cast<std::size_t>(planes.rows) * planes.columns;
  std::tie(blocks->rows_aligned, blocks->rows_unaligned) = plan_both(
      planes.columns, plane, effort, Input::kept, 1, [&](unsigned flags, const Scratch& in, const Scratch& out) {
        return plan_rows(transform, planes.columns, planes.rows, RowOrder::contiguous, flags, in, out);
      });
  count_backend_allocation();
  blocks->buffers =
      fftw_alloc_complex(static_cast<std::size_t>(blocks->threads) * ColumnBlocks::width * planes.rows);
  const int sign = transform == Transform::complex_forward ? FFTW_FORWARD : FFTW_BACKWARD;
  const unsigned flags = effort == PlanEffort::measure ? FFTW_MEASURE : FFTW_ESTIMATE;
  const auto in_buffer = [&](int columns) {
    return fftw_plan_many_dft(1, &planes.rows, columns, blocks->buffers, nullptr, 1, planes.rows, blocks->buffers,
                              nullptr, 1, planes.rows, sign, flags);
  };
  const int last = planes.columns % ColumnBlocks::width;
  std::lock_guard<std::mutex> lock(fftw_planner_lock());
  plan_with_threads(1);
  blocks->block = in_buffer(ColumnBlocks::width);
  if (last > 0) blocks->rest = in_buffer(last);
  if (!blocks->block || (last > 0 && !blocks->rest))
    throw std::runtime_error("FFTW could not plan a transform of length " + std::to_string(planes.rows));
  return blocks;
}

// One plane: its rows from `from` to `to`, then its columns in blocks through `buffer` (ColumnBlocks).
void transform_plane(const ColumnBlocks& blocks, const double* from, double* to, fftw_complex* buffer) {
  const long rows = blocks.planes.rows, columns = blocks.planes.columns;
  const fftw_plan rows_plan = simd_aligned(from) && simd_aligned(to) ? blocks.rows_aligned : blocks.rows_unaligned;
  fftw_execute_dft(rows_plan, reinterpret_cast<fftw_complex*>(const_cast<double*>(from)),
                   reinterpret_cast<fftw_complex*>(to));
  auto* values = reinterpret_cast<double*>(buffer);
  for (long first = 0; first < columns; first += ColumnBlocks::width) {
    const long width = std::min<long>(ColumnBlocks::width, columns - first);
    for (long j = 0; j < rows; ++j)
      for (long q = 0; q < width; ++q) {
        values[2 * (q * rows + j)] = to[2 * (j * columns + first + q)];
        values[2 * (q * rows + j) + 1] = to[2 * (j * columns + first + q) + 1];
      }
    fftw_execute_dft(width == ColumnBlocks::width ? blocks.block : blocks.rest, buffer, buffer);
    for (long j = 0; j < rows; ++j)
      for (long q = 0; q < width; ++q) {
        to[2 * (j * columns + first + q)] = values[2 * (q * rows + j)];
        to[2 * (j * columns + first + q) + 1] = values[2 * (q * rows + j) + 1];
      }
  }
}

// The planes, shared among the threads in contiguous runs (static), each thread with its own buffer.
void run_in_column_blocks(const ColumnBlocks& blocks, const double* in, double* out) {
  const long plane = 2L * blocks.planes.rows * blocks.planes.columns, buffer = ColumnBlocks::width * blocks.planes.rows;
  const auto run = [&](int thread, long k) {
    transform_plane(blocks, in + k * plane, out + k * plane, blocks.buffers + thread * buffer);
  };
#ifdef MERIDIAN_FFTW_OPENMP
#pragma omp parallel for schedule(static) num_threads(blocks.threads)
  for (long k = 0; k < blocks.planes.count; ++k) run(omp_get_thread_num(), k);
#else
  for (long k = 0; k < blocks.planes.count; ++k) run(0, k);
#endif
}

}  // namespace

ColumnBlocks::~ColumnBlocks() {
  std::lock_guard<std::mutex> lock(fftw_planner_lock());
  for (fftw_plan p : {rows_aligned, rows_unaligned, block, rest})
    if (p) fftw_destroy_plan(p);
  fftw_free(buffers);
}

LocalFFT::LocalFFT(Transform transform, int n, int batch, PlanEffort effort, RowOrder order, Input input)
    : plan_(std::make_unique<Plan>()) {
  plan_->transform = transform;
  const bool real = transform == Transform::real_to_complex || transform == Transform::complex_to_real;
  const int complex_length = real ? n / 2 + 1 : n;
  std::tie(plan_->aligned, plan_->unaligned) =
      plan_both(n, 2 * static_cast<std::size_t>(complex_length) * batch + 2 * n, effort, input, host_threads(),
                [&](unsigned flags, const Scratch& in, const Scratch& out) { return plan_rows(transform, n, batch, order, flags, in, out); });
}

LocalFFT::LocalFFT(Transform transform, Planes planes, PlanEffort effort, Input input) : plan_(std::make_unique<Plan>()) {
  plan_->transform = transform;
  if (columns_in_blocks(transform, planes)) {
    plan_->columns = column_blocks(transform, planes, effort);
    return;
  }
  // A real plane's spectrum holds rows x (columns / 2 + 1) complex values: at most rows x (columns + 2) doubles.
  std::tie(plan_->aligned, plan_->unaligned) =
      plan_both(planes.rows, 2 * static_cast<std::size_t>(planes.rows) * (planes.columns + 2) * planes.count, effort, input,
                host_threads(), [&](unsigned flags, const Scratch& in, const Scratch& out) { return plan_planes(transform, planes, flags, in, out); });
}

LocalFFT::LocalFFT(Transform transform, Volume volume, PlanEffort effort, Input input) : plan_(std::make_unique<Plan>()) {
  if (transform != Transform::real_to_complex && transform != Transform::complex_to_real)
    throw std::logic_error("LocalFFT: a volume transform is real-to-complex or complex-to-real");
  plan_->transform = transform;
  const std::size_t spectrum = 2 * static_cast<std::size_t>(volume.nx / 2 + 1) * volume.ny * volume.nz;
  std::tie(plan_->aligned, plan_->unaligned) =
      plan_both(volume.nx, spectrum, effort, input, host_threads(),
                [&](unsigned flags, const Scratch& in, const Scratch& out) { return plan_volume(transform, volume, flags, in, out); });
}

unsigned long long LocalFFT::library_bytes(Transform, int, int) { return 0; }
unsigned long long LocalFFT::library_bytes(Transform, Planes) { return 0; }

LocalFFT::~LocalFFT() {
  if (!plan_) return;
  std::lock_guard<std::mutex> lock(fftw_planner_lock());
  for (fftw_plan p : {plan_->aligned, plan_->unaligned})
    if (p) fftw_destroy_plan(p);
}

LocalFFT::LocalFFT() = default;
LocalFFT::LocalFFT(LocalFFT&&) noexcept = default;
LocalFFT& LocalFFT::operator=(LocalFFT&&) noexcept = default;

void LocalFFT::execute(const double* in, double* out) const {
  parallel::count_library_call();  // one cuFFT call on a device build
  if (plan_->columns) {
    run_in_column_blocks(*plan_->columns, in, out);
    return;
  }
  const fftw_plan plan = simd_aligned(in) && simd_aligned(out) ? plan_->aligned : plan_->unaligned;
  // FFTW's new-array execute takes non-const input; with PRESERVE_INPUT it does not write it.
  auto* input = const_cast<double*>(in);
  switch (plan_->transform) {
    case Transform::real_to_complex:
      fftw_execute_dft_r2c(plan, input, reinterpret_cast<fftw_complex*>(out));
      break;
    case Transform::complex_to_real:
      fftw_execute_dft_c2r(plan, reinterpret_cast<fftw_complex*>(input), out);
      break;
    default:
      fftw_execute_dft(plan, reinterpret_cast<fftw_complex*>(input), reinterpret_cast<fftw_complex*>(out));
  }
}

}  // namespace meridian::fft
