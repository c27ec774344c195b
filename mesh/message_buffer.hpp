#pragma once
// Buffers for MPI messages of device data, made once and reused by every exchange. With an MPI
// that reads and writes device memory (CUDA-aware) the library gets the device buffer itself
// ("direct"); otherwise each message is staged through a pinned host buffer ("staged"), and only
// the values sent or received cross, not the whole buffer.
#include <Kokkos_Core.hpp>

#include <cstddef>
#include <stdexcept>
#include <string>

#include "parallel/device_memory.hpp"

namespace meridian::mesh {

enum class MessagePath { staged, direct };

// Whether the MPI library says it takes CUDA device pointers (MPIX_Query_cuda_support where the
// library has it; false where it cannot say).
bool mpi_is_cuda_aware();

// Thrown for a `run.gpu_aware_mpi` setting this build and MPI library cannot honour.
class MessagePathError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// "auto": direct where device memory is host memory or MPI is CUDA-aware, else staged;
// "true": direct (refused with MessagePathError when device buffers would reach an MPI that is not
// CUDA-aware); "false": staged.
MessagePath choose_message_path(const std::string& setting);

// The path exchanges use unless told otherwise; the driver sets it from the deck at start.
MessagePath default_message_path();
void set_default_message_path(MessagePath path);

// Of values of type T: double for the FFT's transposes and most fields, float for single-precision ones.
template <class T>
class MessageBufferOf {
 public:
  MessageBufferOf() = default;
  MessageBufferOf(const std::string& label, std::size_t size, MessagePath path);

  // Where the pack kernels write and the unpack kernels read.
  const Kokkos::View<T*>& values() const { return device_; }
  // The pointer MPI sends from, once the first `count` values are packed and fenced.
  T* send_from(std::size_t count);
  // The pointer MPI receives into.
  T* receive_into();
  // After MPI has received `count` values: brings them to values().
  void received(std::size_t count);

 private:
  Kokkos::View<T*> device_;
  Kokkos::View<T*, parallel::PinnedSpace> host_;
  MessagePath path_ = MessagePath::staged;
};

using MessageBuffer = MessageBufferOf<double>;

}  // namespace meridian::mesh
