// parallel::copy_box between every pair of axis orders: each value lands where the target's strides say, scaled,
// and nothing outside the box is written. On the host this runs the buffered tiles (partial ones at the edges,
// boxes one index thick, a box large enough for streamed stores); on a GPU the tiled MDRange launch.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "parallel/box_copy.hpp"

namespace parallel = meridian::parallel;

namespace {

using Complex = Kokkos::complex<double>;
using Order = std::array<int, 3>;  // storage dimension d (0 slowest) holds logical axis order[d]
using Extent = std::array<long, 3>;

const std::vector<Order> orders = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};

// A box of `extent` stored in `order` inside an array padded by one index at each end of every axis, so that
// the placement starts away from the array's first element and a stray write lands in the padding.
struct Layout {
  parallel::BoxPlacement placement;
  long size;
};

Layout layout(const Extent& extent, const Order& order) {
  Layout l{{}, 1};
  for (int d = 2; d >= 0; --d) {
    const int axis = order[d];
    l.placement.stride[axis] = l.size;
    l.placement.first += l.size;  // one index of padding before the box along this axis
    l.size *= extent[axis] + 2;
  }
  return l;
}

template <class T>
T value_at(long a, long b, long c) {
  if constexpr (std::is_same_v<T, Complex>)
    return Complex(1.0 + a + 1000.0 * b + 1e6 * c, -1.0 - c);
  else
    return 1.0 + a + 1000.0 * b + 1e6 * c;
}

// Counts the values of the target that differ from what the copy should leave there.
template <class T>
long wrong_values(const Extent& extent, const Order& from_order, const Order& to_order, double scale) {
  const Layout from = layout(extent, from_order), to = layout(extent, to_order);
  Kokkos::View<T*> source("source", from.size), target("target", to.size);
  const auto host_source = Kokkos::create_mirror_view(source);
  for (long a = 0; a < extent[0]; ++a)
    for (long b = 0; b < extent[1]; ++b)
      for (long c = 0; c < extent[2]; ++c) host_source(from.placement.at(a, b, c)) = value_at<T>(a, b, c);
  Kokkos::deep_copy(source, host_source);
  parallel::copy_box("test::copy_box", extent, source.data(), from.placement, target.data(), to.placement, scale);
  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), target);
  std::vector<char> inside(static_cast<std::size_t>(to.size), 0);
  long wrong = 0;
  for (long a = 0; a < extent[0]; ++a)
    for (long b = 0; b < extent[1]; ++b)
      for (long c = 0; c < extent[2]; ++c) {
        const long at = to.placement.at(a, b, c);
        inside[static_cast<std::size_t>(at)] = 1;
        wrong += host(at) != T(scale * value_at<T>(a, b, c));
      }
  for (long n = 0; n < to.size; ++n) wrong += !inside[static_cast<std::size_t>(n)] && host(n) != T(0.0);
  return wrong;
}

std::string describe(const Extent& e, const Order& from, const Order& to) {
  const auto o = [](const Order& v) { return std::to_string(v[0]) + std::to_string(v[1]) + std::to_string(v[2]); };
  return std::to_string(e[0]) + " x " + std::to_string(e[1]) + " x " + std::to_string(e[2]) + ", order " + o(from) +
         " -> " + o(to);
}

}  // namespace

// Extents below, at and across the host's tile edge (16 complex, 32 doubles), one index thick, and past a GPU
// tile's 64 entries along each axis (gpu-review.md A1: the slowest axis' block dimension is clamped).
TEST(BoxCopy, EveryPairOfAxisOrdersPlacesEachValueOnce) {
  const std::vector<Extent> extents = {{3, 17, 33}, {33, 5, 16}, {1, 40, 7}, {9, 1, 65},
                                       {2, 35, 1}, {1, 1, 5},  {129, 7, 3}, {3, 129, 2}};
  for (const Extent& e : extents)
    for (const Order& from : orders)
      for (const Order& to : orders) {
        EXPECT_EQ(wrong_values<Complex>(e, from, to, 0.5), 0) << "complex, " << describe(e, from, to);
        EXPECT_EQ(wrong_values<double>(e, from, to, 1.0), 0) << "double, " << describe(e, from, to);
      }
}

// Boxes past parallel::streamed_bytes: a transposing copy writes them with non-temporal stores on the host.
TEST(BoxCopy, LargeBoxesArriveWhole) {
  const Extent e{40, 257, 300};
  ASSERT_GT(e[0] * e[1] * e[2] * static_cast<long>(sizeof(Complex)), parallel::streamed_bytes);
  EXPECT_EQ(wrong_values<Complex>(e, {0, 1, 2}, {2, 1, 0}, 0.25), 0);
  EXPECT_EQ(wrong_values<Complex>(e, {2, 1, 0}, {0, 2, 1}, 1.0), 0);
  EXPECT_EQ(wrong_values<Complex>(e, {1, 0, 2}, {0, 1, 2}, 0.5), 0);  // rows along x on both sides
}
