// CUDA backend of LocalFFT: cuFFT on the stream of Kokkos' default CUDA execution space instance.
#include <Kokkos_Core.hpp>

#include <stdexcept>

#include "parallel/launch_counts.hpp"
#include "solvers/common/fft/cufft_batch.hpp"
#include "solvers/common/fft/local_fft.hpp"

namespace meridian::fft {

struct LocalFFT::Plan {
  cuda::CufftBatch batch;
};

LocalFFT::LocalFFT(Transform transform, int n, int batch, PlanEffort, RowOrder order, Input input)
    : plan_(new Plan{cuda::CufftBatch(transform, n, batch, Kokkos::Cuda().cuda_stream(), order, input)}) {
  count_backend_allocation();  // the plan, with its c2r scratch copy
}

LocalFFT::LocalFFT(Transform transform, Planes planes, PlanEffort, Input input)
    : plan_(new Plan{cuda::CufftBatch(transform, planes, Kokkos::Cuda().cuda_stream(), input)}) {
  count_backend_allocation();
}

LocalFFT::LocalFFT(Transform, Volume, PlanEffort, Input) {
  throw std::logic_error("cuFFT cannot write a 3-D transform in the transposed (kx, ky, kz) layout");
}

unsigned long long LocalFFT::library_bytes(Transform transform, int n, int batch) {
  return cuda::library_bytes(transform, n, batch);
}
unsigned long long LocalFFT::library_bytes(Transform transform, Planes planes) {
  return cuda::library_bytes(transform, planes);
}

LocalFFT::~LocalFFT() = default;
LocalFFT::LocalFFT() = default;
LocalFFT::LocalFFT(LocalFFT&&) noexcept = default;
LocalFFT& LocalFFT::operator=(LocalFFT&&) noexcept = default;

void LocalFFT::execute(const double* in, double* out) const {
  parallel::count_library_call();
  plan_->batch.execute(in, out);
}

}  // namespace meridian::fft
