#include "solvers/common/sparse/conjugate_gradient.hpp"

#include <cmath>

#include "mesh/reductions.hpp"
#include "parallel/launch_policy.hpp"
#include "parallel/sums.hpp"
#include "solvers/common/sparse/multigrid.hpp"

namespace meridian::sparse {

ConjugateGradient::ConjugateGradient(PoissonOperator& op)
    : op_(op), r_("cg::r", op.rows()), u_("cg::u", op.rows()), w_("cg::w", op.rows()), p_("cg::p", op.rows()),
      s_("cg::s", op.rows()) {}

ConjugateGradient::ConjugateGradient(PoissonOperator& op, const mesh::Decomposition& decomp,
                                     const PoissonProblem& problem, Preconditioner preconditioner)
    : ConjugateGradient(op) {
  if (preconditioner == Preconditioner::multigrid) multigrid_ = std::make_unique<Multigrid>(op, decomp, problem);
}

ConjugateGradient::~ConjugateGradient() = default;

namespace {

// Free functions: nvcc refuses a device lambda inside a private member function.
double dot(const Vector& a, const Vector& b, MPI_Comm comm) {
  double local = 0;
  Kokkos::parallel_reduce(
      "cg::dot", parallel::FlatPolicy(0, a.extent(0)),
      KOKKOS_LAMBDA(const long i, double& sum) { sum += a(i) * b(i); }, local);
  return mesh::global_sum(local, comm);
}

void remove_mean(const Vector& v, long global_rows, MPI_Comm comm) {
  double local = 0;
  Kokkos::parallel_reduce(
      "cg::sum", parallel::FlatPolicy(0, v.extent(0)), KOKKOS_LAMBDA(const long i, double& sum) { sum += v(i); },
      local);
  const double mean = mesh::global_sum(local, comm) / static_cast<double>(global_rows);
  Kokkos::parallel_for("cg::remove_mean", parallel::FlatPolicy(0, v.extent(0)), KOKKOS_LAMBDA(const long i) { v(i) -= mean; });
}

// {r . r, r . u, w . u} summed over the ranks, in one reduction.
parallel::Sums<3> dots(const Vector& r, const Vector& u, const Vector& w, MPI_Comm comm) {
  parallel::Sums<3> local;
  Kokkos::parallel_reduce(
      "cg::dots", parallel::FlatPolicy(0, r.extent(0)),
      KOKKOS_LAMBDA(const long i, parallel::Sums<3>& sums) {
        sums.value[0] += r(i) * r(i);
        sums.value[1] += r(i) * u(i);
        sums.value[2] += w(i) * u(i);
      },
      parallel::SumsReducer<3>(local));
  mesh::global_sums(local.value, 3, comm);
  return local;
}

// p = u + beta p, s = w + beta s (s = A p), x += alpha p, r -= alpha s.
void advance(const Vector& x, const Vector& r, const Vector& u, const Vector& w, const Vector& p, const Vector& s,
             double alpha, double beta) {
  Kokkos::parallel_for(
      "cg::advance", parallel::FlatPolicy(0, x.extent(0)), KOKKOS_LAMBDA(const long i) {
        const double direction = u(i) + beta * p(i), image = w(i) + beta * s(i);
        p(i) = direction;
        s(i) = image;
        x(i) += alpha * direction;
        r(i) -= alpha * image;
      });
}

}  // namespace

// Chronopoulos and Gear's form (1989, J. Comput. Appl. Math. 25; PETSc's single-reduction CG): the same iterates
// as preconditioned CG in exact arithmetic, with the iteration's dot products in one reduction (three before),
// s = A p carried by recurrence, so an iteration is a preconditioner, a product and two launches, one of which
// the host waits for.
SolveResult ConjugateGradient::solve(const Vector& b, const Vector& x, const SolverSettings& settings) {
  const Vector r = r_, u = u_, w = w_;
  const Vector diagonal = op_.diagonal();
  const long n = op_.rows();
  const MPI_Comm comm = op_.comm();
  const auto all = parallel::FlatPolicy(0, n);
  op_.apply(x, w);
  Kokkos::parallel_for("cg::residual", all, KOKKOS_LAMBDA(const long i) { r(i) = b(i) - w(i); });
  if (op_.singular()) remove_mean(r, op_.global_rows(), comm);
  const double b_norm = std::sqrt(dot(b, b, comm));
  const double scale = b_norm > 0 ? b_norm : 1;
  const auto precondition_and_apply = [&] {
    if (multigrid_)
      multigrid_->apply(r, u);
    else
      Kokkos::parallel_for("cg::jacobi", all, KOKKOS_LAMBDA(const long i) { u(i) = r(i) / diagonal(i); });
    op_.apply(u, w);
  };
  precondition_and_apply();
  parallel::Sums<3> d = dots(r, u, w, comm);
  SolveResult result;
  result.residual = std::sqrt(d.value[0]) / scale;
  double gamma = d.value[1], alpha = gamma / d.value[2], beta = 0;
  while (result.residual > settings.tolerance && result.iterations < settings.max_iterations) {
    advance(x, r, u, w, p_, s_, alpha, beta);
    ++result.iterations;
    precondition_and_apply();
    d = dots(r, u, w, comm);
    result.residual = std::sqrt(d.value[0]) / scale;
    beta = d.value[1] / gamma;
    alpha = d.value[1] / (d.value[2] - beta * d.value[1] / alpha);
    gamma = d.value[1];
  }
  if (op_.singular()) remove_mean(x, op_.global_rows(), comm);
  result.converged = result.residual <= settings.tolerance;
  return result;
}

}  // namespace meridian::sparse
