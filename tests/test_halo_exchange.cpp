// Every halo cell must hold the value of the cell that owns that position (its periodic image
// across a periodic boundary); halos across an open boundary must be left untouched.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <tuple>

#include "mesh/halo_exchange.hpp"

using namespace meridian::mesh;

namespace {

// A value that names its global cell and component, exact in a double.
double encode(int c, long gx, long gy, long gz) { return c * 1e9 + gz * 1e6 + gy * 1e3 + gx; }
constexpr double untouched = -1.0;

// A field whose interior cells hold encode() of their global cell and whose halos hold `untouched`.
Field encoded_interior(const Decomposition& d, int components) {
  Field field = make_field(d, components, "test");
  auto host = Kokkos::create_mirror_view(field);
  Kokkos::deep_copy(host, untouched);
  for (int c = 0; c < components; ++c)
    for (long k = 0; k < d.local_cells(2); ++k)
      for (long j = 0; j < d.local_cells(1); ++j)
        for (long i = 0; i < d.local_cells(0); ++i)
          host(c, k + d.halo(2), j + d.halo(1), i + d.halo(0)) =
              encode(c, d.offset(0) + i, d.offset(1) + j, d.offset(2) + k);
  Kokkos::deep_copy(field, host);
  return field;
}

class HaloExchangeTest : public ::testing::TestWithParam<std::tuple<int, Boundary, int, Corners>> {};

TEST_P(HaloExchangeTest, EveryHaloCellHoldsItsOwnersValue) {
  const auto [dimensions, boundary, halo, corners] = GetParam();
  GridSpec spec;
  spec.dimensions = dimensions;
  spec.cells = {13, 11, dimensions == 3 ? 7L : 1L};  // uneven over 2, 3 and 4 ranks
  spec.boundary = {boundary, boundary, boundary};
  spec.halo_width = halo;
  const Decomposition d(MPI_COMM_WORLD, spec);
  const int components = 2;
  Field field = encoded_interior(d, components);
  auto host = Kokkos::create_mirror_view(field);
  const long hx = d.halo(0), hy = d.halo(1), hz = d.halo(2);
  HaloExchange exchange(d, components);
  exchange.exchange(field, corners);
  Kokkos::deep_copy(host, field);

  long checked = 0;
  for (int c = 0; c < components; ++c)
    for (long k = 0; k < static_cast<long>(host.extent(1)); ++k)
      for (long j = 0; j < static_cast<long>(host.extent(2)); ++j)
        for (long i = 0; i < static_cast<long>(host.extent(3)); ++i) {
          const long local[3] = {i - hx, j - hy, k - hz};
          long global[3];
          int outside_axes = 0;
          bool across_open = false;
          for (int a = 0; a < 3; ++a) {
            global[a] = d.offset(a) + local[a];
            const bool outside = local[a] < 0 || local[a] >= d.local_cells(a);
            outside_axes += outside;
            if (global[a] < 0 || global[a] >= d.global_cells(a)) {
              if (d.periodic(a))
                global[a] = (global[a] + d.global_cells(a)) % d.global_cells(a);
              else
                across_open = true;
            }
          }
          if (outside_axes == 0) continue;
          const bool expect_filled = !across_open && (outside_axes == 1 || corners == Corners::fill);
          const double expected = expect_filled ? encode(c, global[0], global[1], global[2]) : untouched;
          if (!expect_filled && !across_open) continue;  // corners not asked for: any value
          ASSERT_EQ(host(c, k, j, i), expected) << "component " << c << " at local (" << local[0] << ", " << local[1]
                                                << ", " << local[2] << ") on rank " << d.rank();
          ++checked;
        }
  EXPECT_GT(checked, 0);
}

INSTANTIATE_TEST_SUITE_P(AllLayouts, HaloExchangeTest,
                         ::testing::Combine(::testing::Values(2, 3), ::testing::Values(Boundary::periodic, Boundary::open),
                                            ::testing::Values(1, 2, 3),
                                            ::testing::Values(Corners::fill, Corners::skip)));

// A split solver's sweep along one axis exchanges that axis alone: its halos hold their owners' values,
// the other axes' halos are left as they were (a periodic 3-D box, so every halo would otherwise be filled).
TEST(HaloExchangeAcross, FillsThatAxisAloneOnEveryLayout) {
  GridSpec spec;
  spec.dimensions = 3;
  spec.cells = {13, 11, 7};
  spec.boundary = {Boundary::periodic, Boundary::periodic, Boundary::periodic};
  spec.halo_width = 2;
  const Decomposition d(MPI_COMM_WORLD, spec);
  HaloExchange exchange(d, 1);
  for (int axis = 0; axis < 3; ++axis) {
    Field field = encoded_interior(d, 1);
    exchange.exchange_across(field, axis);
    auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), field);
    long filled = 0;
    for (long k = 0; k < static_cast<long>(host.extent(1)); ++k)
      for (long j = 0; j < static_cast<long>(host.extent(2)); ++j)
        for (long i = 0; i < static_cast<long>(host.extent(3)); ++i) {
          const long local[3] = {i - d.halo(0), j - d.halo(1), k - d.halo(2)};
          long global[3];
          int outside_axes = 0, outside_axis = -1;
          for (int a = 0; a < 3; ++a) {
            if (local[a] < 0 || local[a] >= d.local_cells(a)) ++outside_axes, outside_axis = a;
            global[a] = (d.offset(a) + local[a] + d.global_cells(a)) % d.global_cells(a);
          }
          if (outside_axes != 1) continue;  // the interior, and edges and corners (not asked for)
          const double expected = outside_axis == axis ? encode(0, global[0], global[1], global[2]) : untouched;
          ASSERT_EQ(host(0, k, j, i), expected) << "exchange across axis " << axis << ", halo cell at local ("
                                                << local[0] << ", " << local[1] << ", " << local[2] << ") on rank "
                                                << d.rank();
          filled += outside_axis == axis;
        }
    EXPECT_GT(filled, 0);
  }
}

