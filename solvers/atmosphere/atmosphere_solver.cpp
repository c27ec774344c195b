#include "solvers/atmosphere/atmosphere_solver.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "mesh/reductions.hpp"
#include "parallel/copies.hpp"
#include "parallel/fill.hpp"
#include "solvers/atmosphere/atmosphere_cases.hpp"
#include "solvers/atmosphere/cell_reductions.hpp"
#include "solvers/atmosphere/dynamics_kernels.hpp"
#include "solvers/atmosphere/moist_background.hpp"
#include "solvers/atmosphere/water_kernels.hpp"
#include "solvers/common/gauss_rule.hpp"
#include "solvers/common/wicker_skamarock.hpp"

namespace meridian::atmosphere {

std::unique_ptr<solvers::Solver> build(const io::Deck& deck, MPI_Comm comm) {
  const Settings s = settings_of(deck);
  require_memory(deck, s, comm);
  try {
    return std::make_unique<AtmosphereSolver>(s, comm);
  } catch (const mesh::DecompositionError& e) {
    deck.fail("mesh", deck_key(s, e.key()), e.what());
  }
}

AtmosphereSolver::AtmosphereSolver(const Settings& settings, MPI_Comm comm)
    : s_(settings),
      decomp_(comm, settings.grid),
      exchange_(decomp_, components_of_dims(settings.grid.dimensions)),
      components_(components_of_dims(settings.grid.dimensions)) {
  const int dims = dimensions(), vertical = vertical_axis();
  spacing_ = {1.0, 1.0, 1.0};
  for (int axis = 0; axis < dims; ++axis)
    spacing_[axis] = domain_length(s_, axis) / static_cast<double>(decomp_.global_cells(axis));
  const double dz = spacing_[vertical];
  const long nz = decomp_.local_cells(vertical), h = decomp_.halo(vertical);
  if (s_.moisture.water == Water::saturated_neutral) sounding_.emplace(saturated_sounding(s_));
  const DiscreteBackground background = discrete_background(dz, decomp_.offset(vertical) - h, nz + 2 * h);
  water_background_ = background.water;
  cells_ = BackgroundView("atmosphere::background_cells", nz + 2 * h);
  faces_ = BackgroundView("atmosphere::background_faces", nz + 1);
  cells_host_ = Kokkos::create_mirror_view(cells_);
  auto faces_host = Kokkos::create_mirror_view(faces_);
  for (long k = 0; k < nz + 2 * h; ++k) cells_host_(k) = background.cells[k];
  for (long k = 0; k <= nz; ++k) faces_host(k) = background.faces[k + h];
  parallel::copy<parallel::Copy::host_to_device>(cells_, cells_host_);
  parallel::copy<parallel::Copy::host_to_device>(faces_, faces_host);
  // The background's mass and energy, summed over the whole column in one order on every rank, so the
  // totals' large part has the same bits on any decomposition.
  const DiscreteBackground column = discrete_background(dz, 0, decomp_.global_cells(vertical));
  const double horizontal_area = dims == 3 ? s_.width * s_.depth : s_.width;  // 2-D: per metre along y
  const double layer = horizontal_area * dz;
  for (long k = 0; k < decomp_.global_cells(vertical); ++k) {
    const BackgroundPoint& c = column.cells[k];
    background_mass_ += c.rho * layer;
    background_energy_ += (cv / rd * c.pressure + gravity * (k + 0.5) * dz * c.rho) * layer;
    if (column.water.empty()) continue;
    const WaterPoint& w = column.water[k];
    background_water_[0] += w.vapour * layer;
    background_water_[1] += w.cloud * layer;
    background_energy_ += water_internal_energy(w.vapour, w.cloud, cell_temperature(c.rho, c.pressure, w)) * layer;
  }
  if (!water_background_.empty()) {
    Kokkos::View<WaterPoint*> water_cells("atmosphere::background_water", water_background_.size());
    auto host = Kokkos::create_mirror_view(water_cells);
    for (std::size_t k = 0; k < water_background_.size(); ++k) host(k) = water_background_[k];
    parallel::copy<parallel::Copy::host_to_device>(water_cells, host);
    water_cells_ = water_cells;
  }
  // The Rayleigh layer's rate at each interior level's centre: rate sin^2(pi/2 (z - base) / depth) above its base.
  Kokkos::View<double*> rate("atmosphere::rayleigh_rate", nz);
  auto rate_host = Kokkos::create_mirror_view(rate);
  for (long k = 0; k < nz; ++k) {
    const double z = (decomp_.offset(vertical) + k + 0.5) * dz, base = s_.height - s_.rayleigh_depth;
    const double s = s_.rayleigh_depth > 0 && z > base ? std::sin(pi / 2 * (z - base) / s_.rayleigh_depth) : 0.0;
    rate_host(k) = s_.rayleigh_rate * s * s;
  }
  parallel::copy<parallel::Copy::host_to_device>(rate, rate_host);
  rayleigh_rate_ = rate;
  q_ = mesh::make_field(decomp_, components_, "atmosphere::state");
  stage_ = mesh::make_field(decomp_, components_, "atmosphere::stage");
  if (s_.unsplit) second_stage_ = mesh::make_field(decomp_, components_, "atmosphere::second_stage");
  // Room for the largest sweep's rows of faces: (nz + 1) x (ny + 1) in 3-D, nz + 1 in 2-D.
  const long y_rows = dims == 3 ? decomp_.local_cells(1) + 1 : 1;
  const int water_slots = s_.moisture.on() ? water_species : 0;
  flux_ = Flux("atmosphere::flux", components_ + water_slots, (nz + 1) * y_rows, decomp_.local_cells(0) + 1);
  if (!parallel::device_memory_is_host) q_host_ = Kokkos::create_mirror(q_);
  if (s_.moisture.on()) {
    water_ = mesh::make_field(decomp_, water_species, "atmosphere::water");
    water_stage_ = mesh::make_field(decomp_, water_species, "atmosphere::water_stage");
    if (s_.unsplit) water_second_stage_ = mesh::make_field(decomp_, water_species, "atmosphere::water_second_stage");
    last_pressure_ = mesh::make_field(decomp_, 1, "atmosphere::last_pressure");
    water_exchange_ = std::make_unique<mesh::HaloExchange>(decomp_, water_species);
    if (!parallel::device_memory_is_host) water_host_ = Kokkos::create_mirror(water_);
  }
  // CF names: the winds have standard names; the perturbations from the hydrostatic reference state have none.
  struct Output {
    const char *name, *units, *long_name, *standard_name;
  };
  std::vector<Output> fields{
      {"fields/theta_perturbation", "K", "potential temperature minus the reference state's", ""},
      {"fields/u", "m/s", "eastward wind", "eastward_wind"},
      {"fields/w", "m/s", "upward air velocity", "upward_air_velocity"},
      {"fields/pressure_perturbation", "Pa", "air pressure minus the reference state's", ""},
      {"fields/density_perturbation", "kg/m^3", "air density minus the reference state's", ""}};
  if (dims == 3) fields.push_back({"fields/v", "m/s", "northward wind", "northward_wind"});
  if (s_.moisture.on()) {
    fields[0].long_name = "density potential temperature minus the reference state's";
    fields.push_back({"fields/vapour_mixing_ratio", "kg/kg", "water vapour per kg of dry air", "humidity_mixing_ratio"});
    fields.push_back({"fields/cloud_mixing_ratio", "kg/kg", "cloud liquid water per kg of dry air",
                      "cloud_liquid_water_mixing_ratio"});
    fields.push_back({"fields/theta_e_perturbation", "K",
                      "equivalent potential temperature (Emanuel 1994, eq. 4.5.11) minus the reference state's", ""});
  }
  for (const auto& f : fields) {
    output_.push_back({box(f.name, f.units), {}});
    output_.back().box.long_name = f.long_name, output_.back().box.standard_name = f.standard_name;
  }
  for (const auto& b : state_layout()) staged_state_.push_back({b, {}});
  for (auto* sets : {&output_, &staged_state_})
    for (auto& d : *sets) d.values.resize(d.box.local_values());
  set_initial_state();
}

namespace {
// A host view's component c at halo-inclusive (vertical k, y j, x i), as at<Dims> on the device.
template <class HostField>
double& host_value(const HostField& q, int dims, int c, long k, long j, long i) {
  return dims == 3 ? q(c, k, j, i) : q(c, 0, k, i);
}

// Calls copy(n, k, j, i) for this rank's cells in the C order of the output (vertical slowest, x
// fastest), n counting them and (k, j, i) their halo-inclusive indices (j = 0 in 2-D).
template <class Copy>
void for_owned(const mesh::Decomposition& d, Copy&& copy) {
  const int dims = d.dimensions();
  const long h = d.halo(0), y_first = dims == 3 ? h : 0, y_end = y_first + (dims == 3 ? d.local_cells(1) : 1);
  std::size_t n = 0;
  for (long k = h; k < h + d.local_cells(dims - 1); ++k)
    for (long j = y_first; j < y_end; ++j)
      for (long i = h; i < h + d.local_cells(0); ++i, ++n) copy(n, k, j, i);
}
}  // namespace

// Cell averages by 3 x 3 (x 3) Gauss-Legendre quadrature of the perturbation about the profile's point
// values, as miniWeather's initialisation; the water's partial densities likewise about the background's cells.
void AtmosphereSolver::set_initial_state() {
  using solvers::GaussRule;
  auto q = Kokkos::create_mirror_view(q_);
  parallel::fill(q, 0.0);
  const bool saturated = s_.moisture.water == Water::saturated_neutral;
  const double vapour_fraction = s_.moisture.vapour / (1 + s_.moisture.vapour);  // uniform_vapour's rho_v / rho
  mesh::Field::HostMirror water;
  if (s_.moisture.on()) water = Kokkos::create_mirror_view(water_);
  const auto& cells = cells_host_;
  const int dims = dimensions(), vertical = vertical_axis(), y_points = dims == 3 ? GaussRule::points : 1;
  for_owned(decomp_, [&](std::size_t, long k, long j, long i) {
    const int h = decomp_.halo(0);
    double sums[components_of<3>] = {}, water_sums[water_species] = {};
    for (int a = 0; a < GaussRule::points; ++a)
      for (int b = 0; b < y_points; ++b)
        for (int c = 0; c < GaussRule::points; ++c) {
          Point p;
          p.x = (decomp_.offset(0) + i - h + 0.5 + GaussRule::node(c)) * spacing_[0];
          p.y = dims == 3 ? (decomp_.offset(1) + j - h + 0.5 + GaussRule::node(b)) * spacing_[1] : s_.depth / 2;
          p.z = (decomp_.offset(vertical) + k - h + 0.5 + GaussRule::node(a)) * spacing_[vertical];
          const double weight = dims == 3 ? GaussRule::weight(a) * GaussRule::weight(b) * GaussRule::weight(c)
                                          : GaussRule::weight(a) * GaussRule::weight(c);
          bool constant_pressure = false;
          const double dtheta = theta_perturbation(s_, p, constant_pressure);
          if (saturated) {  // Bryan & Fritsch's moist bubble: rho theta_rho unchanged with the pressure
            if (dtheta == 0) continue;
            const WaterPerturbation m = saturated_bubble(*sounding_, s_.moisture.total_water, 1 + dtheta / 300, p.z);
            sums[density] += weight * m.density;
            water_sums[vapour] += weight * m.vapour;
            water_sums[cloud] += weight * m.cloud;
            continue;
          }
          const double rho_b = s_.profile.density(p.z), theta_b = s_.profile.theta(p.z);
          double rho = rho_b, rt_perturbation = rho_b * dtheta;
          if (constant_pressure) rho = s_.profile.rho_theta(p.z) / (theta_b + dtheta), rt_perturbation = 0;
          sums[density] += weight * (rho - rho_b);
          sums[momentum_x] += weight * rho * s_.wind;
          sums[rho_theta] += weight * rt_perturbation;
          water_sums[vapour] += weight * (rho - rho_b) * vapour_fraction;
        }
    if (saturated) sums[momentum_x] = s_.wind * (cells(k).rho + sums[density]);
    for (int c = 0; c < components_; ++c) host_value(q, dims, c, k, j, i) = sums[c];
    if (!s_.moisture.on()) return;
    host_value(water, dims, vapour, k, j, i) = water_background_[k].vapour + water_sums[vapour];
    host_value(water, dims, cloud, k, j, i) = water_background_[k].cloud + water_sums[cloud];
  });
  parallel::copy<parallel::Copy::host_to_device>(q_, q);
  if (!s_.moisture.on()) return;
  parallel::copy<parallel::Copy::host_to_device>(water_, water);
  set_last_pressure();
}

// Every cell's pressure now, as the moist expansion's correction reads it at the end of the next step.
void AtmosphereSolver::set_last_pressure() {
  const Block b = block_of(decomp_, s_.side_walls);
  if (dimensions() == 3)
    record_pressure<3>(b, cells_, q_, last_pressure_);
  else
    record_pressure<2>(b, cells_, q_, last_pressure_);
}

DiscreteBackground AtmosphereSolver::discrete_background(double dz, long first_cell, long cells) const {
  if (sounding_) return discretise_saturated(*sounding_, s_.moisture.total_water, dz, first_cell, cells);
  DiscreteBackground b = discretise(s_.profile, dz, first_cell, cells);
  if (s_.moisture.water == Water::uniform_vapour) add_uniform_vapour(b, s_.moisture.vapour);
  return b;
}

const mesh::Field& AtmosphereSolver::water_of(const mesh::Field& air) const {
  if (air.data() == stage_.data()) return water_stage_;
  if (air.data() == second_stage_.data()) return water_second_stage_;
  return water_;
}

io::DatasetBox AtmosphereSolver::box(const std::string& name, const std::string& units) const {
  io::DatasetBox b;
  b.name = name;
  for (int axis = dimensions() - 1; axis >= 0; --axis) {  // C order: the vertical slowest, x fastest
    b.global.push_back(static_cast<unsigned long long>(decomp_.global_cells(axis)));
    b.offset.push_back(static_cast<unsigned long long>(decomp_.offset(axis)));
    b.count.push_back(static_cast<unsigned long long>(decomp_.local_cells(axis)));
  }
  b.units = units;
  io::Geometry g;
  g.dimensions = dimensions();
  g.spacing = spacing_;
  g.length_units = "m";
  g.vertical_axis = dimensions() - 1;  // z, the last axis: (x, z) in 2-D
  if (dimensions() == 2) g.axis_names = {"x", "z", ""};
  b.geometry = g;
  return b;
}

double AtmosphereSolver::signal_rate() const {
  const Block b = block_of(decomp_, s_.side_walls);
  const Spacing spacing{spacing_[0], spacing_[1], spacing_[2]};
  const double rate = dimensions() == 3 ? max_signal_rate<3>(b, q_, cells_, spacing, s_.unsplit)
                                        : max_signal_rate<2>(b, q_, cells_, spacing, s_.unsplit);
  return mesh::global_max(rate, decomp_.comm());
}

double AtmosphereSolver::stable_dt(double) {
  // A fixed dt needs no rate for the step (the deck's check bounded its Courant number on the initial state),
  // only for the progress line, which computes its own: the reduction was 8% of a fixed-dt step.
  if (s_.fixed_dt <= 0) last_rate_ = signal_rate();
  double dt = s_.fixed_dt > 0 ? s_.fixed_dt : s_.courant / last_rate_;
  // The explicit relaxation: dt times the rate within 1 (RK3 is stable to 2.5 on the negative real axis).
  if (s_.rayleigh_depth > 0) dt = std::min(dt, 1 / s_.rayleigh_rate);
  // Explicit diffusion: nu dt / h^2 within RK3's real-axis reach (2.5) over the 2nd difference's
  // largest eigenvalue (4), with a margin: 0.5.
  const double diffusion = std::max(s_.viscosity, s_.diffusivity);
  double smallest = spacing_[0];
  for (int axis = 1; axis < dimensions(); ++axis) smallest = std::min(smallest, spacing_[axis]);
  if (diffusion > 0) dt = std::min(dt, 0.5 * smallest * smallest / diffusion);
  return dt;
}

// What a sweep along `axis` reads beyond the rank's cells: the neighbours' cells across that axis and
// the halos beyond its walls. A split step's sweep fills only these: in 2-D on ranks cut along x, the
// vertical sweep sends no messages (miniWeather's split does the same).
void AtmosphereSolver::fill_halos_across(const mesh::Field& field, int axis) {
  exchange_.exchange_across(field, axis);
  const Block b = block_of(decomp_, s_.side_walls);
  if (dimensions() == 3)
    wall_halos_across<3>(axis, b, cells_, field);
  else
    wall_halos_across<2>(axis, b, cells_, field);
  if (!s_.moisture.on()) return;
  const mesh::Field& water = water_of(field);
  water_exchange_->exchange_across(water, axis);
  if (dimensions() == 3)
    water_wall_halos_across<3>(axis, b, cells_, field, water);
  else
    water_wall_halos_across<2>(axis, b, cells_, field, water);
}

void AtmosphereSolver::fill_halos(const mesh::Field& field) {
  for (int axis = 0; axis < dimensions(); ++axis) fill_halos_across(field, axis);
}

void AtmosphereSolver::stage(int axis, const mesh::Field& initial, const mesh::Field& forcing, const mesh::Field& out,
                             double dt) {
  fill_halos_across(forcing, axis);
  tendencies(axis, initial, forcing, out, dt);
}

void AtmosphereSolver::tendencies(int axis, const mesh::Field& initial, const mesh::Field& forcing,
                                  const mesh::Field& out, double dt) {
  const Block b = block_of(decomp_, s_.side_walls);
  const double h = spacing_[axis];
  // miniWeather's hyperviscosity coefficient -beta h / (16 dt) with the stage's dt: each stage
  // removes the same fraction of the third difference, whatever the step.
  const FluxInputs in{forcing,      flux_,          cells_,         faces_,
                      b,            -s_.hyperviscosity * h / (16 * dt), h, s_.viscosity,
                      s_.diffusivity, s_.fifth_order, s_.one_sided_walls};
  const VerticalSources sources{cells_, rayleigh_rate_, s_.wind, s_.rayleigh_depth > 0};
  // The water's fluxes are the air's mass flux times its fractions, read before the air's update overwrites
  // the forcing state (out may be the forcing).
  const WaterInputs water{s_.moisture.on() ? water_of(forcing) : mesh::Field(), forcing, flux_, cells_, b, components_};
  if (dimensions() == 3) {
    directional_fluxes<3>(axis, in);
    if (s_.moisture.on()) water_tendencies<3>(axis, water, water_of(initial), water_of(out), dt, h);
    directional_update<3>(axis, in, initial, out, dt, sources);
  } else {
    directional_fluxes<2>(axis, in);
    if (s_.moisture.on()) water_tendencies<2>(axis, water, water_of(initial), water_of(out), dt, h);
    directional_update<2>(axis, in, initial, out, dt, sources);
  }
}

// One direction's Wicker-Skamarock RK3, every stage from the state at the sweep's start.
void AtmosphereSolver::sweep(int axis, double dt) {
  const mesh::Field* forcing[solvers::wicker_skamarock_stages] = {&q_, &stage_, &stage_};
  const mesh::Field* out[solvers::wicker_skamarock_stages] = {&stage_, &stage_, &q_};
  for (int n = 0; n < solvers::wicker_skamarock_stages; ++n)
    stage(axis, q_, *forcing[n], *out[n], solvers::wicker_skamarock_stage(n, dt).dt);
}

// Every direction's tendencies in every stage, from the same forcing state: x into `out` from the
// step's start, then the others added in place (so out may not be the forcing: stage 2 writes the
// second buffer).
void AtmosphereSolver::unsplit_step(double dt) {
  const mesh::Field* forcing[solvers::wicker_skamarock_stages] = {&q_, &stage_, &second_stage_};
  const mesh::Field* out[solvers::wicker_skamarock_stages] = {&stage_, &second_stage_, &q_};
  for (int n = 0; n < solvers::wicker_skamarock_stages; ++n) {
    const double stage_dt = solvers::wicker_skamarock_stage(n, dt).dt;
    fill_halos(*forcing[n]);
    tendencies(0, q_, *forcing[n], *out[n], stage_dt);
    for (int axis = 1; axis < dimensions(); ++axis) tendencies(axis, *out[n], *forcing[n], *out[n], stage_dt);
  }
}

// Split: x to z, then z to x the next step (miniWeather's x, z / z, x in 2-D and x, y, z / z, y, x in 3-D).
// The moist physics comes once, at the end of the step (as CM1 and WRF place their microphysics): the dynamics'
// stages see the water as the step began, and the cloud that condenses is the step's.
void AtmosphereSolver::step(double, double dt) {
  if (s_.unsplit) {
    unsplit_step(dt);
  } else {
    const int dims = dimensions();
    for (int n = 0; n < dims; ++n) sweep(x_first_ ? n : dims - 1 - n, dt);
    x_first_ = !x_first_;
  }
  if (s_.moisture.on()) moist_physics(dt);
}

void AtmosphereSolver::moist_physics(double dt) {
  const Block b = block_of(decomp_, s_.side_walls);
  const Moisture& m = s_.moisture;
  if (dimensions() == 3)
    atmosphere::moist_physics<3>(b, cells_, q_, water_, last_pressure_, dt, m.adjustment, m.tolerance);
  else
    atmosphere::moist_physics<2>(b, cells_, q_, water_, last_pressure_, dt, m.adjustment, m.tolerance);
}

std::vector<solvers::Scalar> AtmosphereSolver::diagnostics(double) {
  const Block b = block_of(decomp_, s_.side_walls);
  const int dims = dimensions(), vertical = vertical_axis();
  const double dz = spacing_[vertical];
  const double volume = dims == 3 ? spacing_[0] * spacing_[1] * dz : spacing_[0] * dz;
  const long z0 = decomp_.offset(vertical);
  // The dry quantities, then the water's (moist runs): sums of mass, energy, vapour, cloud and the water's
  // internal energy beyond the dry formula; maxima of |w|, -theta', theta', -min mixing ratio, cloud mixing ratio
  // and supersaturation. One reduction each over ranks.
  double sums[5] = {}, maxima[6] = {};
  const bool moist = s_.moisture.on();
  if (dims == 3) {
    local_diagnostics<3>(b, q_, cells_, dz, volume, z0, sums, maxima);
    if (moist) local_water_diagnostics<3>(b, q_, water_, cells_, water_cells_, volume, sums + 2, maxima + 3);
  } else {
    local_diagnostics<2>(b, q_, cells_, dz, volume, z0, sums, maxima);
    if (moist) local_water_diagnostics<2>(b, q_, water_, cells_, water_cells_, volume, sums + 2, maxima + 3);
  }
  MPI_Allreduce(MPI_IN_PLACE, sums, moist ? 5 : 2, MPI_DOUBLE, MPI_SUM, decomp_.comm());
  MPI_Allreduce(MPI_IN_PLACE, maxima, moist ? 6 : 3, MPI_DOUBLE, MPI_MAX, decomp_.comm());
  const char* mass_units = dims == 3 ? "kg" : "kg/m";
  std::vector<solvers::Scalar> out{{"total_mass", background_mass_ + sums[0], true, mass_units},
                                   {"total_energy", background_energy_ + (sums[1] + sums[4]), true, dims == 3 ? "J" : "J/m"},
                                   {"max_abs_w", maxima[0], true, "m/s"},
                                   {"min_theta_perturbation", -maxima[1], true, "K"},
                                   {"max_theta_perturbation", maxima[2], true, "K"}};
  if (!moist) return out;
  const double* water_sums = sums + 2;
  const double* water_maxima = maxima + 3;
  const double perturbation = water_sums[0] + water_sums[1];
  const double background_water = background_water_[0] + background_water_[1];
  out.push_back({"dry_mass", (background_mass_ - background_water) + (sums[0] - perturbation), true, mass_units});
  out.push_back({"total_water", background_water + perturbation, true, mass_units});
  out.push_back({"cloud_water", background_water_[1] + water_sums[1], true, mass_units});
  out.push_back({"min_water_mixing_ratio", -water_maxima[0], true, "kg/kg"});
  out.push_back({"max_cloud_mixing_ratio", water_maxima[1], true, "kg/kg"});
  out.push_back({"max_supersaturation", water_maxima[2], true, "1"});
  return out;
}

std::vector<solvers::Scalar> AtmosphereSolver::progress(double dt) const {
  return {{"courant", dt * (s_.fixed_dt > 0 ? signal_rate() : last_rate_), true, "1"}};
}

double AtmosphereSolver::work_per_step() const { return static_cast<double>(decomp_.global_cell_count()); }

std::string AtmosphereSolver::layout() const {
  const int dims = dimensions();
  const char* names[3] = {"x", dims == 3 ? "y" : "z", "z"};
  std::ostringstream ranks, cells, spacing;
  for (int axis = 0; axis < dims; ++axis) {
    const char* separator = axis == 0 ? "" : " x ";
    ranks << separator << decomp_.process_grid(axis) << " (" << names[axis] << ")";
    cells << separator << decomp_.global_cells(axis);
    spacing << separator << spacing_[axis] << " m";
  }
  std::ostringstream out;
  out << decomp_.size() << " ranks as " << ranks.str() << ", " << cells.str() << " cells of " << spacing.str() << ", "
      << (s_.fifth_order ? "WRF's 5th-order upwind" : "miniWeather's 4th-order") << " fluxes, "
      << (s_.unsplit ? "unsplit" : "dimensionally split") << " RK3";
  return out.str();
}

const std::vector<io::HostDataset>& AtmosphereSolver::output_fields() {
  const auto q = mesh::on_host(q_, q_host_);
  const auto& cells = cells_host_;
  const int dims = dimensions();
  for_owned(decomp_, [&](std::size_t n, long k, long j, long i) {
    const BackgroundPoint& cell = cells(k);
    const auto value = [&](int c) { return host_value(q, dims, c, k, j, i); };
    const double rho = value(density) + cell.rho;
    output_[0].values[n] = (value(rho_theta) + cell.rho_theta) / rho - cell.rho_theta / cell.rho;
    output_[1].values[n] = value(momentum_x) / rho;
    output_[2].values[n] = value(momentum_z) / rho;
    output_[3].values[n] = pressure_perturbation(value(rho_theta), cell.rho_theta, cell.pressure);
    output_[4].values[n] = value(density);
    if (dims == 3) output_[5].values[n] = value(momentum_y) / rho;
  });
  if (s_.moisture.on()) output_water(q);
  return output_;
}

// The water's mixing ratios and theta_e' (after the air's fields in output_), from the state output_fields has
// already brought to the host.
void AtmosphereSolver::output_water(const mesh::Field::HostMirror& q) {
  const auto water = mesh::on_host(water_, water_host_);
  const auto& cells = cells_host_;
  const int dims = dimensions(), first = dims == 3 ? 6 : 5;
  // ln theta_e of a cell of whole density rho, pressure p and water w.
  const auto log_theta_e = [](double rho, double p, const WaterPoint& w) {
    const double rho_d = rho - w.vapour - w.cloud;
    return moist::log_equivalent_potential_temperature(cell_temperature(rho, p, w), rho_d, w.vapour / rho_d,
                                                       (w.vapour + w.cloud) / rho_d);
  };
  for_owned(decomp_, [&](std::size_t n, long k, long j, long i) {
    const BackgroundPoint& cell = cells(k);
    const WaterPoint w{host_value(water, dims, vapour, k, j, i), host_value(water, dims, cloud, k, j, i)};
    const double rho = host_value(q, dims, density, k, j, i) + cell.rho;
    const double p = cell_pressure(host_value(q, dims, rho_theta, k, j, i), cell);
    const double rho_d = rho - w.vapour - w.cloud;
    output_[first].values[n] = w.vapour / rho_d;
    output_[first + 1].values[n] = w.cloud / rho_d;
    output_[first + 2].values[n] = std::exp(log_theta_e(rho, p, w)) - std::exp(log_theta_e(cell.rho, cell.pressure,
                                                                                         water_background_[k]));
  });
}

std::vector<io::DatasetBox> AtmosphereSolver::state_layout() const {
  std::vector<io::DatasetBox> boxes{box("state/density_perturbation", "kg/m^3"), box("state/momentum_x", "kg/(m^2 s)"),
                                    box("state/momentum_z", "kg/(m^2 s)"),
                                    box("state/rho_theta_perturbation", "kg K/m^3")};
  if (dimensions() == 3) boxes.push_back(box("state/momentum_y", "kg/(m^2 s)"));
  if (s_.moisture.on()) {
    boxes.push_back(box("state/vapour_density", "kg/m^3"));
    boxes.push_back(box("state/cloud_density", "kg/m^3"));
    boxes.push_back(box("state/last_pressure", "Pa"));
  }
  return boxes;
}

const std::vector<io::HostDataset>& AtmosphereSolver::state() {
  const auto q = mesh::on_host(q_, q_host_);
  const int dims = dimensions();
  for_owned(decomp_, [&](std::size_t n, long k, long j, long i) {
    for (int c = 0; c < components_; ++c) staged_state_[c].values[n] = host_value(q, dims, c, k, j, i);
  });
  if (s_.moisture.on()) {
    const auto water = mesh::on_host(water_, water_host_);
    const auto last = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), last_pressure_);
    for_owned(decomp_, [&](std::size_t n, long k, long j, long i) {
      for (int c = 0; c < water_species; ++c) staged_state_[components_ + c].values[n] = host_value(water, dims, c, k, j, i);
      staged_state_[components_ + water_species].values[n] = host_value(last, dims, 0, k, j, i);
    });
  }
  return staged_state_;
}

