#pragma once
// Price models, as plain structs copied into kernels. A model advances a path by one time step
// from the random numbers of that (path, step); it does not know what is priced on the path.
#include <Kokkos_Core.hpp>

#include "solvers/common/kokkos_math.hpp"
#include "solvers/common/random/philox.hpp"

namespace meridian::finance {

inline constexpr int max_assets = 8;

// The random numbers of one (path, step): a pure function of the indices and the seed, so any
// rank, backend or restart draws the same ones. `draw` numbers the Philox blocks within the step.
struct Draws {
  random::Philox4x32::Key key;
  std::uint64_t path;
  std::uint64_t step;
  double sign;  // -1 for the antithetic partner: normals negated, uniforms reflected
  KOKKOS_INLINE_FUNCTION random::Philox4x32::Counter block(int draw) const {
    return random::Philox4x32::generate(random::counter_of(path, step * 4 + draw), key);
  }
  KOKKOS_INLINE_FUNCTION void normals(int draw, double& z0, double& z1) const {
    random::normal_pair(block(draw), z0, z1);
    z0 *= sign, z1 *= sign;
  }
  KOKKOS_INLINE_FUNCTION double uniform(int draw) const {
    const auto bits = block(draw);
    const double u = random::to_unit_open(bits[0], bits[1]);
    return sign > 0 ? u : 1 - u;
  }
  // The draws of the path's barrier hits between dates: those of a path index no path has (top bit
  // set), so they leave every normal of the path itself, and the prices that need no hit time, unchanged.
  KOKKOS_INLINE_FUNCTION Draws hitting_times() const {
    return Draws{key, path | (std::uint64_t(1) << 63), step, sign};
  }
};

// Correlated geometric Brownian motions with exact log-normal steps.
struct MultiAssetGbm {
  int assets = 1;
  double rate = 0;
  Kokkos::Array<double, max_assets> spot, volatility, dividend;
  Kokkos::Array<double, max_assets * max_assets> cholesky;  // lower triangle, row-major

  KOKKOS_INLINE_FUNCTION void start(double* log_price, double* variance) const {
    for (int a = 0; a < assets; ++a) log_price[a] = km::log(spot[a]);
    *variance = volatility[0] * volatility[0];
  }
  // The variance of asset 0's log price per unit time over a step, for the Brownian bridge.
  KOKKOS_INLINE_FUNCTION double bridge_variance(double) const { return volatility[0] * volatility[0]; }

  KOKKOS_INLINE_FUNCTION void advance(double* log_price, double* /*variance*/, double dt, const Draws& d) const {
    double z[max_assets + 1];  // normals come in pairs
    for (int a = 0; a < assets; a += 2) d.normals(a / 2, z[a], z[a + 1]);
    for (int a = 0; a < assets; ++a) {
      double correlated = 0;
      for (int b = 0; b <= a; ++b) correlated += cholesky[a * max_assets + b] * z[b];
      const double s = volatility[a];
      log_price[a] += (rate - dividend[a] - 0.5 * s * s) * dt + s * km::sqrt(dt) * correlated;
    }
  }
};

// Heston stochastic volatility for one asset: Andersen's (2008) quadratic-exponential scheme for
// the variance with his central log-price step, or full-truncation Euler (Lord et al. 2010).
struct Heston {
  double rate = 0, dividend = 0, spot = 100;
  double v0 = 0.04, kappa = 1, theta = 0.04, sigma = 0.5, rho = -0.5;
  bool quadratic_exponential = true;
  int assets = 1;

  KOKKOS_INLINE_FUNCTION void start(double* log_price, double* variance) const {
    log_price[0] = km::log(spot);
    *variance = v0;
  }
  KOKKOS_INLINE_FUNCTION double bridge_variance(double variance) const { return variance > 0 ? variance : 0.0; }

  KOKKOS_INLINE_FUNCTION void advance(double* log_price, double* variance, double dt, const Draws& d) const {
    double zv, zx;
    d.normals(0, zv, zx);
    const double v = *variance;
    if (!quadratic_exponential) {
      const double vp = v > 0 ? v : 0.0;
      const double zs = rho * zv + km::sqrt(1 - rho * rho) * zx;
      *log_price += (rate - dividend - 0.5 * vp) * dt + km::sqrt(vp * dt) * zs;
      *variance = v + kappa * (theta - vp) * dt + sigma * km::sqrt(vp * dt) * zv;
      return;
    }
    const double e = km::exp(-kappa * dt);
    const double m = theta + (v - theta) * e;
    const double s2 = v * sigma * sigma * e * (1 - e) / kappa + theta * sigma * sigma * (1 - e) * (1 - e) / (2 * kappa);
    const double psi = s2 / (m * m);
    double next;
    if (psi <= 1.5) {  // Andersen's switching value psi_c
      const double b2 = 2 / psi - 1 + km::sqrt(2 / psi) * km::sqrt(2 / psi - 1);
      const double a = m / (1 + b2), b = km::sqrt(b2) + zv;
      next = a * b * b;
    } else {
      const double p = (psi - 1) / (psi + 1), beta = (1 - p) / m, u = d.uniform(1);
      next = u <= p ? 0.0 : km::log((1 - p) / (1 - u)) / beta;
    }
    const double k0 = -rho * kappa * theta * dt / sigma;
    const double k1 = 0.5 * dt * (kappa * rho / sigma - 0.5) - rho / sigma;
    const double k2 = 0.5 * dt * (kappa * rho / sigma - 0.5) + rho / sigma;
    const double k3 = 0.5 * dt * (1 - rho * rho);
    *log_price += (rate - dividend) * dt + k0 + k1 * v + k2 * next + km::sqrt(k3 * (v + next)) * zx;
    *variance = next;
  }
};

}  // namespace meridian::finance
