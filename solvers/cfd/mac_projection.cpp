#include "solvers/cfd/mac_projection.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "mesh/reductions.hpp"
#include "mesh/timers.hpp"
#include "parallel/copies.hpp"
#include "parallel/fill.hpp"
#include "parallel/launch_policy.hpp"
#include "parallel/team_shape.hpp"
#include "solvers/common/kokkos_math.hpp"

namespace meridian::cfd {

namespace {

struct BodyForce {
  double f[3];
};

// What the tendency kernel reads and writes; `viscous` only with Crank-Nicolson, `fourth` only with central4.
struct TendencyInputs {
  mesh::Field u, out, viscous, fourth;
  MacGrid g;
  double nu;
  BodyForce force;
};

// Advection, body force and viscosity of every component at the faces of one row along x: viscosity into
// `tendency` (explicit, advanced by AB2 with the rest) or into `explicit_half` (Crank-Nicolson's explicit half).
// With central4, `fourth` (fourth_order_cells) says where its stencil may be used; central elsewhere. A local
// copy per row, so that the compiler knows the stores along the row change none of its members (as advection's
// RowOfCells); the dimension, scheme and viscous treatment are template parameters, and each component a
// template of its own, so that the host's loop along the row has no branch and no inner loop, and vectorises.
template <int D, AdvectionScheme Scheme, bool CrankNicolson>
struct TendencyRow {
  const double *u, *fourth;
  double *tendency, *explicit_half;
  FaceStrides f;
  MacGrid g;
  double nu;
  BodyForce force;

  KOKKOS_FORCEINLINE_FUNCTION void operator()(int i) const {
    component<0>(i);
    component<1>(i);
    if constexpr (D == 3) component<2>(i);
  }

