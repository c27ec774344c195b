#pragma once
// The one way the project sets every value of a View.
#include <Kokkos_Core.hpp>

#include <stdexcept>
#include <type_traits>

#include "parallel/copies.hpp"
#include "parallel/launch_policy.hpp"

namespace meridian::parallel {

// A functor, not a lambda: nvcc refuses a lambda whose captures are first used inside `if constexpr`.
template <class Pointer>
struct FillValues {
  Pointer data;
  std::remove_pointer_t<Pointer> value;
  KOKKOS_INLINE_FUNCTION void operator()(const long n) const { data[n] = value; }
};

// Every value of a contiguous View set to `value`: one kernel for a View the default execution space can
// reach, on every backend (Kokkos' deep_copy of a value is a kernel, a memset or a host loop depending on the
// backend and the value, and it fences); a host loop for a host-only View (a mirror staged on the host).
// Throws std::invalid_argument for a View that is not contiguous.
template <class View>
void fill(const View& view, typename View::const_value_type value) {
  if (!view.span_is_contiguous()) throw std::invalid_argument("parallel::fill: the View is not contiguous");
  const auto data = view.data();
  const long size = static_cast<long>(view.span());
  if constexpr (device_accessible<View>) {
    Kokkos::parallel_for("fill", FlatPolicy(0, size), FillValues<decltype(data)>{data, value});
  } else {
    for (long n = 0; n < size; ++n) data[n] = value;
  }
}

}  // namespace meridian::parallel
