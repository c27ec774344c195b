#pragma once
// The arrays a direct solve needs only while it runs (its pencils, message buffers, Makhoul's FFT arrays, the
// Thomas kernel's coefficients), shared by the solvers of a run that solve one after another on one stream. A
// projection's pressure solve and its three Crank-Nicolson ones held a set each: on two ranks 40% of a 3-D
// cavity's memory, on a GPU more. A solver takes a copy of the run's Workspace (copies share its arrays; a
// default-made one shares with nobody) and asks it for each array by use and slot. A slot's array is made by its
// first request and made again by a longer one, whose earlier holders keep the shorter array: sharing is whole
// where the largest solver asks first. Values live within a solve, not across solves; two arrays of one solver
// alive at once (a stage's input and output pencils) take different slots.
#include <Kokkos_Core.hpp>

#include <cstddef>
#include <map>
#include <memory>
#include <utility>

#include "mesh/message_buffer.hpp"

namespace meridian::direct_poisson {

class Workspace {
 public:
  enum class Use { pencil, fft_real, fft_spectrum, mode_systems, right_hand_side, solution };
  enum class Message { send, receive };

  Workspace();
  // The first `size` values of the slot's array.
  Kokkos::View<double*> array(Use use, int slot, std::size_t size);
  // A message buffer of at least `size` values, one for each use and path.
  mesh::MessageBuffer message_buffer(Message use, std::size_t size, mesh::MessagePath path);

 private:
  struct Arrays {
    std::map<std::pair<Use, int>, Kokkos::View<double*>> arrays;
    std::map<std::pair<Message, mesh::MessagePath>, mesh::MessageBuffer> buffers;
  };
  std::shared_ptr<Arrays> shared_;
};

}  // namespace meridian::direct_poisson
