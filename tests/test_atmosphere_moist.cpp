// Moist air on the atmosphere core (#26): water as partial densities carried by the air's mass flux, the whole
// density in the dynamics, the saturated neutral state of Bryan & Fritsch (2002) and their moist bubble. Without
// water the core is the dry one to the bit; the saturated state rests; a uniform mixing ratio stays uniform and
// every mass is conserved; the adjustment leaves no supersaturation beyond its tolerance and no negative water.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <vector>

#include "atmosphere_for_tests.hpp"
#include "mesh/reductions.hpp"
#include "solvers/atmosphere/atmosphere_solver.hpp"
#include "solvers/atmosphere/moist_background.hpp"
#include "solvers/atmosphere/water_transport.hpp"

using namespace meridian;

namespace {

std::unique_ptr<atmosphere::AtmosphereSolver> build(const std::vector<std::string>& settings) {
  return meridian::testing::build_atmosphere(settings);
}
using meridian::testing::diagnostics;

// Steps from `start` to `end_time`, landing on it.
void run_to(atmosphere::AtmosphereSolver& s, double end_time, double start = 0) {
  for (double t = start; t < end_time;) {
    const double dt = std::min(s.stable_dt(t), end_time - t);
    s.step(t, dt);
    t = end_time - t <= dt ? end_time : t + dt;
  }
}

using HostField = Kokkos::View<double****, mesh::Layout, Kokkos::HostSpace>;
HostField on_host(const mesh::Field& f) { return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f); }

// Calls f(k, i) for this rank's cells of the slice (halo-inclusive indices).
template <class F>
void for_cells(const atmosphere::AtmosphereSolver& s, F&& f) {
  const auto& d = s.decomposition();
  const int h = d.halo(0);
  for (long k = h; k < h + d.local_cells(1); ++k)
    for (long i = h; i < h + d.local_cells(0); ++i) f(k, i);
}

double relative_change(double before, double after) { return std::abs(after - before) / std::abs(before); }

const std::vector<std::string> saturated{"atmosphere.width=20000.0", "atmosphere.height=10000.0",
                                         "atmosphere.sides=wall", "moisture.water=saturated_neutral",
                                         "mesh.nx=50", "mesh.nz=25"};

}  // namespace

// The saturated neutral background at the discrete level, 100 m and 1 km levels: the z momentum's relation
// (p_face(k+1) - p_face(k)) / dz = -g rho_cell(k) with the whole density (each cell's made from it: rounding
// only, bound 1e-12 as the dry test's), r_t = 0.02 in every cell, and every cell saturated for its own pressure
// and dry density (bound 1e-12: the root's tolerance), so the adjustment leaves the resting state alone. Measured
// 2.1e-16, 4.4e-16 and 1.0e-14.
TEST(AtmosphereMoist, SaturatedBackgroundIsHydrostaticAndSaturatedAtTheDiscreteLevel) {
  for (const char* levels : {"100", "10"}) {
    auto s = build({"atmosphere.case=rest", "atmosphere.width=20000.0", "atmosphere.height=10000.0",
                    "moisture.water=saturated_neutral", "mesh.nx=4", std::string("mesh.nz=") + levels});
    const auto faces = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s->background_faces());
    const auto cells = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s->background_cells());
    const auto& water = s->background_water();
    const int h = s->decomposition().halo(1);
    double hydrostatic = 0, total_water = 0, saturation = 0;
    for (long k = 0; k < s->decomposition().local_cells(1); ++k) {
      const auto& c = cells(h + k);
      const double weight = atmosphere::gravity * c.rho;
      hydrostatic = std::max(hydrostatic, std::abs((faces(k + 1).pressure - faces(k).pressure) / s->spacing(1) + weight) / weight);
      const double rho_d = c.rho - water[h + k].vapour - water[h + k].cloud;
      total_water = std::max(total_water, std::abs((water[h + k].vapour + water[h + k].cloud) / rho_d / 0.02 - 1));
      const double t = atmosphere::cell_temperature(c.rho, c.pressure, water[h + k]);
      saturation = std::max(saturation,
                            std::abs(water[h + k].vapour / rho_d / atmosphere::moist::saturation_mixing_ratio(t, rho_d) - 1));
    }
    std::cout << "  " << levels << " levels: hydrostatic " << hydrostatic << ", r_t " << total_water << ", saturation "
              << saturation << "\n";
    EXPECT_LT(hydrostatic, 1e-12) << levels;
    EXPECT_LT(total_water, 1e-12) << levels;
    EXPECT_LT(saturation, 1e-12) << levels;
  }
}

