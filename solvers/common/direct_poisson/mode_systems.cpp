#include "solvers/common/direct_poisson/mode_systems.hpp"

#include <stdexcept>

#include "parallel/launch_counts.hpp"
#include "parallel/launch_policy.hpp"
#if defined(KOKKOS_ENABLE_CUDA) && defined(MERIDIAN_HAVE_CUSPARSE_TRIDIAGONAL)
#include "solvers/common/direct_poisson/cusparse_tridiagonal.hpp"
#define MERIDIAN_CUSPARSE_MODE_SYSTEMS 1
#else
#define MERIDIAN_CUSPARSE_MODE_SYSTEMS 0
namespace meridian::direct_poisson::cuda {
class CusparseTridiagonal {};  // never made in this build; the unique_ptr needs a complete type
}  // namespace meridian::direct_poisson::cuda
#endif

namespace meridian::direct_poisson {

namespace {

// The end row's diagonal term, in units of 1 / h^2: p = 0 on a cell-centred axis' face (the mirrored ghost -p
// adds 1 to the 2), zero gradient there (the face's term dropped), or nodes next to a face at 0 (its term is 0).
double end_term(AxisKind kind, int side) {
  switch (kind) {
    case AxisKind::dirichlet_dirichlet: return 3;
    case AxisKind::neumann_dirichlet: return side == 0 ? 1 : 3;
    case AxisKind::dirichlet_neumann: return side == 0 ? 3 : 1;
    case AxisKind::dirichlet_nodes: return 2;
    default: return 1;
  }
}

// The systems' coefficients: -1 / h^2 off the diagonal; on it lambda + 2 / h^2, the end rows with their ends'.
struct Rows {
  double off, centre, low_end, high_end;
  Rows(double h, AxisKind kind)
      : off(-1 / (h * h)), centre(2 / (h * h)), low_end(end_term(kind, 0) / (h * h)), high_end(end_term(kind, 1) / (h * h)) {}
  KOKKOS_INLINE_FUNCTION double diagonal(long k, long n, double lambda) const {
    return lambda + (n == 1 ? low_end + high_end - centre : k == 0 ? low_end : k == n - 1 ? high_end : centre);
  }
};

// Rows whose loads a GPU thread issues together, before it needs the first. A GPU thread steps one column down
// the recurrences, and a 256^3 solve has 65,536 columns: 16 warps an SM, too few to hide the memory's latency
// with one load in flight each, which is what a load per row gives (the Thomas kernel took 0.78 ms on the H200,
// about four times the time of its six passes over the field at the copy bandwidth). Eight rows put about 4 MB
// in flight, about the H200's bandwidth times its latency (4.8 TB/s x 0.8 us), in 98 registers (sm_90), so all
// 65,536 threads stay resident (sixteen rows took 153, and a second wave). A host thread's block of columns
// keeps the memory busy as it is.
template <long Width>
inline constexpr int rows_ahead = Width == 1 ? 8 : 1;

// The sum of n values `stride` apart, added in order, their loads issued Ahead at a time.
template <int Ahead>
KOKKOS_INLINE_FUNCTION double column_sum(const double* column, long n, long stride) {
  double sum = 0;
  for (long k0 = 0; k0 < n; k0 += Ahead) {
    double value[Ahead];
    for (int r = 0; r < Ahead; ++r) value[r] = k0 + r < n ? column[(k0 + r) * stride] : 0.0;
    for (int r = 0; r < Ahead && k0 + r < n; ++r) sum += value[r];
  }
  return sum;
}

// Removes the mean of n values `stride` apart.
template <int Ahead>
KOKKOS_INLINE_FUNCTION void remove_column_mean(double* column, long n, long stride) {
  const double mean = column_sum<Ahead>(column, n, stride) / static_cast<double>(n);
  for (long k0 = 0; k0 < n; k0 += Ahead) {
    double value[Ahead];
    for (int r = 0; r < Ahead; ++r) value[r] = k0 + r < n ? column[(k0 + r) * stride] : 0.0;
    for (int r = 0; r < Ahead && k0 + r < n; ++r) column[(k0 + r) * stride] = value[r] - mean;
  }
}

// The Thomas algorithm on the columns [first, last), at most Width of them, stepped together row by row
// (parallel::for_each_column_block), each column's carried values kept per column (in registers on a GPU); the
// singular mode's right-hand side has its mean removed as it is read, its last row is p = 0.
template <long Width>
struct Thomas {
  static constexpr int ahead = rows_ahead<Width>;
  double* d;  // the right-hand sides in, the solutions out
  double* c;  // the eliminated rows' upper coefficients
  const double* lambda;
  long n, modes, pinned;
  Rows rows;
  double shift, scale;

