#pragma once
// cuSPARSE's generic CSR SpMV, Kokkos-free: device pointers, extents and a CUDA stream in, nothing
// CUDA- or Kokkos-specific in this header. Compiled with nvcc whenever the CUDA toolkit is found, so
// that it is checked on every build; used by SparseMatrix in a Kokkos CUDA build.
namespace meridian::sparse::cuda {

class CusparseCsr {
 public:
  // The arrays stay owned by the caller and must outlive this; `stream` is a cudaStream_t.
  CusparseCsr(int rows, int columns, int nonzeros, const int* offsets, const int* column_indices, const double* values,
              void* stream);
  ~CusparseCsr();
  CusparseCsr(const CusparseCsr&) = delete;
  CusparseCsr& operator=(const CusparseCsr&) = delete;
  // y = A x on the stream; the work buffer is sized and allocated once, at the first product.
  void multiply(const double* x, double* y) const;

 private:
  void describe_vectors(const double* x, double* y) const;

  int rows_ = 0, columns_ = 0;
  void* handle_ = nullptr;  // cusparseHandle_t
  void* matrix_ = nullptr;  // cusparseSpMatDescr_t
  // Made at the first product (describe_vectors), then pointed at each product's vectors.
  mutable void* x_ = nullptr;  // cusparseDnVecDescr_t
  mutable void* y_ = nullptr;
  mutable void* buffer_ = nullptr;
};

}  // namespace meridian::sparse::cuda