// The water rides on the air without acting on it until it has mass: zero vapour changes no bit of the dry
// thermal (the water's launches run, their results are zero).
TEST(AtmosphereMoist, ZeroWaterReproducesTheDryCoreBitwise) {
  const std::vector<std::string> thermal{"atmosphere.case=thermal", "mesh.nx=40", "mesh.nz=20"};
  auto dry = build(thermal);
  auto with_water = thermal;
  with_water.insert(with_water.end(), {"moisture.water=uniform_vapour", "moisture.vapour=0.0"});
  auto moist = build(with_water);
  run_to(*dry, 200.0);
  run_to(*moist, 200.0);
  const auto a = on_host(dry->fields()), b = on_host(moist->fields());
  long differing = 0;
  for_cells(*dry, [&](long k, long i) {
    for (int c = 0; c < 4; ++c) differing += a(c, 0, k, i) != b(c, 0, k, i);
  });
  EXPECT_EQ(mesh::global_sum(static_cast<double>(differing), MPI_COMM_WORLD), 0.0);
  EXPECT_GT(diagnostics(*dry).at("max_abs_w"), 1.0);
}

// Bryan & Fritsch's base state without its bubble, 50 x 25 cells of 400 m between walls, to 1000 s: every cell
// is saturated at the discrete level, so the adjustment leaves it alone, and the perturbation form leaves a
// resting state at rest. Measured: max |w| exactly 0 and the cloud unchanged to the bit; the bounds are the
// issue's 1e-10 m/s and zero change of cloud.
TEST(AtmosphereMoist, SaturatedNeutralStateStaysAtRestFor1000s) {
  auto settings = saturated;
  settings.push_back("atmosphere.case=rest");
  auto s = build(settings);
  const auto cloud_before = on_host(s->water());
  run_to(*s, 1000.0);
  const auto cloud_after = on_host(s->water());
  double changed = 0;
  for_cells(*s, [&](long k, long i) {
    changed = std::max(changed, std::abs(cloud_after(atmosphere::cloud, 0, k, i) - cloud_before(atmosphere::cloud, 0, k, i)));
  });
  EXPECT_LE(diagnostics(*s).at("max_abs_w"), 1e-10);
  EXPECT_EQ(mesh::global_max(changed, MPI_COMM_WORLD), 0.0);
  EXPECT_GT(diagnostics(*s).at("max_cloud_mixing_ratio"), 0.007);  // the column is cloudy: 8 g/kg at the ground
}

// miniWeather's thermal with a uniform vapour mixing ratio of 1e-5 and no adjustment, 50 x 25 cells to 1000 s,
// periodic and between walls: the water's fraction takes the air's own mass flux, so it stays uniform to round-off,
// and dry air and water are each conserved. Measured (periodic / walls): 5e-15 and 6e-15 of q_v; masses 1e-14.
TEST(AtmosphereMoist, UniformVapourStaysUniformAndMassesAreConserved) {
  for (const char* sides : {"periodic", "wall"}) {
    auto s = build({"atmosphere.case=thermal", "mesh.nx=50", "mesh.nz=25", std::string("atmosphere.sides=") + sides,
                    "moisture.water=uniform_vapour", "moisture.vapour=1e-5", "moisture.saturation_adjustment=false"});
    const auto start = diagnostics(*s);
    run_to(*s, 1000.0);
    const auto end = diagnostics(*s);
    const auto q = on_host(s->fields()), water = on_host(s->water());
    const auto cells = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s->background_cells());
    double worst = 0;
    for_cells(*s, [&](long k, long i) {
      const double rho = q(atmosphere::density, 0, k, i) + cells(k).rho;
      const double rho_v = water(atmosphere::vapour, 0, k, i), rho_c = water(atmosphere::cloud, 0, k, i);
      worst = std::max(worst, std::abs(rho_v / (rho - rho_v - rho_c) / 1e-5 - 1));
    });
    worst = mesh::global_max(worst, MPI_COMM_WORLD);
    std::cout << "  " << sides << ": max |q_v / 1e-5 - 1| " << worst << ", dry mass "
              << relative_change(start.at("dry_mass"), end.at("dry_mass")) << ", water "
              << relative_change(start.at("total_water"), end.at("total_water")) << ", max |w| " << end.at("max_abs_w")
              << " m/s\n";
    EXPECT_LT(worst, 1e-13) << sides;
    EXPECT_LT(relative_change(start.at("dry_mass"), end.at("dry_mass")), 1e-12) << sides;
    EXPECT_LT(relative_change(start.at("total_water"), end.at("total_water")), 1e-12) << sides;
    EXPECT_GT(end.at("max_abs_w"), 5.0) << sides;  // the thermal has risen
  }
}

