#pragma once
// cuFFT batched transforms, Kokkos-free: device pointers, extents and a CUDA stream in, nothing
// CUDA- or Kokkos-specific in this header. Compiled with nvcc whenever the CUDA toolkit is found,
// so that it is checked on every build; used by LocalFFT in a Kokkos CUDA build.
#include <cstddef>
#include <string>

#include "solvers/common/fft/local_fft.hpp"

namespace meridian::fft::cuda {

class CufftBatch {
 public:
  // `stream` is a cudaStream_t (the Kokkos execution space instance's stream); null for the default.
  CufftBatch(Transform transform, int n, int batch, void* stream, RowOrder order = RowOrder::contiguous,
             Input input = Input::kept);
  // 2-D transforms of contiguous planes (complex ones 1-D where a plane has one column): one call for all.
  CufftBatch(Transform transform, Planes planes, void* stream, Input input = Input::kept);
  ~CufftBatch();
  CufftBatch(const CufftBatch&) = delete;
  CufftBatch& operator=(const CufftBatch&) = delete;
  // Unnormalised, on the stream; the input is preserved (cuFFT's c2r would overwrite it, so it
  // runs on a copy) unless made with Input::scratch.
  void execute(const double* in, double* out) const;

 private:
  int handle_ = 0;  // a cufftHandle
  Transform transform_;
  void* stream_;
  double* scratch_ = nullptr;  // c2r input copy, where the input is kept
  std::size_t scratch_bytes_ = 0;
};

// cuFFT's estimate of a plan's work area (cufftEstimateMany), plus the c2r input copy; for LocalFFT::library_bytes.
unsigned long long library_bytes(Transform transform, int n, int batch);
unsigned long long library_bytes(Transform transform, Planes planes);

// The number of CUDA devices visible (0 without a driver or a GPU); for tests and `meridian info`.
int device_count();
// The current CUDA device's free and total memory, in bytes (zeros without one).
struct DeviceMemoryInfo {
  unsigned long long free = 0, total = 0;
};
DeviceMemoryInfo device_memory_info();
// The current CUDA device's UUID, 16 bytes (empty without a device).
std::string device_uuid();

}  // namespace meridian::fft::cuda
