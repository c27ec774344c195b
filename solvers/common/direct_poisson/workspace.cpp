#include "solvers/common/direct_poisson/workspace.hpp"

#include <string>

namespace meridian::direct_poisson {

namespace {

const char* label(Workspace::Use use) {
  switch (use) {
    case Workspace::Use::pencil: return "direct_poisson::pencil";
    case Workspace::Use::fft_real: return "direct_poisson::fft_real";
    case Workspace::Use::fft_spectrum: return "direct_poisson::fft_spectrum";
    case Workspace::Use::mode_systems: return "direct_poisson::mode_systems";
    case Workspace::Use::right_hand_side: return "direct_poisson::right_hand_side";
    case Workspace::Use::solution: return "direct_poisson::solution";
  }
  return "direct_poisson::workspace";
}

}  // namespace

Workspace::Workspace() : shared_(std::make_shared<Arrays>()) {}

Kokkos::View<double*> Workspace::array(Use use, int slot, std::size_t size) {
  Kokkos::View<double*>& kept = shared_->arrays[{use, slot}];
  if (kept.extent(0) < size) kept = Kokkos::View<double*>(label(use) + std::string(" ") + std::to_string(slot), size);
  return Kokkos::subview(kept, std::make_pair(std::size_t{0}, size));
}

mesh::MessageBuffer Workspace::message_buffer(Message use, std::size_t size, mesh::MessagePath path) {
  mesh::MessageBuffer& kept = shared_->buffers[{use, path}];
  if (kept.values().extent(0) < size)
    kept = mesh::MessageBuffer(use == Message::send ? "direct_poisson::send" : "direct_poisson::receive", size, path);
  return kept;
}

}  // namespace meridian::direct_poisson
