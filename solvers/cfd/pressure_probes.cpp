#include "solvers/cfd/pressure_probes.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "parallel/copies.hpp"
#include "parallel/launch_policy.hpp"

namespace meridian::cfd {

namespace {

struct Sample {
  std::array<int, 3> corner{0, 0, 0};
  std::array<double, 3> weight{0, 0, 0};
  bool mine = true;
};

// The interpolation of the pressure at `point` between the cell centres around it.
Sample sample_at(const std::array<double, 3>& point, const MacGrid& g, const mesh::Decomposition& decomp) {
  Sample s;
  for (int a = 0; a < g.dims; ++a) {
    const long cells = decomp.global_cells(a);
    const double centre = point[a] / g.h[a] - 0.5;
    const long below = std::clamp(static_cast<long>(std::floor(centre)), 0L, cells - 2);
    s.weight[a] = std::clamp(centre - static_cast<double>(below), 0.0, 1.0);
    s.corner[a] = static_cast<int>(below - g.offset[a]) + g.lo[a];
    s.mine = s.mine && below >= g.offset[a] && below < g.offset[a] + g.n[a];
  }
  return s;
}

// Over the samples: the sums of w p and of w over the vertices of each one's cell of centres where
// continuity holds, zero where another rank computes it.
void sample_sums(const mesh::Field& p, const mesh::Field& fluid, const Kokkos::View<int* [3]>& corners,
                 const Kokkos::View<double* [3]>& weights, const Kokkos::View<int*>& mine,
                 const Kokkos::View<double* [2]>& sums, int dims) {
  Kokkos::parallel_for(
      "mac::pressure_probes", parallel::FlatPolicy(0, static_cast<long>(sums.extent(0))), KOKKOS_LAMBDA(const long n) {
        double pw = 0, w_total = 0;
        if (mine(n))
          for (int vertex = 0; vertex < (1 << dims); ++vertex) {
            int x[3] = {corners(n, 0), corners(n, 1), corners(n, 2)};
            double w = 1;
            for (int a = 0; a < dims; ++a) {
              const int up = (vertex >> a) & 1;
              x[a] += up;
              w *= up ? weights(n, a) : 1 - weights(n, a);
            }
            w *= fluid(0, x[2], x[1], x[0]);
            pw += w * p(0, x[2], x[1], x[0]);
            w_total += w;
          }
        sums(n, 0) = pw;
        sums(n, 1) = w_total;
      });
}

}  // namespace

PressureProbes::PressureProbes(const std::vector<std::array<double, 3>>& points, const MacGrid& g,
                               const mesh::Decomposition& decomp, const ImmersedBodies* bodies)
    : dims_(g.dims), comm_(decomp.comm()) {
  const double h = *std::max_element(g.h, g.h + g.dims);
  // The cubic through the samples 1, 2, 3 and 4 h off the surface, at the surface (Lagrange weights).
  constexpr double cubic[4] = {4, -6, 4, -1};
  std::vector<Sample> samples;
  for (const auto& point : points) {
    const auto normal = bodies ? bodies->surface_normal(point, 0.25 * h) : std::nullopt;
    std::vector<Term> terms;
    if (!normal) {
      terms.push_back({samples.size(), 1.0});
      samples.push_back(sample_at(point, g, decomp));
    }
    for (int k = 0; normal && k < 4; ++k) {
      std::array<double, 3> off = point;
      for (int a = 0; a < 3; ++a) off[a] += (k + 1) * h * (*normal)[a];
      terms.push_back({samples.size(), cubic[k]});
      samples.push_back(sample_at(off, g, decomp));
    }
    combination_.push_back(terms);
  }
  const long count = static_cast<long>(samples.size());
  corners_ = Kokkos::View<int* [3]>("probes::corners", count);
  weights_ = Kokkos::View<double* [3]>("probes::weights", count);
  mine_ = Kokkos::View<int*>("probes::mine", count);
  sums_ = Kokkos::View<double* [2]>("probes::sums", count);
  host_sums_ = Kokkos::create_mirror_view(sums_);
  auto corners = Kokkos::create_mirror_view(corners_);
  auto weights = Kokkos::create_mirror_view(weights_);
  auto mine = Kokkos::create_mirror_view(mine_);
  for (long n = 0; n < count; ++n) {
    for (int a = 0; a < 3; ++a) corners(n, a) = samples[n].corner[a], weights(n, a) = samples[n].weight[a];
    mine(n) = samples[n].mine ? 1 : 0;
  }
  parallel::copy<parallel::Copy::host_to_device>(corners_, corners);
  parallel::copy<parallel::Copy::host_to_device>(weights_, weights);
  parallel::copy<parallel::Copy::host_to_device>(mine_, mine);
}

std::vector<double> PressureProbes::read(const mesh::Field& p, const mesh::Field& fluid) const {
  std::vector<double> values(combination_.size(), 0.0);
  if (sums_.extent(0) == 0) return values;
  sample_sums(p, fluid, corners_, weights_, mine_, sums_, dims_);
  parallel::copy<parallel::Copy::device_to_host>(host_sums_, sums_);
  MPI_Allreduce(MPI_IN_PLACE, host_sums_.data(), static_cast<int>(host_sums_.span()), MPI_DOUBLE, MPI_SUM, comm_);
  for (std::size_t k = 0; k < combination_.size(); ++k)
    for (const Term& t : combination_[k]) {
      const double pw = host_sums_(t.sample, 0), w = host_sums_(t.sample, 1);
      values[k] += t.weight * (w > 0 ? pw / w : 0.0);
    }
  return values;
}

}  // namespace meridian::cfd
