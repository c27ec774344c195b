#pragma once
// Price models, as plain structs copied into kernels. A model advances a path by one time step
// from the random numbers of that (path, step); it does not know what is priced on the path.
#include <Kokkos_Core.hpp>

#include "solvers/common/kokkos_math.hpp"
#include "solvers/common/random/philox.hpp"

namespace meridian::finance {

inline constexpr int max_assets = 8;

// A uniform in the open interval (0, 1) in the precision of the paths: random::to_unit_open's 53 bits for
// double; for float the top 24 of them (the double's value rounded down to float's grid, so the two
// precisions draw the same paths), m * 2^-24 for m in [0, 2^24), with 0 moved to the centre of its cell.
template <class Real>
KOKKOS_INLINE_FUNCTION Real unit_open(std::uint32_t hi, std::uint32_t lo);
template <>
KOKKOS_INLINE_FUNCTION double unit_open<double>(std::uint32_t hi, std::uint32_t lo) {
  return random::to_unit_open(hi, lo);
}
template <>
KOKKOS_INLINE_FUNCTION float unit_open<float>(std::uint32_t hi, std::uint32_t) {
  constexpr float two_to_minus_24 = 1.0f / 16777216.0f;
  const std::uint32_t m = hi >> 8;
  return m != 0 ? static_cast<float>(m) * two_to_minus_24 : 0.5f * two_to_minus_24;
}

// The random numbers of one (path, step): a pure function of the indices and the seed, so any
// rank, backend or restart draws the same ones. `draw` numbers the Philox blocks within the step.
// Box-Muller's normals (random::normal_pair) in the precision of the paths.
struct Draws {
  random::Philox4x32::Key key;
  std::uint64_t path;
  std::uint64_t step;
  double sign;  // -1 for the antithetic partner: normals negated, uniforms reflected
  KOKKOS_INLINE_FUNCTION random::Philox4x32::Counter block(int draw) const {
    return random::Philox4x32::generate(random::counter_of(path, step * 4 + draw), key);
  }
  template <class Real>
  KOKKOS_INLINE_FUNCTION void normals(int draw, Real& z0, Real& z1) const {
    Real radius, angle;
    polar(draw, radius, angle);
    z0 = radius * km::cos(angle), z1 = radius * km::sin(angle);
  }
  // z0 alone, where z1 has no use (an odd asset): no sin, which also keeps GCC's vector loop free of
  // the scalar sincos it would fuse the pair into.
  template <class Real>
  KOKKOS_INLINE_FUNCTION Real normal(int draw) const {
    Real radius, angle;
    polar(draw, radius, angle);
    return radius * km::cos(angle);
  }
  template <class Real>
  KOKKOS_INLINE_FUNCTION Real uniform(int draw) const {
    const auto bits = block(draw);
    const Real u = unit_open<Real>(bits[0], bits[1]);
    return sign > 0 ? u : 1 - u;
  }
  // The draws of the path's barrier hits between dates: those of a path index no path has (top bit
  // set), so they leave every normal of the path itself, and the prices that need no hit time, unchanged.
  KOKKOS_INLINE_FUNCTION Draws hitting_times() const {
    return Draws{key, path | (std::uint64_t(1) << 63), step, sign};
  }

 private:
  // The antithetic sign goes on the radius: negating both normals.
  template <class Real>
  KOKKOS_INLINE_FUNCTION void polar(int draw, Real& radius, Real& angle) const {
    const auto bits = block(draw);
    const Real u0 = unit_open<Real>(bits[0], bits[1]), u1 = unit_open<Real>(bits[2], bits[3]);
    radius = static_cast<Real>(sign) * km::sqrt(Real(-2) * km::log(u0));
    angle = static_cast<Real>(2 * pi) * u1;
  }
};

// Models advance the paths' state in the precision Real of the paths (float or double). `LogPrices`
// is anything indexed by the asset that yields a Real& (a path's slot in a team's lane state).
// `one_asset` says at compile time that the model has one asset, so that the host's vector loop over
// the paths holds no loop over assets (which would keep GCC from vectorising it), and a GPU thread's path
// state is indexed by constants alone (an index known only at run time puts the whole state in local memory).

// The assets a path simulates: one where one_asset says so at compile time, else the model's count.
template <bool one_asset>
KOKKOS_INLINE_FUNCTION constexpr int simulated_assets(int assets) {
  return one_asset ? 1 : assets;
}

// Correlated geometric Brownian motions with exact log-normal steps.
struct MultiAssetGbm {
  int assets = 1;
  double rate = 0;
  Kokkos::Array<double, max_assets> spot, volatility, dividend;
  Kokkos::Array<double, max_assets * max_assets> cholesky;  // lower triangle, row-major

  template <bool one_asset, class Real, class LogPrices>
  KOKKOS_INLINE_FUNCTION void start(LogPrices log_price, Real& variance) const {
    for (int a = 0; a < simulated_assets<one_asset>(assets); ++a) log_price[a] = static_cast<Real>(km::log(spot[a]));
    variance = static_cast<Real>(volatility[0] * volatility[0]);
  }
  // The variance of asset 0's log price per unit time over a step, for the Brownian bridge.
  template <class Real>
  KOKKOS_INLINE_FUNCTION Real bridge_variance(Real) const { return static_cast<Real>(volatility[0] * volatility[0]); }