  template <int C>
  KOKKOS_FORCEINLINE_FUNCTION void component(int i) const {
    const double diffusion = nu * laplacian<D>(u + C * f.component + i, f, g);
    double transport;
    if constexpr (Scheme == AdvectionScheme::central4) {
      // Both stencils, then the choice: a branch per face would keep the host loop from vectorising, and
      // the fourth-order one reads only within the halo (advection4_reach = MacProjection::halo_width).
      const double high = advection4<D>(u + i, C, f, g), low = advection<D, false>(u + i, C, f, g);
      transport = fourth[i] > 0 ? high : low;
    } else {
      transport = advection<D, Scheme == AdvectionScheme::quick>(u + i, C, f, g);
    }
    tendency[C * f.component + i] = force.f[C] - transport + (CrankNicolson ? 0.0 : diffusion);
    if constexpr (CrankNicolson) explicit_half[C * f.component + i] = diffusion;
  }
};

// TendencyRow over every owned row (for_each_row).
template <int D, AdvectionScheme Scheme, bool CrankNicolson>
void tendency_rows(const TendencyInputs& in) {
  const mesh::Field u = in.u, out = in.out, viscous = in.viscous, fourth = in.fourth;
  const MacGrid g = in.g;
  const double nu = in.nu;
  const BodyForce force = in.force;
  const FaceStrides f = face_strides(u);
  for_each_row("mac::tendency", g, KOKKOS_LAMBDA(const int k, const int j) {
    return TendencyRow<D, Scheme, CrankNicolson>{
        &u(0, k, j, 0), Scheme == AdvectionScheme::central4 ? &fourth(0, k, j, 0) : nullptr, &out(0, k, j, 0),
        CrankNicolson ? &viscous(0, k, j, 0) : nullptr, f, g, nu, force};
  });
}

void tendency(const TendencyInputs& in, AdvectionScheme scheme, bool crank_nicolson) {
  using Kernel = void (*)(const TendencyInputs&);
  using S = AdvectionScheme;
  // By dimension (2, 3), scheme (AdvectionScheme's order) and viscous treatment (explicit, Crank-Nicolson).
  static constexpr Kernel kernels[2][3][2] = {
      {{tendency_rows<2, S::central, false>, tendency_rows<2, S::central, true>},
       {tendency_rows<2, S::quick, false>, tendency_rows<2, S::quick, true>},
       {tendency_rows<2, S::central4, false>, tendency_rows<2, S::central4, true>}},
      {{tendency_rows<3, S::central, false>, tendency_rows<3, S::central, true>},
       {tendency_rows<3, S::quick, false>, tendency_rows<3, S::quick, true>},
       {tendency_rows<3, S::central4, false>, tendency_rows<3, S::central4, true>}}};
  kernels[in.g.dims - 2][static_cast<int>(scheme)][crank_nicolson ? 1 : 0](in);
}

// Per cell, halos included, on the host: the minimum over the components of 1 on the faces the
// momentum equation sets inside the domain and 0 on the bodies' forcing and solid faces and in the halos
// across an open face (whose values a boundary condition sets to second order at best).
std::vector<double> open_faces(const mesh::Decomposition& d, const MacGrid& g, const ImmersedBodies* bodies) {
  const mesh::Field open = mesh::make_field(d, g.dims, "mac::open_faces");
  parallel::fill(open, 0.0);
  parallel::for_each(
      "mac::open_faces", owned(g), KOKKOS_LAMBDA(const int k, const int j, const int i) {
        for (int c = 0; c < g.dims; ++c) open(c, k, j, i) = 1;
      });
  if (bodies) bodies->mark(open, 0.0);
  mesh::HaloExchange(d, g.dims).exchange(open, mesh::Corners::fill);
  auto host = Kokkos::create_mirror_view(Kokkos::HostSpace(), open);
  parallel::copy<parallel::Copy::device_to_host>(host, open);
  std::vector<double> m;
  for (int k = 0; k < g.extent[2]; ++k)
    for (int j = 0; j < g.extent[1]; ++j)
      for (int i = 0; i < g.extent[0]; ++i) {
        double v = 1;
        for (int c = 0; c < g.dims; ++c) v = std::min(v, host(c, k, j, i));
        m.push_back(v);
      }
  return m;
}

// Per cell, 1 where every face within advection4_reach cells along every axis is open (open_faces), so that
// the fourth-order stencil reads no ghost, no forcing value and no boundary halo; 0 elsewhere. The box
// minimum is taken one axis at a time (it is separable), each pass over the owned range of its axis and the
// whole range of the others, which the later passes read. The bodies do not move: found once.
mesh::Field fourth_order_cells(const mesh::Decomposition& d, const MacGrid& g, const ImmersedBodies* bodies) {
  std::vector<double> m = open_faces(d, g, bodies), next(m.size());
  const long stride[3] = {1, g.extent[0], static_cast<long>(g.extent[0]) * g.extent[1]};
  for (int a = 0; a < g.dims; ++a) {
    std::fill(next.begin(), next.end(), 0.0);
    for (int k = 0; k < g.extent[2]; ++k)
      for (int j = 0; j < g.extent[1]; ++j)
        for (int i = 0; i < g.extent[0]; ++i) {
          const int x[3] = {i, j, k};
          if (x[a] < g.lo[a] || x[a] >= g.lo[a] + g.n[a]) continue;
          const long n = k * stride[2] + j * stride[1] + i;
          double v = 1;
          for (int s = -advection4_reach; s <= advection4_reach; ++s) v = std::min(v, m[n + s * stride[a]]);
          next[n] = v;
        }
    std::swap(m, next);
  }
  const mesh::Field fourth = mesh::make_field(d, 1, "mac::fourth_order_cells");
  auto host = Kokkos::create_mirror_view(Kokkos::HostSpace(), fourth);
  for (int k = 0; k < g.extent[2]; ++k)
    for (int j = 0; j < g.extent[1]; ++j)
      for (int i = 0; i < g.extent[0]; ++i) host(0, k, j, i) = m[k * stride[2] + j * stride[1] + i];
  parallel::copy<parallel::Copy::host_to_device>(fourth, host);
  return fourth;
}

// d = dt (a N + b N_old [+ viscous]) - dt grad p on the faces the momentum equation sets, 0 elsewhere; the
// row's pointers at (k, j, 0) of each field (component 0).
template <int D>
struct PredictRow {
  const double *now, *old, *half, *pressure;
  double* out;
  FaceStrides f;
  MacGrid g;
  int j, k;
  double dt, a, b;
  bool crank_nicolson;
  KOKKOS_INLINE_FUNCTION void operator()(const int i) const {
    const int x[3] = {i, j, k};
    for (int c = 0; c < D; ++c) {
      const long at = c * f.component + i;
      double change = a * now[at] + b * old[at] - (pressure[i] - pressure[i - f.along(c)]) / g.h[c];
      if (crank_nicolson) change += half[at];
      out[at] = g.fixed(c, x) ? 0.0 : dt * change;
    }
  }
};

template <int D>
void predict_rows(const mesh::Field& d, const mesh::Field& n, const mesh::Field& n_old, const mesh::Field& viscous,
                  const mesh::Field& p, const MacGrid g, double dt, double a, double b, bool crank_nicolson) {
  const FaceStrides f = face_strides(d);
  for_each_row("mac::predict", g, KOKKOS_LAMBDA(const int k, const int j) {
    const long start = f.row(k, j);
    return PredictRow<D>{n.data() + start, n_old.data() + start, crank_nicolson ? viscous.data() + start : nullptr,
                         p.data() + start, d.data() + start, f, g, j, k, dt, a, b, crank_nicolson};
  });
}

void predict(const mesh::Field& d, const mesh::Field& n, const mesh::Field& n_old, const mesh::Field& viscous,
             const mesh::Field& p, const MacGrid g, double dt, double a, double b, bool crank_nicolson) {
  if (g.dims == 3) return predict_rows<3>(d, n, n_old, viscous, p, g, dt, a, b, crank_nicolson);
  predict_rows<2>(d, n, n_old, viscous, p, g, dt, a, b, crank_nicolson);
}

// out = a - b on the faces the momentum equation sets, 0 on those the boundaries set (as predict leaves them).
template <int D>
struct DifferenceRow {
  const double *a, *b;
  double* out;
  long component;
  MacGrid g;
  int j, k;
  KOKKOS_INLINE_FUNCTION void operator()(const int i) const {
    const int x[3] = {i, j, k};
    for (int c = 0; c < D; ++c) out[c * component + i] = g.fixed(c, x) ? 0.0 : a[c * component + i] - b[c * component + i];
  }
};

template <int D>
void difference_rows(const mesh::Field& a, const mesh::Field& b, const mesh::Field& out, const MacGrid g) {
  const FaceStrides f = face_strides(out);
  for_each_row("mac::difference", g, KOKKOS_LAMBDA(const int k, const int j) {
    const long start = f.row(k, j);
    return DifferenceRow<D>{a.data() + start, b.data() + start, out.data() + start, f.component, g, j, k};
  });
}

void difference(const mesh::Field& a, const mesh::Field& b, const mesh::Field& out, const MacGrid g) {
  if (g.dims == 3) return difference_rows<3>(a, b, out, g);
  difference_rows<2>(a, b, out, g);
}

template <int D>
struct AddRow {
  double* sum;
  const double* increment;
  long component;
  KOKKOS_INLINE_FUNCTION void operator()(const int i) const {
    for (int c = 0; c < D; ++c) sum[c * component + i] += increment[c * component + i];
  }
};

template <int D>
void add_rows(const mesh::Field& u, const mesh::Field& d, const MacGrid g) {
  const FaceStrides f = face_strides(u);
  for_each_row("mac::add_increment", g, KOKKOS_LAMBDA(const int k, const int j) {
    const long start = f.row(k, j);
    return AddRow<D>{u.data() + start, d.data() + start, f.component};
  });
}

void add(const mesh::Field& u, const mesh::Field& d, const MacGrid g) {
  if (g.dims == 3) return add_rows<3>(u, d, g);
  add_rows<2>(u, d, g);
}

// The Poisson operator's row of the cell at (k, j, i).
KOKKOS_INLINE_FUNCTION int row(const MacGrid& g, int k, int j, int i) {
  return ((k - g.lo[2]) * g.n[1] + (j - g.lo[1])) * g.n[0] + (i - g.lo[0]);
}

// The Poisson residual b - shift - A phi of the cell at (k, j, i), phi read from the correction field, whose
// halos the projection exchanged.
struct PoissonResidual {
  sparse::Vector rhs;
  mesh::Field phi;
  sparse::PoissonStencil a;
  MacGrid g;
  KOKKOS_INLINE_FUNCTION double operator()(int k, int j, int i, double shift) const {
    return rhs(row(g, k, j, i)) - shift - a.apply(phi, k, j, i);
  }
};

// rhs = -div(u*) / dt per cell where continuity holds, 0 in the bodies' source cells, in the Poisson
// operator's row order.
template <int D>
struct DivergenceRow {
  const double *velocity, *open;
  double* out;  // the row's right-hand side, indexed as the field's row
  FaceStrides f;
  MacGrid g;
  double dt;
  KOKKOS_INLINE_FUNCTION void operator()(const int i) const { out[i] = -open[i] * divergence<D>(velocity + i, f, g) / dt; }
};

template <int D>
void divergence_rows(const mesh::Field& u, const mesh::Field& fluid, const sparse::Vector& rhs, const MacGrid g,
                     double dt) {
  const FaceStrides f = face_strides(u);
  for_each_row("mac::divergence", g, KOKKOS_LAMBDA(const int k, const int j) {
    const long start = f.row(k, j);
    return DivergenceRow<D>{u.data() + start, fluid.data() + start, rhs.data() + row(g, k, j, g.lo[0]) - g.lo[0], f,
                            g, dt};
  });
}

void divergence_rhs(const mesh::Field& u, const mesh::Field& fluid, const sparse::Vector& rhs, const MacGrid g,
                    double dt) {
  if (g.dims == 3) return divergence_rows<3>(u, fluid, rhs, g, dt);
  divergence_rows<2>(u, fluid, rhs, g, dt);
}

// Shares the fluid's net source, minus, out over the bodies' `source_cells` (a count over all ranks), so that
// rhs sums to zero: where no face holds p, the mean CG removes would otherwise land on every fluid cell.
void balance_source_cells(const sparse::Vector& rhs, const mesh::Field& fluid, const MacGrid g, double source_cells,
                          MPI_Comm comm) {
  double local = 0;
  Kokkos::parallel_reduce(
      "mac::net_source", parallel::FlatPolicy(0, static_cast<long>(rhs.extent(0))),
      KOKKOS_LAMBDA(const int n, double& sum) { sum += rhs(n); }, local);
  const double value = -mesh::global_sum(local, comm) / source_cells;
  parallel::for_each(
      "mac::balance_bodies", owned(g), KOKKOS_LAMBDA(const int k, const int j, const int i) {
        rhs(row(g, k, j, i)) += (1 - fluid(0, k, j, i)) * value;
      });
}

void to_field(const sparse::Vector& values, const mesh::Field& f, const MacGrid g) {
  parallel::for_each(
      "mac::to_field", owned(g), KOKKOS_LAMBDA(const int k, const int j, const int i) { f(0, k, j, i) = values(row(g, k, j, i)); });
}

// u -= dt grad phi on the faces the momentum equation sets; p += phi.
template <int D>
struct CorrectRow {
  double *velocity, *pressure;
  const double* correction;
  FaceStrides f;
  MacGrid g;
  int j, k;
  double dt;
  KOKKOS_INLINE_FUNCTION void operator()(const int i) const {
    const int x[3] = {i, j, k};
    for (int c = 0; c < D; ++c)
      if (!g.fixed(c, x)) velocity[c * f.component + i] -= dt * (correction[i] - correction[i - f.along(c)]) / g.h[c];
    pressure[i] += correction[i];
  }
};

template <int D>
void correct_rows(const mesh::Field& u, const mesh::Field& p, const mesh::Field& phi, const MacGrid g, double dt) {
  const FaceStrides f = face_strides(u);
  for_each_row("mac::correct", g, KOKKOS_LAMBDA(const int k, const int j) {
    const long start = f.row(k, j);
    return CorrectRow<D>{u.data() + start, p.data() + start, phi.data() + start, f, g, j, k, dt};
  });
}

void correct(const mesh::Field& u, const mesh::Field& p, const mesh::Field& phi, const MacGrid g, double dt) {
  if (g.dims == 3) return correct_rows<3>(u, p, phi, g, dt);
  correct_rows<2>(u, p, phi, g, dt);
}

// sum_c |u_c| / h_c at face i of one row (`u0`: component 0 of the row's face 0).
template <int D>
struct RateRow {
  const double* u0;
  long component;
  MacGrid g;
  KOKKOS_INLINE_FUNCTION double operator()(int i) const {
    double s = 0;
    for (int c = 0; c < D; ++c) s += km::fabs(u0[c * component + i]) / g.h[c];
    return s;
  }
};

// max over faces of sum |u_a| / h_a: the advective rate a Courant number limits. On the host a row at a time, in
// blocks: the block's rates by one vectorised loop, then their max by LaneMax; on a GPU face by face.
template <int D>
double local_max_rate(const mesh::Field& u, const MacGrid g) {
  const FaceStrides f = face_strides(u);
  double local = 0;
  if constexpr (parallel::device_memory_is_host) {
    const int first = g.lo[0], last = g.lo[0] + g.n[0];
    Kokkos::parallel_reduce(
        "mac::max_rate", parallel::FlatPolicy(0, static_cast<long>(g.n[2]) * g.n[1]),
        [=](const long r, double& m) {
          const int k = g.lo[2] + static_cast<int>(r / g.n[1]), j = g.lo[1] + static_cast<int>(r % g.n[1]);
          const RateRow<D> row{u.data() + f.row(k, j), f.component, g};
          constexpr int block = 64;
          LaneMax largest(0.0);  // the rates are never negative
          for (int start = first; start < last; start += block) {
            const int length = last - start < block ? last - start : block;  // the row's last block may be shorter
            double rates[block];
            for (int i = 0; i < length; ++i) rates[i] = row(start + i);
            largest.add(rates, length);
          }
          m = max_of(m, largest.value());
        },
        Kokkos::Max<double>(local));
  } else {
    parallel::reduce(
        "mac::max_rate", owned(g),
        KOKKOS_LAMBDA(const int k, const int j, const int i, double& m) {
          m = max_of(m, RateRow<D>{u.data() + f.row(k, j), f.component, g}(i));
        },
        Kokkos::Max<double>(local));
  }
  return local;
}

double max_rate(const mesh::Field& u, const MacGrid& g, MPI_Comm comm) {
  return mesh::global_max(g.dims == 3 ? local_max_rate<3>(u, g) : local_max_rate<2>(u, g), comm);
}

// Over the cells where continuity holds: the bodies' source cells keep the mass source the forcing leaves.
double max_abs_divergence(const mesh::Field& u, const mesh::Field& fluid, const MacGrid g, MPI_Comm comm) {
  double local = 0;
  parallel::reduce(
      "mac::max_divergence", owned(g),
      KOKKOS_LAMBDA(const int k, const int j, const int i, double& m) {
        const int x[3] = {i, j, k};
        const double d = fluid(0, k, j, i) * km::fabs(divergence(u, x, g));
        m = d > m ? d : m;
      },
      Kokkos::Max<double>(local));
  return mesh::global_max(local, comm);
}

mesh::GridSpec checked(const mesh::GridSpec& grid) {
  if (grid.halo_width != MacProjection::halo_width)
    throw std::logic_error("MacProjection: the grid's halo must be MacProjection::halo_width");
  return grid;
}

MacGrid grid_of(const mesh::Decomposition& d, const MacSettings& s) {
  const double length[3] = {s.length[0], s.length[1], s.length[2]};
  return mac_grid(d, length);
}

double sum_of(const sparse::Vector& v) {
  double sum = 0;
  Kokkos::parallel_reduce(
      "mac::sum", parallel::FlatPolicy(0, v.extent(0)), KOKKOS_LAMBDA(const long n, double& s) { s += v(n); }, sum);
  return sum;
}


// The Crank-Nicolson step's direct solver, or none where a component's pencils do not fit the ranks (CG then).
std::unique_ptr<ViscousDirect> direct_viscous_step(const mesh::Decomposition& d, const MacBoundaries& boundaries,
                                                  const direct_poisson::Workspace& workspace) {
  try {
    return std::make_unique<ViscousDirect>(d, boundaries, workspace);
  } catch (const mesh::DecompositionError&) {
    return nullptr;
  }
}

sparse::PoissonProblem poisson_problem(const MacGrid& g, const MacSettings& s) {
  sparse::PoissonProblem problem;
  for (int a = 0; a < 3; ++a) {
    problem.spacing[a] = g.h[a];
    const auto condition = [&](int side) {
      return s.boundaries.face[a][side] == FaceKind::outflow ? sparse::FaceCondition::zero_value
                                                              : sparse::FaceCondition::zero_gradient;
    };
    problem.lower[a] = condition(0), problem.upper[a] = condition(1);
  }
  return problem;
}

}  // namespace

bool uses_direct_solver(const mesh::Decomposition& d, PressureSolver choice) {
  if (choice != PressureSolver::automatic) return choice == PressureSolver::direct;
  try {
    direct_poisson::DirectPoisson::check_layout(d);
    return true;
  } catch (const mesh::DecompositionError&) {
    return false;
  }
}

MacProjection::MacProjection(const mesh::GridSpec& grid, const MacSettings& settings, MPI_Comm comm)
    : settings_(settings), decomp_(comm, checked(grid)), boundaries_(decomp_, grid_of(decomp_, settings), settings.boundaries),
      scalar_exchange_(decomp_, 1), velocity_(mesh::make_field(decomp_, grid.dimensions, "mac::velocity")),
      tendency_(mesh::make_field(decomp_, grid.dimensions, "mac::tendency")),
      previous_tendency_(mesh::make_field(decomp_, grid.dimensions, "mac::previous_tendency")),
      increment_(mesh::make_field(decomp_, grid.dimensions, "mac::increment")),
      pressure_(mesh::make_field(decomp_, 1, "mac::pressure")), correction_(mesh::make_field(decomp_, 1, "mac::phi")),
      fluid_(mesh::make_field(decomp_, 1, "mac::fluid")), problem_(poisson_problem(boundaries_.grid(), settings)),
      stencil_(decomp_, problem_) {
  const bool cn = settings.viscous == ViscousScheme::crank_nicolson;
  if (cn) viscous_ = mesh::make_field(decomp_, grid.dimensions, "mac::viscous");
  parallel::fill(fluid_, 1.0);
  if (!settings.bodies.empty()) {
    const MacGrid& g = boundaries_.grid();
    bodies_ = std::make_unique<ImmersedBodies>(settings.bodies, decomp_, std::array<double, 3>{g.h[0], g.h[1], g.h[2]});
    auto fluid = Kokkos::create_mirror_view(Kokkos::HostSpace(), fluid_);
    parallel::copy<parallel::Copy::device_to_host>(fluid, fluid_);
    const auto& mask = bodies_->source_cells();
    std::size_t n = 0;
    for (int k = g.lo[2]; k < g.lo[2] + g.n[2]; ++k)
      for (int j = g.lo[1]; j < g.lo[1] + g.n[1]; ++j)
        for (int i = g.lo[0]; i < g.lo[0] + g.n[0]; ++i) fluid(0, k, j, i) = 1 - mask[n++];
    parallel::copy<parallel::Copy::host_to_device>(fluid_, fluid);
    scalar_exchange_.exchange(fluid_);
    body_cells_ = mesh::global_sum(std::accumulate(mask.begin(), mask.end(), 0.0), decomp_.comm());
  }
  if (settings.advection == AdvectionScheme::central4) fourth_order_ = fourth_order_cells(decomp_, boundaries_.grid(), bodies_.get());
  if (uses_direct_solver(decomp_, settings.pressure_solver)) {
    // The pressure solve first: its pencils are the longest, so the viscous solves' fit in them (workspace.hpp).
    const direct_poisson::Workspace workspace;
    direct_ = std::make_unique<direct_poisson::DirectPoisson>(decomp_, problem_, mesh::default_message_path(),
                                                              direct_poisson::Kernels{}, workspace);
    if (cn && !bodies_) viscous_direct_ = direct_viscous_step(decomp_, boundaries_, workspace);
  } else {
    poisson_ = std::make_unique<sparse::PoissonOperator>(decomp_, problem_);
    cg_ = std::make_unique<sparse::ConjugateGradient>(*poisson_, decomp_, problem_, settings.preconditioner);
  }
  // CG's six vector fields only where the direct solver does not take the Crank-Nicolson step (a third of a
  // 3-D cavity's memory).
  if (cn && !viscous_direct_) crank_nicolson_ = std::make_unique<CrankNicolson>(decomp_, boundaries_);
  if (bodies_ && cn) {
    start_ = mesh::make_field(decomp_, grid.dimensions, "mac::start");
    bodies_->mark(crank_nicolson_->free_faces(), 0.0);
  }
  rhs_ = sparse::Vector("mac::rhs", decomp_.local_cell_count());
  phi_ = sparse::Vector("mac::phi_rows", decomp_.local_cell_count());
}

MacProjection::~MacProjection() = default;

void MacProjection::set_state(const HostField& velocity, const HostField& pressure) {
  parallel::copy<parallel::Copy::host_to_device>(velocity_, velocity);
  parallel::copy<parallel::Copy::host_to_device>(pressure_, pressure);
  boundaries_.fill(velocity_, Fill::state, 0);
  state_filled_at_ = 0;
  scalar_exchange_.exchange(pressure_);
  previous_dt_ = 0;
}

void MacProjection::restore(const HostField& velocity, const HostField& pressure, const HostField& previous_tendency) {
  const double previous = previous_dt_;
  set_state(velocity, pressure);
  parallel::copy<parallel::Copy::host_to_device>(previous_tendency_, previous_tendency);
  previous_dt_ = previous;
}

double MacProjection::kinetic_energy() const {
  const MacGrid g = boundaries_.grid();
  const mesh::Field u = velocity_;
  double local = 0;
  parallel::reduce(
      "mac::kinetic_energy", owned(g),
      KOKKOS_LAMBDA(const int k, const int j, const int i, double& e) {
        for (int c = 0; c < g.dims; ++c) e += 0.5 * u(c, k, j, i) * u(c, k, j, i);
      },
      local);
  return mesh::global_sum(local, decomp_.comm()) * g.cell_volume();
}

double MacProjection::stable_dt(double courant) const {
  const MacGrid& g = boundaries_.grid();
  // From rest only the walls and the inflow move: their speed bounds the first step's rate.
  double boundary_speed = settings_.boundaries.inflow_velocity * (boundaries_.any(FaceKind::inflow) ? 1 : 0);
  double h_min = g.h[0];
  for (int a = 0; a < g.dims; ++a) {
    h_min = std::min(h_min, g.h[a]);
    for (int side = 0; side < 2; ++side)
      if (!decomp_.periodic(a)) boundary_speed = std::max(boundary_speed, std::abs(settings_.boundaries.wall_velocity[a][side]));
  }
  const double rate = std::max(max_rate(velocity_, g, decomp_.comm()), boundary_speed / h_min);
  // AB2 is stable on [-1, 0] of the real axis, and the Laplacian's largest eigenvalue is 4 nu sum 1/h^2:
  // 0.8 of its inverse leaves a margin of 1.25. Crank-Nicolson has no viscous limit.
  double viscous = 1e300;
  if (settings_.viscosity > 0 && settings_.viscous == ViscousScheme::explicit_ab2) {
    double sum = 0;
    for (int a = 0; a < g.dims; ++a) sum += 4 / (g.h[a] * g.h[a]);
    viscous = 0.8 / (settings_.viscosity * sum);
  }
  return rate > 0 ? std::min(courant / rate, viscous) : viscous;
}

void MacProjection::step(double time, double dt) {
  // Halos filled from the owned values at the step's time make a step depend on the owned values alone: a
  // restart is bitwise. The last step's final fill left them so where this step starts at its end.
  if (!(time == state_filled_at_)) boundaries_.fill(velocity_, Fill::state, time);
  const MacGrid g = boundaries_.grid();
  const bool cn = settings_.viscous == ViscousScheme::crank_nicolson;
  const auto& f = settings_.body_force;
  tendency({velocity_, tendency_, viscous_, fourth_order_, g, settings_.viscosity, BodyForce{{f[0], f[1], f[2]}}},
           settings_.advection, cn);
  boundaries_.outflow_before_predictor(velocity_, dt);
  // Adams-Bashforth 2 with variable steps: the explicit terms extrapolated to the step's middle.
  const double ratio = previous_dt_ > 0 ? dt / previous_dt_ : 0.0;
  const double a = 1 + ratio / 2, b = -ratio / 2;
  predict(increment_, tendency_, previous_tendency_, viscous_, pressure_, g, dt, a, b, cn);
  if (cn && bodies_) force_explicit_prediction(time, dt);
  if (cn) {
    timing::ScopedTimer timer("viscous solve");
    const double alpha = 0.5 * settings_.viscosity * dt;
    if (viscous_direct_) {
      viscous_direct_->solve(increment_, alpha);
      last_viscous_solve_ = {1, 0.0, true};  // exact to round-off
    } else {
      last_viscous_solve_ = crank_nicolson_->solve(increment_, alpha, settings_.poisson);
    }
  }
  add(velocity_, increment_, g);
  boundaries_.outflow_after_predictor(velocity_);
  // The divergence reads the first ghost layer; the bodies' forcing reads further, along its stencils.
  boundaries_.fill(velocity_, Fill::predicted, time + dt, bodies_ ? Layers::all : Layers::first);
  if (bodies_ && !cn) {
    bodies_->apply(velocity_, dt);
    boundaries_.fill(velocity_, Fill::predicted, time + dt);
  }
  divergence_rhs(velocity_, fluid_, rhs_, g, dt);
  if (body_cells_ > 0 && stencil_.singular()) balance_source_cells(rhs_, fluid_, g, body_cells_, decomp_.comm());
  parallel::fill(phi_, 0.0);
  if (direct_) {
    direct_->solve(rhs_, phi_);
    last_solve_ = {1, last_solve_.residual, true};  // exact to round-off; measure_poisson_residual() checks it
  } else {
    timing::ScopedTimer timer("krylov poisson");
    last_solve_ = cg_->solve(rhs_, phi_, settings_.poisson);
  }
  to_field(phi_, correction_, g);
  scalar_exchange_.exchange(correction_);
  correct(velocity_, pressure_, correction_, g, dt);
  if (bodies_) bodies_->account_projection(velocity_, dt);
  boundaries_.fill(velocity_, Fill::state, time + dt);
  state_filled_at_ = time + dt;
  scalar_exchange_.exchange(pressure_);
  std::swap(tendency_, previous_tendency_);
  previous_dt_ = dt;
}

PressureProbes MacProjection::pressure_probes(const std::vector<std::array<double, 3>>& points) const {
  return PressureProbes(points, boundaries_.grid(), decomp_, bodies_.get());
}

// With Crank-Nicolson the bodies force the explicit prediction u^n + b, and their faces' increments become
// the implicit solve's Dirichlet values: forcing after the solve would let the solve first spread the
// pressure jump across each body's surface into the fluid faces next to it (by alpha L), making the
// force depend on dt.
void MacProjection::force_explicit_prediction(double time, double dt) {
  const MacGrid g = boundaries_.grid();
  parallel::copy<parallel::Copy::device_to_device>(start_, velocity_);
  add(velocity_, increment_, g);
  boundaries_.fill(velocity_, Fill::predicted, time + dt);
  bodies_->apply(velocity_, dt);
  difference(velocity_, start_, increment_, g);
  parallel::copy<parallel::Copy::device_to_device>(velocity_, start_);
}

void MacProjection::measure_poisson_residual() {
  if (!direct_) return;
  const PoissonResidual residual{rhs_, correction_, stencil_, boundaries_.grid()};
  const sparse::Vector rhs = rhs_;
  // With no face holding p the solve removes b's mean first, as CG does: the residual is of that b.
  const double mean = stencil_.singular()
                          ? mesh::global_sum(sum_of(rhs), decomp_.comm()) / static_cast<double>(decomp_.global_cell_count())
                          : 0.0;
  double squares[2] = {0, 0};
  parallel::reduce(
      "mac::residual_norm", owned(residual.g),
      KOKKOS_LAMBDA(const int k, const int j, const int i, double& r2) {
        const double r = residual(k, j, i, mean);
        r2 += r * r;
      },
      squares[0]);
  Kokkos::parallel_reduce(
      "mac::rhs_norm", parallel::FlatPolicy(0, rhs.extent(0)),
      KOKKOS_LAMBDA(const int n, double& b2) { b2 += (rhs(n) - mean) * (rhs(n) - mean); }, squares[1]);
  MPI_Allreduce(MPI_IN_PLACE, squares, 2, MPI_DOUBLE, MPI_SUM, decomp_.comm());
  last_solve_.residual = squares[1] > 0 ? std::sqrt(squares[0] / squares[1]) : 0.0;
}

double MacProjection::max_poisson_residual() const {
  const PoissonResidual residual{rhs_, correction_, stencil_, boundaries_.grid()};
  double local = 0;
  parallel::reduce(
      "mac::max_poisson_residual", owned(residual.g),
      KOKKOS_LAMBDA(const int k, const int j, const int i, double& m) {
        const double r = km::fabs(residual(k, j, i, 0.0));
        m = r > m ? r : m;
      },
      Kokkos::Max<double>(local));
  return mesh::global_max(local, decomp_.comm());
}

double MacProjection::max_divergence() const {
  return max_abs_divergence(velocity_, fluid_, boundaries_.grid(), decomp_.comm());
}

}  // namespace meridian::cfd
