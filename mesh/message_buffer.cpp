#include "mesh/message_buffer.hpp"
#include "parallel/copies.hpp"

#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif

#include <utility>

namespace meridian::mesh {
namespace {
MessagePath& process_default() {
  static MessagePath path = parallel::device_memory_is_host ? MessagePath::direct : MessagePath::staged;
  return path;
}
}  // namespace

bool mpi_is_cuda_aware() {
#if defined(MPICH) && defined(MPIX_GPU_SUPPORT_CUDA)
  return MPIX_Query_cuda_support() == 1;
#elif defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

MessagePath choose_message_path(const std::string& setting) {
  if (setting == "false") return MessagePath::staged;
  const bool device_ok = parallel::device_memory_is_host || mpi_is_cuda_aware();
  if (setting == "auto") return device_ok ? MessagePath::direct : MessagePath::staged;
  if (setting != "true") throw MessagePathError("run.gpu_aware_mpi must be true, false or \"auto\", not '" + setting + "'");
  if (!device_ok)
    throw MessagePathError(
        "run.gpu_aware_mpi = true hands device buffers to MPI, but this MPI library does not report CUDA support "
        "(MPIX_Query_cuda_support); use \"auto\" or false to stage messages through pinned host memory");
  return MessagePath::direct;
}

MessagePath default_message_path() { return process_default(); }
void set_default_message_path(MessagePath path) { process_default() = path; }

template <class T>
MessageBufferOf<T>::MessageBufferOf(const std::string& label, std::size_t size, MessagePath path)
    : device_(label, size), path_(path) {
  if (path_ == MessagePath::staged) host_ = Kokkos::View<T*, parallel::PinnedSpace>(label + "_host", size);
}

template <class T>
T* MessageBufferOf<T>::send_from(std::size_t count) {
  if (path_ == MessagePath::direct) return device_.data();
  const std::pair<std::size_t, std::size_t> first(0, count);
  // Fences: MPI may read the buffer as soon as this returns.
  parallel::copy<parallel::Copy::device_to_host>(Kokkos::subview(host_, first), Kokkos::subview(device_, first));
  return host_.data();
}

template <class T>
T* MessageBufferOf<T>::receive_into() {
  return path_ == MessagePath::direct ? device_.data() : host_.data();
}

template <class T>
void MessageBufferOf<T>::received(std::size_t count) {
  if (path_ == MessagePath::direct) return;
  const std::pair<std::size_t, std::size_t> first(0, count);
  parallel::copy<parallel::Copy::host_to_device>(Kokkos::subview(device_, first), Kokkos::subview(host_, first));
}

template class MessageBufferOf<float>;
template class MessageBufferOf<double>;

}  // namespace meridian::mesh
