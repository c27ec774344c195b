#pragma once
// Several sums in one reduction: a pass over the data that needs two dot products (a Krylov iteration's) makes
// one launch and one wait for the host instead of two. A Kokkos custom reducer for Sums<n>, used with
// parallel::reduce like a plain double.
#include <Kokkos_Core.hpp>

namespace meridian::parallel {

template <int n>
struct Sums {
  double value[n];
};

template <int n>
class SumsReducer {
 public:
  using reducer = SumsReducer;
  using value_type = Sums<n>;
  using result_view_type = Kokkos::View<value_type, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;

  KOKKOS_INLINE_FUNCTION explicit SumsReducer(value_type& result) : result_(&result) {}

  KOKKOS_INLINE_FUNCTION void join(value_type& into, const value_type& from) const {
    for (int s = 0; s < n; ++s) into.value[s] += from.value[s];
  }
#if KOKKOS_VERSION < 40000
  // Kokkos 3 joins through volatile references.
  KOKKOS_INLINE_FUNCTION void join(volatile value_type& into, const volatile value_type& from) const {
    for (int s = 0; s < n; ++s) into.value[s] += from.value[s];
  }
#endif
  KOKKOS_INLINE_FUNCTION void init(value_type& v) const {
    for (int s = 0; s < n; ++s) v.value[s] = 0;
  }
  KOKKOS_INLINE_FUNCTION value_type& reference() const { return *result_; }
  result_view_type view() const { return result_view_type(result_); }
  KOKKOS_INLINE_FUNCTION bool references_scalar() const { return true; }

 private:
  value_type* result_;
};

}  // namespace meridian::parallel
