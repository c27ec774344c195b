#pragma once
// A distributed sparse matrix in CSR form, one small interface for two backends chosen at build time:
// a Kokkos kernel on the host backends and cuSPARSE's generic SpMV (sparse_matrix_cusparse.cpp) with
// Kokkos' CUDA backend. A rank holds the rows of the cells it owns; the columns index the values of a
// mesh::Field (owned and halo cells, flat LayoutRight offsets), so the halo exchange of mesh/ brings a
// product its off-rank columns and no second communication layer is needed.
#include <Kokkos_Core.hpp>

#include <memory>
#include <string>
#include <vector>

#include "parallel/copies.hpp"

namespace meridian::sparse {

using Vector = Kokkos::View<double*>;

// A device copy of host values (assembly happens on the host, once per geometry).
template <class T>
Kokkos::View<T*> to_device(const std::vector<T>& values, const std::string& label) {
  Kokkos::View<T*> view(label, values.size());
  const Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> host(values.data(),
                                                                                              values.size());
  parallel::copy<parallel::Copy::host_to_device>(view, host);
  return view;
}

// As assembled, on the host: row r's entries are columns[row_offsets[r] .. row_offsets[r + 1]).
struct CsrHost {
  std::vector<int> row_offsets{0};
  std::vector<int> columns;
  std::vector<double> values;
  int column_count = 0;  // the length of the vectors multiplied
  int rows() const { return static_cast<int>(row_offsets.size()) - 1; }
};

class SparseMatrix {
 public:
  explicit SparseMatrix(const CsrHost& csr);

  // y = A x: x has column_count values, y one per row. Allocates nothing.
  void multiply(const Vector& x, const Vector& y) const;
  int rows() const { return rows_; }

  // The rows as device views, for kernels that fuse a product with what is done with it (the multigrid's).
  struct Rows {
    Kokkos::View<const int*> offsets, columns;
    Kokkos::View<const double*> values;
    KOKKOS_INLINE_FUNCTION double product(const int row, const Kokkos::View<const double*>& x) const {
      double sum = 0;
      for (int n = offsets(row); n < offsets(row + 1); ++n) sum += values(n) * x(columns(n));
      return sum;
    }
  };
  Rows row_view() const { return {offsets_, columns_, values_}; }

 private:
  // cuSPARSE's descriptors and work buffer in a CUDA build, none otherwise; shared, as the views are, by
  // copies of the matrix.
  struct Backend;
  void make_backend();
  int rows_ = 0, column_count_ = 0;
  Kokkos::View<int*> offsets_, columns_;
  Vector values_;
  std::shared_ptr<const Backend> backend_;
};

}  // namespace meridian::sparse
