#include "solvers/cfd/immersed_bodies.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "parallel/copies.hpp"
#include "parallel/launch_policy.hpp"
#include "solvers/common/kokkos_math.hpp"

namespace meridian::cfd {

namespace {

using Point = std::array<double, 3>;

// A body in the form its inside test wants (host only: classification runs once, on the host).
struct Body {
  BodyShape shape;
  Point centre;
  double radius = 0;                // circle, sphere
  double chord = 0;                 // naca
  double cos_alpha = 1, sin_alpha = 0;
  NacaSection section;
  // Outside this box (a little larger than the body; unbounded along z but for a sphere in 3-D) the inside
  // test is false without evaluating the shape: it spares most faces of a large grid the shape's arithmetic.
  std::array<Point, 2> box;
};

double square(double x) { return x * x; }

// Half thickness y_t and camber y_c of a NACA 4-digit section at x = xc chord (0 <= xc <= 1), in chords.
double naca_half_thickness(const NacaSection& s, double xc) {
  return 5 * s.thickness *
         (0.2969 * std::sqrt(xc) - 0.1260 * xc - 0.3516 * xc * xc + 0.2843 * xc * xc * xc - 0.1015 * xc * xc * xc * xc);
}

double naca_camber(const NacaSection& s, double xc) {
  const double m = s.camber, p = s.camber_position;
  if (m == 0) return 0;
  return xc < p ? m / square(p) * (2 * p * xc - xc * xc) : m / square(1 - p) * ((1 - 2 * p) + 2 * p * xc - xc * xc);
}

// A point in the section's frame, in chords: x from the leading edge along the chord, y normal to it. The body
// is the frame rotated by -alpha about the quarter chord (nose up for alpha > 0), so the frame is the world
// rotated by +alpha.
std::array<double, 2> naca_frame(const Body& b, const Point& p) {
  const double dx = p[0] - b.centre[0], dy = p[1] - b.centre[1];
  return {(b.cos_alpha * dx - b.sin_alpha * dy) / b.chord + 0.25, (b.sin_alpha * dx + b.cos_alpha * dy) / b.chord};
}

// The world point of the section's frame point (xc, yc), in chords.
Point naca_world(const Body& b, double xc, double yc) {
  const double dx = (xc - 0.25) * b.chord, dy = yc * b.chord;
  return {b.centre[0] + b.cos_alpha * dx + b.sin_alpha * dy, b.centre[1] - b.sin_alpha * dx + b.cos_alpha * dy,
          b.centre[2]};
}

bool inside(const Body& b, const Point& p, int dimensions) {
  for (int a = 0; a < dimensions; ++a)
    if (p[a] < b.box[0][a] || p[a] > b.box[1][a]) return false;
  switch (b.shape) {
    case BodyShape::circle:
      return square(p[0] - b.centre[0]) + square(p[1] - b.centre[1]) <= square(b.radius);
    case BodyShape::sphere: {
      const double z2 = dimensions == 3 ? square(p[2] - b.centre[2]) : 0.0;
      return square(p[0] - b.centre[0]) + square(p[1] - b.centre[1]) + z2 <= square(b.radius);
    }
    case BodyShape::naca: {
      const auto [xc, yc] = naca_frame(b, p);
      return xc >= 0 && xc <= 1 && std::abs(yc - naca_camber(b.section, xc)) <= naca_half_thickness(b.section, xc);
    }
  }
  return false;
}

const char* shape_name(BodyShape s) {
  switch (s) {
    case BodyShape::circle: return "circle";
    case BodyShape::sphere: return "sphere";
    case BodyShape::naca: return "naca";
  }
  return "body";
}

// Axis-aligned bounding box of a body in x and y, and in z for a sphere (a circle or naca spans z).
std::array<Point, 2> bounds_of(const Body& b) {
  if (b.shape != BodyShape::naca)
    return {Point{b.centre[0] - b.radius, b.centre[1] - b.radius, b.centre[2] - b.radius},
            Point{b.centre[0] + b.radius, b.centre[1] + b.radius, b.centre[2] + b.radius}};
  // The outline sampled with cosine spacing, fine at the leading edge where it curves most.
  constexpr int samples = 2001;
  std::array<Point, 2> box{b.centre, b.centre};
  for (int n = 0; n < samples; ++n) {
    const double xc = 0.5 * (1 - std::cos(pi * n / (samples - 1)));
    const double yc = naca_camber(b.section, xc), yt = naca_half_thickness(b.section, xc);
    for (const double y : {yc - yt, yc + yt}) {
      const Point p = naca_world(b, xc, y);
      for (int a = 0; a < 2; ++a) box[0][a] = std::min(box[0][a], p[a]), box[1][a] = std::max(box[1][a], p[a]);
    }
  }
  return box;
}

Body body_of(const BodySpec& spec) {
  if (!(spec.size > 0))
    throw std::invalid_argument(std::string(shape_name(spec.shape)) + ": the size (" +
                                (spec.shape == BodyShape::naca ? "chord" : "diameter") + ") must be positive");
  Body b{spec.shape, spec.centre};
  if (spec.shape == BodyShape::naca) {
    b.section = parse_naca(spec.naca_code);
    b.chord = spec.size;
    const double alpha = spec.angle_of_attack * pi / 180;
    b.cos_alpha = std::cos(alpha), b.sin_alpha = std::sin(alpha);
  } else {
    b.radius = spec.size / 2;
  }
  // The sampled outline of a naca body may miss its true extremes by far less than this margin.
  const double margin = 1e-3 * spec.size;
  b.box = bounds_of(b);
  for (int a = 0; a < 3; ++a) b.box[0][a] -= margin, b.box[1][a] += margin;
  if (b.shape != BodyShape::sphere) b.box[0][2] = -std::numeric_limits<double>::infinity(), b.box[1][2] = -b.box[0][2];
  return b;
}

// Distance from `from` (outside body b) along axis `axis`, direction `step` (+-1), to b's surface, knowing the
// point `length` away is inside: bisection on the inside test.
double distance_to_surface(const Body& b, const Point& from, int axis, int step, double length, int dimensions) {
  double outside_at = 0, inside_at = length;
  for (int iteration = 0; iteration < 100 && inside_at - outside_at > 1e-15 * length; ++iteration) {
    const double middle = 0.5 * (outside_at + inside_at);
    Point p = from;
    p[axis] += step * middle;
    (inside(b, p, dimensions) ? inside_at : outside_at) = middle;
  }
  return 0.5 * (outside_at + inside_at);
}

constexpr int no_body = -1;

int body_containing(const std::vector<Body>& bodies, const Point& p, int dimensions) {
  for (std::size_t n = 0; n < bodies.size(); ++n)
    if (inside(bodies[n], p, dimensions)) return static_cast<int>(n);
  return no_body;
}

// One forced face as classification finds it: target = weight u*(neighbour) + far_weight u*(far_neighbour).
struct ForcedFace {
  long face, neighbour, far_neighbour;  // flat indices into the velocity field
  double weight, far_weight;
};

// The grid as classification sees it.
struct Grid {
  int dimensions;
  std::array<long, 3> cells, offset;
  Point spacing;
  std::array<long, 3> extents;  // of the field along x, y, z, halos included
  std::array<long, 3> halo;     // the index of the first owned cell per axis
  Point length;                 // of the domain per axis
  // Whether a point lies strictly inside the domain: a face on or beyond its boundary is the boundaries' to set.
  bool interior(const Point& x) const {
    for (int a = 0; a < dimensions; ++a)
      if (!(x[a] > 0 && x[a] < length[a])) return false;
    return true;
  }
  // Index of face (c; index) in a contiguous LayoutRight field (c, z, y, x).
  long flat(int c, const std::array<long, 3>& index) const {
    return ((c * extents[2] + index[2]) * extents[1] + index[1]) * extents[0] + index[0];
  }
  // Position of face (c; index) with index = (i, j, k) per axis.
  Point face_position(int c, const std::array<long, 3>& index) const {
    Point x{0, 0, 0};
    for (int a = 0; a < dimensions; ++a) x[a] = (offset[a] + index[a] - halo[a] + (a == c ? 0.0 : 0.5)) * spacing[a];
    return x;
  }
};

// A grid line's crossing of a surface is imposed on the fluid face before it if that face lies within this
// fraction of a spacing of the surface, else on the solid face after it (a ghost).
constexpr double nearest_forced = 0.5;

// A ghost extrapolates quadratically only this far into the body, in units of its fluid neighbour's distance
// from the surface (g >= 2 h / 3): its nearer weight is then at most 1 in size, as the linear profile's. Ghosts
// extrapolated from g = h / 2 (weights -2 and 1/3) made the Schaefer-Turek 2D-1 run at D/h = 8 blow up by t = 1.5.
constexpr double quadratic_reach = 0.5;

// The target of face (c; index) at x from the profile along axis a through the fluid faces one and two spacings
// away in direction `away` (+-1): u = A s + B s^2 in the distance s from the surface, through the first at s1
// and the second at s1 + h, evaluated at the face's s (negative inside the body); where the second is not a
// fluid face inside the domain, or s lies deeper than quadratic_reach s1, u = A s through the first alone.
// Either is exact for a field of its form that vanishes on the surface. Zero where the first face is itself
// solid (a body thinner than two faces there).
void set_line_profile(const std::vector<Body>& bodies, const Grid& g, int c, const std::array<long, 3>& index,
                      const Point& x, int a, int away, double s, double s1, ForcedFace& forced) {
  std::array<long, 3> near = index, far = index;
  near[a] += away, far[a] += 2 * away;
  Point y = x;
  y[a] += 2 * away * g.spacing[a];
  const bool quadratic =
      g.interior(y) && body_containing(bodies, y, g.dimensions) == no_body && s >= -quadratic_reach * s1;
  y[a] -= away * g.spacing[a];
  const bool through_fluid = body_containing(bodies, y, g.dimensions) == no_body;
  const double h = g.spacing[a];
  forced.neighbour = g.flat(c, near);
  forced.far_neighbour = quadratic ? g.flat(c, far) : forced.neighbour;
  forced.weight = !through_fluid ? 0.0 : quadratic ? s * (s - s1 - h) / (s1 * -h) : s / s1;
  forced.far_weight = through_fluid && quadratic ? s * (s - s1) / ((s1 + h) * h) : 0.0;
}

// For a solid face of body `solid` at x: a ghost if the fluid face one spacing away along some axis lies at
// least h / 2 from the surface, so that line's crossing is this face's to impose. The line with the fluid face
// farthest from the surface (the ghost nearest it) wins: |weight| <= 1 and |far_weight| <= 1/5 (set_line_profile).
// Otherwise the target stays 0.
void choose_ghost_line(const std::vector<Body>& bodies, int solid, const Grid& g, int c, const std::array<long, 3>& index,
                       const Point& x, ForcedFace& forced) {
  double farthest = -1;
  for (int a = 0; a < g.dimensions; ++a)
    for (const int step : {-1, 1}) {
      Point across = x;
      across[a] += step * g.spacing[a];
      if (body_containing(bodies, across, g.dimensions) != no_body) continue;
      const double fluid_side = distance_to_surface(bodies[solid], across, a, -step, g.spacing[a], g.dimensions);
      if (fluid_side / g.spacing[a] < nearest_forced || fluid_side / g.spacing[a] <= farthest) continue;
      farthest = fluid_side / g.spacing[a];
      set_line_profile(bodies, g, c, index, x, a, step, fluid_side - g.spacing[a], fluid_side, forced);
    }
}

// Classifies one face; returns the body it is forced towards, or no_body for a fluid face.
int classify(const std::vector<Body>& bodies, const Grid& g, int c, const std::array<long, 3>& index,
             ForcedFace& forced) {
  const Point x = g.face_position(c, index);
  forced.face = forced.neighbour = forced.far_neighbour = g.flat(c, index);
  forced.weight = forced.far_weight = 0;
  const int solid = body_containing(bodies, x, g.dimensions);
  if (solid != no_body) {
    choose_ghost_line(bodies, solid, g, c, index, x, forced);
    return solid;
  }
  double best_ratio = nearest_forced;
  int body = no_body;
  for (int a = 0; a < g.dimensions; ++a)
    for (const int step : {-1, 1}) {
      Point across = x;
      across[a] += step * g.spacing[a];
      const int hit = body_containing(bodies, across, g.dimensions);
      if (hit == no_body) continue;
      const double delta = distance_to_surface(bodies[hit], x, a, step, g.spacing[a], g.dimensions);
      if (delta / g.spacing[a] >= best_ratio) continue;
      best_ratio = delta / g.spacing[a], body = hit;
      set_line_profile(bodies, g, c, index, x, a, -step, delta, delta + g.spacing[a], forced);
    }
  return body;
}

std::vector<double> mask_of(const std::vector<Body>& bodies, const Grid& g) {
  std::vector<double> mask;
  mask.reserve(static_cast<std::size_t>(g.cells[0] * g.cells[1] * g.cells[2]));
  for (long k = g.halo[2]; k < g.halo[2] + g.cells[2]; ++k)
    for (long j = g.halo[1]; j < g.halo[1] + g.cells[1]; ++j)
      for (long i = g.halo[0]; i < g.halo[0] + g.cells[0]; ++i) {
        // A cell centre is where a face of a component that does not exist (c = 3) would be.
        const Point centre = g.face_position(3, {i, j, k});
        mask.push_back(body_containing(bodies, centre, g.dimensions) == no_body ? 0.0 : 1.0);
      }
  return mask;
}

// 1 where the forcing sets the cell's divergence: its centre lies inside a body, or every face of it is
// forced (solid or forcing), so that no face is left for a pressure correction to act through; else 0.
std::vector<double> source_cells_of(const std::vector<Body>& bodies, const Grid& g, const std::vector<double>& mask) {
  std::vector<double> sources(mask);
  ForcedFace unused;
  std::size_t n = 0;
  for (long k = g.halo[2]; k < g.halo[2] + g.cells[2]; ++k)
    for (long j = g.halo[1]; j < g.halo[1] + g.cells[1]; ++j)
      for (long i = g.halo[0]; i < g.halo[0] + g.cells[0]; ++i, ++n) {
        bool all_forced = sources[n] == 0;
        for (int c = 0; c < g.dimensions && all_forced; ++c)
          for (int side = 0; side < 2 && all_forced; ++side) {
            std::array<long, 3> face{i, j, k};
            face[c] += side;
            all_forced = classify(bodies, g, c, face, unused) != no_body;
          }
        if (all_forced) sources[n] = 1;
      }
  return sources;
}

// The kernels, over the list of forced faces; `u` is the velocity field's data, contiguous.
using FaceIndices = Kokkos::View<long*>;

// Over the forced faces [begin, end): each target from u*, and the sum of u* - target.
double targets_and_force(double* u, const FaceIndices& faces, const FaceIndices& neighbours,
                         const FaceIndices& far_neighbours, const Kokkos::View<double*>& weights,
                         const Kokkos::View<double*>& far_weights, const Kokkos::View<double*>& targets, long begin,
                         long end) {
  double sum = 0;
  Kokkos::parallel_reduce(
      "ibm::targets_and_force", parallel::FlatPolicy(begin, end),
      KOKKOS_LAMBDA(const long n, double& partial) {
        const double target = weights(n) * u[neighbours(n)] + far_weights(n) * u[far_neighbours(n)];
        targets(n) = target;
        partial += u[faces(n)] - target;
      },
      sum);
  return sum;
}

// Over the forced faces [begin, end): the sum of target - u, u the projected velocity.
double projection_change(double* u, const FaceIndices& faces, const Kokkos::View<double*>& targets, long begin, long end) {
  double sum = 0;
  Kokkos::parallel_reduce(
      "ibm::projection_force", parallel::FlatPolicy(begin, end),
      KOKKOS_LAMBDA(const long n, double& partial) { partial += targets(n) - u[faces(n)]; }, sum);
  return sum;
}

void impose_targets(double* u, const FaceIndices& faces, const Kokkos::View<double*>& targets) {
  Kokkos::parallel_for(
      "ibm::impose", parallel::FlatPolicy(0, static_cast<long>(targets.extent(0))),
      KOKKOS_LAMBDA(const long n) { u[faces(n)] = targets(n); });
}

std::string describe(const BodySpec& b) {
  std::ostringstream out;
  out << shape_name(b.shape);
  if (b.shape == BodyShape::naca) out << " " << b.naca_code << " of chord " << b.size << " at quarter chord (";
  else out << " of diameter " << b.size << " centred at (";
  out << b.centre[0] << ", " << b.centre[1] << ", " << b.centre[2] << ")";
  if (b.shape == BodyShape::naca) out << ", angle of attack " << b.angle_of_attack << " degrees";
  return out.str();
}

}  // namespace

NacaSection parse_naca(const std::string& code) {
  const auto refuse = [&code](const std::string& why) {
    return std::invalid_argument("NACA code \"" + code + "\": " + why);
  };
  if (code.size() != 4 || !std::all_of(code.begin(), code.end(), [](char ch) { return ch >= '0' && ch <= '9'; }))
    throw refuse("a 4-digit code is four digits 0-9, e.g. \"0012\" or \"2412\"");
  const auto digit = [&code](int n) { return code[static_cast<std::size_t>(n)] - '0'; };
  NacaSection s;
  s.camber = digit(0) / 100.0;
  s.camber_position = digit(1) / 10.0;
  s.thickness = (10 * digit(2) + digit(3)) / 100.0;
  if (s.thickness == 0) throw refuse("the thickness (last two digits) must not be zero");
  if (s.camber > 0 && s.camber_position == 0)
    throw refuse("a cambered section needs the position of its maximum camber (second digit 1-9)");
  return s;
}

std::string outside_domain(const BodySpec& spec, const std::array<double, 3>& extent, int dimensions) {
  if (!(spec.size > 0)) return describe(spec) + ": the size must be positive";
  const auto box = bounds_of(body_of(spec));
  const int bounded_axes = spec.shape == BodyShape::sphere ? dimensions : 2;
  const char* axis_name[3] = {"x", "y", "z"};
  std::ostringstream out;
  const auto crossing = [&](int a, const char* which, double bound, double reach) {
    if (out.tellp() > 0) out << "; ";
    out << "crosses the " << which << " " << axis_name[a] << " bound (" << axis_name[a] << " = " << bound
        << "): it reaches " << axis_name[a] << " = " << reach;
  };
  for (int a = 0; a < bounded_axes; ++a) {
    if (box[0][a] < 0) crossing(a, "lower", 0.0, box[0][a]);
    if (box[1][a] > extent[a]) crossing(a, "upper", extent[a], box[1][a]);
  }
  return out.tellp() > 0 ? describe(spec) + " " + out.str() : std::string();
}

ImmersedBodies::ImmersedBodies(const std::vector<BodySpec>& specs, const mesh::Decomposition& decomp,
                               const std::array<double, 3>& spacing)
    : specs_(specs), dimensions_(decomp.dimensions()), comm_(decomp.comm()), cell_volume_(1),
      body_count_(static_cast<int>(specs.size())) {
  Grid g{dimensions_, {}, {}, spacing, {}, {}, {}};
  for (int a = 0; a < 3; ++a) {
    g.cells[a] = decomp.local_cells(a), g.offset[a] = decomp.offset(a);
    g.length[a] = static_cast<double>(decomp.global_cells(a)) * spacing[a];
    g.extents[a] = field_extents_[2 - a] = decomp.local_cells(a) + 2 * decomp.halo(a);
    g.halo[a] = decomp.halo(a);
    if (a >= dimensions_) continue;
    if (decomp.halo(a) < 2)
      throw std::invalid_argument("ImmersedBodies: the velocity field needs a halo of 2 (a forced face reads faces two away)");
    if (!(spacing[a] > 0)) throw std::invalid_argument("ImmersedBodies: the grid spacing must be positive");
    cell_volume_ *= spacing[a];
  }
  std::vector<Body> bodies;
  for (const auto& spec : specs) bodies.push_back(body_of(spec));

  // Classify, grouping the forced faces by body and component.
  std::vector<std::vector<ForcedFace>> groups(specs.size() * 3);
  ForcedFace forced;
  for (int c = 0; c < dimensions_; ++c)
    for (long k = g.halo[2]; k < g.halo[2] + g.cells[2]; ++k)
      for (long j = g.halo[1]; j < g.halo[1] + g.cells[1]; ++j)
        for (long i = g.halo[0]; i < g.halo[0] + g.cells[0]; ++i) {
          const int body = classify(bodies, g, c, {i, j, k}, forced);
          if (body != no_body) groups[static_cast<std::size_t>(body * 3 + c)].push_back(forced);
        }
  group_begin_.assign(1, 0);
  for (const auto& group : groups) group_begin_.push_back(group_begin_.back() + static_cast<long>(group.size()));
  const long count = group_begin_.back();

  faces_ = FaceIndices("ibm::faces", count), neighbours_ = FaceIndices("ibm::neighbours", count);
  far_neighbours_ = FaceIndices("ibm::far_neighbours", count);
  weights_ = Values("ibm::weights", count), far_weights_ = Values("ibm::far_weights", count);
  targets_ = Values("ibm::targets", count);
  auto faces = Kokkos::create_mirror_view(faces_), neighbours = Kokkos::create_mirror_view(neighbours_);
  auto far_neighbours = Kokkos::create_mirror_view(far_neighbours_);
  auto weights = Kokkos::create_mirror_view(weights_), far_weights = Kokkos::create_mirror_view(far_weights_);
  long n = 0;
  for (const auto& group : groups)
    for (const auto& f : group) {
      faces(n) = f.face, neighbours(n) = f.neighbour, far_neighbours(n) = f.far_neighbour;
      weights(n) = f.weight, far_weights(n) = f.far_weight;
      ++n;
    }
  parallel::copy<parallel::Copy::host_to_device>(faces_, faces);
  parallel::copy<parallel::Copy::host_to_device>(neighbours_, neighbours);
  parallel::copy<parallel::Copy::host_to_device>(far_neighbours_, far_neighbours);
  parallel::copy<parallel::Copy::host_to_device>(weights_, weights);
  parallel::copy<parallel::Copy::host_to_device>(far_weights_, far_weights);
  local_forces_.assign(specs.size() * 3, 0.0);
  cell_mask_ = mask_of(bodies, g);
  source_cells_ = source_cells_of(bodies, g, cell_mask_);
}

void ImmersedBodies::apply(const mesh::Field& velocity, double dt) {
  if (static_cast<int>(velocity.extent(0)) < dimensions_ || static_cast<long>(velocity.extent(1)) != field_extents_[0] ||
      static_cast<long>(velocity.extent(2)) != field_extents_[1] ||
      static_cast<long>(velocity.extent(3)) != field_extents_[2] || !velocity.span_is_contiguous())
    throw std::invalid_argument("ImmersedBodies::apply: the field is not a (contiguous) velocity field of this decomposition");
  if (!(dt > 0)) throw std::invalid_argument("ImmersedBodies::apply: the time step must be positive");
  double* const u = velocity.data();
  const double scale = cell_volume_ / dt;
  for (std::size_t group = 0; group < local_forces_.size(); ++group) {
    const long begin = group_begin_[group], end = group_begin_[group + 1];
    local_forces_[group] =
        end > begin ? scale * targets_and_force(u, faces_, neighbours_, far_neighbours_, weights_, far_weights_,
                                                targets_, begin, end)
                    : 0.0;
  }
  if (targets_.extent(0) > 0) impose_targets(u, faces_, targets_);
}

void ImmersedBodies::mark(const mesh::Field& field, double value) const {
  double* const u = field.data();
  const FaceIndices faces = faces_;
  Kokkos::parallel_for(
      "ibm::mark", parallel::FlatPolicy(0, static_cast<long>(faces.extent(0))), KOKKOS_LAMBDA(const long n) { u[faces(n)] = value; });
}

void ImmersedBodies::account_projection(const mesh::Field& velocity, double dt) {
  double* const u = velocity.data();
  const double scale = cell_volume_ / dt;
  for (std::size_t group = 0; group < local_forces_.size(); ++group) {
    const long begin = group_begin_[group], end = group_begin_[group + 1];
    if (end > begin) local_forces_[group] += scale * projection_change(u, faces_, targets_, begin, end);
  }
}

std::optional<std::array<double, 3>> ImmersedBodies::surface_normal(const std::array<double, 3>& point,
                                                                    double distance) const {
  for (const auto& body : specs_) {
    if (body.shape == BodyShape::naca) continue;
    const int axes = body.shape == BodyShape::sphere ? dimensions_ : 2;
    std::array<double, 3> offset{0, 0, 0};
    double radius = 0;
    for (int a = 0; a < axes; ++a) offset[a] = point[a] - body.centre[a], radius += offset[a] * offset[a];
    radius = std::sqrt(radius);
    if (radius == 0 || std::abs(radius - body.size / 2) > distance) continue;
    for (double& component : offset) component /= radius;
    return offset;
  }
  return std::nullopt;
}

std::vector<std::array<double, 3>> ImmersedBodies::forces() const {
  std::vector<double> total(local_forces_.size(), 0.0);
  MPI_Allreduce(local_forces_.data(), total.data(), static_cast<int>(total.size()), MPI_DOUBLE, MPI_SUM, comm_);
  std::vector<std::array<double, 3>> result(static_cast<std::size_t>(body_count_));
  for (std::size_t b = 0; b < result.size(); ++b)
    for (std::size_t c = 0; c < 3; ++c) result[b][c] = total[b * 3 + c];
  return result;
}

}  // namespace meridian::cfd
