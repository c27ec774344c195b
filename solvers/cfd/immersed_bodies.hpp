#pragma once
// Stationary rigid bodies in the MAC grid by second-order direct forcing (Fadlun, Verzicco, Orlandi &
// Mohd-Yusof 2000, J. Comput. Phys. 161), with the crossing of each grid line imposed on whichever of the two
// faces around it lies nearer the surface: the fluid face, by interpolation, if it is within h / 2 of the
// surface; else the solid face, as a ghost, by extrapolation (as ghost-cell methods, Tseng & Ferziger 2003,
// J. Comput. Phys. 192). Either way the velocity along that line is zero at the true surface, so the no-slip
// condition holds there rather than at the nearest face (a staircase), and quadratic through the two fluid
// faces beyond the forced one (linear through the nearer one where that is not possible, below): the value
// handed to the next face's viscous term is then exact to O(h^3), where a linear profile's O(h^2) is an O(1)
// error in that term. At D/h = 32 the quadratic profile brings the Schaefer-Turek 2D-1 lift to 18% above the
// benchmark's (linear: 57% below) and the 2D-2 c_L,max from 7.7% to 4.0% below its interval, and at D/h = 16 it
// halves the 2D-1 lift's spread over quarter-cell moves of the cylinder (scripts/validation/README.md).
// Forcing every fluid face with a solid neighbour instead (Fadlun's choice)
// switches a face from its momentum equation to an interpolation as soon as its neighbour, a whole spacing
// away, crosses the surface. At D/h = 16 that made the Schaefer-Turek 2D-1 drag vary by 1.1% as the cylinder
// moved by quarters of a cell, and with the cylinder 0.03 cells off the channel's centre line the pressure in
// the cells beside it differed from their mirror images by up to 80% of the dynamic pressure (20 times what
// the split leaves; scripts/validation/README.md).
//
// Face classes, found once on the host when the object is made (the bodies do not move):
//   solid    the face lies inside a body (a point on the surface counts as inside); a ghost if along some
//            axis its neighbour f + s e_a is a fluid face at least h_a / 2 from the surface;
//   forcing  a fluid face f with a solid neighbour f + s e_a along some axis a (s = +-1) and the surface less
//            than h_a / 2 away along that line;
//   fluid    the rest, untouched.
// For a forcing face, delta is the distance from f to the surface along the grid line towards f + s e_a
// (bisection on the body's inside test, to about 1e-15 h_a), and the line with the smallest delta / h_a is
// used (the first in the order x-, x+, y-, y+, z-, z+ on a tie). The target is
// u(f - s e_a) 2 delta / (delta + h_a) - u(f - 2 s e_a) delta / (delta + 2 h_a), exact for a field quadratic
// along that line that vanishes on the surface; zero if f - s e_a is itself solid (a body thinner than two
// faces there). For a ghost, with g the distance from its fluid neighbour to the surface (the line with the
// largest g / h_a), the target is -u(f + s e_a) 2 (h_a - g) / g + u(f + 2 s e_a) (h_a - g) / (g + h_a), exact
// for the same field, where g >= 2 h_a / 3 (deeper ghosts, extrapolated with weights up to -2, made a D/h = 8
// cylinder's run blow up). Where g < 2 h_a / 3 or the face two spacings off is solid or outside the domain, the
// profile is linear through the nearer face alone (u(f - s e_a) delta / (delta + h_a), -u(f + s e_a)
// (h_a - g) / g). Other solid faces get zero. A face belongs to the body that contains it (the first in the list if bodies
// overlap), or for a forcing face to the body whose surface the chosen line crosses.
//
// Shapes: circle (2-D: a disc in x-y; 3-D: a cylinder along z through the whole domain), sphere (3-D; in 2-D
// its x-y cross-section, a disc), naca (a NACA 4-digit section in x-y, extruded along z in 3-D). The NACA
// thickness is the classic open-trailing-edge form (-0.1015 x^4, trailing edge 0.126 % of the chord thick),
// applied vertically to the camber line (|y - y_c(x)| <= y_t(x), not normal to it): exact for symmetric
// sections, a small distortion of cambered ones, fine for demonstrations.
//
// Velocity layout: component c (0: u, 1: v, 2: w) of a mesh::Field at the lower face along axis c of the cell
// of the same index (c, k, j, i), a halo of H >= 2 cells on every axis of the grid's dimensions; face
// (c; k, j, i) sits at x_a = (offset(a) + index_a - H + (a == c ? 0 : 0.5)) h_a, the domain starting at 0.
//
// Forcing faces and ghosts read neighbours one and two faces away, which may be halo faces: apply() needs the
// halos filled. Keep bodies at least one cell from a wall (outside_domain checks only that they lie in the box).
#include <Kokkos_Core.hpp>
#include <mpi.h>

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "mesh/decomposition.hpp"
#include "mesh/field.hpp"

