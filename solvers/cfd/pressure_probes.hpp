#pragma once
// The pressure at fixed points of a MAC projection run (a deck's probes), all read in one kernel and one
// reduction over the ranks. A point's pressure is interpolated (bi- or trilinearly) between the cell centres
// around it where continuity holds (weight 0 in the bodies' source cells). A point on a circle's or sphere's
// surface (within h/4, h the largest spacing) takes the wall value, extrapolated along the normal by the
// cubic through such interpolations 1, 2, 3 and 4 h off the surface. Next to a stagnation point the pressure
// bends within a few cells of the wall (Schaefer-Turek 2D-1: p_nn about 100 at 1.5 h, the same on every
// grid), which a line through two samples (1.5 h, 3 h) misses by 4.5 h^2 p_nn: its dP was 1.57% below the
// interval's middle at D/h = 32 and 0.95% at 48, the cubic's is 0.32% and 0.10%
// (scripts/validation/README.md).
//
// Each interpolation is computed by the rank whose cells include the lower corner of its cell of centres
// (the upper neighbours are in its halo); the others add zero to the reduction.
#include <Kokkos_Core.hpp>
#include <mpi.h>

#include <array>
#include <vector>

#include "mesh/decomposition.hpp"
#include "mesh/field.hpp"
#include "solvers/cfd/immersed_bodies.hpp"
#include "solvers/cfd/mac_grid.hpp"

namespace meridian::cfd {

class PressureProbes {
 public:
  // `bodies` may be null (no surface points then); it and `decomp` are read here only.
  PressureProbes(const std::vector<std::array<double, 3>>& points, const MacGrid& g, const mesh::Decomposition& decomp,
                 const ImmersedBodies* bodies);
  std::size_t size() const { return combination_.size(); }
  // The pressure at every point, in the constructor's order (collective): `p` with its halos filled, and
  // `fluid` 1 where continuity holds, 0 in the source cells, likewise.
  std::vector<double> read(const mesh::Field& p, const mesh::Field& fluid) const;

 private:
  struct Term {
    std::size_t sample;
    double weight;
  };
  int dims_;
  MPI_Comm comm_;
  // Per sample: the lower corner of its cell of centres (field indices; unused where not this rank's) and the
  // interpolation weights towards the upper neighbours; whether this rank computes it.
  Kokkos::View<int* [3]> corners_;
  Kokkos::View<double* [3]> weights_;
  Kokkos::View<int*> mine_;
  // Per sample: the sums of w p and of w over the vertices where continuity holds.
  Kokkos::View<double* [2]> sums_;
  Kokkos::View<double* [2]>::HostMirror host_sums_;
  std::vector<std::vector<Term>> combination_;  // per point: its samples and their weights
};

}  // namespace meridian::cfd
