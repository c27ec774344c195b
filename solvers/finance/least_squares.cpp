#include "solvers/finance/least_squares.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace meridian::finance {

namespace {

// The eigenvalues of the symmetric matrix a (n x n, row-major; destroyed), and its eigenvectors as the columns of v,
// by cyclic Jacobi rotations (Golub & Van Loan, Matrix Computations, 4th ed., algorithm 8.5.3) until the
// off-diagonal part is below round-off of the whole.
std::vector<double> jacobi_eigen(std::vector<double>& a, std::vector<double>& v, int n) {
  v.assign(static_cast<std::size_t>(n) * n, 0.0);
  for (int i = 0; i < n; ++i) v[i * n + i] = 1;
  const auto at = [&](int i, int j) -> double& { return a[static_cast<std::size_t>(i) * n + j]; };
  double total = 0;
  for (const double x : a) total += x * x;
  for (int sweep = 0; sweep < 100; ++sweep) {
    double off = 0;
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j) off += 2 * at(i, j) * at(i, j);
    if (off <= 1e-32 * total) break;
    for (int p = 0; p < n; ++p)
      for (int q = p + 1; q < n; ++q) {
        if (at(p, q) == 0) continue;
        const double theta = (at(q, q) - at(p, p)) / (2 * at(p, q));
        const double t = (theta >= 0 ? 1.0 : -1.0) / (std::abs(theta) + std::sqrt(theta * theta + 1));
        const double c = 1 / std::sqrt(t * t + 1), s = t * c;
        for (int k = 0; k < n; ++k) {  // a <- a J: columns p and q
          const double kp = at(k, p), kq = at(k, q);
          at(k, p) = c * kp - s * kq, at(k, q) = s * kp + c * kq;
        }
        for (int k = 0; k < n; ++k) {  // a <- J' a: rows p and q
          const double pk = at(p, k), qk = at(q, k);
          at(p, k) = c * pk - s * qk, at(q, k) = s * pk + c * qk;
        }
        for (int k = 0; k < n; ++k) {
          double& kp = v[static_cast<std::size_t>(k) * n + p];
          double& kq = v[static_cast<std::size_t>(k) * n + q];
          const double vp = kp, vq = kq;
          kp = c * vp - s * vq, kq = s * vp + c * vq;
        }
      }
  }
  std::vector<double> eigenvalues(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) eigenvalues[i] = at(i, i);
  return eigenvalues;
}

}  // namespace

LeastSquaresFit least_squares(const std::vector<double>& gram, const std::vector<double>& moment) {
  const int n = static_cast<int>(moment.size());
  std::vector<double> scale(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    const double d = gram[static_cast<std::size_t>(i) * n + i];
    scale[i] = d > 0 ? 1 / std::sqrt(d) : 0.0;
  }
  std::vector<double> a(gram.size()), v;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) a[static_cast<std::size_t>(i) * n + j] = scale[i] * gram[static_cast<std::size_t>(i) * n + j] * scale[j];
  const std::vector<double> lambda = jacobi_eigen(a, v, n);
  const double largest = n > 0 ? *std::max_element(lambda.begin(), lambda.end()) : 0.0;
  LeastSquaresFit fit;
  fit.coefficients.assign(static_cast<std::size_t>(n), 0.0);
  double smallest = std::numeric_limits<double>::infinity();
  for (int k = 0; k < n; ++k) {
    smallest = std::min(smallest, lambda[k]);
    if (!(lambda[k] > 1e-12 * largest)) continue;
    ++fit.rank;
    double projection = 0;  // v_k' (scaled moment)
    for (int i = 0; i < n; ++i) projection += v[static_cast<std::size_t>(i) * n + k] * scale[i] * moment[i];
    for (int i = 0; i < n; ++i) fit.coefficients[i] += v[static_cast<std::size_t>(i) * n + k] * projection / lambda[k];
  }
  for (int i = 0; i < n; ++i) fit.coefficients[i] *= scale[i];
  fit.condition = smallest > 0 ? largest / smallest : std::numeric_limits<double>::infinity();
  return fit;
}

}  // namespace meridian::finance
