#pragma once
// Everything a diagnostics record needs of one tracer, gathered in one pass over its cells: sums and
// extremes of the tracer and, where the exact solution is known, of its error against the exact
// cell averages (computed in the same pass, never stored). A Kokkos custom reducer, so the pass is
// one kernel on every backend. Every sum and extreme is a double, whatever the tracers' precision.
#include <Kokkos_Core.hpp>

namespace meridian::advection {

struct TracerStatistics {
  enum Sum { mass, error1, size1, error2, size2, sums };
  enum Max { high, negative_low, error_max, size_max, maxima };
  double sum[sums];
  double max[maxima];
};

class TracerStatisticsReducer {
 public:
  using reducer = TracerStatisticsReducer;
  using value_type = TracerStatistics;
  using result_view_type = Kokkos::View<value_type, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;

  KOKKOS_INLINE_FUNCTION explicit TracerStatisticsReducer(value_type& result) : result_(&result) {}

  KOKKOS_INLINE_FUNCTION void join(value_type& into, const value_type& from) const {
    for (int n = 0; n < value_type::sums; ++n) into.sum[n] += from.sum[n];
    for (int n = 0; n < value_type::maxima; ++n) into.max[n] = into.max[n] < from.max[n] ? from.max[n] : into.max[n];
  }
#if KOKKOS_VERSION < 40000
  // Kokkos 3 joins through volatile references.
  KOKKOS_INLINE_FUNCTION void join(volatile value_type& into, const volatile value_type& from) const {
    for (int n = 0; n < value_type::sums; ++n) into.sum[n] += from.sum[n];
    for (int n = 0; n < value_type::maxima; ++n) into.max[n] = into.max[n] < from.max[n] ? from.max[n] : into.max[n];
  }
#endif
  KOKKOS_INLINE_FUNCTION void init(value_type& v) const {
    for (int n = 0; n < value_type::sums; ++n) v.sum[n] = 0;
    for (int n = 0; n < value_type::maxima; ++n) v.max[n] = Kokkos::reduction_identity<double>::max();
  }
  KOKKOS_INLINE_FUNCTION value_type& reference() const { return *result_; }
  result_view_type view() const { return result_view_type(result_); }
  KOKKOS_INLINE_FUNCTION bool references_scalar() const { return true; }

 private:
  value_type* result_;
};

}  // namespace meridian::advection