  template <bool one_asset, class Real, class LogPrices>
  KOKKOS_INLINE_FUNCTION void advance(LogPrices log_price, Real& /*variance*/, double dt, const Draws& d) const {
    // `if constexpr`: nvcc warns of the unreachable loop below a plain `if` that returns.
    if constexpr (one_asset) {
      log_price[0] += static_cast<Real>(drift(0, dt)) + static_cast<Real>(diffusion(0, dt)) * d.normal<Real>(0);
    } else {
      Real z[max_assets + 1];  // normals come in pairs
      for (int a = 0; a < assets; a += 2) d.normals(a / 2, z[a], z[a + 1]);
      for (int a = 0; a < assets; ++a) {
        Real correlated = 0;
        for (int b = 0; b <= a; ++b) correlated += static_cast<Real>(cholesky[a * max_assets + b]) * z[b];
        log_price[a] += static_cast<Real>(drift(a, dt)) + static_cast<Real>(diffusion(a, dt)) * correlated;
      }
    }
  }

 private:
  // Per step: the log price's drift and the standard deviation of its noise, computed in double.
  KOKKOS_INLINE_FUNCTION double drift(int a, double dt) const {
    return (rate - dividend[a] - 0.5 * volatility[a] * volatility[a]) * dt;
  }
  KOKKOS_INLINE_FUNCTION double diffusion(int a, double dt) const { return volatility[a] * km::sqrt(dt); }
};

// Heston stochastic volatility for one asset: Andersen's (2008) quadratic-exponential scheme for
// the variance with his central log-price step, or full-truncation Euler (Lord et al. 2010).
struct Heston {
  double rate = 0, dividend = 0, spot = 100;
  double v0 = 0.04, kappa = 1, theta = 0.04, sigma = 0.5, rho = -0.5;
  bool quadratic_exponential = true;
  int assets = 1;

  template <bool one_asset, class Real, class LogPrices>
  KOKKOS_INLINE_FUNCTION void start(LogPrices log_price, Real& variance) const {
    log_price[0] = static_cast<Real>(km::log(spot));
    variance = static_cast<Real>(v0);
  }
  template <class Real>
  KOKKOS_INLINE_FUNCTION Real bridge_variance(Real variance) const { return variance > 0 ? variance : Real(0); }

  template <bool one_asset, class Real, class LogPrices>
  KOKKOS_INLINE_FUNCTION void advance(LogPrices log_price, Real& variance, double dt, const Draws& d) const {
    Real zv, zx;
    d.normals(0, zv, zx);
    const Real v = variance;
    if (!quadratic_exponential) {
      const Real vp = v > 0 ? v : Real(0), rho_r = static_cast<Real>(rho), dt_r = static_cast<Real>(dt);
      const Real zs = rho_r * zv + static_cast<Real>(km::sqrt(1 - rho * rho)) * zx;
      log_price[0] += (static_cast<Real>(rate - dividend) - Real(0.5) * vp) * dt_r + km::sqrt(vp * dt_r) * zs;
      variance = v + static_cast<Real>(kappa) * (static_cast<Real>(theta) - vp) * dt_r +
                 static_cast<Real>(sigma) * km::sqrt(vp * dt_r) * zv;
      return;
    }
    const Real e = static_cast<Real>(km::exp(-kappa * dt)), th = static_cast<Real>(theta);
    const Real sg = static_cast<Real>(sigma), k = static_cast<Real>(kappa);
    const Real m = th + (v - th) * e;
    const Real s2 = v * sg * sg * e * (1 - e) / k + th * sg * sg * (1 - e) * (1 - e) / (2 * k);
    const Real psi = s2 / (m * m);
    Real next;
    if (psi <= Real(1.5)) {  // Andersen's switching value psi_c
      const Real b2 = 2 / psi - 1 + km::sqrt(2 / psi) * km::sqrt(2 / psi - 1);
      const Real a = m / (1 + b2), b = km::sqrt(b2) + zv;
      next = a * b * b;
    } else {
      const Real p = (psi - 1) / (psi + 1), beta = (1 - p) / m, u = d.uniform<Real>(1);
      next = u <= p ? Real(0) : km::log((1 - p) / (1 - u)) / beta;
    }
    const double k1 = 0.5 * dt * (kappa * rho / sigma - 0.5) - rho / sigma;
    const double k2 = 0.5 * dt * (kappa * rho / sigma - 0.5) + rho / sigma;
    const double k3 = 0.5 * dt * (1 - rho * rho);
    const double constant = (rate - dividend) * dt - rho * kappa * theta * dt / sigma;  // with Andersen's k0
    log_price[0] += static_cast<Real>(constant) + static_cast<Real>(k1) * v + static_cast<Real>(k2) * next +
                    km::sqrt(static_cast<Real>(k3) * (v + next)) * zx;
    variance = next;
  }
};

}  // namespace meridian::finance
