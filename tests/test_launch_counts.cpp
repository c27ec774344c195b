// The launch counts (parallel/launch_counts.hpp) on whatever backend the build has: a kernel, a reduction, a
// fill, a copy each way and a fence are each counted once, with the copies' bytes. The test main enables
// counting before Kokkos starts, as `meridian run --count-launches` does.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <vector>

#include "parallel/copies.hpp"
#include "parallel/fill.hpp"
#include "parallel/device_memory.hpp"
#include "parallel/fence.hpp"
#include "parallel/launch_counts.hpp"

namespace {

using meridian::parallel::Copy;

// Free functions: nvcc refuses extended lambdas in the private member functions that gtest's TEST makes.
double sum_of(const Kokkos::View<double*>& v) {
  double sum = 0;
  Kokkos::parallel_reduce(
      "test::sum", Kokkos::RangePolicy<>(0, static_cast<int>(v.extent(0))),
      KOKKOS_LAMBDA(const int i, double& s) { s += v(i); }, sum);
  return sum;
}

void double_each(const Kokkos::View<double*>& v) {
  Kokkos::parallel_for(
      "test::double", Kokkos::RangePolicy<>(0, static_cast<int>(v.extent(0))), KOKKOS_LAMBDA(const int i) { v(i) *= 2; });
}

TEST(LaunchCounts, CountsEachKindOnce) {
  namespace parallel = meridian::parallel;
  ASSERT_TRUE(parallel::launch_counting_enabled());
  const int n = 100;
  Kokkos::View<double*> v("test::v", n), w("test::w", n);
  const auto before = parallel::launch_counts();
  parallel::fill(v, 1.5);                                      // a kernel
  double_each(v);                                              // a kernel
  const double sum = sum_of(v);                                // a kernel, a reduction
  std::vector<double> host = parallel::host_copy(v);           // device to host
  parallel::copy<Copy::host_to_device>(w, Kokkos::View<const double*, Kokkos::HostSpace>(host.data(), host.size()));
  parallel::copy<Copy::device_to_device>(v, w);
  parallel::fence();
  const auto c = parallel::launch_counts() - before;
  EXPECT_DOUBLE_EQ(sum, 3.0 * n);
  EXPECT_EQ(c.kernels, 3);
  EXPECT_EQ(c.reductions, 1);
  EXPECT_EQ(c.fences, 1);
  EXPECT_EQ(c.library_calls, 0);
  for (const Copy d : {Copy::host_to_device, Copy::device_to_host, Copy::device_to_device}) {
    EXPECT_EQ(c.copies[static_cast<int>(d)], 1);
    EXPECT_DOUBLE_EQ(c.copy_bytes[static_cast<int>(d)], 8.0 * n);
  }
  EXPECT_EQ(c.synchronisations(), 4);  // the reduction, the fence, and the two copies between host and device
  EXPECT_NEAR(parallel::launch_bound_seconds(c), 3 * parallel::seconds_per_launch + 4 * parallel::seconds_per_synchronisation,
              1e-15);
}

}  // namespace
