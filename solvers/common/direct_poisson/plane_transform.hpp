#pragma once
// Makhoul's form along both axes of a block's (y, x) planes at once (Makhoul 1980 gives it in two dimensions),
// for a rank that holds whole planes: one kernel gathers each plane along both axes, one 2-D real FFT transforms
// every plane, and one kernel forms each coefficient from two values of the spectrum; back, one kernel forms the
// spectrum from four coefficients, one inverse FFT, one kernel scatters. Two AxisTransforms take two kernels and
// an FFT each way each; on a GPU each kernel reads and writes the field once, so this takes four kernels (eight
// passes over the field) and two FFT calls fewer a solve.
//
// With the tables of each axis (makhoul_tables.hpp), t_s = post_twiddle, j_s = post_index, and V the 2-D FFT of
// the gathered plane (V_(k1, k2) past the stored half conj(V_(-k1, -k2))):
//   C_(s1, s2) = Re(conj(t1 t2) V_(j1, j2) + t1 conj(t2) V_(-j1, j2)) / 2,
// the y transform of the x transform's real coefficients, and back
//   V_(k1, k2) = sum over the two terms of each axis of weight1 weight2 C_(index1, index2),
// the tensor product of the two axes' linear maps, whose inverse FFT is real.
#include <Kokkos_Core.hpp>

#include <array>

#include "solvers/common/direct_poisson/makhoul_tables.hpp"
#include "solvers/common/direct_poisson/workspace.hpp"
#include "solvers/common/fft/local_fft.hpp"

namespace meridian::direct_poisson {

class PlaneTransform {
 public:
  PlaneTransform() = default;
  // `planes` planes of n[0] x n[1] values (y, x; x contiguous, the planes one after another), the axes of kinds
  // kinds[0] and kinds[1]; each axis' FFT (fft_length) at least 2 long.
  PlaneTransform(std::array<AxisKind, 2> kinds, std::array<int, 2> n, long planes, Workspace workspace = {});

  // From `in` to `out` (planes x n[0] x n[1] values each); in and out may be the same view.
  void forward(const Kokkos::View<double*>& in, const Kokkos::View<double*>& out) const;
  // Its inverse, unnormalised: backward(forward(x)) = normalisation() x.
  void backward(const Kokkos::View<double*>& in, const Kokkos::View<double*>& out) const;
  double normalisation() const;
  bool empty() const { return planes_ == 0; }

 private:
  std::array<AxisKind, 2> kinds_{};
  std::array<MakhoulTables, 2> tables_;
  long planes_ = 0;
  fft::LocalFFT r2c_, c2r_;
  Kokkos::View<double*> real_, spectrum_;
};

}  // namespace meridian::direct_poisson
