#pragma once
// The transform that diagonalises the cell-centred second-difference operator along one axis, for each pair of
// face conditions, applied to the rows of a batch where they lie: a row's values `inner` apart (1: contiguous),
// row b from (b / inner) n inner + b % inner, so a block in (z, y, x) order is transformed along any of its axes
// without being transposed first. Its coefficients are real for every pair,
// periodic included, so that the whole direct solve stays in real arithmetic. Slot s of a row holds FFTW's
// real-to-real coefficient s (unnormalised, FFTW's definitions):
//   periodic                        R2HC (r0, r1, ..., r_n/2, i_(n+1)/2-1, ..., i1)   theta = 2 pi k / n, k = s or n - s
//   zero gradient, zero gradient    DCT-II (REDFT10; inverse REDFT01)                   theta = pi s / n
//   p = 0, p = 0                    DST-II (RODFT10; inverse RODFT01)                   theta = pi (s + 1) / n
//   zero gradient, p = 0            DCT-IV (REDFT11, its own inverse)                   theta = pi (s + 1/2) / n
//   p = 0, zero gradient            DST-IV (RODFT11, its own inverse)                   theta = pi (s + 1/2) / n
//   nodes between two faces at 0    DST-I (RODFT00, its own inverse)                    theta = pi (s + 1) / (n + 1)
// with eigenvalue (2 - 2 cos theta) / h^2 of the negated operator (sparse::PoissonOperator). The mirror ghost
// -p of a p = 0 face is what makes the cell-centred kinds exact; the last kind holds values on the nodes between
// two faces that hold 0 (a staggered velocity's normal component between walls, in the viscous solve).
//
// Two ways to compute them, with the same coefficients:
// - fftw_real_to_real: FFTW's kinds, one library call a direction (host memory only);
// - makhoul: each transform as one real FFT between two table-driven kernels (makhoul_tables.hpp: Makhoul 1980,
//   "A fast cosine transform in one and multiple dimensions", IEEE Trans. ASSP 28; CaNS does the same on GPUs).
//   Through fft::LocalFFT it runs on cuFFT, which has no real-to-real kinds: two Kokkos kernels and one library
//   call a direction.
#include <Kokkos_Core.hpp>

#include <vector>

#include "parallel/device_memory.hpp"
#include "solvers/common/direct_poisson/makhoul_tables.hpp"
#include "solvers/common/direct_poisson/workspace.hpp"
#include "solvers/common/fft/local_fft.hpp"
#include "solvers/common/fft/real_to_real_rows.hpp"
#include "solvers/common/sparse/poisson_operator.hpp"

namespace meridian::direct_poisson {

// The kind of an axis: periodic, or from its (lower, upper) face conditions.
AxisKind axis_kind(bool periodic, sparse::FaceCondition lower, sparse::FaceCondition upper);

enum class TransformMethod { fftw_real_to_real, makhoul };
// FFTW's kinds where the data live in host memory (two passes fewer a direction), Makhoul's on a GPU.
inline constexpr TransformMethod default_transform_method =
    parallel::device_memory_is_host ? TransformMethod::fftw_real_to_real : TransformMethod::makhoul;

// Where the rows of a batch lie: value s of row b at (b / inner) n inner + b % inner + s inner.
struct RowLayout {
  long n = 0, inner = 1;
  KOKKOS_INLINE_FUNCTION long at(long b, long s) const { return (b / inner) * n * inner + b % inner + s * inner; }
};

// Where Makhoul's FFT keeps its rows: after one another where the data's rows are contiguous, else interleaved
// (fft::RowOrder), so that value s of every row sits at s batch + b as value s of the data's rows sits at
// consecutive addresses within each block of `inner` rows: a kernel whose threads take consecutive rows then reads
// and writes consecutive addresses on both sides (on a GPU, coalesced), where with the rows after one another
// the threads beside each other on one side are `inner` values apart.
struct WorkRows {
  long batch = 0;
  int m = 0, half = 0;  // real and complex row lengths (m / 2 + 1)
  bool interleaved = false;
  KOKKOS_INLINE_FUNCTION long real(long b, long q) const { return interleaved ? q * batch + b : b * m + q; }
  // The real part of complex value k of row b; its imaginary part follows.
  KOKKOS_INLINE_FUNCTION long complex(long b, long k) const { return 2 * (interleaved ? k * batch + b : b * half + k); }
};

// Makhoul's form of a transform: its tables, its rows, and its FFT's input and output rows (made once).
struct Makhoul {
  MakhoulTables tables;
  RowLayout layout;
  WorkRows work;
  Kokkos::View<double*> real, spectrum;
};

// Per coefficient slot s (0..n-1) of an axis of n cells of width h, the eigenvalue (2 - 2 cos theta_s) / h^2.
std::vector<double> axis_eigenvalues(AxisKind kind, int n, double spacing);

class AxisTransform {
 public:
  AxisTransform() = default;
  // `batch` rows of n values `inner` apart (batch a multiple of inner). fftw_real_to_real needs host memory.
  AxisTransform(AxisKind kind, int n, long batch, TransformMethod method = default_transform_method, long inner = 1,
                Workspace workspace = {});

  // Row by row, from `in` to `out` (each batch x n values, rows as laid out); in and out may be the same view.
  void forward(const Kokkos::View<double*>& in, const Kokkos::View<double*>& out) const;
  // The inverse of forward, unnormalised as FFTW's: backward(forward(x)) = normalisation() x.
  void backward(const Kokkos::View<double*>& in, const Kokkos::View<double*>& out) const;
  double normalisation() const { return direct_poisson::normalisation(kind_, n_); }

  int length() const { return n_; }

 private:
  AxisKind kind_ = AxisKind::periodic;
  TransformMethod method_ = default_transform_method;
  int n_ = 0;
  fft::RealToRealRows to_coefficients_, from_coefficients_;  // FFTW's
  Makhoul makhoul_;
  fft::LocalFFT r2c_, c2r_;
};

}  // namespace meridian::direct_poisson
