// The launch policies of parallel/launch_policy.hpp: their GPU tiles obey CUDA's limits (checked here on any
// backend), and every policy visits each index of its range exactly once on the default execution space
// (trivially true on the host; on a GPU it catches a tile that Kokkos clamps, gpu-review.md A1).
#include <gtest/gtest.h>

#include <array>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "parallel/launch_policy.hpp"
#include "parallel/team_shape.hpp"

namespace parallel = meridian::parallel;

namespace {

// The extents the rules are asserted for: a halo slab's, below, at and above a warp, a tile limit and its double.
const std::vector<long> extents = {1, 2, 7, 64, 65, 129, 300};
// Extents of the slower axes, kept small so the visit counts stay cheap.
const std::vector<long> slow_extents = {1, 7, 65};

// Every tile entry within CUDA's block limits and `along` min(extent, 64). Where that is a warp or more, no
// other entry is above 1 (warps would split over rows); where it is shorter, the block holds at least a warp
// where the next slower index (the next faster for the slowest) has the indices to fill it, and no other
// entry is above 1.
template <std::size_t rank>
void expect_legal(const parallel::IndexRange<rank>& range, const parallel::Tile<rank>& tile, std::size_t along) {
  const long length = std::min(std::max(range.extent(along), 1L), 64L);
  const std::size_t filler = along > 0 ? along - 1 : along + 1;
  const bool short_row = length < parallel::warp_size;
  long threads = 1;
  for (std::size_t a = 0; a < rank; ++a) {
    threads *= tile[a];
    EXPECT_GE(tile[a], 1);
    EXPECT_LE(tile[a], parallel::tile_entry_limit);
    if (a != along && !(short_row && a == filler)) {
      EXPECT_EQ(tile[a], 1) << "axis " << a << ": warps would split over rows";
    }
  }
  EXPECT_EQ(tile[along], length);
  if (short_row) {
    EXPECT_GE(threads, std::min(parallel::warp_size, length * std::max(range.extent(filler), 1L)))
        << "blocks of a short row's few threads";
  }
  EXPECT_LE(threads, parallel::tile_thread_limit);
}

std::vector<parallel::Plane> planes() {
  std::vector<parallel::Plane> all;
  for (long y : slow_extents)
    for (long x : extents) all.push_back({{2, 3}, {2 + y, 3 + x}});
  return all;
}

std::vector<parallel::Cells> cells() {
  std::vector<parallel::Cells> all;
  for (long z : slow_extents)
    for (long y : slow_extents)
      for (long x : extents) all.push_back({{1, 2, 3}, {1 + z, 2 + y, 3 + x}});
  return all;
}

std::vector<parallel::Boxes> boxes() {
  std::vector<parallel::Boxes> all;
  for (long c = 1; c <= 4; ++c)
    for (long z : {1L, 7L})
      for (long x : extents) all.push_back({{0, 3, 2, 3}, {c, 3 + z, 9, 3 + x}});
  return all;
}

// Boxes that a copy transposes (parallel/box_copy.hpp): each axis in turn long, the others short.
std::vector<parallel::Cells> transposes() {
  std::vector<parallel::Cells> all;
  for (long n : extents) {
    all.push_back({{0, 0, 0}, {n, 7, 3}});
    all.push_back({{0, 0, 0}, {3, n, 7}});
    all.push_back({{0, 0, 0}, {7, 3, n}});
  }
  return all;
}

TEST(LaunchPolicy, GpuTilesObeyCudaLimitsAlongTheContiguousIndex) {
  for (const auto& r : planes()) expect_legal(r, parallel::gpu_tile(r), 1);
  for (const auto& r : cells()) expect_legal(r, parallel::gpu_tile(r), 2);
  for (const auto& r : boxes()) expect_legal(r, parallel::gpu_tile(r), 3);
}

TEST(LaunchPolicy, GpuTilesObeyCudaLimitsAlongAnyAxis) {
  for (const auto& r : transposes())
    for (std::size_t written = 0; written < 3; ++written) expect_legal(r, parallel::gpu_tile(r, written), written);
}

// A 2-D grid's cells (one z plane) and a 2-D spectrum's modes (one kz) launch as planes.
TEST(LaunchPolicy, OneIndexThickRangesLaunchOneRankLess) {
  EXPECT_EQ(parallel::single_index_axis(parallel::Cells{{0, 2, 2}, {1, 9, 300}}), 0);
  EXPECT_EQ(parallel::single_index_axis(parallel::Cells{{0, 0, 0}, {65, 9, 1}}), 2);
  EXPECT_EQ(parallel::single_index_axis(parallel::Cells{{0, 0, 0}, {2, 9, 300}}), -1);
  EXPECT_EQ(parallel::single_index_axis(parallel::Boxes{{0, 3, 0, 0}, {4, 4, 9, 300}}), 1);
  EXPECT_EQ(parallel::single_index_axis(parallel::Boxes{{0, 0, 0, 0}, {4, 2, 9, 300}}), -1);
}

// The policies the backend really builds: host tiles are whole rows; a GPU's follow the rules above.
TEST(LaunchPolicy, BuiltPoliciesCarryTheBackendsTiles) {
  for (const auto& r : cells()) {
    const auto tile = parallel::policy(r).m_tile;
    const auto expected = parallel::device_memory_is_host ? parallel::host_tile(r) : parallel::gpu_tile(r);
    for (std::size_t a = 0; a < 3; ++a) EXPECT_EQ(tile[a], expected[a]);
  }
}

using Counts = Kokkos::View<int*>;

// Visits of each index, counted on the device; every count must be exactly one. The kernels sit in free
// functions: CUDA rejects device lambdas in a TEST body (a private member function).
long misvisited(const Counts& counts) {
  long wrong = 0;
  Kokkos::parallel_reduce(
      "test::misvisited", Kokkos::RangePolicy<>(0, counts.extent(0)),
      KOKKOS_LAMBDA(const long n, long& w) { w += counts(n) != 1; }, wrong);
  return wrong;
}

long misvisited_by_for_each(const parallel::Plane& r) {
  const Counts counts("visits", r.count());
  const long y0 = r.lo[0], x0 = r.lo[1], nx = r.extent(1);
  parallel::for_each("test::plane", r, KOKKOS_LAMBDA(const long j, const long i) {
    Kokkos::atomic_add(&counts((j - y0) * nx + i - x0), 1);
  });
  return misvisited(counts);
}

long misvisited_by_for_each(const parallel::Cells& r) {
  const Counts counts("visits", r.count());
  const long z0 = r.lo[0], y0 = r.lo[1], x0 = r.lo[2], ny = r.extent(1), nx = r.extent(2);
  parallel::for_each("test::cells", r, KOKKOS_LAMBDA(const long k, const long j, const long i) {
    Kokkos::atomic_add(&counts(((k - z0) * ny + j - y0) * nx + i - x0), 1);
  });
  return misvisited(counts);
}

long misvisited_by_for_each(const parallel::Boxes& r) {
  const Counts counts("visits", r.count());
  const long z0 = r.lo[1], y0 = r.lo[2], x0 = r.lo[3], nz = r.extent(1), ny = r.extent(2), nx = r.extent(3);
  parallel::for_each("test::boxes", r, KOKKOS_LAMBDA(const long c, const long k, const long j, const long i) {
    Kokkos::atomic_add(&counts(((c * nz + k - z0) * ny + j - y0) * nx + i - x0), 1);
  });
  return misvisited(counts);
}

// The reduction's own count of visits must match too: a skipped index would leave both short.
long misvisited_by_reduce(const parallel::Cells& r) {
  const Counts counts("visits", r.count());
  const long z0 = r.lo[0], y0 = r.lo[1], x0 = r.lo[2], ny = r.extent(1), nx = r.extent(2);
  long visits = 0;
  parallel::reduce(
      "test::reduce_cells", r,
      KOKKOS_LAMBDA(const long k, const long j, const long i, long& v) {
        Kokkos::atomic_add(&counts(((k - z0) * ny + j - y0) * nx + i - x0), 1);
        ++v;
      },
      visits);
  return misvisited(counts) + (visits - r.count());
}

long misvisited_by_reduce(const parallel::Plane& r) {
  const Counts counts("visits", r.count());
  const long y0 = r.lo[0], x0 = r.lo[1], nx = r.extent(1);
  long visits = 0;
  parallel::reduce(
      "test::reduce_plane", r,
      KOKKOS_LAMBDA(const long j, const long i, long& v) {
        Kokkos::atomic_add(&counts((j - y0) * nx + i - x0), 1);
        ++v;
      },
      visits);
  return misvisited(counts) + (visits - r.count());
}

TEST(LaunchPolicy, EveryPolicyVisitsEachIndexOnce) {
  for (const auto& r : planes()) EXPECT_EQ(misvisited_by_for_each(r), 0) << r.extent(0) << " x " << r.extent(1);
  for (const auto& r : cells())
    EXPECT_EQ(misvisited_by_for_each(r), 0) << r.extent(0) << " x " << r.extent(1) << " x " << r.extent(2);
  for (const auto& r : boxes())
    EXPECT_EQ(misvisited_by_for_each(r), 0) << r.extent(0) << " components, " << r.extent(1) << " x " << r.extent(3);
}

TEST(LaunchPolicy, EveryReductionVisitsEachIndexOnce) {
  for (const auto& r : cells()) EXPECT_EQ(misvisited_by_reduce(r), 0) << r.extent(0) << " x " << r.extent(1) << " x " << r.extent(2);
  for (const auto& r : planes()) EXPECT_EQ(misvisited_by_reduce(r), 0) << r.extent(0) << " x " << r.extent(1);
}

// A functor the size of a MAC stencil's (four fields and the grid): with its MDRange policy over 512 bytes, where
// Kokkos 4.6's CUDA backend launches through constant memory unless the policy is light-weight.
struct WideFunctor {
  Kokkos::View<double***> out;
  double values[64];
  KOKKOS_INLINE_FUNCTION void operator()(const long k, const long j, const long i) const {
    out(k, j, i) = values[(9 * k + 3 * j + i) % 64];
  }
};

// Every policy is light-weight, so that on CUDA such a functor goes as a kernel argument: a constant-memory
// launch waits on the host for the previous one to finish (launch_policy.hpp). And it runs, all of it arriving.
TEST(LaunchPolicy, PoliciesAreLightWeightSoWideKernelsLaunchAsArguments) {
  using LightWeight = Kokkos::Experimental::WorkItemProperty::HintLightWeight_t;
  EXPECT_TRUE((std::is_same_v<parallel::MDPolicy<3>::work_item_property, LightWeight>));
  EXPECT_TRUE((std::is_same_v<parallel::FlatPolicy::work_item_property, LightWeight>));
#if defined(KOKKOS_ENABLE_CUDA)
  using Launch = Kokkos::Impl::ParallelFor<WideFunctor, parallel::MDPolicy<3>, Kokkos::Cuda>;
  static_assert(sizeof(Launch) > Kokkos::Impl::CudaTraits::ConstantMemoryUseThreshold, "not wide enough to matter");
  static_assert(Kokkos::Impl::DeduceCudaLaunchMechanism<Launch>::launch_mechanism ==
                    Kokkos::Impl::Experimental::CudaLaunchMechanism::LocalMemory,
                "a wide kernel would launch through constant memory");
#endif
  const long nz = 4, ny = 5, nx = 70;
  WideFunctor wide{Kokkos::View<double***>("wide", nz, ny, nx), {}};
  for (int v = 0; v < 64; ++v) wide.values[v] = v + 0.5;
  parallel::for_each("test::wide", parallel::Cells{{0, 0, 0}, {nz, ny, nx}}, wide);
  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), wide.out);
  long wrong = 0;
  for (long k = 0; k < nz; ++k)
    for (long j = 0; j < ny; ++j)
      for (long i = 0; i < nx; ++i) wrong += host(k, j, i) != (9 * k + 3 * j + i) % 64 + 0.5;
  EXPECT_EQ(wrong, 0);
}

