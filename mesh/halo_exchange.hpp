#pragma once
// Halo exchange for fields on a Cartesian decomposition. Axes are exchanged one after the other;
// each axis sends one message per neighbour holding every field handed in, packed by Kokkos
// kernels into a contiguous buffer. When corners are asked for, the later axes carry the halos
// the earlier ones filled, which fills edge and corner halos without diagonal messages.
#include <vector>

#include "mesh/decomposition.hpp"
#include "mesh/field.hpp"

namespace meridian::mesh {

enum class Corners { skip, fill };

class HaloExchange {
 public:
  // Buffers are sized for `components` doubles per cell in total over the fields exchanged together.
  HaloExchange(const Decomposition& decomp, int components);

  // Fills the halos of every field from the neighbouring ranks (or the periodic image).
  // Halos across an open boundary are left as they are: the solver owns those.
  void exchange(const std::vector<Field>& fields, Corners corners = Corners::skip);
  void exchange(const Field& field, Corners corners = Corners::skip) { exchange(std::vector<Field>{field}, corners); }

 private:
  struct Box {
    std::array<long, 3> lo, hi;  // per axis x, y, z, in halo-inclusive indices
    long volume() const { return (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]); }
  };
  using Buffer = Kokkos::View<double*>;

  void exchange_axis(const std::vector<Field>& fields, int axis, Corners corners);
  Box slab(int axis, bool upper, bool halo_side, Corners corners) const;

  const Decomposition& decomp_;
  int components_;
  std::array<Buffer, 2> send_, recv_;
  std::array<Buffer::HostMirror, 2> send_host_, recv_host_;
};

}  // namespace meridian::mesh
