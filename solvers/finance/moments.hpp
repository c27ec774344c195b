#pragma once
// Running moments of a product's four per-sample quantities (discounted payoff y, control x, delta
// sample d, vega sample g): their means, centred sums of squares, and the co-moment of y with x.
// Sets of samples are merged pairwise (Chan, Golub & LeVeque 1979), so a variance never comes from a
// sum of squares minus a squared sum, which cancels to nothing, or below zero, when the spread is
// small against the mean. One function serves the device (chunks into blocks) and the host (blocks
// into the run's totals), in a fixed order, so the bits are the same on any backend and rank count.
#include <Kokkos_Core.hpp>

namespace meridian::finance {

enum Moment { y_mean, y_m2, x_mean, x_m2, xy_c, d_mean, d_m2, g_mean, g_m2, moments };

// a (the moments of na samples) becomes the moments of a's and b's samples together.
KOKKOS_INLINE_FUNCTION void merge_moments(double* a, double na, const double* b, double nb) {
  if (nb == 0) return;
  if (na == 0) {
    for (int k = 0; k < moments; ++k) a[k] = b[k];
    return;
  }
  const double n = na + nb, weight = nb / n, spread = na * nb / n;
  const double dy = b[y_mean] - a[y_mean], dx = b[x_mean] - a[x_mean];
  const double dd = b[d_mean] - a[d_mean], dg = b[g_mean] - a[g_mean];
  a[y_m2] += b[y_m2] + dy * dy * spread;
  a[x_m2] += b[x_m2] + dx * dx * spread;
  a[xy_c] += b[xy_c] + dx * dy * spread;
  a[d_m2] += b[d_m2] + dd * dd * spread;
  a[g_m2] += b[g_m2] + dg * dg * spread;
  a[y_mean] += dy * weight;
  a[x_mean] += dx * weight;
  a[d_mean] += dd * weight;
  a[g_mean] += dg * weight;
}

}  // namespace meridian::finance