// MPI taking the buffers directly or through pinned host copies must move the same bits. Device buffers
// handed to an MPI without CUDA support would crash inside MPI (Debian's MPICH in the GPU bundle).
TEST(HaloExchangePaths, DirectAndStagedGiveTheSameBits) {
  if (!meridian::parallel::device_memory_is_host && !mpi_is_cuda_aware()) GTEST_SKIP() << "MPI is not CUDA-aware";
  GridSpec spec;
  spec.dimensions = 3;
  spec.cells = {13, 11, 7};
  spec.halo_width = 3;
  const Decomposition d(MPI_COMM_WORLD, spec);
  Field direct = make_field(d, 2, "direct"), staged = make_field(d, 2, "staged");
  auto host = Kokkos::create_mirror_view(direct);
  for (std::size_t n = 0; n < host.size(); ++n) host.data()[n] = std::sin(1.0 + n + 1000.0 * d.rank());
  Kokkos::deep_copy(direct, host);
  Kokkos::deep_copy(staged, host);
  HaloExchange(d, 2, MessagePath::direct).exchange(direct, Corners::fill);
  HaloExchange(d, 2, MessagePath::staged).exchange(staged, Corners::fill);
  const auto a = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), direct);
  const auto b = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), staged);
  long differing = 0;
  for (std::size_t n = 0; n < a.size(); ++n) differing += a.data()[n] != b.data()[n];
  EXPECT_EQ(differing, 0);
}

// A single-precision field's halos get the same values as a double field's (checked cell by cell
// above), for values a float holds exactly: its buffers and MPI messages carry floats, not doubles.
TEST(HaloExchangePaths, FloatFieldsGetTheSameHalosAsDoubleOnes) {
  GridSpec spec;
  spec.dimensions = 3;
  spec.cells = {13, 11, 7};
  spec.halo_width = 3;
  const Decomposition d(MPI_COMM_WORLD, spec);
  Field reference = make_field(d, 2, "reference");
  FieldOf<float> single = make_field<float>(d, 2, "single");
  auto reference_host = Kokkos::create_mirror_view(reference);
  auto single_host = Kokkos::create_mirror_view(single);
  for (std::size_t n = 0; n < single_host.size(); ++n) {
    single_host.data()[n] = static_cast<float>(std::sin(1.0 + n + 1000.0 * d.rank()));
    reference_host.data()[n] = single_host.data()[n];
  }
  Kokkos::deep_copy(reference, reference_host);
  Kokkos::deep_copy(single, single_host);
  HaloExchange(d, 2).exchange(reference, Corners::fill);
  HaloExchangeOf<float>(d, 2).exchange(single, Corners::fill);
  Kokkos::deep_copy(reference_host, reference);
  Kokkos::deep_copy(single_host, single);
  long differing = 0;
  for (std::size_t n = 0; n < single_host.size(); ++n) differing += single_host.data()[n] != reference_host.data()[n];
  EXPECT_EQ(differing, 0);
}

// Device buffers go to MPI directly only where the library takes them; asking for it on an MPI
// without CUDA support is an error that names the key, not a crash inside MPI.
TEST(HaloExchangePaths, DirectDeviceBuffersNeedACudaAwareMpi) {
  EXPECT_EQ(choose_message_path("false"), MessagePath::staged);
  if (meridian::parallel::device_memory_is_host || mpi_is_cuda_aware()) {
    EXPECT_EQ(choose_message_path("true"), MessagePath::direct);
    EXPECT_EQ(choose_message_path("auto"), MessagePath::direct);
  } else {
    EXPECT_EQ(choose_message_path("auto"), MessagePath::staged);
    try {
      choose_message_path("true");
      ADD_FAILURE() << "direct device buffers accepted by an MPI without CUDA support";
    } catch (const MessagePathError& e) {
      EXPECT_NE(std::string(e.what()).find("run.gpu_aware_mpi"), std::string::npos) << e.what();
    }
  }
}

TEST(Decomposition, RejectsAGridTooSmallForTheHalo) {
  GridSpec spec;
  spec.cells = {4, 4, 1};
  spec.halo_width = 3;
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  spec.process_grid = {ranks, 1, 1};
  if (ranks > 1) {
    EXPECT_THROW(Decomposition(MPI_COMM_WORLD, spec), DecompositionError);
  } else {
    EXPECT_NO_THROW(Decomposition(MPI_COMM_WORLD, spec));
  }
}

TEST(Decomposition, BlocksCoverTheGridWithoutOverlap) {
  for (long n : {7L, 13L, 64L})
    for (int parts : {1, 2, 3, 4}) {
      long covered = 0;
      for (int p = 0; p < parts; ++p) {
        EXPECT_EQ(block_offset(n, parts, p), covered);
        covered += block_size(n, parts, p);
        EXPECT_LE(block_size(n, parts, 0) - block_size(n, parts, p), 1);
      }
      EXPECT_EQ(covered, n);
    }
}

}  // namespace
