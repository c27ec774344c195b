#pragma once
// Batched one-dimensional FFTs: over contiguous rows (`batch` transforms of length n, row after row),
// or, for complex transforms, along an axis that is not the contiguous one (StridedRows).
// One interface, two backends chosen at compile time: FFTW for host execution spaces, cuFFT (on the
// Kokkos execution space's stream) for CUDA. Pointers are in the default execution space's memory.
#include <memory>

namespace meridian::fft {

enum class Transform { real_to_complex, complex_to_real, complex_forward, complex_backward };
// FFTW's planning effort: estimate is deterministic, so a restart repeats the same bits;
// measure times candidate algorithms and may pick another one on another run.
enum class PlanEffort { estimate, measure };

// Plans and work buffers the FFT backends have made in this process: none may be made inside a time
// step, which a test checks with this count.
long backend_allocations();
void count_backend_allocation();

// Complex transforms along the middle axis of a (planes, n, batch) array: `batch` neighbouring
// transforms (1 value apart) whose elements lie `batch` values apart, in `planes` planes of n x batch.
// A slab FFT transforms y this way in the (kx, y, z) layout, where no transpose brings y to the front.
struct StridedRows {
  int batch = 1, planes = 1;
};

class LocalFFT {
 public:
  // Row lengths: n real values and n/2+1 complex ones for the real transforms, n complex otherwise.
  LocalFFT(Transform transform, int n, int batch, PlanEffort effort);
  // Complex transforms only (complex_forward or complex_backward).
  LocalFFT(Transform transform, int n, StridedRows rows, PlanEffort effort);
  LocalFFT();  // no plan yet; one is moved in before use
  ~LocalFFT();
  LocalFFT(LocalFFT&&) noexcept;
  LocalFFT& operator=(LocalFFT&&) noexcept;
  // Unnormalised; complex data are interleaved (real, imaginary) doubles. The input is preserved.
  void execute(const double* in, double* out) const;

 private:
  struct Plan;
  std::unique_ptr<Plan> plan_;
};

}  // namespace meridian::fft
