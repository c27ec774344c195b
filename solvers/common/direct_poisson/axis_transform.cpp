#include "solvers/common/direct_poisson/axis_transform.hpp"

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "mesh/timers.hpp"
#include "parallel/fence.hpp"
#include "parallel/launch_policy.hpp"
#include "solvers/common/kokkos_math.hpp"

namespace meridian::direct_poisson {

namespace {

bool mixed(AxisKind kind) { return kind == AxisKind::neumann_dirichlet || kind == AxisKind::dirichlet_neumann; }
// The length of Makhoul's FFT: the row's, twice it for the fourth kinds, 2 (n + 1) for the DST-I.
int fft_length(AxisKind kind, int n) { return mixed(kind) ? 2 * n : kind == AxisKind::dirichlet_nodes ? 2 * (n + 1) : n; }
// The kinds whose Makhoul form transforms (-1)^n x, and holds the DCT-II's coefficients in reverse slot order.
KOKKOS_INLINE_FUNCTION bool alternating(AxisKind kind) {
  return kind == AxisKind::dirichlet_dirichlet || kind == AxisKind::dirichlet_neumann;
}

double theta(AxisKind kind, int n, int s) {
  switch (kind) {
    case AxisKind::periodic: return 2 * pi * (2 * s <= n ? s : n - s) / n;
    case AxisKind::neumann_neumann: return pi * s / n;
    case AxisKind::dirichlet_dirichlet: return pi * (s + 1) / n;
    case AxisKind::neumann_dirichlet:
    case AxisKind::dirichlet_neumann: return pi * (s + 0.5) / n;
    case AxisKind::dirichlet_nodes: return pi * (s + 1) / (n + 1);
  }
  return 0;
}

struct FftwPair {
  fft::RealKind forward, backward;
};

FftwPair fftw_pair(AxisKind kind) {
  using fft::RealKind;
  switch (kind) {
    case AxisKind::periodic: return {RealKind::r2hc, RealKind::hc2r};
    case AxisKind::neumann_neumann: return {RealKind::redft10, RealKind::redft01};
    case AxisKind::dirichlet_dirichlet: return {RealKind::rodft10, RealKind::rodft01};
    case AxisKind::neumann_dirichlet: return {RealKind::redft11, RealKind::redft11};
    case AxisKind::dirichlet_neumann: return {RealKind::rodft11, RealKind::rodft11};
    case AxisKind::dirichlet_nodes: return {RealKind::rodft00, RealKind::rodft00};
  }
  return {RealKind::r2hc, RealKind::hc2r};
}

// Element p (0 <= p < m) of the sequence whose DCT-II Makhoul's form takes: x (its values `inner` apart), or its
// reflection to 2n, times (-1)^p for the alternating kinds.
KOKKOS_INLINE_FUNCTION double extended(AxisKind kind, const double* row, long inner, int n, int p) {
  double value = p < n ? row[p * inner] : row[(2 * n - 1 - p) * inner];
  if (p >= n && kind == AxisKind::neumann_dirichlet) value = -value;
  return alternating(kind) && (p % 2) ? -value : value;
}

// Makhoul's permutation: v_q = e_{2q} for q < ceil(m/2), v_{m-1-q} = e_{2q+1}.
KOKKOS_INLINE_FUNCTION int permuted(int m, int q) { return q < (m + 1) / 2 ? 2 * q : 2 * (m - 1 - q) + 1; }
// The DCT-II index (of the length-m sequence) slot s holds: s, or n - 1 - s for the alternating kinds; the odd
// index 2 q + 1 of that for the fourth kinds.
KOKKOS_INLINE_FUNCTION int dct_index(AxisKind kind, int n, int m, int s) {
  const int q = alternating(kind) ? n - 1 - s : s;
  return m == n ? q : 2 * q + 1;
}

// body(b, s) for every row b and slot s < slots. The threads beside each other take consecutive rows where the
// FFT's rows are interleaved (WorkRows), else consecutive slots: consecutive addresses of the work arrays either way.
template <class Body>
struct RowsFastest {
  Body body;
  KOKKOS_INLINE_FUNCTION void operator()(const long s, const long b) const { body(b, s); }
};
template <class Body>
void for_each_value(const char* label, const Makhoul& rows, long slots, const Body& body) {
  if (rows.work.interleaved)
    parallel::for_each(label, parallel::Plane{{0, 0}, {slots, rows.work.batch}}, RowsFastest<Body>{body});
  else
    parallel::for_each(label, parallel::Plane{{0, 0}, {rows.work.batch, slots}}, body);
}

// Makhoul's forward transform of `batch` rows: permute into `real`, FFT into `spectrum`, twiddle into `out`.
void forward_makhoul(const Makhoul& rows, const fft::LocalFFT& r2c, const Kokkos::View<double*>& in,
                     const Kokkos::View<double*>& out) {
  const AxisKind kind = rows.kind;
  const int n = rows.n, m = rows.work.m, half = rows.work.half;
  const long inner = rows.layout.inner;
  const RowLayout layout = rows.layout;
  const WorkRows work = rows.work;
  const auto real = rows.real, spectrum = rows.spectrum, twiddles = rows.forward_twiddles;
  for_each_value("direct_poisson::forward_permute", rows, m, KOKKOS_LAMBDA(const long b, const long q) {
    const double* row = in.data() + layout.at(b, 0);
    real(work.real(b, q)) =
        kind == AxisKind::periodic ? row[q * inner] : extended(kind, row, inner, n, permuted(m, static_cast<int>(q)));
  });
  {
    timing::ScopedTimer timer("direct poisson fft");
    r2c.execute(real.data(), spectrum.data());
  }
  for_each_value("direct_poisson::forward_twiddle", rows, n, KOKKOS_LAMBDA(const long b, const long s) {
    const auto v = [&](long k, int part) { return spectrum(work.complex(b, k) + part); };
    double coefficient;
    if (kind == AxisKind::periodic) {  // half-complex: Re V_s, then Im V_(n-s)
      coefficient = 2 * s <= n ? v(s, 0) : v(n - s, 1);
    } else {
      const int j = dct_index(kind, n, m, static_cast<int>(s));
      // V_j for j > m/2 is conj(V_{m-j}) (a real sequence's spectrum).
      const double re = j < half ? v(j, 0) : v(m - j, 0);
      const double im = j < half ? v(j, 1) : -v(m - j, 1);
      coefficient = re * twiddles(2 * s) + im * twiddles(2 * s + 1);
    }
    out(layout.at(b, s)) = coefficient;
  });
}

// The DST-I of `batch` rows (both directions: it is its own inverse up to 2 (n + 1)): each row extended oddly to
// m = 2 (n + 1), (0, x, 0, -reversed x), into `real`, its FFT into `spectrum`, and RODFT00_s = -Im V_(s+1) into
// `out`.
void sine_makhoul(const Makhoul& rows, const fft::LocalFFT& r2c, const Kokkos::View<double*>& in,
                  const Kokkos::View<double*>& out) {
  const int n = rows.n, m = rows.work.m;
  const long inner = rows.layout.inner;
  const RowLayout layout = rows.layout;
  const WorkRows work = rows.work;
  const auto real = rows.real, spectrum = rows.spectrum;
  for_each_value("direct_poisson::sine_extend", rows, m, KOKKOS_LAMBDA(const long b, const long p) {
    const double* row = in.data() + layout.at(b, 0);
    real(work.real(b, p)) = p == 0 || p == n + 1 ? 0.0 : p <= n ? row[(p - 1) * inner] : -row[(m - 1 - p) * inner];
  });
  {
    timing::ScopedTimer timer("direct poisson fft");
    r2c.execute(real.data(), spectrum.data());
  }
  for_each_value("direct_poisson::sine_coefficients", rows, n, KOKKOS_LAMBDA(const long b, const long s) {
    out(layout.at(b, s)) = -spectrum(work.complex(b, s + 1) + 1);
  });
}

// Its inverse, unnormalised: twiddle into `spectrum`, inverse FFT into `real`, permute into `out`.
void backward_makhoul(const Makhoul& rows, const fft::LocalFFT& c2r, const Kokkos::View<double*>& in,
                      const Kokkos::View<double*>& out) {
  const AxisKind kind = rows.kind;
  const int n = rows.n, m = rows.work.m, half = rows.work.half;
  const long inner = rows.layout.inner;
  const RowLayout layout = rows.layout;
  const WorkRows work = rows.work;
  const auto real = rows.real, spectrum = rows.spectrum, twiddles = rows.backward_twiddles;
  for_each_value("direct_poisson::backward_twiddle", rows, half, KOKKOS_LAMBDA(const long b, const long k) {
    const double* row = in.data() + layout.at(b, 0);
    const auto c = [&](long s) { return row[s * inner]; };
    double* v = spectrum.data() + work.complex(b, k);
    if (kind == AxisKind::periodic) {
      v[0] = c(k);
      v[1] = k > 0 && 2 * k < n ? c(n - k) : 0.0;
      return;
    }
    // The DCT-II coefficient j of the length-m sequence, doubled as FFTW's are: the slot holding j, 0 for
    // indices no slot holds (j = m, and the even ones of the fourth kinds, which the reflection makes vanish).
    const auto dct = [&](long j) {
      if (j >= m || (m != n && j % 2 == 0)) return 0.0;
      const long q = m == n ? j : (j - 1) / 2;
      return c(alternating(kind) ? n - 1 - q : q);
    };
    const double a = dct(k), bb = dct(m - k);
    const double cs = twiddles(2 * k), sn = twiddles(2 * k + 1);
    v[0] = a * cs + bb * sn;
    v[1] = a * sn - bb * cs;
  });
  {
    timing::ScopedTimer timer("direct poisson fft");
    c2r.execute(spectrum.data(), real.data());
  }
  for_each_value("direct_poisson::backward_permute", rows, n, KOKKOS_LAMBDA(const long b, const long p) {
    double value;
    if (kind == AxisKind::periodic) {
      value = real(work.real(b, p));
    } else {
      const long q = p % 2 == 0 ? p / 2 : m - 1 - (p - 1) / 2;
      value = real(work.real(b, q));
      if (alternating(kind) && (p % 2)) value = -value;
    }
    out(layout.at(b, p)) = value;
  });
}

}  // namespace

AxisKind axis_kind(bool periodic, sparse::FaceCondition lower, sparse::FaceCondition upper) {
  using sparse::FaceCondition;
  if (periodic) return AxisKind::periodic;
  if (lower == FaceCondition::zero_gradient)
    return upper == FaceCondition::zero_gradient ? AxisKind::neumann_neumann : AxisKind::neumann_dirichlet;
  return upper == FaceCondition::zero_gradient ? AxisKind::dirichlet_neumann : AxisKind::dirichlet_dirichlet;
}

AxisTransform::AxisTransform(AxisKind kind, int n, long batch, double spacing, TransformMethod method, long inner)
    : kind_(kind), method_(method), n_(n), m_(fft_length(kind, n)) {
  if (n < 1 || batch < 1 || !(spacing > 0) || inner < 1 || batch % inner != 0)
    throw std::invalid_argument("AxisTransform: needs n >= 1, batch >= 1 a multiple of inner >= 1 and spacing > 0 (got " +
                                std::to_string(n) + ", " + std::to_string(batch) + ", " + std::to_string(inner) + ", " +
                                std::to_string(spacing) + ")");
  std::vector<double> lambda(static_cast<std::size_t>(n));
  for (int s = 0; s < n; ++s) lambda[s] = (2 - 2 * std::cos(theta(kind, n, s))) / (spacing * spacing);
  eigenvalues_ = parallel::device_copy("direct_poisson::eigenvalues", lambda);
  if (method == TransformMethod::fftw_real_to_real) {
    if (!parallel::device_memory_is_host)
      throw std::invalid_argument("AxisTransform: FFTW's real-to-real kinds need the data in host memory");
    const FftwPair kinds = fftw_pair(kind);
    to_coefficients_ = fft::RealToRealRows(kinds.forward, n, static_cast<int>(batch), static_cast<int>(inner));
    from_coefficients_ = fft::RealToRealRows(kinds.backward, n, static_cast<int>(batch), static_cast<int>(inner));
    return;
  }
  const WorkRows work{batch, m_, m_ / 2 + 1, inner > 1};
  const auto order = work.interleaved ? fft::RowOrder::interleaved : fft::RowOrder::contiguous;
  r2c_ = fft::LocalFFT(fft::Transform::real_to_complex, m_, static_cast<int>(batch), fft::PlanEffort::estimate, order);
  makhoul_ = {kind, n, {n, inner}, work,
              Kokkos::View<double*>("direct_poisson::fft_real", static_cast<std::size_t>(batch * m_)),
              Kokkos::View<double*>("direct_poisson::fft_spectrum", static_cast<std::size_t>(batch * 2 * work.half)),
              {}, {}};
  if (kind == AxisKind::dirichlet_nodes) return;  // its own inverse: one r2c, no twiddles
  c2r_ = fft::LocalFFT(fft::Transform::complex_to_real, m_, static_cast<int>(batch), fft::PlanEffort::estimate, order);
  // The twiddles (w cos phi, w sin phi) for each slot going forward, w = 2 where FFTW's definition doubles the
  // DCT-II's (the fourth kinds' reflection doubles it already), and (cos phi, sin phi) for each spectrum entry
  // going back; made once (evaluating them in the kernels took an eighth of a solve).
  std::vector<double> forward(2 * static_cast<std::size_t>(n)), backward(2 * static_cast<std::size_t>(work.half));
  const double weight = kind == AxisKind::periodic || mixed(kind) ? 1.0 : 2.0;
  for (int s = 0; s < n; ++s) {
    const double phi = pi * dct_index(kind, n, m_, s) / (2.0 * m_);
    forward[2 * s] = weight * std::cos(phi), forward[2 * s + 1] = weight * std::sin(phi);
  }
  for (int k = 0; k < work.half; ++k)
    backward[2 * k] = std::cos(pi * k / (2.0 * m_)), backward[2 * k + 1] = std::sin(pi * k / (2.0 * m_));
  makhoul_.forward_twiddles = parallel::device_copy("direct_poisson::forward_twiddles", forward);
  makhoul_.backward_twiddles = parallel::device_copy("direct_poisson::backward_twiddles", backward);
}

double AxisTransform::normalisation() const {
  return kind_ == AxisKind::periodic ? n_ : kind_ == AxisKind::dirichlet_nodes ? 2.0 * (n_ + 1) : 2.0 * n_;
}

void AxisTransform::forward(const Kokkos::View<double*>& in, const Kokkos::View<double*>& out) const {
  if (method_ == TransformMethod::makhoul && kind_ == AxisKind::dirichlet_nodes) return sine_makhoul(makhoul_, r2c_, in, out);
  if (method_ == TransformMethod::makhoul) return forward_makhoul(makhoul_, r2c_, in, out);
  timing::ScopedTimer timer("direct poisson fft");
  to_coefficients_.execute(in.data(), out.data());
}

void AxisTransform::backward(const Kokkos::View<double*>& in, const Kokkos::View<double*>& out) const {
  if (method_ == TransformMethod::makhoul && kind_ == AxisKind::dirichlet_nodes) return sine_makhoul(makhoul_, r2c_, in, out);
  if (method_ == TransformMethod::makhoul) return backward_makhoul(makhoul_, c2r_, in, out);
  timing::ScopedTimer timer("direct poisson fft");
  from_coefficients_.execute(in.data(), out.data());
}

}  // namespace meridian::direct_poisson
