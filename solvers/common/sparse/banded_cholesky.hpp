#pragma once
// A symmetric positive definite matrix factorised once as L L^T in band storage, on the host, after a reverse
// Cuthill-McKee ordering has narrowed its band (George and Liu, "Computer Solution of Large Sparse Positive
// Definite Systems", 1981, ch. 4; the storage is LAPACK's dpbtrf/dpbtrs, written here because LAPACK is not a
// dependency). The multigrid's coarsest level is its user: at most 4096 cells, whose band after the ordering is
// about one cross-section, two where an axis is periodic (16^3 periodic: 4096 x 513 values, 16 MiB, against the
// 128 MiB of a dense factor).
#include <vector>

#include "solvers/common/sparse/sparse_matrix.hpp"

namespace meridian::sparse {

class BandedCholesky {
 public:
  // `matrix` is square with columns numbering its rows; duplicate entries of a row add. Throws
  // std::runtime_error when it is not positive definite (a pivot below 1e-12 of its diagonal; a singular operator must be pinned first).
  explicit BandedCholesky(const CsrHost& matrix);
  // Overwrites b with the x of A x = b.
  void solve(std::vector<double>& b) const;
  int bandwidth() const { return band_; }

 private:
  double& factor(int row, int column) { return factor_[band_index(row, column)]; }
  double factor(int row, int column) const { return factor_[band_index(row, column)]; }
  std::size_t band_index(int row, int column) const {
    return static_cast<std::size_t>(row) * (band_ + 1) + (column - row + band_);
  }

  int size_, band_ = 0;
  std::vector<int> position_;    // where each row of the matrix sits in the ordering
  std::vector<double> factor_;   // L(p, q) for p - band <= q <= p
  mutable std::vector<double> ordered_;  // the right-hand side in the ordering, reused by each solve
};

}  // namespace meridian::sparse
