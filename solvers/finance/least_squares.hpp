#pragma once
// The small least-squares solve of a regression from its normal equations, on the host: scaled to a unit diagonal
// (the basis functions' sizes differ by orders of magnitude: S / K to the eighth power against 1), then
// diagonalised by cyclic Jacobi rotations, which is the SVD of the scaled basis, so the condition number comes
// with the solve and directions the data do not determine are dropped rather than amplified.
#include <vector>

namespace meridian::finance {

struct LeastSquaresFit {
  std::vector<double> coefficients;
  double condition = 0;  // of the scaled normal equations: the largest eigenvalue over the smallest (inf: singular)
  int rank = 0;          // directions kept: eigenvalues above 1e-12 of the largest
};

// Minimises |X c - y| given gram = X'X (n x n, row-major) and moment = X'y. A function that is zero on every sample
// (a zero diagonal) gets the coefficient 0. Deterministic: the same bits for the same sums on every rank.
LeastSquaresFit least_squares(const std::vector<double>& gram, const std::vector<double>& moment);

}  // namespace meridian::finance
