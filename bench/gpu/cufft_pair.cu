// The FFT ceiling for the spectral benchmark on a GPU: one plain cuFFT 3-D double-precision r2c and
// c2r pair (D2Z then Z2D, out of place) of an n^3 grid, the transforms a pseudo-spectral step is made
// of. Kokkos-free, built wherever the CUDA toolkit is.
//   cufft_pair [n, default 256]
// prints: cufft_pair_seconds <value>   (the mean of 10 timed pairs after 2 warm-ups)
#include <cuda_runtime.h>
#include <cufft.h>

#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 256;
  const std::size_t real_count = static_cast<std::size_t>(n) * n * n;
  const std::size_t complex_count = static_cast<std::size_t>(n) * n * (n / 2 + 1);
  double* real = nullptr;
  cufftDoubleComplex* spectrum = nullptr;
  if (cudaMalloc(&real, real_count * sizeof(double)) != cudaSuccess ||
      cudaMalloc(&spectrum, complex_count * sizeof(cufftDoubleComplex)) != cudaSuccess) {
    std::fprintf(stderr, "cufft_pair: cannot allocate a %d^3 grid on the device\n", n);
    return 1;
  }
  cudaMemset(real, 0, real_count * sizeof(double));
  cufftHandle forward, backward;
  if (cufftPlan3d(&forward, n, n, n, CUFFT_D2Z) != CUFFT_SUCCESS ||
      cufftPlan3d(&backward, n, n, n, CUFFT_Z2D) != CUFFT_SUCCESS) {
    std::fprintf(stderr, "cufft_pair: planning failed\n");
    return 1;
  }
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  const int warm = 2, timed = 10;
  for (int repetition = 0; repetition < warm + timed; ++repetition) {
    if (repetition == warm) cudaEventRecord(start);
    cufftExecD2Z(forward, real, spectrum);
    cufftExecZ2D(backward, spectrum, real);
  }
  cudaEventRecord(stop);
  cudaEventSynchronize(stop);
  float ms = 0;
  cudaEventElapsedTime(&ms, start, stop);
  std::printf("cufft_n %d\ncufft_pair_seconds %.6e\n", n, ms * 1e-3 / timed);
  cufftDestroy(forward);
  cufftDestroy(backward);
  cudaFree(real);
  cudaFree(spectrum);
  return 0;
}