// Bryan & Fritsch's moist bubble at 400 m to 500 s: after every step's adjustment no cell is supersaturated
// beyond the tolerance (1e-10), no mixing ratio is negative, and dry air and water are conserved; the cloud
// grows as the bubble rises and condenses.
TEST(AtmosphereMoist, MoistBubbleStaysAtSaturationWithoutNegativeWater) {
  auto settings = saturated;
  settings.push_back("atmosphere.case=bryan_fritsch");
  auto s = build(settings);
  const auto start = diagnostics(*s);
  double worst_supersaturation = 0, lowest = 1;
  for (double t = 0; t < 500.0;) {
    const double dt = std::min(s->stable_dt(t), 500.0 - t);
    s->step(t, dt);
    t = 500.0 - t <= dt ? 500.0 : t + dt;
    const auto d = diagnostics(*s);
    worst_supersaturation = std::max(worst_supersaturation, d.at("max_supersaturation"));
    lowest = std::min(lowest, d.at("min_water_mixing_ratio"));
  }
  const auto end = diagnostics(*s);
  std::cout << "  moist bubble to 500 s: max supersaturation " << worst_supersaturation << ", min mixing ratio "
            << lowest << ", cloud " << start.at("cloud_water") << " -> " << end.at("cloud_water") << " kg/m, dry mass "
            << relative_change(start.at("dry_mass"), end.at("dry_mass")) << ", water "
            << relative_change(start.at("total_water"), end.at("total_water")) << ", max |w| " << end.at("max_abs_w")
            << " m/s\n";
  EXPECT_LE(worst_supersaturation, 1e-10);
  EXPECT_GE(lowest, 0.0);
  EXPECT_GT(end.at("cloud_water"), start.at("cloud_water"));
  EXPECT_LT(relative_change(start.at("dry_mass"), end.at("dry_mass")), 1e-12);
  EXPECT_LT(relative_change(start.at("total_water"), end.at("total_water")), 1e-12);
  EXPECT_GT(end.at("max_abs_w"), 5.0);
}

