#include "solvers/common/sparse/conjugate_gradient.hpp"

#include <cmath>

#include "mesh/reductions.hpp"
#include "solvers/common/sparse/multigrid.hpp"
#include "parallel/copies.hpp"

namespace meridian::sparse {

ConjugateGradient::ConjugateGradient(PoissonOperator& op)
    : op_(op), r_("cg::r", op.rows()), z_("cg::z", op.rows()), p_("cg::p", op.rows()), q_("cg::q", op.rows()) {}

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
      "cg::dot", Kokkos::RangePolicy<>(0, a.extent(0)),
      KOKKOS_LAMBDA(const long i, double& sum) { sum += a(i) * b(i); }, local);
  return mesh::global_sum(local, comm);
}

void remove_mean(const Vector& v, long global_rows, MPI_Comm comm) {
  double local = 0;
  Kokkos::parallel_reduce(
      "cg::sum", Kokkos::RangePolicy<>(0, v.extent(0)), KOKKOS_LAMBDA(const long i, double& sum) { sum += v(i); },
      local);
  const double mean = mesh::global_sum(local, comm) / static_cast<double>(global_rows);
  Kokkos::parallel_for("cg::remove_mean", Kokkos::RangePolicy<>(0, v.extent(0)), KOKKOS_LAMBDA(const long i) { v(i) -= mean; });
}

}  // namespace

SolveResult ConjugateGradient::solve(const Vector& b, const Vector& x, const SolverSettings& settings) {
  const Vector r = r_, z = z_, p = p_, q = q_;
  const Vector diagonal = op_.diagonal();
  const long n = op_.rows();
  const MPI_Comm comm = op_.comm();
  const auto all = Kokkos::RangePolicy<>(0, n);
  op_.apply(x, q);
  Kokkos::parallel_for("cg::residual", all, KOKKOS_LAMBDA(const long i) { r(i) = b(i) - q(i); });
  if (op_.singular()) remove_mean(r, op_.global_rows(), comm);
  const double b_norm = std::sqrt(dot(b, b, comm));
  const double scale = b_norm > 0 ? b_norm : 1;
  SolveResult result;
  result.residual = std::sqrt(dot(r, r, comm)) / scale;
  const auto precondition = [&] {
    if (multigrid_)
      multigrid_->apply(r, z);
    else
      Kokkos::parallel_for("cg::jacobi", all, KOKKOS_LAMBDA(const long i) { z(i) = r(i) / diagonal(i); });
  };
  precondition();
  parallel::copy<parallel::Copy::device_to_device>(p, z);
  double rz = dot(r, z, comm);
  while (result.residual > settings.tolerance && result.iterations < settings.max_iterations) {
    op_.apply(p, q);
    const double alpha = rz / dot(p, q, comm);
    Kokkos::parallel_for(
        "cg::update", all, KOKKOS_LAMBDA(const long i) { x(i) += alpha * p(i), r(i) -= alpha * q(i); });
    ++result.iterations;
    result.residual = std::sqrt(dot(r, r, comm)) / scale;
    precondition();
    const double next = dot(r, z, comm), beta = next / rz;
    rz = next;
    Kokkos::parallel_for("cg::direction", all, KOKKOS_LAMBDA(const long i) { p(i) = z(i) + beta * p(i); });
  }
  if (op_.singular()) remove_mean(x, op_.global_rows(), comm);
  result.converged = result.residual <= settings.tolerance;
  return result;
}

}  // namespace meridian::sparse
