#include "solvers/common/direct_poisson/makhoul_tables.hpp"

#include <cmath>
#include <complex>
#include <vector>

#include "parallel/device_memory.hpp"
#include "solvers/common/kokkos_math.hpp"

namespace meridian::direct_poisson {

namespace {

bool mixed(AxisKind kind) { return kind == AxisKind::neumann_dirichlet || kind == AxisKind::dirichlet_neumann; }
// The kinds whose Makhoul form transforms (-1)^n x, and holds the DCT-II's coefficients in reverse slot order.
bool alternating(AxisKind kind) { return kind == AxisKind::dirichlet_dirichlet || kind == AxisKind::dirichlet_neumann; }

// Makhoul's permutation: v_q = e_{2q} for q < ceil(m/2), v_{m-1-q} = e_{2q+1}.
int permuted(int m, int q) { return q < (m + 1) / 2 ? 2 * q : 2 * (m - 1 - q) + 1; }

using HostComplex = std::complex<double>;

struct HostTables {
  std::vector<int> gather_index, post_index, pre_index, scatter_index;
  std::vector<double> gather_sign, post_twiddle, pre_weight, scatter_sign;
  HostTables(int n, int m)
      : gather_index(m, 0), post_index(n), pre_index(2 * static_cast<std::size_t>(m), -1), scatter_index(n),
        gather_sign(m, 0.0), post_twiddle(2 * static_cast<std::size_t>(n)), pre_weight(4 * static_cast<std::size_t>(m), 0.0),
        scatter_sign(n, 1.0) {}
  void gather(int q, int index, double sign) { gather_index[q] = index, gather_sign[q] = sign; }
  void post(int s, int index, HostComplex t) { post_index[s] = index, post_twiddle[2 * s] = t.real(), post_twiddle[2 * s + 1] = t.imag(); }
  void pre(int k, int which, int index, HostComplex weight) {
    if (index < 0) return;
    pre_index[2 * k + which] = index;
    pre_weight[4 * k + 2 * which] = weight.real(), pre_weight[4 * k + 2 * which + 1] = weight.imag();
  }
  void scatter(int p, int index, double sign) { scatter_index[p] = index, scatter_sign[p] = sign; }
};

// The real DFT's half-complex slots (R2HC): Re V_s for s <= n / 2, then Im V_(n-s).
void periodic_tables(HostTables& t, int n) {
  const HostComplex i(0, 1);
  for (int q = 0; q < n; ++q) t.gather(q, q, 1), t.scatter(q, q, 1);
  for (int s = 0; s < n; ++s) 2 * s <= n ? t.post(s, s, 1) : t.post(s, n - s, i);
  for (int k = 0; k < n; ++k) {
    if (k == 0 || 2 * k == n) {
      t.pre(k, 0, k, 1);
    } else if (2 * k < n) {
      t.pre(k, 0, k, 1), t.pre(k, 1, n - k, i);
    } else {
      t.pre(k, 0, n - k, 1), t.pre(k, 1, k, -i);
    }
  }
}

// The DST-I: the row extended oddly to m = 2 (n + 1), (0, x, 0, -reversed x), and RODFT00_s = -Im V_(s+1).
void sine_tables(HostTables& t, int n, int m) {
  const HostComplex i(0, 1);
  for (int q = 1; q <= n; ++q) t.gather(q, q - 1, 1), t.gather(m - q, q - 1, -1);
  for (int s = 0; s < n; ++s) t.post(s, s + 1, -i), t.scatter(s, s + 1, 1);
  for (int k = 1; k <= n; ++k) t.pre(k, 0, k - 1, -i), t.pre(m - k, 0, k - 1, i);
}

// The cosine and sine kinds through the DCT-II of length m of a sequence e: a DST-II is the reversed DCT-II of
// (-1)^p x, and the fourth kinds are the odd coefficients of the DCT-II of x reflected to length 2n about the
// p = 0 face (oddly) or the zero-gradient face (evenly). Makhoul's permutation of e is the FFT's input;
// C_s = w Re(e^(-i phi_j) V_j), phi_j = pi j / (2m), j the DCT-II index slot s holds, w = 2 where FFTW's
// definition doubles the DCT-II (the fourth kinds' reflection doubles it already); back, V_k = e^(i phi_k)
// (X_k - i X_(m-k)) of the DCT-II's coefficients X, and the inverse permutation.
void cosine_tables(HostTables& t, AxisKind kind, int n, int m) {
  for (int q = 0; q < m; ++q) {
    const int p = permuted(m, q);
    double sign = p >= n && kind == AxisKind::neumann_dirichlet ? -1 : 1;
    if (alternating(kind) && p % 2) sign = -sign;
    t.gather(q, p < n ? p : 2 * n - 1 - p, sign);
  }
  // The DCT-II index slot s holds, and the slot holding index j (-1 for j = m and the even j of the fourth
  // kinds, which the reflection makes vanish).
  const auto index_of = [&](int s) {
    const int q = alternating(kind) ? n - 1 - s : s;
    return m == n ? q : 2 * q + 1;
  };
  const auto slot_of = [&](int j) {
    if (j >= m || (m != n && j % 2 == 0)) return -1;
    const int q = m == n ? j : (j - 1) / 2;
    return alternating(kind) ? n - 1 - q : q;
  };
  const double weight = mixed(kind) ? 1.0 : 2.0;
  const auto phase = [&](int j) { return std::polar(1.0, pi * j / (2.0 * m)); };
  for (int s = 0; s < n; ++s) t.post(s, index_of(s), weight * phase(index_of(s)));
  for (int k = 0; k < m; ++k) t.pre(k, 0, slot_of(k), phase(k)), t.pre(k, 1, slot_of(m - k), HostComplex(0, -1) * phase(k));
  for (int p = 0; p < n; ++p)
    t.scatter(p, p % 2 == 0 ? p / 2 : m - 1 - (p - 1) / 2, alternating(kind) && p % 2 ? -1 : 1);
}

}  // namespace

int fft_length(AxisKind kind, int n) { return mixed(kind) ? 2 * n : kind == AxisKind::dirichlet_nodes ? 2 * (n + 1) : n; }

double normalisation(AxisKind kind, int n) {
  return kind == AxisKind::periodic ? n : kind == AxisKind::dirichlet_nodes ? 2.0 * (n + 1) : 2.0 * n;
}

MakhoulTables makhoul_tables(AxisKind kind, int n) {
  const int m = fft_length(kind, n);
  HostTables t(n, m);
  if (kind == AxisKind::periodic)
    periodic_tables(t, n);
  else if (kind == AxisKind::dirichlet_nodes)
    sine_tables(t, n, m);
  else
    cosine_tables(t, kind, n, m);
  using parallel::device_copy;
  return {n,
          m,
          {device_copy("makhoul::gather_index", t.gather_index), device_copy("makhoul::gather_sign", t.gather_sign)},
          {device_copy("makhoul::post_index", t.post_index), device_copy("makhoul::post_twiddle", t.post_twiddle)},
          {device_copy("makhoul::pre_index", t.pre_index), device_copy("makhoul::pre_weight", t.pre_weight)},
          {device_copy("makhoul::scatter_index", t.scatter_index), device_copy("makhoul::scatter_sign", t.scatter_sign)}};
}

}  // namespace meridian::direct_poisson
