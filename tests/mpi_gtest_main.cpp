// GoogleTest main for tests that run on any number of MPI ranks: MPI and Kokkos are started
// once, every rank runs every test, and only rank 0 prints. A failure on any rank fails the run. Launches are
// counted (parallel/launch_counts.hpp), as `meridian run --count-launches` counts them.
#include <gtest/gtest.h>
#include <mpi.h>

#include <Kokkos_Core.hpp>

#include "parallel/launch_counts.hpp"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int failed = 0;
  {
    meridian::parallel::enable_launch_counting();  // for the LaunchCounts tests; it must precede Kokkos' start
    Kokkos::ScopeGuard kokkos(argc, argv);
    ::testing::InitGoogleTest(&argc, argv);
    if (rank != 0) {
      auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
      delete listeners.Release(listeners.default_result_printer());
    }
    failed = RUN_ALL_TESTS();
  }
  int any_failed = 0;
  MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return any_failed;
}
