#pragma once
// The domain faces of the MAC projection solver: how each sets the halo values of the velocity. A face
// normal to axis a sets the normal velocity on itself and mirrors the tangential components into the
// ghost cells beyond it:
//   wall       u_n = 0, ghost = 2 U_wall - interior (U_wall along the first tangential axis, the lid)
//   free_slip  u_n = 0, ghost = interior
//   inflow     u_n = the inflow profile (uniform or parabolic, ramped in time), ghost = -interior
//   outflow    u_n from zero gradient or the convective equation before the projection, and after it
//              the value that makes its cell divergence-free; ghost = interior; the pressure is 0 there.
// A fill exchanges the halos (edges and corners too) and applies the faces over their whole planes, halos
// included: a face changes no owned value but its own normal component, which every rank holding the face
// computes alike, and its ghosts in a rank's halos come from the values the exchange brought, the values the
// neighbour uses for the same ghosts, so no second exchange is needed; except after the outflow faces are set
// by continuity, on owned cells only.
#include <array>

#include "mesh/decomposition.hpp"
#include "mesh/halo_exchange.hpp"
#include "solvers/cfd/mac_grid.hpp"

namespace meridian::cfd {

enum class OutflowKind { zero_gradient, convective };

struct BoundarySettings {
  std::array<std::array<FaceKind, 2>, 3> face{};  // [axis][lower, upper]; ignored on periodic axes
  std::array<std::array<double, 2>, 3> wall_velocity{};
  InflowProfile profile = InflowProfile::uniform;
  double inflow_velocity = 0;  // uniform: the value; parabolic: the maximum, at the face's centre
  double inflow_ramp_time = 0;  // the inflow grows as sin^2(pi t / 2 T) up to t = T; 0: no ramp
  OutflowKind outflow = OutflowKind::zero_gradient;
};

// state: the velocity at a time level (outflow faces by continuity); predicted: the velocity before its
// projection (outflow faces kept as the outflow rule set them); homogeneous: an increment, every
// prescribed value zero (the Crank-Nicolson solve).
enum class Fill { state, predicted, homogeneous };
// The ghost layers a fill sets at the domain's faces: all of them (the advection's and the fourth-order
// stencils' reach), or the first alone (a divergence's or a second-order Laplacian's), whose faces' passes are
// a third as many in 3-D (the exchange between ranks fills every layer either way). Layers a fill leaves keep
// older values, which nothing reads before a fill of every layer.
enum class Layers { all, first };

class MacBoundaries {
 public:
  MacBoundaries(const mesh::Decomposition& decomp, const MacGrid& grid, const BoundarySettings& settings);

  void fill(const mesh::Field& velocity, Fill mode, double time, Layers layers = Layers::all);
  // The outflow faces' normal velocity before the projection: the convective rule (from the velocity at
  // the old time level, before the predictor changes it) and the zero-gradient one (after it).
  void outflow_before_predictor(const mesh::Field& velocity, double dt);
  void outflow_after_predictor(const mesh::Field& velocity);
  bool any(FaceKind kind) const;
  const MacGrid& grid() const { return grid_; }
  const BoundarySettings& settings() const { return settings_; }

 private:
  void apply_faces(const mesh::Field& velocity, Fill mode, Layers layers);
  double mean_normal_velocity(const mesh::Field& velocity, int axis, int side) const;

  const mesh::Decomposition& decomp_;
  MacGrid grid_;
  BoundarySettings settings_;
  mesh::HaloExchange exchange_;
};

}  // namespace meridian::cfd