  KOKKOS_INLINE_FUNCTION void operator()(const long first, const long last) const {
    // Locals, not members, in the loops: a store through d or c could otherwise change a double member, so the
    // host's compiler would reload the members after each store and not vectorise.
    double* const d = this->d;
    double* const c = this->c;
    const long n = this->n, modes = this->modes, pinned = this->pinned;
    const Rows rows = this->rows;
    const double scale = this->scale;
    const long width = Width == 1 ? 1 : last - first;
    const bool holds_pin = first <= pinned && pinned < last;
    const double mean = holds_pin ? column_sum<ahead>(d + pinned, n, modes) / static_cast<double>(n) : 0.0;
    double eigenvalue[Width], c_above[Width] = {}, d_above[Width] = {};
    for (long j = 0; j < width; ++j) eigenvalue[j] = lambda[first + j] + shift;
    for (long k0 = 0; k0 < n; k0 += ahead) {
      double b[ahead][Width];  // a GPU thread's rows ahead; a host thread reads each where it is used
      if constexpr (ahead > 1)
        for (int r = 0; r < ahead; ++r)
          for (long j = 0; j < width; ++j) b[r][j] = k0 + r < n ? d[(k0 + r) * modes + first + j] : 0.0;
      for (int r = 0; r < ahead && k0 + r < n; ++r) {
        const long k = k0 + r;
        const long skipped = k == n - 1 ? pinned : -1;  // the pinned mode's last row is p = 0
        for (long j = 0; j < width; ++j) {
          const long m = first + j;
          const double below = k > 0 ? rows.off * c_above[j] : 0.0, carried = k > 0 ? rows.off * d_above[j] : 0.0;
          const double denominator = m == skipped ? 1.0 : rows.diagonal(k, n, eigenvalue[j]) - below;
          c_above[j] = rows.off / denominator;
          const double rhs = ahead > 1 ? b[r][j] : d[k * modes + m];
          d_above[j] = m == skipped ? 0.0 : (scale * (m == pinned ? rhs - mean : rhs) - carried) / denominator;
          c[k * modes + m] = c_above[j];
          d[k * modes + m] = d_above[j];
        }
      }
    }
    for (long k0 = n - 2; k0 >= 0; k0 -= ahead) {  // d_above: the row below's solution
      double upper[ahead][Width], eliminated[ahead][Width];
      if constexpr (ahead > 1)
        for (int r = 0; r < ahead; ++r)
          for (long j = 0; j < width; ++j) {
            upper[r][j] = k0 - r >= 0 ? c[(k0 - r) * modes + first + j] : 0.0;
            eliminated[r][j] = k0 - r >= 0 ? d[(k0 - r) * modes + first + j] : 0.0;
          }
      for (int r = 0; r < ahead && k0 - r >= 0; ++r)
        for (long j = 0; j < width; ++j) {
          const long at = (k0 - r) * modes + first + j;
          d_above[j] = ahead > 1 ? eliminated[r][j] - upper[r][j] * d_above[j] : d[at] - c[at] * d_above[j];
          d[at] = d_above[j];
        }
    }
    if (holds_pin) remove_column_mean<ahead>(d + pinned, n, modes);
  }
};

template <long Width>
void thomas(const Kokkos::View<double*>& values, const Kokkos::View<double*>& work,
            const Kokkos::View<double*>& eigenvalues, long n, long modes, const Rows rows, long pinned, double shift,
            double scale) {
  parallel::for_each_column_block<Width>(
      "direct_poisson::thomas", modes,
      Thomas<Width>{values.data(), work.data(), eigenvalues.data(), n, modes, pinned, rows, shift, scale});
}

#if MERIDIAN_CUSPARSE_MODE_SYSTEMS
// cuSPARSE's three diagonals, divided by `scale` (so that its solutions come out `scale` times A^-1 b), the
// pinned mode's last row p = 0.
void store_diagonals(const Kokkos::View<double*>& work, const Kokkos::View<double*>& eigenvalues, long n, long modes,
                     const Rows rows, long pinned, double shift, double scale) {
  double* lower = work.data();
  double* diagonal = lower + n * modes;
  double* upper = diagonal + n * modes;
  const double* lambda = eigenvalues.data();
  parallel::for_each("direct_poisson::store_diagonals", parallel::Plane{{0, 0}, {n, modes}},
                     KOKKOS_LAMBDA(const long k, const long m) {
                       const long at = k * modes + m;
                       const bool pin = m == pinned && k == n - 1;
                       lower[at] = k == 0 || pin ? 0.0 : rows.off / scale;
                       upper[at] = k == n - 1 ? 0.0 : rows.off / scale;
                       diagonal[at] = pin ? 1.0 : rows.diagonal(k, n, lambda[m] + shift) / scale;
                     });
}

// Before cuSPARSE's solve: the pinned column's right-hand side mean-free, its last value 0 (the row p = 0).
void prepare_pinned(const Kokkos::View<double*>& values, long n, long modes, long pinned) {
  double* d = values.data();
  Kokkos::parallel_for("direct_poisson::prepare_pinned", parallel::FlatPolicy(0, 1), KOKKOS_LAMBDA(const long) {
    remove_column_mean<rows_ahead<1>>(d + pinned, n, modes);
    d[(n - 1) * modes + pinned] = 0;
  });
}

void finish_pinned(const Kokkos::View<double*>& values, long n, long modes, long pinned) {
  double* d = values.data();
  Kokkos::parallel_for("direct_poisson::finish_pinned", parallel::FlatPolicy(0, 1),
                       KOKKOS_LAMBDA(const long) { remove_column_mean<rows_ahead<1>>(d + pinned, n, modes); });
}
#endif

}  // namespace

bool available(TridiagonalSolver solver) { return solver == TridiagonalSolver::thomas || MERIDIAN_CUSPARSE_MODE_SYSTEMS; }

ModeSystems::ModeSystems(long n, long modes, double h, AxisKind kind, const Kokkos::View<double*>& eigenvalues,
                         long pinned, TridiagonalSolver solver, bool one_column_per_thread, Workspace workspace)
    : n_(n),
      modes_(modes),
      pinned_(pinned),
      h_(h),
      kind_(kind),
      solver_(solver),
      one_column_per_thread_(one_column_per_thread),
      eigenvalues_(eigenvalues) {
  if (!available(solver))
    throw std::invalid_argument("the direct solver's cuSPARSE tridiagonal solve needs a Kokkos CUDA build");
  const long stored = solver == TridiagonalSolver::thomas ? 1 : 3;
  work_ = workspace.array(Workspace::Use::mode_systems, 0, static_cast<std::size_t>(stored * n * modes));
#if MERIDIAN_CUSPARSE_MODE_SYSTEMS
  if (solver == TridiagonalSolver::cusparse) {
    double* diagonals = work_.data();
    cusparse_ = std::make_unique<cuda::CusparseTridiagonal>(static_cast<int>(n), static_cast<int>(modes), diagonals,
                                                            diagonals + n * modes, diagonals + 2 * n * modes,
                                                            Kokkos::Cuda().cuda_stream());
  }
#endif
}

ModeSystems::~ModeSystems() = default;
ModeSystems::ModeSystems(ModeSystems&&) noexcept = default;
ModeSystems& ModeSystems::operator=(ModeSystems&&) noexcept = default;

void ModeSystems::solve(const Kokkos::View<double*>& values, double shift, double scale) const {
  if (solver_ == TridiagonalSolver::thomas) {
    if constexpr (parallel::column_block > 1) {
      if (!one_column_per_thread_)
        return thomas<parallel::column_block>(values, work_, eigenvalues_, n_, modes_, Rows(h_, kind_), pinned_,
                                              shift, scale);
    }
    return thomas<1>(values, work_, eigenvalues_, n_, modes_, Rows(h_, kind_), pinned_, shift, scale);
  }
#if MERIDIAN_CUSPARSE_MODE_SYSTEMS
  // Written every solve: the shift and scale may change between solves, and cuSPARSE may overwrite them.
  store_diagonals(work_, eigenvalues_, n_, modes_, Rows(h_, kind_), pinned_, shift, scale);
  if (pinned_ >= 0) prepare_pinned(values, n_, modes_, pinned_);
  parallel::count_library_call();
  cusparse_->solve(values.data());
  if (pinned_ >= 0) finish_pinned(values, n_, modes_, pinned_);
#endif
}

}  // namespace meridian::direct_poisson
