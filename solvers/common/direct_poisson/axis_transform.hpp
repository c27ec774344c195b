#pragma once
// The transform that diagonalises the cell-centred second-difference operator along one axis, for each pair of
// face conditions, applied to rows of a batch (each row contiguous). Its coefficients are real for every pair,
// periodic included, so that the whole direct solve stays in real arithmetic:
//   periodic                   DFT, in half-complex order (Re V0, Re V1, Im V1, Re V2, ...)  theta = 2 pi k / N
//   zero gradient, zero gradient   DCT-II (inverse DCT-III)                                theta = pi s / N
//   p = 0, p = 0                   DST-II, as a DCT-II of (-1)^n x, slots reversed          theta = pi (N - s) / N
//   zero gradient, p = 0           DCT-IV, as the odd DCT-II modes of x extended to 2N by   theta = pi (s + 1/2) / N
//                                  odd reflection about the p = 0 face
//   p = 0, zero gradient           DST-IV, likewise from the even reflection about the      theta = pi (N - s - 1/2) / N
//                                  zero-gradient face and a DST-II of length 2N
// with eigenvalue (2 - 2 cos theta) / h^2 of the negated operator (sparse::PoissonOperator). The mirror ghost
// -p of a p = 0 face is what makes these exact.
//
// Each DCT-II of length M is one real-to-complex FFT of length M between a permutation and a twiddle (Makhoul
// 1980, "A fast cosine transform in one and multiple dimensions", IEEE Trans. ASSP 28; CaNS does the same on
// GPUs), so one code path serves FFTW on the host and cuFFT on CUDA through fft::LocalFFT: two Kokkos kernels
// and one library call a direction. The mixed pairs cost a transform of twice the length.
#include <Kokkos_Core.hpp>

#include "solvers/common/fft/local_fft.hpp"
#include "solvers/common/sparse/poisson_operator.hpp"

namespace meridian::direct_poisson {

enum class AxisKind { periodic, neumann_neumann, dirichlet_dirichlet, neumann_dirichlet, dirichlet_neumann };

// The kind of an axis: periodic, or from its (lower, upper) face conditions.
AxisKind axis_kind(bool periodic, sparse::FaceCondition lower, sparse::FaceCondition upper);

class AxisTransform {
 public:
  AxisTransform() = default;
  // `batch` rows of n values; spacing h of the axis.
  AxisTransform(AxisKind kind, int n, long batch, double spacing);

  // Row by row, from `in` to `out` (each batch x n values, rows contiguous); in and out may be the same view.
  void forward(const Kokkos::View<double*>& in, const Kokkos::View<double*>& out) const;
  // The exact inverse of forward (normalised).
  void backward(const Kokkos::View<double*>& in, const Kokkos::View<double*>& out) const;

  // Per coefficient slot s (0..n-1), the eigenvalue (2 - 2 cos theta_s) / h^2, on the device.
  const Kokkos::View<double*>& eigenvalues() const { return eigenvalues_; }
  int length() const { return n_; }

 private:
  AxisKind kind_ = AxisKind::periodic;
  int n_ = 0, m_ = 0;  // row length, FFT length (n, or 2n for the mixed pairs)
  long batch_ = 0;
  fft::LocalFFT r2c_, c2r_;
  Kokkos::View<double*> real_, spectrum_;  // FFT input/output rows, made once
  Kokkos::View<double*> eigenvalues_, forward_twiddles_, backward_twiddles_;
};

}  // namespace meridian::direct_poisson
