#pragma once
// Failures of the CUDA runtime, cuFFT and cuSPARSE as exceptions that name the call: for the Kokkos-free .cu
// units only (it includes the toolkit's headers).
#include <cuda_runtime.h>
#include <cufft.h>
#include <cusparse.h>

#include <stdexcept>
#include <string>

namespace meridian::cuda_checks {

inline void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) throw std::runtime_error(std::string("CUDA: ") + what + ": " + cudaGetErrorString(status));
}

inline void check(cufftResult status, const char* what) {
  if (status != CUFFT_SUCCESS) throw std::runtime_error(std::string("cuFFT: ") + what + " failed (" + std::to_string(status) + ")");
}

inline void check(cusparseStatus_t status, const char* what) {
  if (status != CUSPARSE_STATUS_SUCCESS)
    throw std::runtime_error(std::string("cuSPARSE: ") + what + ": " + cusparseGetErrorString(status));
}

}  // namespace meridian::cuda_checks
