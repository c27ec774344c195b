#pragma once
// FFTW's real-to-real transforms (the DCTs, DSTs and the half-complex DFT) over contiguous rows of host memory:
// the host path of the direct pressure solver's axis transforms, one library call where the same transform
// through a complex FFT (Makhoul's algorithm, which a GPU needs: cuFFT has no real-to-real kinds) takes two more
// passes over the data. Built with every backend, since FFTW is, so the device path can be checked against it.
#include <memory>
#include <mutex>

namespace meridian::fft {

// FFTW's planner is not thread-safe: every plan in the process is made under this lock.
std::mutex& fftw_planner_lock();
// Under that lock, before planning: plans share their work among `threads` (FFTW's OpenMP threads, in a build
// whose Kokkos runs OpenMP; elsewhere there is one).
void plan_with_threads(int threads);
// The host execution space's threads: a rank's share of the cores.
int host_threads();
// Whether FFTW's plans share their work among host_threads() (a build whose Kokkos runs OpenMP).
bool fftw_has_threads();

// FFTW's kinds by FFTW's names: FFTW_R2HC, FFTW_HC2R, FFTW_REDFT10, ...
enum class RealKind { r2hc, hc2r, redft10, redft01, rodft10, rodft01, redft11, rodft11, rodft00 };

class RealToRealRows {
 public:
  // `batch` rows of n doubles, each transformed by `kind`, unnormalised. A row's values lie `inner` apart: row b
  // starts at (b / inner) n inner + b % inner (inner = 1: contiguous rows; batch a multiple of inner), so an axis
  // of a block in (z, y, x) order is transformed where it lies, without a transpose.
  RealToRealRows(RealKind kind, int n, int batch, int inner = 1);
  RealToRealRows();  // no plan yet; one is moved in before use
  ~RealToRealRows();
  RealToRealRows(RealToRealRows&&) noexcept;
  RealToRealRows& operator=(RealToRealRows&&) noexcept;
  // In place where in == out; out of place the input is preserved. Host memory.
  void execute(const double* in, double* out) const;

 private:
  struct Plans;
  std::unique_ptr<Plans> plans_;
};

}  // namespace meridian::fft