// MERIDIAN_TEAM_WARPS: unset is 8; 2, 4 and 8 are taken; anything else is refused, naming the variable.
TEST(TeamShape, WarpsComeFromTheSettingOrAreEight) {
  EXPECT_EQ(parallel::team_warps_from(nullptr), 8);
  for (const int warps : {2, 4, 8}) EXPECT_EQ(parallel::team_warps_from(std::to_string(warps).c_str()), warps);
  for (const char* bad : {"", "1", "3", "16", "32", "4 ", "08", "four"}) {
    try {
      parallel::team_warps_from(bad);
      ADD_FAILURE() << "'" << bad << "' was taken";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("MERIDIAN_TEAM_WARPS"), std::string::npos) << e.what();
    }
  }
}

// How often the row kernels' launch (row_policy, for_each_team_row, for_each_in_row) visits each cell of
// `rows` rows at this team shape. A free function: nvcc refuses an extended lambda in a test body.
using Visits = Kokkos::View<int**, Kokkos::LayoutRight>;
Visits::HostMirror row_visits(const parallel::TeamShape shape, const int rows, const int length) {
  Visits visits("visits", rows, length);
  const int rows_per_team = shape.threads;
  Kokkos::parallel_for(
      "test::rows", shape.row_policy(rows), KOKKOS_LAMBDA(const parallel::TeamMember& team) {
        parallel::for_each_team_row(team, rows_per_team, rows, [&](const int row) {
          parallel::for_each_in_row(team, 0, length, [&](const int i) { visits(row, i) += 1; });
        });
      });
  return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), visits);
}

// Every cell of rows that do not fill the last team is visited exactly once, at each shape a run may choose.
TEST(TeamShape, EveryShapeVisitsEachCellOfItsRowsOnce) {
  const int rows = 37, length = 45;
  for (const int warps : {2, 4, 8}) {
    const auto visits = row_visits(parallel::TeamShape{warps, 32}, rows, length);
    long wrong = 0;
    for (int r = 0; r < rows; ++r)
      for (int i = 0; i < length; ++i) wrong += visits(r, i) != 1;
    EXPECT_EQ(wrong, 0) << warps << " warps a team";
  }
}

}  // namespace
