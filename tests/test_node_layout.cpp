// Where ranks sit on their node (mesh/node_layout.hpp) and what each may allocate there
// (solvers/common/memory_budget.hpp): ranks that share a memory, the host's or one GPU's, split it.
// Every test here runs its ranks on one node.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <limits>
#include <string>

#include "mesh/node_layout.hpp"
#include "solvers/common/memory_budget.hpp"

#if defined(KOKKOS_ENABLE_CUDA) && defined(MERIDIAN_HAVE_CUFFT)
#include "solvers/common/fft/cufft_batch.hpp"
#endif

namespace {

int world_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

int world_size() {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

}  // namespace

TEST(NodeLayout, RanksSharingCountsTheRanksWithTheSameKey) {
  using meridian::mesh::ranks_sharing;
  ASSERT_EQ(meridian::mesh::node_layout(MPI_COMM_WORLD).nodes, 1);
  const int rank = world_rank(), size = world_size();
  int same_parity = 0;
  for (int r = 0; r < size; ++r) same_parity += r % 2 == rank % 2 ? 1 : 0;
  EXPECT_EQ(ranks_sharing(MPI_COMM_WORLD, rank % 2 ? "odd" : "even"), same_parity);
  EXPECT_EQ(ranks_sharing(MPI_COMM_WORLD, "one GPU"), size);
  EXPECT_EQ(ranks_sharing(MPI_COMM_WORLD, ""), size);
  EXPECT_EQ(ranks_sharing(MPI_COMM_WORLD, std::to_string(rank)), 1);
  // Keys that are prefixes of one another are different keys (a UUID's bytes may be anything).
  EXPECT_EQ(ranks_sharing(MPI_COMM_WORLD, std::string(static_cast<std::size_t>(rank) + 1, '\0')), 1);
}

// Each rank's budget is its share of the one memory all of them use: the host's, or on a CUDA build the GPU's
// where the machine has one (the device check's). gpu-review.md C10: each rank took the whole GPU's.
TEST(MemoryBudget, RanksThatShareAMemorySplitIt) {
#if defined(KOKKOS_ENABLE_CUDA) && defined(MERIDIAN_HAVE_CUFFT)
  if (meridian::fft::cuda::device_count() != 1) GTEST_SKIP() << "the ranks may be bound to different GPUs";
#endif
  const std::uint64_t own = meridian::solvers::bytes_available_per_rank(MPI_COMM_SELF);
  if (own == std::numeric_limits<std::uint64_t>::max()) GTEST_SKIP() << "no limit on this machine's memory";
  const std::uint64_t share = meridian::solvers::bytes_available_per_rank(MPI_COMM_WORLD);
  ASSERT_GT(own, 0u);
  // Other processes allocate between the two readings: a tolerance far below a rank's share.
  EXPECT_NEAR(static_cast<double>(share) * world_size() / static_cast<double>(own), 1.0, 0.05);
}
