// cuFFT backend pieces. No Kokkos here: the caller passes device pointers and its stream.
#include <cuda_runtime.h>
#include <cufft.h>

#include "solvers/common/cuda_checks.hpp"
#include "solvers/common/fft/cufft_batch.hpp"

namespace meridian::fft::cuda {
namespace {

using cuda_checks::check;

cufftType type_of(Transform t) {
  switch (t) {
    case Transform::real_to_complex: return CUFFT_D2Z;
    case Transform::complex_to_real: return CUFFT_Z2D;
    default: return CUFFT_Z2Z;
  }
}

// The copy a c2r transform runs on where its input is kept: `values` complex values.
double* c2r_copy(Transform transform, Input input, std::size_t values, std::size_t& bytes) {
  if (transform != Transform::complex_to_real || input == Input::scratch) return nullptr;
  bytes = sizeof(double) * 2 * values;
  double* copy = nullptr;
  check(cudaMalloc(reinterpret_cast<void**>(&copy), bytes), "allocate c2r scratch");
  return copy;
}

}  // namespace

CufftBatch::CufftBatch(Transform transform, int n, int batch, void* stream, RowOrder order, Input input)
    : transform_(transform), stream_(stream) {
  const bool real = transform == Transform::real_to_complex || transform == Transform::complex_to_real;
  const bool interleaved = order == RowOrder::interleaved;
  const int complex_length = real ? n / 2 + 1 : n;
  int input_length = transform == Transform::real_to_complex ? n : complex_length;
  int output_length = transform == Transform::complex_to_real ? n : complex_length;
  const int stride = interleaved ? batch : 1;
  // cuFFT reads the strides and distances only with embedding extents given (the advanced layout); a 1-D
  // transform's extent is its row's length on that side.
  cufftHandle handle;
  check(cufftPlanMany(&handle, 1, &n, &input_length, stride, interleaved ? 1 : input_length, &output_length, stride,
                      interleaved ? 1 : output_length, type_of(transform), batch),
        "plan");
  handle_ = handle;
  check(cufftSetStream(handle, static_cast<cudaStream_t>(stream)), "set stream");
  scratch_ = c2r_copy(transform, input, static_cast<std::size_t>(complex_length) * batch, scratch_bytes_);
}

CufftBatch::CufftBatch(Transform transform, Planes planes, void* stream, Input input)
    : transform_(transform), stream_(stream) {
  // cuFFT is not asked for a length-1 axis (it may refuse one): a complex plane of one column is a 1-D
  // transform. Without embedding extents cuFFT lays the planes out one after another (the real transforms'
  // complex planes rows x (columns / 2 + 1)).
  int n[2] = {planes.rows, planes.columns};
  const int rank = planes.columns > 1 ? 2 : 1, size = planes.rows * planes.columns;
  cufftHandle handle;
  check(cufftPlanMany(&handle, rank, n, nullptr, 1, size, nullptr, 1, size, type_of(transform), planes.count), "plan");
  handle_ = handle;
  check(cufftSetStream(handle, static_cast<cudaStream_t>(stream)), "set stream");
  const std::size_t half = static_cast<std::size_t>(planes.rows) * (planes.columns / 2 + 1);
  scratch_ = c2r_copy(transform, input, half * planes.count, scratch_bytes_);
}

CufftBatch::~CufftBatch() {
  cufftDestroy(static_cast<cufftHandle>(handle_));
  if (scratch_) cudaFree(scratch_);
}

void CufftBatch::execute(const double* in, double* out) const {
  const auto handle = static_cast<cufftHandle>(handle_);
  auto* input = const_cast<double*>(in);
  switch (transform_) {
    case Transform::real_to_complex:
      check(cufftExecD2Z(handle, input, reinterpret_cast<cufftDoubleComplex*>(out)), "D2Z");
      break;
    case Transform::complex_to_real:
      if (scratch_) {
        check(cudaMemcpyAsync(scratch_, in, scratch_bytes_, cudaMemcpyDeviceToDevice, static_cast<cudaStream_t>(stream_)),
              "copy c2r input");
        input = scratch_;
      }
      check(cufftExecZ2D(handle, reinterpret_cast<cufftDoubleComplex*>(input), out), "Z2D");
      break;
    default:
      check(cufftExecZ2Z(handle, reinterpret_cast<cufftDoubleComplex*>(input), reinterpret_cast<cufftDoubleComplex*>(out),
                         transform_ == Transform::complex_forward ? CUFFT_FORWARD : CUFFT_INVERSE),
            "Z2Z");
  }
}

unsigned long long library_bytes(Transform transform, int n, int batch) {
  const bool real = transform == Transform::real_to_complex || transform == Transform::complex_to_real;
  const int complex_length = real ? n / 2 + 1 : n;
  const int input_distance = transform == Transform::real_to_complex ? n : complex_length;
  const int output_distance = transform == Transform::complex_to_real ? n : complex_length;
  std::size_t work = 0;
  check(cufftEstimateMany(1, &n, nullptr, 1, input_distance, nullptr, 1, output_distance, type_of(transform), batch, &work),
        "estimate");
  const std::size_t copy = transform == Transform::complex_to_real ? sizeof(double) * 2 * complex_length * batch : 0;
  return work + copy;
}

unsigned long long library_bytes(Transform transform, Planes planes) {
  int n[2] = {planes.rows, planes.columns};
  const int rank = planes.columns > 1 ? 2 : 1, size = planes.rows * planes.columns;
  std::size_t work = 0;
  check(cufftEstimateMany(rank, n, nullptr, 1, size, nullptr, 1, size, type_of(transform), planes.count, &work),
        "estimate");
  return work;
}

int device_count() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess ? count : 0;
}

DeviceMemoryInfo device_memory_info() {
  std::size_t free = 0, total = 0;
  if (cudaMemGetInfo(&free, &total) != cudaSuccess) return {};
  return {free, total};
}

std::string device_uuid() {
  int device = 0;
  cudaDeviceProp properties{};
  if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&properties, device) != cudaSuccess) return {};
  return std::string(properties.uuid.bytes, sizeof properties.uuid.bytes);
}

}  // namespace meridian::fft::cuda
