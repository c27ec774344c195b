#pragma once
// Halo exchange for fields on a Cartesian decomposition. Axes are exchanged one after the other;
// each axis sends one message per neighbour, packed by Kokkos kernels into a contiguous buffer; a
// periodic axis this rank holds whole is filled by a copy within the field, without a message.
// When corners are asked for, the later axes carry the halos the earlier ones filled, which fills
// edge and corner halos without diagonal messages. Buffers are made once, at construction; MPI
// takes them directly (CUDA-aware MPI) or through pinned host copies of the bytes sent, one copy each way
// per axis for both sides.
// The device is waited for once per axis with a neighbour, after packing, because MPI reads the buffers;
// nowhere else: unpacking and the periodic copies are kernels ordered before the kernels that read the
// halos, and the next exchange's wait before MPI comes after this one's unpacking, so the receive buffers
// are free again when MPI writes them. An axis walled on both sides costs nothing.
#include <array>

#include "mesh/decomposition.hpp"
#include "mesh/field.hpp"
#include "mesh/message_buffer.hpp"

namespace meridian::mesh {

enum class Corners { skip, fill };

// Exchanges fields of values of type T; its buffers and messages carry T, so a single-precision
// field sends half the bytes of a double one.
template <class T>
class HaloExchangeOf {
 public:
  // Buffers are sized for fields of up to `components` components.
  HaloExchangeOf(const Decomposition& decomp, int components, MessagePath path = default_message_path());

  // Fills the halos of the field from the neighbouring ranks (or the periodic image).
  // Halos across an open boundary are left as they are: the solver owns those.
  void exchange(const FieldOf<T>& field, Corners corners = Corners::skip);

  // The halos across one axis only (no edges or corners): a dimensionally split solver's sweep reads
  // no others, and skips the messages of the other axes.
  void exchange_across(const FieldOf<T>& field, int axis);

 private:
  void check_components(const FieldOf<T>& field) const;
  void exchange_axis(const FieldOf<T>& field, int axis, Corners corners);

  const Decomposition& decomp_;
  int components_;
  MessageBufferOf<T> send_, receive_;  // both sides: towards the lower neighbour, then the upper one
};

using HaloExchange = HaloExchangeOf<double>;

}  // namespace meridian::mesh
