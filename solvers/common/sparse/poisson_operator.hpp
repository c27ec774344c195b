#pragma once
// The pressure Poisson operator of a projection method: the cell-centred second-order Laplacian on the
// Cartesian decomposition of mesh/, negated so that it is symmetric positive semi-definite, assembled once
// as a distributed SparseMatrix whose halo columns come through mesh/'s halo exchange.
//   (A p)_c = sum over the faces of c of (p_c - p_neighbour) / h^2
// A wall face (zero normal gradient) drops its term; a face holding p = 0 (an outflow) takes the mirror
// ghost -p_c, adding 2 p_c / h^2; periodic axes wrap through the halo, or, where one rank holds the whole grid,
// by columns naming the image cells, so that no halo is exchanged.
#include <mpi.h>

#include <array>
#include <vector>

#include "mesh/decomposition.hpp"
#include "mesh/field.hpp"
#include "mesh/halo_exchange.hpp"
#include "solvers/common/sparse/sparse_matrix.hpp"

namespace meridian::sparse {

enum class FaceCondition { zero_gradient, zero_value };

struct PoissonProblem {
  std::array<double, 3> spacing{1, 1, 1};
  std::array<FaceCondition, 3> lower{}, upper{};  // per axis; ignored along periodic axes
};

// No face holds p fixed (every axis periodic or between zero-gradient faces): the constants are the null space.
bool is_singular(const mesh::Decomposition& decomp, const PoissonProblem& problem);

class PoissonOperator {
 public:
  // `decomp` must have a halo of at least one cell and outlive the operator.
  PoissonOperator(const mesh::Decomposition& decomp, const PoissonProblem& problem);

  // Its rows, CSR offsets and columns are 32-bit: a rank's block may hold at most INT_MAX / (2 dims + 1) cells
  // (306 million, about 674^3, in 3-D). Throws mesh::DecompositionError naming nx where one holds more
  // (collective); assembling checks it first.
  static void check_size(const mesh::Decomposition& decomp);

  // The operator of a grid held whole by one rank (`decomp` on MPI_COMM_SELF) with columns numbering cells as
  // the rows do: a periodic axis' halo columns become the cells they image. For a direct factorisation.
  static CsrHost whole_grid_matrix(const mesh::Decomposition& decomp, const PoissonProblem& problem);

  // y = A x over this rank's cells, in row order (x fastest, then y, then z). Collective.
  void apply(const Vector& x, const Vector& y);

  // For kernels that fuse a product with its use (the multigrid's smoother and residual): rows() read their
  // operand from operand(), where row r's own cell is operand(own()(r)). load(x) puts x there with its halos; a
  // kernel that wrote the owned values itself calls exchange_operand() before a product reads them. A rank that
  // holds the whole grid numbers the columns by cell (whole_grid_matrix): every neighbour is itself, so its
  // operand has no halo and nothing is exchanged.
  void load(const Vector& x);
  void exchange_operand();
  SparseMatrix::Rows rows_view() const { return matrix_.row_view(); }
  const Vector& operand() const { return operand_; }
  const Kokkos::View<const int*>& own() const { return own_; }

  const Vector& diagonal() const { return diagonal_; }
  // No face holds p fixed: the constants are then the null space.
  bool singular() const { return singular_; }
  int rows() const { return matrix_.rows(); }
  long global_rows() const { return decomp_.global_cell_count(); }
  MPI_Comm comm() const { return decomp_.comm(); }

 private:
  struct Assembled {
    CsrHost matrix;
    std::vector<double> diagonal;
    std::vector<int> own;  // per row, its cell's index in the operand
  };
  static Assembled assemble(const mesh::Decomposition& decomp, const PoissonProblem& problem);
  static void number_columns_by_cell(const mesh::Decomposition& decomp, Assembled& assembled);
  PoissonOperator(const mesh::Decomposition& decomp, const PoissonProblem& problem, const Assembled& assembled);

  const mesh::Decomposition& decomp_;
  bool singular_;
  bool whole_;  // this rank holds the whole grid
  SparseMatrix matrix_;
  Vector diagonal_;
  Kokkos::View<const int*> own_;
  mesh::Field field_;  // the operand with its halos, one component (none where the rank holds the whole grid)
  Vector operand_;     // the field's values, or a vector of the rows' cells
  mesh::HaloExchange exchange_;
};

}  // namespace meridian::sparse
