#include "linear_gravity_wave.hpp"

#include <array>
#include <cmath>

namespace meridian::testing {

namespace {

using Complex = std::complex<double>;
using Matrix = std::array<std::array<Complex, 4>, 4>;

Matrix product(const Matrix& a, const Matrix& b) {
  Matrix c{};
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j)
      for (int l = 0; l < 4; ++l) c[i][j] += a[i][l] * b[l][j];
  return c;
}

double norm(const Matrix& a) {
  double largest = 0;
  for (int j = 0; j < 4; ++j) {
    double column = 0;
    for (int i = 0; i < 4; ++i) column += std::abs(a[i][j]);
    largest = std::max(largest, column);
  }
  return largest;
}

// exp(a) by scaling and squaring: a / 2^s within norm 1/2, its Taylor series to 20 terms (error below
// 2^-20 / 20!), then squared s times. The evolution is a rotation in the balanced variables below, so
// the squarings do not amplify the round-off.
Matrix exponential(Matrix a) {
  int squarings = 0;
  for (double n = norm(a); n > 0.5; n /= 2) ++squarings;
  const double scale = std::ldexp(1.0, -squarings);
  for (auto& row : a)
    for (auto& x : row) x *= scale;
  Matrix result{}, term{};
  for (int i = 0; i < 4; ++i) result[i][i] = term[i][i] = 1;
  for (int n = 1; n <= 20; ++n) {
    term = product(term, a);
    for (auto& row : term)
      for (auto& x : row) x /= n;
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) result[i][j] += term[i][j];
  }
  for (int n = 0; n < squarings; ++n) result = product(result, result);
  return result;
}

}  // namespace

LinearGravityWave::LinearGravityWave(const LinearWaveSetup& setup, double time) : s_(setup), time_(time) {
  const double g = s_.gravity, gamma = s_.cp / s_.cv, t0 = s_.temperature;
  const double cs = std::sqrt(gamma * s_.rd * t0), n = g / std::sqrt(s_.cp * t0);
  const double rho_s = s_.surface_pressure / (s_.rd * t0);
  delta_ = g / (s_.rd * t0);
  m_ = M_PI / s_.height;
  b_ = (cs * cs * delta_ / 2 - g) / (m_ * cs * cs);
  // The start's rho~ = -(rho_s dT / T0) G(x) sin(mz): rho' = -rho0 T' / T0 at unperturbed pressure.
  const double r0 = -rho_s * s_.amplitude / t0;
  // Modes of the Gaussian G = exp(-((x - xc)/d)^2) on the period L, its tails beyond the period below
  // e^-400: c_n = d sqrt(pi) / L exp(-(k d / 2)^2) e^{-i k xc}, to where the factor is below 1e-18.
  for (int mode = 0;; ++mode) {
    const double k = 2 * M_PI * mode / s_.width, decay = std::exp(-k * k * s_.half_width * s_.half_width / 4);
    if (decay < 1e-18) break;
    const Complex coefficient = s_.half_width * std::sqrt(M_PI) / s_.width * decay * std::polar(1.0, -k * s_.centre) *
                                (mode == 0 ? 1.0 : 2.0);
    // Balanced variables (W, V, P / (rho_s cs), R g / (rho_s N)), all in m/s: the system
    //   dW/dt = (m + delta b / 2) P / rho_s - g R / rho_s,  dV/dt = -i k P / rho_s,
    //   dP/dt = -cs^2 rho_s (i k V + m W),                  dR/dt = -rho_s (i k b V - delta W / 2).
    const Complex ik(0, k);
    Matrix a{};
    a[0][2] = (m_ + delta_ * b_ / 2) * cs;
    a[0][3] = -n;
    a[1][2] = -ik * cs;
    a[2][0] = -cs * m_;
    a[2][1] = -cs * ik;
    a[3][0] = g / n * delta_ / 2;
    a[3][1] = -g / n * ik * b_;
    for (auto& row : a)
      for (auto& x : row) x *= time;
    const Matrix e = exponential(a);
    const double start = r0 * g / (rho_s * n);
    k_.push_back(k);
    w_.push_back(coefficient * e[0][3] * start);
    p_.push_back(coefficient * e[2][3] * start * rho_s * cs);
  }
}

double LinearGravityWave::horizontal(double x, const std::vector<Complex>& c) const {
  double sum = 0;
  for (std::size_t mode = 0; mode < k_.size(); ++mode)
    sum += (c[mode] * std::polar(1.0, k_[mode] * (x - s_.wind * time_))).real();
  return sum;
}

double LinearGravityWave::w_along_z(double z) const { return std::exp(delta_ * z / 2) * std::sin(m_ * z); }

double LinearGravityWave::p_along_z(double z) const {
  return std::exp(-delta_ * z / 2) * (std::cos(m_ * z) + b_ * std::sin(m_ * z));
}

double LinearGravityWave::background_pressure(double z) const {
  return s_.surface_pressure * std::exp(-delta_ * z);
}

double LinearGravityWave::background_density(double z) const {
  return background_pressure(z) / (s_.rd * s_.temperature);
}

}  // namespace meridian::testing
