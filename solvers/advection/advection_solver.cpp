#include "solvers/advection/advection_solver.hpp"

#include <cmath>
#include <sstream>
#include <type_traits>

#include "mesh/reductions.hpp"
#include "parallel/copies.hpp"
#include "solvers/advection/cell_average.hpp"
#include "solvers/advection/tracer_statistics.hpp"
#include "solvers/common/grid_config.hpp"
#include "solvers/common/memory_budget.hpp"
#include "solvers/common/precision.hpp"
#include "parallel/launch_policy.hpp"
#include "parallel/team_shape.hpp"
#include "solvers/common/wicker_skamarock.hpp"

namespace meridian::advection {

using mesh::FieldOf;

namespace {

// Interior index ranges of the local block, in halo-inclusive indices.
struct Block {
  int nx, ny, nz, hx, hy, hz, components;
  bool three_d;
};

Block block_of(const mesh::Decomposition& d, int components) {
  return Block{static_cast<int>(d.local_cells(0)), static_cast<int>(d.local_cells(1)),
               static_cast<int>(d.local_cells(2)), d.halo(0), d.halo(1), d.halo(2), components, d.dimensions() == 3};
}

// Every component's interior cells, and `extra` more along each axis (x, y, z).
parallel::Boxes interior(const Block& b, int components, std::array<int, 3> extra = {}) {
  return {{0, b.hz, b.hy, b.hx}, {components, b.hz + b.nz + extra[2], b.hy + b.ny + extra[1], b.hx + b.nx + extra[0]}};
}

// The interior cells, and `extra` more along every axis.
parallel::Cells interior_cells(const Block& b, int extra = 0) {
  return {{b.hz, b.hy, b.hx}, {b.hz + b.nz + extra, b.hy + b.ny + extra, b.hx + b.nx + extra}};
}

// The sum over the axes of a cell's flux differences, written once for any per-face flux, in Real.
template <class Real, class FaceFluxOf>
KOKKOS_INLINE_FUNCTION Real flux_divergence(const FaceFluxOf& flux_of, bool three_d, int k, int j, int i) {
  Real divergence = flux_of(0, k, j, i + 1) - flux_of(0, k, j, i) + flux_of(1, k, j + 1, i) - flux_of(1, k, j, i);
  if (three_d) divergence += flux_of(2, k + 1, j, i) - flux_of(2, k, j, i);
  return divergence;
}

KOKKOS_INLINE_FUNCTION void axis_offsets(int axis, int& dk, int& dj, int& di) {
  dk = axis == 2, dj = axis == 1, di = axis == 0;
}

double cell_volume(const std::array<double, 3>& h) { return h[0] * h[1] * h[2]; }

WindKind wind_kind(const std::string& name) {
  return name == "uniform" ? WindKind::uniform : name == "rotation" ? WindKind::rotation : WindKind::deformation;
}

ShapeKind shape_kind(const std::string& name) {
  if (name == "gaussian") return ShapeKind::gaussian;
  if (name == "cosine_bell") return ShapeKind::cosine_bell;
  if (name == "slotted_disk") return ShapeKind::slotted_disk;
  if (name == "sine_wave") return ShapeKind::sine_wave;
  return ShapeKind::constant;
}


// Where this rank's block sits in the global grid: the global index of the local halo-inclusive
// index 0 along each axis, and the spacing.
struct Placement {
  long ox, oy, oz;
  double dx, dy, dz;
};

Placement placement_of(const mesh::Decomposition& d, const Block& b, const std::array<double, 3>& h) {
  return Placement{d.offset(0) - b.hx, d.offset(1) - b.hy, d.offset(2) - b.hz, h[0], h[1], h[2]};
}

KOKKOS_INLINE_FUNCTION CellBounds cell_bounds(const Placement& at, int k, int j, int i) {
  return {(at.ox + i) * at.dx, (at.oy + j) * at.dy, (at.oz + k) * at.dz, at.dx, at.dy, at.dz};
}

// The volume flux through the lower face of every cell along `axis`, from the wind's vector potential:
// computed in double and stored rounded to Real.
template <class Real>
void face_fluxes(const Block& b, const Placement& at, const Wind& wind, int axis, const FaceFlux<Real>& flux) {
  const long ox = at.ox, oy = at.oy, oz = at.oz;
  const double dx = at.dx, dy = at.dy, dz = at.dz;
  parallel::for_each(
      "advection::face_fluxes", interior_cells(b, 1),
      KOKKOS_LAMBDA(const int k, const int j, const int i) {
        // Node coordinates are whole multiples of the spacing, so an edge shared by two faces
        // gets the same bits in both and its contributions cancel exactly in the divergence.
        const double x0 = (ox + i) * dx, x1 = (ox + i + 1) * dx, xc = (ox + i + 0.5) * dx;
        const double y0 = (oy + j) * dy, y1 = (oy + j + 1) * dy, yc = (oy + j + 0.5) * dy;
        const double z0 = (oz + k) * dz, z1 = (oz + k + 1) * dz, zc = (oz + k + 0.5) * dz;
        double phi = 0;
        if (axis == 0)
          phi = dz * (wind.potential(2, x0, y1, zc) - wind.potential(2, x0, y0, zc)) -
                dy * (wind.potential(1, x0, yc, z1) - wind.potential(1, x0, yc, z0));
        else if (axis == 1)
          phi = dx * (wind.potential(0, xc, y0, z1) - wind.potential(0, xc, y0, z0)) -
                dz * (wind.potential(2, x1, y0, zc) - wind.potential(2, x0, y0, zc));
        else
          phi = dy * (wind.potential(1, x1, yc, z0) - wind.potential(1, x0, yc, z0)) -
                dx * (wind.potential(0, xc, y1, z0) - wind.potential(0, xc, y0, z0));
        flux(k, j, i) = static_cast<Real>(phi);
      });
}

// Max over this rank's cells of the sum over axes of |u|/h, at time factor 1.
template <class Real>
double max_courant_rate(const Block& b, const std::array<FaceFlux<Real>, 3>& flux, double inverse_volume) {
  const auto fx = flux[0], fy = flux[1], fz = flux[2];
  double local = 0;
  parallel::reduce(
      "advection::courant_rate", interior_cells(b),
      KOKKOS_LAMBDA(const int k, const int j, const int i, double& rate) {
        double r = max_of(km::fabs(fx(k, j, i)), km::fabs(fx(k, j, i + 1))) +
                   max_of(km::fabs(fy(k, j, i)), km::fabs(fy(k, j + 1, i)));
        if (b.three_d) r += max_of(km::fabs(fz(k, j, i)), km::fabs(fz(k + 1, j, i)));
        rate = max_of(rate, r * inverse_volume);
      },
      Kokkos::Max<double>(local));
  return local;
}

// Cell averages of the tracers carried back to time 0 by `departure`, computed in double.
template <class Real>
void cell_averages(const Block& b, const Placement& at, const Departure& departure,
                   const Kokkos::View<const Shape*>& shapes, const FieldOf<Real>& target) {
  const int z_points = b.three_d ? GaussRule::points : 1;
  parallel::for_each(
      "advection::cell_averages", interior(b, b.components),
      KOKKOS_LAMBDA(const int c, const int k, const int j, const int i) {
        target(c, k, j, i) = static_cast<Real>(cell_average(shapes(c), departure, cell_bounds(at, k, j, i), z_points));
      });
}

}  // namespace

void declare_keys(io::Schema& schema) {
  using io::KeyType;
  solvers::declare_mesh_keys(schema, solvers::MeshKind::stencil);
  const std::string section = "advection";
  schema.add({section, "wind", KeyType::string, std::string("rotation"), "",
              "prescribed wind: uniform (crosses the box, wrapping along periodic axes and leaving through open faces), rotation (solid body about the centre, period 1), "
              "deformation (LeVeque 1996 swirl, reverses at period/2)",
              {"uniform", "rotation", "deformation"}});
  schema.add({section, "uniform_u", KeyType::real, 1.0, "length/time", "x velocity of the uniform wind", {}, -1e3, 1e3});
  schema.add({section, "uniform_v", KeyType::real, 0.0, "length/time", "y velocity of the uniform wind", {}, -1e3, 1e3});
  schema.add({section, "uniform_w", KeyType::real, 0.0, "length/time", "z velocity of the uniform wind", {}, -1e3, 1e3});
  schema.add({section, "period", KeyType::real, 1.5, "time", "period T of the deformational flow", {}, 0, 1e6, true});
  schema.add({section, "tracers", KeyType::string_list, std::vector<std::string>{"cosine_bell"}, "",
              "initial shape of each tracer (one tracer per entry, named after its shape)",
              {"gaussian", "cosine_bell", "slotted_disk", "sine_wave", "constant"}});
  schema.add({section, "center_x", KeyType::real, 0.5, "length", "x of the shape centre", {}, 0, 1});
  schema.add({section, "center_y", KeyType::real, 0.75, "length", "y of the shape centre", {}, 0, 1});
  schema.add({section, "center_z", KeyType::real, 0.5, "length", "z of the shape centre (3-D)", {}, 0, 1});
  schema.add({section, "radius", KeyType::real, 0.15, "length",
              "radius of the bell and disk; the Gaussian's e-folding width is radius/2", {}, 0, 0.5, true});
  schema.add({section, "courant", KeyType::real, 0.8, "1",
              "Courant number: dt = courant / max over cells of sum over axes |u|/h (RK3 with 5th-order "
              "upwinding is stable to about 1.4 in 1-D)",
              {}, 0, 2, true});
  schema.add({section, "limiter", KeyType::string, std::string("none"), "",
              "none, or fct: Zalesak flux-corrected transport on the last RK stage (bounds from the old step)",
              {"none", "fct"}});
  solvers::declare_precision_key(schema, "tracer fields");
}

namespace {
// The solver's settings from a deck, every check a deck can fail included.
Settings settings_of(const io::Deck& deck, const mesh::GridSpec& grid) {
  Settings s;
  s.wind.kind = wind_kind(deck.string("advection", "wind"));
  s.wind.u = deck.real("advection", "uniform_u");
  s.wind.v = deck.real("advection", "uniform_v");
  s.wind.w = deck.real("advection", "uniform_w");
  s.wind.period = deck.real("advection", "period");
  for (int axis = 0; axis < 3; ++axis) s.wind.periodic[axis] = grid.boundary[axis] == mesh::Boundary::periodic;
  s.courant = deck.real("advection", "courant");
  s.limiter = deck.string("advection", "limiter") == "fct";
  // The limited update is bounded by its monotone upwind step, which is monotone only up to Courant 1.
  if (s.limiter && s.courant > 1)
    deck.fail("advection", "courant", "limiter = \"fct\" keeps the bounds only with courant <= 1 (its upwind step's limit)");
  for (const auto& name : deck.strings("advection", "tracers")) {
    for (const auto& t : s.tracers)
      if (t.name == name) deck.fail("advection", "tracers", "each shape may appear once (it names the tracer)");
    Shape shape;
    shape.kind = shape_kind(name);
    shape.cx = deck.real("advection", "center_x");
    shape.cy = deck.real("advection", "center_y");
    shape.cz = deck.real("advection", "center_z");
    shape.radius = deck.real("advection", "radius");
    shape.dimensions = grid.dimensions;
    s.tracers.push_back({name, shape});
  }
  return s;
}
}  // namespace

namespace {
// Bytes a rank needs: per tracer the state and two stage buffers (and with FCT the low-order state,
// two limiter ratios and three antidiffusive fluxes) and three face fluxes, all in the deck's
// precision, and the host copy in double of the tracers an output stages. Halos add a few per cent,
// left out.
void require_memory(const io::Deck& deck, const mesh::GridSpec& grid, const Settings& s, MPI_Comm comm) {
  int ranks = 1;
  MPI_Comm_size(comm, &ranks);
  const std::uint64_t cells = solvers::saturating_product(
      {static_cast<std::uint64_t>(grid.cells[0]), static_cast<std::uint64_t>(grid.cells[1]),
       static_cast<std::uint64_t>(grid.cells[2])});
  const std::uint64_t local = cells == UINT64_MAX ? cells : (cells + ranks - 1) / ranks;
  const std::uint64_t real_size = solvers::precision(deck) == solvers::Precision::single ? sizeof(float) : sizeof(double);
  const std::uint64_t per_tracer = s.limiter ? 3 + 6 : 3;
  const std::uint64_t fields = solvers::saturating_sum(solvers::saturating_product({per_tracer, s.tracers.size()}), 3);
  const std::uint64_t bytes_per_cell = solvers::saturating_sum(
      solvers::saturating_product({fields, real_size}), solvers::saturating_product({s.tracers.size(), sizeof(double)}));
  solvers::require_memory(deck, "mesh", "nx", solvers::saturating_product({local, bytes_per_cell}),
                          "the tracer fields, stage buffers and face fluxes", comm);
}
}  // namespace

void validate(const io::Deck& deck, MPI_Comm comm) {
  const mesh::GridSpec grid = solvers::grid_spec(deck, halo_width);
  require_memory(deck, grid, settings_of(deck, grid), comm);
  try {
    const mesh::Decomposition decomposition(comm, grid);
  } catch (const mesh::DecompositionError& e) {
    deck.fail("mesh", e.key(), e.what());
  }
}

std::unique_ptr<solvers::Solver> build(const io::Deck& deck, MPI_Comm comm) {
  const mesh::GridSpec grid = solvers::grid_spec(deck, halo_width);
  const Settings s = settings_of(deck, grid);
  require_memory(deck, grid, s, comm);
  try {
    if (solvers::precision(deck) == solvers::Precision::single)
      return std::make_unique<AdvectionSolver<float>>(grid, s, comm);
    return std::make_unique<AdvectionSolver<double>>(grid, s, comm);
  } catch (const mesh::DecompositionError& e) {
    deck.fail("mesh", e.key(), e.what());
  }
}

template <class Real>
AdvectionSolver<Real>::AdvectionSolver(const mesh::GridSpec& grid, Settings settings, MPI_Comm comm)
    : settings_(std::move(settings)),
      decomp_(comm, grid),
      exchange_(decomp_, 2 * static_cast<int>(settings_.tracers.size())),
      components_(static_cast<int>(settings_.tracers.size())) {
  for (int axis = 0; axis < 3; ++axis) spacing_[axis] = 1.0 / static_cast<double>(grid.cells[axis]);
  cell_volume_ = cell_volume(spacing_);
  for (int axis = 0; axis < 3; ++axis) {
    const int h = decomp_.halo(axis);
    const int n = static_cast<int>(decomp_.local_cells(axis));
    if (!decomp_.periodic(axis)) {
      if (decomp_.at_lower_boundary(axis)) open_faces_.lower[axis] = h;
      if (decomp_.at_upper_boundary(axis)) open_faces_.upper[axis] = h + n;
    }
  }
  q_ = mesh::make_field<Real>(decomp_, components_, "advection::q");
  stage_a_ = mesh::make_field<Real>(decomp_, components_, "advection::stage_a");
  stage_b_ = mesh::make_field<Real>(decomp_, components_, "advection::stage_b");
  if (settings_.limiter) {
    low_order_ = mesh::make_field<Real>(decomp_, components_, "advection::low_order");
    limiter_ratio_ = mesh::make_field<Real>(decomp_, 2 * components_, "advection::limiter_ratio");
    for (auto& a : antidiffusive_) a = mesh::make_field<Real>(decomp_, components_, "advection::antidiffusive");
  }
  if (!parallel::device_memory_is_host) q_host_ = Kokkos::create_mirror(q_);
  for (const auto& t : settings_.tracers) {
    staged_.push_back({tracer_box(t), {}});
    staged_.back().values.resize(staged_.back().box.local_values());
  }
  Kokkos::View<Shape*> shapes("advection::shapes", components_);
  auto shapes_host = Kokkos::create_mirror_view(shapes);
  for (int c = 0; c < components_; ++c) shapes_host(c) = settings_.tracers[c].shape;
  parallel::copy<parallel::Copy::host_to_device>(shapes, shapes_host);
  shapes_ = shapes;
  compute_face_fluxes();
  compute_max_courant_rate();
  fill_cell_averages(q_, 0.0);
}

template <class Real>
void AdvectionSolver<Real>::compute_face_fluxes() {
  const Block b = block_of(decomp_, components_);
  const Placement at = placement_of(decomp_, b, spacing_);
  for (int axis = 0; axis < 3; ++axis) {
    // One more face than cells along each axis: a 2-D grid has no z halo to hold the top face.
    face_flux_[axis] = FaceFlux<Real>("advection::face_flux", q_.extent(1) + 1, q_.extent(2) + 1, q_.extent(3) + 1);
    face_fluxes(b, at, settings_.wind, axis, face_flux_[axis]);
  }
}

template <class Real>
void AdvectionSolver<Real>::compute_max_courant_rate() {
  const double local = max_courant_rate(block_of(decomp_, components_), face_flux_, 1.0 / cell_volume_);
  max_courant_rate_ = mesh::global_max(local, decomp_.comm());
}

template <class Real>
void AdvectionSolver<Real>::fill_cell_averages(const Field& target, double time) const {
  const Block b = block_of(decomp_, components_);
  cell_averages(b, placement_of(decomp_, b, spacing_), settings_.wind.departure(time), shapes_, target);
}

template <class Real>
double AdvectionSolver<Real>::stable_dt(double) { return settings_.courant / max_courant_rate_; }

namespace {
template <class Real>
struct StageInputs {
  FieldOf<Real> out, in, base;
  std::array<FaceFlux<Real>, 3> flux;
  OpenFaces open;
  Real scale, g;  // coefficient * dt / cell volume, and the wind's time factor
};

// out = base - scale * (flux divergence of in). Teams of rows with vector lanes along the contiguous
// x index (parallel::row_team_shape): on the host a one-thread team per row, whose lane loop
// vectorises (a TeamVectorRange there strides by the team size and does not); on the GPU 8 rows to
// a team, a warp per row. Row pointers keep the addresses simple; the dimension is a template
// parameter so the 2-D kernel carries no z branch.
// One row of cells of a stage: where its values, its old state, its output and its faces' volume
// fluxes start. The faces' distances from an open boundary come in as arguments: passed as the
// constant OpenFaces::interior they select the 5th-order flux at compile time, and the lower
// orders' arithmetic leaves the loop (computing every order in every cell had halved the speed).
template <bool ThreeD, class Real>
struct RowOfCells {
  const Real *q, *old;
  Real* next;
  const Real *flux_x, *flux_y, *flux_y_up, *flux_z, *flux_z_up;
  long row, plane;
  Real g, scale;

