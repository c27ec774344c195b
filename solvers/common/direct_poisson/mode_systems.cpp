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

// Removes the mean of n values `stride` apart.
KOKKOS_INLINE_FUNCTION void remove_column_mean(double* column, long n, long stride) {
  double sum = 0;
  for (long k = 0; k < n; ++k) sum += column[k * stride];
  for (long k = 0; k < n; ++k) column[k * stride] -= sum / static_cast<double>(n);
}

// The Thomas algorithm, blocks of modes stepped together row by row (parallel::for_each_column_block).
void thomas(const Kokkos::View<double*>& values, const Kokkos::View<double*>& work,
            const Kokkos::View<double*>& eigenvalues, long n, long modes, const Rows rows, long pinned, double shift,
            double scale) {
  double* d = values.data();
  double* c = work.data();
  const double* lambda = eigenvalues.data();
  const double off = rows.off;
  parallel::for_each_column_block("direct_poisson::thomas", modes, KOKKOS_LAMBDA(const long first, const long last) {
    const bool holds_pin = first <= pinned && pinned < last;
    if (holds_pin) remove_column_mean(d + pinned, n, modes);
    for (long k = 0; k < n; ++k) {
      const long at = k * modes;
      const long skipped = k == n - 1 ? pinned : -1;  // the pinned mode's last row is p = 0
      for (long m = first; m < last; ++m) {
        const double below = k > 0 ? off * c[at - modes + m] : 0.0, carried = k > 0 ? off * d[at - modes + m] : 0.0;
        const double denominator = m == skipped ? 1.0 : rows.diagonal(k, n, lambda[m] + shift) - below;
        c[at + m] = off / denominator;
        d[at + m] = m == skipped ? 0.0 : (scale * d[at + m] - carried) / denominator;
      }
    }
    for (long k = n - 2; k >= 0; --k)
      for (long m = first; m < last; ++m) d[k * modes + m] -= c[k * modes + m] * d[(k + 1) * modes + m];
    if (holds_pin) remove_column_mean(d + pinned, n, modes);
  });
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
  Kokkos::parallel_for("direct_poisson::prepare_pinned", Kokkos::RangePolicy<>(0, 1), KOKKOS_LAMBDA(const long) {
    remove_column_mean(d + pinned, n, modes);
    d[(n - 1) * modes + pinned] = 0;
  });
}

void finish_pinned(const Kokkos::View<double*>& values, long n, long modes, long pinned) {
  double* d = values.data();
  Kokkos::parallel_for("direct_poisson::finish_pinned", Kokkos::RangePolicy<>(0, 1),
                       KOKKOS_LAMBDA(const long) { remove_column_mean(d + pinned, n, modes); });
}
#endif

}  // namespace

bool available(TridiagonalSolver solver) { return solver == TridiagonalSolver::thomas || MERIDIAN_CUSPARSE_MODE_SYSTEMS; }

ModeSystems::ModeSystems(long n, long modes, double h, AxisKind kind, const Kokkos::View<double*>& eigenvalues,
                         long pinned, TridiagonalSolver solver)
    : n_(n), modes_(modes), pinned_(pinned), h_(h), kind_(kind), solver_(solver), eigenvalues_(eigenvalues) {
  if (!available(solver))
    throw std::invalid_argument("the direct solver's cuSPARSE tridiagonal solve needs a Kokkos CUDA build");
  const long stored = solver == TridiagonalSolver::thomas ? 1 : 3;
  work_ = Kokkos::View<double*>("direct_poisson::mode_systems", static_cast<std::size_t>(stored * n * modes));
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
    thomas(values, work_, eigenvalues_, n_, modes_, Rows(h_, kind_), pinned_, shift, scale);
    return;
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
