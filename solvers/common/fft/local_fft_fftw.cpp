// FFTW backend of LocalFFT (host execution spaces).
#include <fftw3.h>

#include <mutex>
#include <stdexcept>
#include <vector>

#include "solvers/common/fft/local_fft.hpp"

namespace meridian::fft {

namespace {
// FFTW's planner is not thread-safe; plans are made once, so a lock costs nothing.
std::mutex planner_lock;
}  // namespace

struct LocalFFT::Plan {
  fftw_plan plan = nullptr;
  Transform transform;
};

LocalFFT::LocalFFT(Transform transform, int n, int batch, PlanEffort effort) : plan_(std::make_unique<Plan>()) {
  plan_->transform = transform;
  count_backend_allocation();
  const bool real = transform == Transform::real_to_complex || transform == Transform::complex_to_real;
  const int complex_length = real ? n / 2 + 1 : n;
  // Planning needs arrays; FFTW_MEASURE writes into them, so they are scratch. UNALIGNED lets the
  // plan run on any arrays later (new-array execute); PRESERVE_INPUT keeps c2r from destroying its input.
  std::vector<double> in(2 * static_cast<std::size_t>(complex_length) * batch + 2 * n),
      out(2 * static_cast<std::size_t>(complex_length) * batch + 2 * n);
  const unsigned flags = (effort == PlanEffort::measure ? FFTW_MEASURE : FFTW_ESTIMATE) | FFTW_UNALIGNED |
                         FFTW_PRESERVE_INPUT;
  auto* cin = reinterpret_cast<fftw_complex*>(in.data());
  auto* cout = reinterpret_cast<fftw_complex*>(out.data());
  std::lock_guard<std::mutex> lock(planner_lock);
  switch (transform) {
    case Transform::real_to_complex:
      plan_->plan = fftw_plan_many_dft_r2c(1, &n, batch, in.data(), nullptr, 1, n, cout, nullptr, 1, complex_length, flags);
      break;
    case Transform::complex_to_real:
      plan_->plan = fftw_plan_many_dft_c2r(1, &n, batch, cin, nullptr, 1, complex_length, out.data(), nullptr, 1, n, flags);
      break;
    case Transform::complex_forward:
    case Transform::complex_backward:
      plan_->plan = fftw_plan_many_dft(1, &n, batch, cin, nullptr, 1, n, cout, nullptr, 1, n,
                                       transform == Transform::complex_forward ? FFTW_FORWARD : FFTW_BACKWARD, flags);
      break;
  }
  if (!plan_->plan) throw std::runtime_error("FFTW could not plan a transform of length " + std::to_string(n));
}

LocalFFT::~LocalFFT() {
  if (plan_ && plan_->plan) {
    std::lock_guard<std::mutex> lock(planner_lock);
    fftw_destroy_plan(plan_->plan);
  }
}

LocalFFT::LocalFFT() = default;
LocalFFT::LocalFFT(LocalFFT&&) noexcept = default;
LocalFFT& LocalFFT::operator=(LocalFFT&&) noexcept = default;

void LocalFFT::execute(const double* in, double* out) const {
  // FFTW's new-array execute takes non-const input; with PRESERVE_INPUT it does not write it.
  auto* input = const_cast<double*>(in);
  switch (plan_->transform) {
    case Transform::real_to_complex:
      fftw_execute_dft_r2c(plan_->plan, input, reinterpret_cast<fftw_complex*>(out));
      break;
    case Transform::complex_to_real:
      fftw_execute_dft_c2r(plan_->plan, reinterpret_cast<fftw_complex*>(input), out);
      break;
    default:
      fftw_execute_dft(plan_->plan, reinterpret_cast<fftw_complex*>(input), reinterpret_cast<fftw_complex*>(out));
  }
}

}  // namespace meridian::fft
