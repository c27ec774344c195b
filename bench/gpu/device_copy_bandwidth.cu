// The device's memory bandwidth ceiling for the GPU benchmarks: cudaMemcpy device to device of a
// large buffer, counting the bytes read and written. Kokkos-free, built wherever the CUDA toolkit is.
//   device_copy_bandwidth [MiB per buffer, default 2048]
// prints: copy_bandwidth_GBps <value>   (the best of 20 timed copies after 3 warm-ups)
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

namespace {
int fail(const char* what, cudaError_t status) {
  std::fprintf(stderr, "device_copy_bandwidth: %s: %s\n", what, cudaGetErrorString(status));
  return 1;
}
}  // namespace

int main(int argc, char** argv) {
  const std::size_t bytes = static_cast<std::size_t>(argc > 1 ? std::atol(argv[1]) : 2048) << 20;
  void *a = nullptr, *b = nullptr;
  cudaError_t status = cudaMalloc(&a, bytes);
  if (status != cudaSuccess) return fail("allocate", status);
  if ((status = cudaMalloc(&b, bytes)) != cudaSuccess) return fail("allocate", status);
  cudaMemset(a, 1, bytes);
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  float best_ms = 1e30f;
  for (int repetition = 0; repetition < 23; ++repetition) {
    cudaEventRecord(start);
    cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice);
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    if (repetition >= 3 && ms < best_ms) best_ms = ms;
  }
  if ((status = cudaGetLastError()) != cudaSuccess) return fail("copy", status);
  std::printf("copy_bytes %zu\ncopy_bandwidth_GBps %.1f\n", bytes, 2.0 * bytes / (best_ms * 1e-3) / 1e9);
  cudaFree(a);
  cudaFree(b);
  return 0;
}
