#include "solvers/common/direct_poisson/plane_transform.hpp"

#include <stdexcept>
#include <string>

#include "mesh/timers.hpp"
#include "parallel/launch_policy.hpp"

namespace meridian::direct_poisson {

namespace {

// Where a plane's values lie: (y, x) of plane b at (b rows + y) columns + x.
struct PlaneLayout {
  long rows = 0, columns = 0;
  KOKKOS_INLINE_FUNCTION long at(long b, long y, long x) const { return (b * rows + y) * columns + x; }
};

// The arrays a transform's kernels address: the values (n1 x n2 a plane), the FFT's real input (m1 x m2) and its
// spectrum (m1 x (m2 / 2 + 1) complex values).
struct PlaneLayouts {
  PlaneLayout values, gathered, spectral;
};
PlaneLayouts layouts_of(const MakhoulTables& y, const MakhoulTables& x) {
  return {{y.n, x.n}, {y.m, x.m}, {y.m, x.m / 2 + 1}};
}

}  // namespace

PlaneTransform::PlaneTransform(std::array<AxisKind, 2> kinds, std::array<int, 2> n, long planes, Workspace workspace)
    : kinds_(kinds), tables_{makhoul_tables(kinds[0], n[0]), makhoul_tables(kinds[1], n[1])}, planes_(planes) {
  const int m1 = tables_[0].m, m2 = tables_[1].m;
  if (planes < 1 || m1 < 2 || m2 < 2)
    throw std::invalid_argument("PlaneTransform: needs planes >= 1 and FFTs of at least 2 along each axis (got " +
                                std::to_string(planes) + ", " + std::to_string(m1) + ", " + std::to_string(m2) + ")");
  const fft::Planes shape{static_cast<int>(planes), m1, m2};
  using fft::PlanEffort, fft::Transform;
  r2c_ = fft::LocalFFT(Transform::real_to_complex, shape, PlanEffort::estimate);
  c2r_ = fft::LocalFFT(Transform::complex_to_real, shape, PlanEffort::estimate, fft::Input::scratch);
  const auto size = static_cast<std::size_t>(planes * m1);
  real_ = workspace.array(Workspace::Use::fft_real, 0, size * m2);
  spectrum_ = workspace.array(Workspace::Use::fft_spectrum, 0, size * 2 * (m2 / 2 + 1));
}

double PlaneTransform::normalisation() const {
  return direct_poisson::normalisation(kinds_[0], tables_[0].n) * direct_poisson::normalisation(kinds_[1], tables_[1].n);
}

void PlaneTransform::forward(const Kokkos::View<double*>& in, const Kokkos::View<double*>& out) const {
  const PlaneLayouts arrays = layouts_of(tables_[0], tables_[1]);
  const long m1 = tables_[0].m, m2 = tables_[1].m, half = arrays.spectral.columns;
  const auto real = real_, spectrum = spectrum_;
  const SignedIndex gy = tables_[0].gather, gx = tables_[1].gather;
  parallel::for_each("direct_poisson::plane_gather", parallel::Cells{{0, 0, 0}, {planes_, m1, m2}},
                     KOKKOS_LAMBDA(const long b, const long q1, const long q2) {
                       const double sign = gy.sign(q1) * gx.sign(q2);
                       real(arrays.gathered.at(b, q1, q2)) =
                           sign == 0 ? 0.0 : sign * in(arrays.values.at(b, gy.index(q1), gx.index(q2)));
                     });
  {
    timing::ScopedTimer timer("direct poisson fft");
    r2c_.execute(real.data(), spectrum.data());
  }
  const PostTwiddle py = tables_[0].post, px = tables_[1].post;
  parallel::for_each("direct_poisson::plane_twiddle", parallel::Cells{{0, 0, 0}, {planes_, tables_[0].n, tables_[1].n}},
                     KOKKOS_LAMBDA(const long b, const long s1, const long s2) {
                       const auto v = [&](long k1, long k2) {
                         return k2 < half ? complex_at(spectrum.data(), arrays.spectral.at(b, k1, k2))
                                          : Kokkos::conj(complex_at(spectrum.data(), arrays.spectral.at(b, (m1 - k1) % m1, m2 - k2)));
                       };
                       const long j1 = py.index(s1), j2 = px.index(s2);
                       const Complex t1 = post_twiddle(py, s1), t2 = post_twiddle(px, s2);
                       const Complex sum = Kokkos::conj(t1 * t2) * v(j1, j2) + t1 * Kokkos::conj(t2) * v((m1 - j1) % m1, j2);
                       out(arrays.values.at(b, s1, s2)) = 0.5 * sum.real();
                     });
}

void PlaneTransform::backward(const Kokkos::View<double*>& in, const Kokkos::View<double*>& out) const {
  const PlaneLayouts arrays = layouts_of(tables_[0], tables_[1]);
  const auto real = real_, spectrum = spectrum_;
  const PreWeights wy = tables_[0].pre, wx = tables_[1].pre;
  parallel::for_each("direct_poisson::plane_spectrum", parallel::Cells{{0, 0, 0}, {planes_, tables_[0].m, arrays.spectral.columns}},
                     KOKKOS_LAMBDA(const long b, const long k1, const long k2) {
                       Complex sum = 0;
                       for (int w1 = 0; w1 < 2; ++w1) {
                         const int i1 = pre_index(wy, k1, w1);
                         if (i1 < 0) continue;
                         for (int w2 = 0; w2 < 2; ++w2) {
                           const int i2 = pre_index(wx, k2, w2);
                           if (i2 >= 0) sum += pre_weight(wy, k1, w1) * pre_weight(wx, k2, w2) * in(arrays.values.at(b, i1, i2));
                         }
                       }
                       const long at = 2 * arrays.spectral.at(b, k1, k2);
                       spectrum(at) = sum.real(), spectrum(at + 1) = sum.imag();
                     });
  {
    timing::ScopedTimer timer("direct poisson fft");
    c2r_.execute(spectrum.data(), real.data());
  }
  const SignedIndex sy = tables_[0].scatter, sx = tables_[1].scatter;
  parallel::for_each("direct_poisson::plane_scatter", parallel::Cells{{0, 0, 0}, {planes_, tables_[0].n, tables_[1].n}},
                     KOKKOS_LAMBDA(const long b, const long p1, const long p2) {
                       out(arrays.values.at(b, p1, p2)) =
                           sy.sign(p1) * sx.sign(p2) * real(arrays.gathered.at(b, sy.index(p1), sx.index(p2)));
                     });
}

}  // namespace meridian::direct_poisson
