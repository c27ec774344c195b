#pragma once
// cuSPARSE's batched tridiagonal solver (cusparseDgtsvInterleavedBatch, its cuThomas algorithm), Kokkos-free:
// device pointers, extents and a CUDA stream in, nothing CUDA- or Kokkos-specific in this header. Compiled
// with nvcc whenever the CUDA toolkit is found, so it is checked on every build; used by the direct solver's
// mode systems in a Kokkos CUDA build.
namespace meridian::direct_poisson::cuda {

class CusparseTridiagonal {
 public:
  // `batch` systems of n rows stored interleaved (row k of system m at k * batch + m, systems contiguous: the
  // layout of the direct solver's last stage). lower, diagonal and upper (n * batch each, device memory) stay
  // the caller's; cuSPARSE's interface takes them writable and does not promise to keep them, so the caller
  // writes them again before each solve. `stream` is a cudaStream_t.
  CusparseTridiagonal(int n, int batch, double* lower, double* diagonal, double* upper, void* stream);
  ~CusparseTridiagonal();
  CusparseTridiagonal(const CusparseTridiagonal&) = delete;
  CusparseTridiagonal& operator=(const CusparseTridiagonal&) = delete;
  // x (n * batch, interleaved) becomes the solutions, on the stream.
  void solve(double* x) const;

 private:
  int n_ = 0, batch_ = 0;
  double *lower_ = nullptr, *diagonal_ = nullptr, *upper_ = nullptr;
  void* handle_ = nullptr;  // cusparseHandle_t
  void* buffer_ = nullptr;
};

}  // namespace meridian::direct_poisson::cuda