void AtmosphereSolver::restore(const std::vector<io::HostDataset>& state) {
  const auto q = mesh::on_host(q_, q_host_);
  const int dims = dimensions();
  for_owned(decomp_, [&](std::size_t n, long k, long j, long i) {
    for (int c = 0; c < components_; ++c) host_value(q, dims, c, k, j, i) = state.at(c).values.at(n);
  });
  parallel::copy<parallel::Copy::host_to_device>(q_, q);  // on the host backends q_ itself: counted, no copy
  if (!s_.moisture.on()) return;
  const auto water = mesh::on_host(water_, water_host_);
  auto last = Kokkos::create_mirror_view(last_pressure_);
  for_owned(decomp_, [&](std::size_t n, long k, long j, long i) {
    for (int c = 0; c < water_species; ++c) host_value(water, dims, c, k, j, i) = state.at(components_ + c).values.at(n);
    host_value(last, dims, 0, k, j, i) = state.at(components_ + water_species).values.at(n);
  });
  parallel::copy<parallel::Copy::host_to_device>(water_, water);
  parallel::copy<parallel::Copy::host_to_device>(last_pressure_, last);
}

std::vector<solvers::Scalar> AtmosphereSolver::state_scalars() const {
  return {{"x_first", x_first_ ? 1.0 : 0.0, true, "1"}};
}

void AtmosphereSolver::restore_scalars(const std::vector<solvers::Scalar>& scalars) {
  x_first_ = scalars.at(0).value != 0;
}

}  // namespace meridian::atmosphere
