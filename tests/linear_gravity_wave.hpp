#pragma once
// The exact solution of the linearised compressible Euler equations for Baldauf & Brdar's (2013, QJRMS
// 139) gravity wave in a channel: an isothermal atmosphere at rest (temperature T0, moving at a uniform
// wind U), periodic along x with period L, a rigid ground and lid H apart, started from the
// temperature perturbation T' = dT exp(delta z / 2) exp(-((x - xc) / d)^2) sin(pi z / H) at unperturbed
// pressure, delta = g / (rd T0). The reference the atmosphere solver's `linear_gravity_wave` case
// converges to.
//
// With u = e^{delta z/2} u~, w = e^{delta z/2} w~, p' = e^{-delta z/2} p~, rho' = e^{-delta z/2} rho~
// the equations have constant coefficients; the start is rho~ proportional to sin(m z), m = pi / H, with
// the rest zero, and the solution stays in the four-dimensional space of one horizontal wavenumber k
// and that vertical mode: w~ = W sin mz, p~ = P (cos mz + b sin mz), u~ = V (cos mz + b sin mz),
// rho~ = R sin mz + (rho~'s cos part fixed by P), with b = (cs^2 delta / 2 - g) / (m cs^2). Each
// horizontal Fourier mode of the Gaussian evolves by the exponential of a 4 x 4 matrix whose
// eigenvalues are the acoustic and gravity frequencies of s^4 + cs^2 (k^2 + m^2 + delta^2/4) s^2 + cs^2
// N^2 k^2 = 0.
#include <complex>
#include <vector>

namespace meridian::testing {

struct LinearWaveSetup {
  double temperature = 250;           // K, T0
  double surface_pressure = 1.0e5;    // Pa
  double width = 3.0e5, height = 1.0e4;  // m, L and H
  double wind = 20;                   // m/s, U
  double amplitude = 0.01;            // K, dT
  double half_width = 5000;           // m, d
  double centre = 1.0e5;              // m, xc
  double gravity = 9.8, cp = 1004, cv = 717, rd = 287;
};

class LinearGravityWave {
 public:
  LinearGravityWave(const LinearWaveSetup& setup, double time);
  // Both fields are a product of a horizontal and a vertical factor: the vertical velocity (m/s) is
  // w_along_x(x) w_along_z(z), the pressure perturbation (Pa) p_along_x(x) p_along_z(z).
  double w_along_x(double x) const { return horizontal(x, w_); }
  double p_along_x(double x) const { return horizontal(x, p_); }
  double w_along_z(double z) const;
  double p_along_z(double z) const;
  // The background's density and pressure at height z.
  double background_density(double z) const;
  double background_pressure(double z) const;

 private:
  // Re sum over the modes of coefficient(mode) e^{i k (x - U t)}.
  double horizontal(double x, const std::vector<std::complex<double>>& coefficients) const;

  LinearWaveSetup s_;
  double time_, m_, delta_, b_;
  std::vector<double> k_;
  std::vector<std::complex<double>> w_, p_;  // per mode: W and P times the Gaussian's coefficient
};

}  // namespace meridian::testing