namespace meridian::cfd {

enum class BodyShape { circle, sphere, naca };

struct BodySpec {
  BodyShape shape = BodyShape::circle;
  std::array<double, 3> centre{0, 0, 0};  // circle, sphere: the centre; naca: the quarter-chord point
  double size = 0;                         // circle, sphere: the diameter; naca: the chord (length units)
  std::string naca_code = "0012";          // 4 digits, naca only
  double angle_of_attack = 0;              // degrees, naca only: nose up for a flow along +x, about the quarter chord
};

// A NACA 4-digit code "MPTT" as fractions of the chord: camber m = M/100 at p = P/10, thickness t = TT/100.
struct NacaSection {
  double camber = 0, camber_position = 0, thickness = 0;
};
// Throws std::invalid_argument, saying why, unless `code` is four digits with a non-zero thickness and, where
// the camber is non-zero, a camber position of 1 to 9 tenths.
NacaSection parse_naca(const std::string& code);

// Empty if the body lies inside the box [0, extent] on every axis of `dimensions` (a circle in 3-D spans z, so
// only x and y are checked for it; a sphere in 2-D only in x and y) and has a positive size; else a message
// saying which bound it crosses (every one it crosses, "; " between them), for a deck error. A naca body's
// extent comes from its outline sampled at 2001 points. Throws std::invalid_argument for a bad NACA code.
std::string outside_domain(const BodySpec& body, const std::array<double, 3>& extent, int dimensions);

class ImmersedBodies {
 public:
  // Classifies every owned face of every velocity component (host code, then copied to device views); throws
  // std::invalid_argument for a bad NACA code, a non-positive size or spacing, or a halo under 2. The
  // decomposition must outlive this object (forces() reduces over its communicator).
  ImmersedBodies(const std::vector<BodySpec>& bodies, const mesh::Decomposition& decomp,
                 const std::array<double, 3>& spacing);
  bool empty() const { return body_count_ == 0; }

  // Direct forcing of the predicted velocity u* (halos filled), in place, then records per body the force the
  // fluid exerts on it over this call: sum over its solid and forcing faces of (u* - u_target) / dt * cell
  // volume (density 1), per component. Two passes over the list of forced faces: per body and component one
  // Kokkos parallel_reduce over its contiguous part of the list computes the targets from u* into a view of
  // their own and sums u* - target (no atomics: bitwise reproducible on a given backend and rank count), then
  // one kernel writes the targets; no face is overwritten before every target is known, so the order does not
  // matter. Local: no communication (forces() does it). Allocates nothing. Throws std::invalid_argument unless
  // dt > 0 and `velocity` is a contiguous field shaped like mesh::make_field's for this decomposition, with at
  // least `dimensions` components.
  void apply(const mesh::Field& velocity, double dt);

  // After the projection, which moves the forced faces off their targets by -dt grad(phi): adds that change's
  // reaction, sum of (target - u) / dt * cell volume, to the force of the last apply(). The force of a step is
  // then the whole of what the body did to its faces, (u* - u^{n+1}) / dt, and no longer carries the last
  // step's correction scaled by the ratio of the two steps (a 40% jump in a cylinder's drag where the driver
  // shortened the last step to land on an output time).
  void account_projection(const mesh::Field& velocity, double dt);

  // Sets every forced face (solid or forcing) of a field shaped like the velocity to `value`.
  void mark(const mesh::Field& field, double value) const;

  // Per body, the force from the last apply() (zero before one), summed over all ranks: collective. Three
  // components (z = 0 in 2-D). Equal across rank counts to round-off (the sums' order changes).
  std::vector<std::array<double, 3>> forces() const;

  // The outward unit normal at the point of a circle's or sphere's surface nearest `point`, where `point` lies
  // within `distance` of that surface (a circle's normal lies in x-y); none for a naca body or a point
  // farther off. For reading a wall value by extrapolation along the normal.
  std::optional<std::array<double, 3>> surface_normal(const std::array<double, 3>& point, double distance) const;

  // Owned cells in C order (z, y, x; x fastest): 1 where the cell centre is inside any body, else 0.
  const std::vector<double>& cell_mask() const { return cell_mask_; }
  // Owned cells in the same order: 1 where the bodies, not continuity, set the divergence: the cell's centre
  // is inside a body, or every face of the cell is forced (a fluid cell pinched between a surface's forced
  // faces: its velocities are all prescribed, and a pressure correction could only move them off their
  // targets, which the next forcing undoes, so its pressure would drift step after step); else 0.
  const std::vector<double>& source_cells() const { return source_cells_; }

 private:
  using FaceIndices = Kokkos::View<long*>;  // flat indices into a contiguous velocity field
  using Values = Kokkos::View<double*>;

  std::vector<BodySpec> specs_;
  int dimensions_;
  MPI_Comm comm_;
  std::array<long, 3> field_extents_;  // (z, y, x) extents with halos, as mesh::make_field
  double cell_volume_;
  int body_count_;
  // The forced faces (solid and forcing), grouped by body, then component: group b * 3 + c is
  // [group_begin_[b * 3 + c], group_begin_[b * 3 + c + 1]).
  FaceIndices faces_, neighbours_, far_neighbours_;  // a face, and the two faces its target is found from
  Values weights_, far_weights_, targets_;  // target = weight u*(neighbour) + far_weight u*(far_neighbour)
  std::vector<long> group_begin_;
  std::vector<double> local_forces_;  // body * 3 + component
  std::vector<double> cell_mask_, source_cells_;
};

}  // namespace meridian::cfd
