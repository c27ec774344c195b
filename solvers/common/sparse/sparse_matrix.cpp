#include "solvers/common/sparse/sparse_matrix.hpp"

#include <stdexcept>

namespace meridian::sparse {

SparseMatrix::SparseMatrix(const CsrHost& csr)
    : rows_(csr.rows()), column_count_(csr.column_count), offsets_(to_device(csr.row_offsets, "sparse::offsets")),
      columns_(to_device(csr.columns, "sparse::columns")), values_(to_device(csr.values, "sparse::values")) {
  if (csr.columns.size() != csr.values.size() || static_cast<std::size_t>(csr.row_offsets.back()) != csr.values.size())
    throw std::logic_error("SparseMatrix: row offsets, columns and values disagree");
  make_backend();
}

}  // namespace meridian::sparse