namespace {

// One output field over the whole slice (vertical slowest, x fastest), assembled from every rank's block.
std::vector<double> whole_field(atmosphere::AtmosphereSolver& s, const std::string& name) {
  for (const auto& d : s.output_fields()) {
    if (d.box.name != "fields/" + name) continue;
    const auto& b = d.box;  // (z, x) global, offset, count
    std::vector<double> whole(b.global[0] * b.global[1], 0.0);
    for (unsigned long long k = 0; k < b.count[0]; ++k)
      for (unsigned long long i = 0; i < b.count[1]; ++i)
        whole[(b.offset[0] + k) * b.global[1] + b.offset[1] + i] = d.values[k * b.count[1] + i];
    MPI_Allreduce(MPI_IN_PLACE, whole.data(), static_cast<int>(whole.size()), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return whole;
  }
  ADD_FAILURE() << "no output field " << name;
  return {};
}

// What the comparison reads from a bubble: its largest w, the top (the highest cell centre where theta', or
// theta_e' for the moist one, reaches 0.1 K), and the largest mirror difference |f(x) - f(width - x)| of w
// and theta' (theta_e') over the slice, which is symmetric about its middle.
struct Bubble {
  double max_w, top, asymmetry;
};

Bubble bubble(atmosphere::AtmosphereSolver& s, const std::string& theta) {
  const auto w = whole_field(s, "w"), th = whole_field(s, theta);
  const long nx = s.decomposition().global_cells(0), nz = s.decomposition().global_cells(1);
  Bubble b{0, 0, 0};
  for (long k = 0; k < nz; ++k)
    for (long i = 0; i < nx; ++i) {
      const long n = k * nx + i, mirror = k * nx + nx - 1 - i;
      b.max_w = std::max(b.max_w, w[n]);
      if (th[n] >= 0.1) b.top = std::max(b.top, (k + 0.5) * s.spacing(1));
      b.asymmetry = std::max({b.asymmetry, std::abs(w[n] - w[mirror]), std::abs(th[n] - th[mirror])});
    }
  return b;
}

}  // namespace

// Bryan & Fritsch's moist bubble beside its dry twin at 200 m (100 x 50 cells) to 1000 s. They built the pair so
// that the two rise alike: the same initial buoyancy, a neutral environment for each (constant theta, constant
// theta_e). Measured here at 200 m: max w 12.92 m/s moist and 12.14 dry at 1000 s (1.064), tops at 8.5 and 8.1 km;
// at 100 m 13.04 and 12.48 (1.045), 8.45 and 8.05 km (the moist theta_e' starts about twice the dry theta', so its
// 0.1 K contour starts 100 m higher). Bounds: the moist max w within 0.95-1.12 of the dry one's and the tops within
// 600 m (three cells). Mirror asymmetry at 500 s within the 1e-10 (measured 6.7e-11 moist, 1.1e-13 dry;
// 2.0e-10 moist at 1000 s). Without the moist expansion's correction the moist bubble stalls (0.33 of the dry
// max w: the test fails). Total energy (internal with the water's, kinetic, potential; Bryan & Fritsch judge
// equation sets by it): to 1000 s the dry twin loses 1.6e-6 of it (its hyperviscosity), the moist bubble 4.6e-6,
// 4.5% of the latent heat its condensation released (at 100 m: 0.76e-6 and 3.3e-6, 3.2%). Bounds: 1e-5 of the
// total and 8% of the latent heat. Counting the vapour's energy without e00 (its latent energy) gives +1.3e-4 of
// the total, 1.2 times the latent heat: the test fails.
TEST(AtmosphereMoistCases, BryanFritschMoistBubbleRisesAsItsDryTwin) {
  const std::vector<std::string> grid{"atmosphere.case=bryan_fritsch", "atmosphere.sides=wall", "mesh.nx=100",
                                      "mesh.nz=50"};
  auto moist_settings = grid;
  moist_settings.push_back("moisture.water=saturated_neutral");
  auto dry = build(grid), moist = build(moist_settings);
  const auto dry_start = diagnostics(*dry), moist_start = diagnostics(*moist);
  run_to(*dry, 500.0);
  run_to(*moist, 500.0);
  const Bubble dry_half = bubble(*dry, "theta_perturbation"), moist_half = bubble(*moist, "theta_e_perturbation");
  EXPECT_LE(dry_half.asymmetry, 1e-10);
  EXPECT_LE(moist_half.asymmetry, 1e-10);
  run_to(*dry, 1000.0, 500.0);
  run_to(*moist, 1000.0, 500.0);
  const Bubble d = bubble(*dry, "theta_perturbation"), m = bubble(*moist, "theta_e_perturbation");
  const auto dry_end = diagnostics(*dry), moist_end = diagnostics(*moist);
  const double dry_change = dry_end.at("total_energy") / dry_start.at("total_energy") - 1;
  const double moist_change = moist_end.at("total_energy") / moist_start.at("total_energy") - 1;
  // The latent heat the condensation released, against which the moist energy's change is set.
  const double latent = atmosphere::moist::lv0 * (moist_end.at("cloud_water") - moist_start.at("cloud_water"));
  const double moist_loss = moist_end.at("total_energy") - moist_start.at("total_energy");
  std::cout << "  total energy's relative change to 1000 s: dry " << dry_change << ", moist " << moist_change
            << " (" << moist_loss / latent << " of the latent heat released, " << latent << " J/m)\n";
  std::cout << "  500 s: mirror asymmetry dry " << dry_half.asymmetry << ", moist " << moist_half.asymmetry
            << "\n  1000 s: max w dry " << d.max_w << " moist " << m.max_w << " m/s (ratio " << m.max_w / d.max_w
            << "), top dry " << d.top << " moist " << m.top << " m, mirror asymmetry dry " << d.asymmetry << ", moist "
            << m.asymmetry << "\n";
  EXPECT_GT(m.max_w / d.max_w, 0.95);
  EXPECT_LT(m.max_w / d.max_w, 1.12);
  EXPECT_LE(std::abs(m.top - d.top), 600.0);
  EXPECT_LE(std::abs(moist_change), 1e-5);
  EXPECT_LE(std::abs(moist_loss), 0.08 * latent);
}