  KOKKOS_FORCEINLINE_FUNCTION void update(int i, int x_low, int x_high, int y_low, int y_high, int z_low,
                                          int z_high) const {
    Real divergence = upwind_flux(q + i + 1, 1, g * flux_x[i + 1], x_high) -
                        upwind_flux(q + i, 1, g * flux_x[i], x_low) +
                        upwind_flux(q + i + row, row, g * flux_y_up[i], y_high) -
                        upwind_flux(q + i, row, g * flux_y[i], y_low);
    if constexpr (ThreeD)
      divergence += upwind_flux(q + i + plane, plane, g * flux_z_up[i], z_high) -
                    upwind_flux(q + i, plane, g * flux_z[i], z_low);
    next[i] = stored(old[i] - scale * divergence);
  }
};

template <bool ThreeD, class Real>
void rk_stage_rows(const Block& b, const StageInputs<Real>& s) {
  const FieldOf<Real> out = s.out, in = s.in, base = s.base;
  const auto fx = s.flux[0], fy = s.flux[1], fz = s.flux[2];
  const OpenFaces open = s.open;
  const Real scale = s.scale, g = s.g;
  const long row = static_cast<long>(in.stride(2)), plane = static_cast<long>(in.stride(1));
  const parallel::TeamShape shape = parallel::row_team_shape();
  const int rows = b.components * b.nz * b.ny, rows_per_team = shape.threads;
  Kokkos::parallel_for(
      "advection::rk_stage", shape.row_policy(rows), KOKKOS_LAMBDA(const parallel::TeamMember& team) {
        parallel::for_each_team_row(team, rows_per_team, rows, [&](const int r) {
          const int c = r / (b.nz * b.ny), k = b.hz + (r / b.ny) % b.nz, j = b.hy + r % b.ny;
          const RowOfCells<ThreeD, Real> cells{&in(c, k, j, 0), &base(c, k, j, 0), &out(c, k, j, 0), &fx(k, j, 0),
                                          &fy(k, j, 0), &fy(k, j + 1, 0), &fz(k, j, 0), &fz(k + 1, j, 0),
                                          row, plane, g, scale};
          const int y_low = open.from_boundary(1, j), y_high = open.from_boundary(1, j + 1);
          const int z_low = open.from_boundary(2, k), z_high = open.from_boundary(2, k + 1);
          constexpr int full = OpenFaces::interior;
          const int first = b.hx, last = b.hx + b.nx;
          const bool row_inside = y_low == full && y_high == full && (!ThreeD || (z_low == full && z_high == full));
          if (!row_inside) {
            parallel::for_each_in_row(team, first, last, [&](const int i) {
              cells.update(i, open.from_boundary(0, i), open.from_boundary(0, i + 1), y_low, y_high, z_low, z_high);
            });
            return;
          }
          // In a row away from the y and z boundaries only the three cells next to an open x boundary
          // have a face near it. Which loop takes a cell depends on where it lies in the whole grid,
          // not on the decomposition (every rank holds at least a halo's width of cells), so the
          // bits are the same on any number of ranks.
          const int inner_begin = open.lower[0] >= 0 ? (first + 3 < last ? first + 3 : last) : first;
          const int inner_end = open.upper[0] >= 0 ? (last - 3 > inner_begin ? last - 3 : inner_begin) : last;
          const auto near_x_boundary = [&](const int i) {
            cells.update(i, open.from_boundary(0, i), open.from_boundary(0, i + 1), full, full, full, full);
          };
          parallel::for_each_in_row(team, first, inner_begin, near_x_boundary);
          parallel::for_each_in_row(team, inner_begin, inner_end, [&](const int i) {
            cells.update(i, full, full, full, full, full, full);
          });
          parallel::for_each_in_row(team, inner_end, last, near_x_boundary);
        });
      });
}
}  // namespace

template <class Real>
void AdvectionSolver<Real>::rk_stage(const Field& out, const Field& in, double coefficient, double g) {
  const Block b = block_of(decomp_, components_);
  const StageInputs<Real> inputs{
      out, in, q_, face_flux_, open_faces_, static_cast<Real>(coefficient / cell_volume_), static_cast<Real>(g)};
  if (b.three_d)
    rk_stage_rows<true>(b, inputs);
  else
    rk_stage_rows<false>(b, inputs);
}

namespace {
// The fields and factors of one FCT stage.
template <class Real>
struct FctStage {
  FieldOf<Real> old, low, ratio;
  std::array<FaceFlux<Real>, 3> flux;
  std::array<FieldOf<Real>, 3> antidiffusive;
  OpenFaces open;
  Real scale, g;  // dt / cell volume, and the wind's time factor
};

// Per face: the high-order flux of `in` minus the upwind flux of the old state.
template <class Real>
void fct_antidiffusive(const Block& b, const FctStage<Real>& f, const FieldOf<Real>& in) {
  const FieldOf<Real> old = f.old;
  const OpenFaces open = f.open;
  const Real scale = f.scale, g = f.g;
  for (int axis = 0; axis < (b.three_d ? 3 : 2); ++axis) {
    const FieldOf<Real> anti = f.antidiffusive[axis];
    const auto flux = f.flux[axis];
    const long stride = static_cast<long>(in.stride(3 - axis));
    std::array<int, 3> extra{};
    extra[axis] = 1;
    parallel::for_each(
        "advection::fct_antidiffusive", interior(b, b.components, extra),
        KOKKOS_LAMBDA(const int c, const int k, const int j, const int i) {
          const Real phi = g * flux(k, j, i);
          const int index = axis == 0 ? i : axis == 1 ? j : k;
          const Real high = upwind_flux(&in(c, k, j, i), stride, phi, open.from_boundary(axis, index));
          anti(c, k, j, i) = scale * (high - first_order_flux(&old(c, k, j, i), stride, phi));
        });
  }
}

// The monotone upwind update of the old state.
template <class Real>
void fct_low_order(const Block& b, const FctStage<Real>& f) {
  const FieldOf<Real> old = f.old, low = f.low;
  const auto fx = f.flux[0], fy = f.flux[1], fz = f.flux[2];
  const Real scale = f.scale, g = f.g;
  parallel::for_each(
      "advection::fct_low_order", interior(b, b.components),
      KOKKOS_LAMBDA(const int c, const int k, const int j, const int i) {
        const auto flux_of = [&](int axis, int kk, int jj, int ii) {
          const Real phi = g * (axis == 0 ? fx(kk, jj, ii) : axis == 1 ? fy(kk, jj, ii) : fz(kk, jj, ii));
          return first_order_flux(&old(c, kk, jj, ii), old.stride(3 - axis), phi);
        };
        low(c, k, j, i) = old(c, k, j, i) - scale * flux_divergence<Real>(flux_of, b.three_d, k, j, i);
      });
}

// Zalesak's R+ (components 0..nc-1) and R- (nc..2nc-1): the fraction of the incoming and outgoing
// antidiffusive fluxes each cell can take without leaving the range of its neighbourhood.
template <class Real>
void fct_ratios(const Block& b, const FctStage<Real>& f) {
  const FieldOf<Real> old = f.old, low = f.low, ratio = f.ratio;
  const FieldOf<Real> ax = f.antidiffusive[0], ay = f.antidiffusive[1], az = f.antidiffusive[2];
  const int nc = b.components, axes = b.three_d ? 3 : 2;
  parallel::for_each(
      "advection::fct_ratios", interior(b, nc), KOKKOS_LAMBDA(const int c, const int k, const int j, const int i) {
        Real upper = max_of(old(c, k, j, i), low(c, k, j, i)), lower = min_of(old(c, k, j, i), low(c, k, j, i));
        Real into = 0, out_of = 0;
        for (int axis = 0; axis < axes; ++axis) {
          int dk, dj, di;
          axis_offsets(axis, dk, dj, di);
          const FieldOf<Real>& anti = axis == 0 ? ax : axis == 1 ? ay : az;
          for (int side = -1; side <= 1; side += 2) {
            const int kk = k + side * dk, jj = j + side * dj, ii = i + side * di;
            upper = max_of(upper, max_of(old(c, kk, jj, ii), low(c, kk, jj, ii)));
            lower = min_of(lower, min_of(old(c, kk, jj, ii), low(c, kk, jj, ii)));
          }
          const Real below = anti(c, k, j, i), above = anti(c, k + dk, j + dj, i + di);
          into += max_of(Real(0), below) - min_of(Real(0), above);
          out_of += max_of(Real(0), above) - min_of(Real(0), below);
        }
        const Real room_up = upper - low(c, k, j, i), room_down = low(c, k, j, i) - lower;
        ratio(c, k, j, i) = into > 0 ? min_of(Real(1), room_up / into) : Real(0);
        ratio(nc + c, k, j, i) = out_of > 0 ? min_of(Real(1), room_down / out_of) : Real(0);
      });
}

// The low-order state plus the limited antidiffusive fluxes.
template <class Real>
void fct_update(const Block& b, const FctStage<Real>& f, const FieldOf<Real>& out) {
  const FieldOf<Real> low = f.low, ratio = f.ratio;
  const FieldOf<Real> ax = f.antidiffusive[0], ay = f.antidiffusive[1], az = f.antidiffusive[2];
  const int nc = b.components;
  parallel::for_each(
      "advection::fct_update", interior(b, nc), KOKKOS_LAMBDA(const int c, const int k, const int j, const int i) {
        const auto limited = [&](int axis, int kk, int jj, int ii) {
          int dk, dj, di;
          axis_offsets(axis, dk, dj, di);
          const FieldOf<Real>& anti = axis == 0 ? ax : axis == 1 ? ay : az;
          const Real a = anti(c, kk, jj, ii);
          // A flux from the cell below into the one above must fit both's room.
          const Real limit = a >= 0 ? min_of(ratio(c, kk, jj, ii), ratio(nc + c, kk - dk, jj - dj, ii - di))
                                      : min_of(ratio(c, kk - dk, jj - dj, ii - di), ratio(nc + c, kk, jj, ii));
          return limit * a;
        };
        out(c, k, j, i) = stored(low(c, k, j, i) - flux_divergence<Real>(limited, b.three_d, k, j, i));
      });
}
}  // namespace

// Zalesak (1979): a monotone low-order (upwind) update from the old state, plus the high-order
// minus low-order fluxes scaled per face so that no cell leaves the range of its neighbours.
template <class Real>
void AdvectionSolver<Real>::fct_stage(const Field& out, const Field& in, double dt, double g) {
  const Block b = block_of(decomp_, components_);
  const FctStage<Real> f{q_, low_order_, limiter_ratio_, face_flux_, antidiffusive_, open_faces_,
                         static_cast<Real>(dt / cell_volume_), static_cast<Real>(g)};
  fct_antidiffusive(b, f, in);
  fct_low_order(b, f);
  exchange_.exchange(low_order_);
  fct_ratios(b, f);
  exchange_.exchange(limiter_ratio_);
  fct_update(b, f, out);
}

template <class Real>
void AdvectionSolver<Real>::step(double time, double dt) {
  // Wicker-Skamarock RK3: each stage restarts from the old state q_, the last one limited by FCT if asked.
  const Wind& wind = settings_.wind;
  const Field* in = &q_;
  const Field* out[solvers::wicker_skamarock_stages] = {&stage_a_, &stage_b_, &stage_a_};
  for (int n = 0; n < solvers::wicker_skamarock_stages; ++n) {
    const solvers::RkStage stage = solvers::wicker_skamarock_stage(n, dt);
    exchange_.exchange(*in);
    last_g_ = wind.time_factor(time + stage.time_offset);
    if (n == solvers::wicker_skamarock_stages - 1 && settings_.limiter)
      fct_stage(*out[n], *in, stage.dt, last_g_);
    else
      rk_stage(*out[n], *in, stage.dt, last_g_);
    in = out[n];
  }
  std::swap(q_, stage_a_);
}

namespace {
// One pass over tracer c's cells (tracer_statistics.hpp), the exact cell averages computed on the
// way when `exact_known`; every sum and difference in double, whatever the tracer's type.
template <class Real>
TracerStatistics tracer_statistics(const Block& b, const Placement& at, const Departure& departure,
                                   const Kokkos::View<const Shape*>& shapes, bool exact_known, const FieldOf<Real>& q,
                                   int c) {
  const int z_points = b.three_d ? GaussRule::points : 1;
  TracerStatistics result;
  parallel::reduce(
      "advection::statistics", interior_cells(b),
      KOKKOS_LAMBDA(const int k, const int j, const int i, TracerStatistics& s) {
        const double value = q(c, k, j, i);
        s.sum[TracerStatistics::mass] += value;
        s.max[TracerStatistics::high] = max_of(s.max[TracerStatistics::high], value);
        s.max[TracerStatistics::negative_low] = max_of(s.max[TracerStatistics::negative_low], -value);
        if (!exact_known) return;
        const double exact = cell_average(shapes(c), departure, cell_bounds(at, k, j, i), z_points);
        const double error = km::fabs(value - exact), size = km::fabs(exact);
        s.sum[TracerStatistics::error1] += error;
        s.sum[TracerStatistics::size1] += size;
        s.sum[TracerStatistics::error2] += error * error;
        s.sum[TracerStatistics::size2] += size * size;
        s.max[TracerStatistics::error_max] = max_of(s.max[TracerStatistics::error_max], error);
        s.max[TracerStatistics::size_max] = max_of(s.max[TracerStatistics::size_max], size);
      },
      TracerStatisticsReducer(result));
  return result;
}
}  // namespace

template <class Real>
std::vector<solvers::Scalar> AdvectionSolver<Real>::diagnostics(double time) { return tracer_diagnostics(time, true); }

template <class Real>
std::vector<solvers::Scalar> AdvectionSolver<Real>::diagnostics_between_outputs(double time) {
  return tracer_diagnostics(time, false);
}

template <class Real>
std::vector<solvers::Scalar> AdvectionSolver<Real>::tracer_diagnostics(double time, bool with_errors) {
  const Block b = block_of(decomp_, components_);
  const bool exact_known = with_errors && settings_.wind.exact_known(time);
  // Every tracer's sums and maxima in two messages, whatever the number of tracers.
  std::vector<double> sums, maxima;
  const Departure departure = settings_.wind.departure(time);
  for (int c = 0; c < components_; ++c) {
    const TracerStatistics s =
        tracer_statistics(b, placement_of(decomp_, b, spacing_), departure, shapes_, exact_known, q_, c);
    sums.insert(sums.end(), s.sum, s.sum + TracerStatistics::sums);
    maxima.insert(maxima.end(), s.max, s.max + TracerStatistics::maxima);
  }
  MPI_Allreduce(MPI_IN_PLACE, sums.data(), static_cast<int>(sums.size()), MPI_DOUBLE, MPI_SUM, decomp_.comm());
  MPI_Allreduce(MPI_IN_PLACE, maxima.data(), static_cast<int>(maxima.size()), MPI_DOUBLE, MPI_MAX, decomp_.comm());
  std::vector<solvers::Scalar> out;
  const char* normalised = "1 (normalised by the exact solution's norm)";
  const double unknown = std::nan("");
  for (int c = 0; c < components_; ++c) {
    const double* sum = &sums[c * TracerStatistics::sums];
    const double* max = &maxima[c * TracerStatistics::maxima];
    const std::string& name = settings_.tracers[c].name;
    // Tracers are mixing ratios (pure numbers) on the unit box.
    out.push_back({name + "_mass", sum[TracerStatistics::mass] * cell_volume_, true, b.three_d ? "length^3" : "length^2"});
    out.push_back({name + "_min", -max[TracerStatistics::negative_low], true, "1"});
    out.push_back({name + "_max", max[TracerStatistics::high], true, "1"});
    // Normalised error norms as in Williamson et al. (1992); NaN while the exact solution is unknown,
    // and between output times.
    out.push_back({name + "_l1_error", exact_known ? sum[TracerStatistics::error1] / sum[TracerStatistics::size1] : unknown,
                   false, normalised});
    out.push_back({name + "_l2_error",
                   exact_known ? std::sqrt(sum[TracerStatistics::error2] / sum[TracerStatistics::size2]) : unknown,
                   false, normalised});
    out.push_back({name + "_linf_error",
                   exact_known ? max[TracerStatistics::error_max] / max[TracerStatistics::size_max] : unknown, false,
                   normalised});
  }
  return out;
}

template <class Real>
std::vector<solvers::Scalar> AdvectionSolver<Real>::progress(double dt) const {
  return {{"courant", dt * max_courant_rate_ * std::fabs(last_g_)}};
}

template <class Real>
double AdvectionSolver<Real>::work_per_step() const {
  return static_cast<double>(decomp_.global_cell_count()) * components_;
}

template <class Real>
std::string AdvectionSolver<Real>::layout() const {
  std::ostringstream out;
  out << decomp_.size() << " ranks as " << decomp_.process_grid(0) << " x " << decomp_.process_grid(1) << " x "
      << decomp_.process_grid(2) << ", " << decomp_.global_cells(0) << " x " << decomp_.global_cells(1) << " x "
      << decomp_.global_cells(2) << " cells, " << components_ << " tracer(s) in "
      << (std::is_same_v<Real, float> ? "single" : "double") << " precision";
  return out.str();
}

template <class Real>
io::DatasetBox AdvectionSolver<Real>::tracer_box(const Tracer& tracer) const {
  io::DatasetBox box;
  box.name = "fields/" + tracer.name;
  box.units = "tracer mixing ratio";
  box.long_name = "mixing ratio of the tracer " + tracer.name;
  const int dims = decomp_.dimensions();
  for (int axis = dims - 1; axis >= 0; --axis) {  // C order: z, y, x
    box.global.push_back(decomp_.global_cells(axis));
    box.offset.push_back(decomp_.offset(axis));
    box.count.push_back(decomp_.local_cells(axis));
  }
  io::Geometry g;
  g.dimensions = dims;
  g.spacing = spacing_;
  box.geometry = g;
  return box;
}

template <class Real>
std::vector<io::DatasetBox> AdvectionSolver<Real>::state_layout() const {
  std::vector<io::DatasetBox> boxes;
  for (const auto& t : settings_.tracers) boxes.push_back(tracer_box(t));
  return boxes;
}

// Every float is a double exactly, and back: a single-precision checkpoint restores the same bits.
template <class Real>
const std::vector<io::HostDataset>& AdvectionSolver<Real>::stage_tracers() {
  const Block b = block_of(decomp_, components_);
  const auto host = mesh::on_host(q_, q_host_);
  for (int c = 0; c < components_; ++c) {
    double* values = staged_[c].values.data();
    for (int k = b.hz; k < b.hz + b.nz; ++k)
      for (int j = b.hy; j < b.hy + b.ny; ++j)
        for (int i = b.hx; i < b.hx + b.nx; ++i) *values++ = host(c, k, j, i);
  }
  return staged_;
}

template <class Real>
const std::vector<io::HostDataset>& AdvectionSolver<Real>::output_fields() { return stage_tracers(); }

template <class Real>
const std::vector<io::HostDataset>& AdvectionSolver<Real>::state() { return stage_tracers(); }

template <class Real>
void AdvectionSolver<Real>::restore(const std::vector<io::HostDataset>& state) {
  const Block b = block_of(decomp_, components_);
  const auto host = mesh::on_host(q_, q_host_);
  for (int c = 0; c < components_; ++c) {
    const auto& values = state.at(c).values;
    std::size_t n = 0;
    for (int k = b.hz; k < b.hz + b.nz; ++k)
      for (int j = b.hy; j < b.hy + b.ny; ++j)
        for (int i = b.hx; i < b.hx + b.nx; ++i) host(c, k, j, i) = static_cast<Real>(values.at(n++));
  }
  parallel::copy<parallel::Copy::host_to_device>(q_, host);  // on the host backends q_ itself: counted, no copy
}

template class AdvectionSolver<float>;
template class AdvectionSolver<double>;

}  // namespace meridian::advection
