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

// Makhoul's forward transform of `batch` rows: gather into `real`, FFT into `spectrum`, twiddle into `out`.
void forward_makhoul(const Makhoul& rows, const fft::LocalFFT& r2c, const Kokkos::View<double*>& in,
                     const Kokkos::View<double*>& out) {
  const SignedIndex gather = rows.tables.gather;
  const PostTwiddle post = rows.tables.post;
  const int m = rows.tables.m, half = rows.work.half;
  const RowLayout layout = rows.layout;
  const WorkRows work = rows.work;
  const auto real = rows.real, spectrum = rows.spectrum;
  for_each_value("direct_poisson::forward_permute", rows, m, KOKKOS_LAMBDA(const long b, const long q) {
    const double sign = gather.sign(q);
    real(work.real(b, q)) = sign == 0 ? 0.0 : sign * in(layout.at(b, gather.index(q)));
  });
  {
    timing::ScopedTimer timer("direct poisson fft");
    r2c.execute(real.data(), spectrum.data());
  }
  for_each_value("direct_poisson::forward_twiddle", rows, rows.tables.n, KOKKOS_LAMBDA(const long b, const long s) {
    // Re(conj(t_s) V_j), V_j for j past the stored half conj(V_(m-j)) (a real sequence's spectrum).
    const long j = post.index(s);
    const bool stored = j < half;
    const long at = work.complex(b, stored ? j : m - j);
    const double re = spectrum(at), im = stored ? spectrum(at + 1) : -spectrum(at + 1);
    const Complex twiddle = post_twiddle(post, s);
    out(layout.at(b, s)) = re * twiddle.real() + im * twiddle.imag();
  });
}

// Its inverse, unnormalised: twiddle into `spectrum`, inverse FFT into `real` (its input used as scratch),
// scatter into `out`.
void backward_makhoul(const Makhoul& rows, const fft::LocalFFT& c2r, const Kokkos::View<double*>& in,
                      const Kokkos::View<double*>& out) {
  const PreWeights pre = rows.tables.pre;
  const SignedIndex scatter = rows.tables.scatter;
  const RowLayout layout = rows.layout;
  const WorkRows work = rows.work;
  const auto real = rows.real, spectrum = rows.spectrum;
  for_each_value("direct_poisson::backward_twiddle", rows, work.half, KOKKOS_LAMBDA(const long b, const long k) {
    double re = 0, im = 0;
    for (int which = 0; which < 2; ++which) {
      const int slot = pre_index(pre, k, which);
      if (slot < 0) continue;
      const double c = in(layout.at(b, slot));
      const Complex weight = pre_weight(pre, k, which);
      re += c * weight.real(), im += c * weight.imag();
    }
    spectrum(work.complex(b, k)) = re, spectrum(work.complex(b, k) + 1) = im;
  });
  {
    timing::ScopedTimer timer("direct poisson fft");
    c2r.execute(spectrum.data(), real.data());
  }
  for_each_value("direct_poisson::backward_permute", rows, rows.tables.n, KOKKOS_LAMBDA(const long b, const long p) {
    out(layout.at(b, p)) = scatter.sign(p) * real(work.real(b, scatter.index(p)));
  });
}

}  // namespace

std::vector<double> axis_eigenvalues(AxisKind kind, int n, double spacing) {
  std::vector<double> lambda(static_cast<std::size_t>(n));
  for (int s = 0; s < n; ++s) lambda[s] = (2 - 2 * std::cos(theta(kind, n, s))) / (spacing * spacing);
  return lambda;
}

AxisKind axis_kind(bool periodic, sparse::FaceCondition lower, sparse::FaceCondition upper) {
  using sparse::FaceCondition;
  if (periodic) return AxisKind::periodic;
  if (lower == FaceCondition::zero_gradient)
    return upper == FaceCondition::zero_gradient ? AxisKind::neumann_neumann : AxisKind::neumann_dirichlet;
  return upper == FaceCondition::zero_gradient ? AxisKind::dirichlet_neumann : AxisKind::dirichlet_dirichlet;
}

AxisTransform::AxisTransform(AxisKind kind, int n, long batch, TransformMethod method, long inner, Workspace workspace)
    : kind_(kind), method_(method), n_(n) {
  if (n < 1 || batch < 1 || inner < 1 || batch % inner != 0)
    throw std::invalid_argument("AxisTransform: needs n >= 1 and batch >= 1 a multiple of inner >= 1 (got " +
                                std::to_string(n) + ", " + std::to_string(batch) + ", " + std::to_string(inner) + ")");
  if (method == TransformMethod::fftw_real_to_real) {
    if (!parallel::device_memory_is_host)
      throw std::invalid_argument("AxisTransform: FFTW's real-to-real kinds need the data in host memory");
    const FftwPair kinds = fftw_pair(kind);
    to_coefficients_ = fft::RealToRealRows(kinds.forward, n, static_cast<int>(batch), static_cast<int>(inner));
    from_coefficients_ = fft::RealToRealRows(kinds.backward, n, static_cast<int>(batch), static_cast<int>(inner));
    return;
  }
  const int m = fft_length(kind, n);
  const WorkRows work{batch, m, m / 2 + 1, inner > 1};
  const auto order = work.interleaved ? fft::RowOrder::interleaved : fft::RowOrder::contiguous;
  using fft::PlanEffort, fft::Transform;
  r2c_ = fft::LocalFFT(Transform::real_to_complex, m, static_cast<int>(batch), PlanEffort::estimate, order);
  c2r_ = fft::LocalFFT(Transform::complex_to_real, m, static_cast<int>(batch), PlanEffort::estimate, order, fft::Input::scratch);
  makhoul_ = {makhoul_tables(kind, n), {n, inner}, work,
              workspace.array(Workspace::Use::fft_real, 0, static_cast<std::size_t>(batch * m)),
              workspace.array(Workspace::Use::fft_spectrum, 0, static_cast<std::size_t>(batch * 2 * work.half))};
}

void AxisTransform::forward(const Kokkos::View<double*>& in, const Kokkos::View<double*>& out) const {
  if (method_ == TransformMethod::makhoul) return forward_makhoul(makhoul_, r2c_, in, out);
  timing::ScopedTimer timer("direct poisson fft");
  to_coefficients_.execute(in.data(), out.data());
}

void AxisTransform::backward(const Kokkos::View<double*>& in, const Kokkos::View<double*>& out) const {
  if (method_ == TransformMethod::makhoul) return backward_makhoul(makhoul_, c2r_, in, out);
  timing::ScopedTimer timer("direct poisson fft");
  from_coefficients_.execute(in.data(), out.data());
}

}  // namespace meridian::direct_poisson
