#pragma once
// Batched FFTs: one-dimensional over rows (`batch` transforms of length n, row after row or interleaved),
// or, for complex transforms, two-dimensional over contiguous planes (Planes).
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

// Complex 2-D transforms of `count` contiguous planes of rows x columns values (columns contiguous); a
// plane of one column is a 1-D transform of its rows. A slab FFT transforms its (y, z) planes so, where
// a transform along y alone would have run along a stride.
struct Planes {
  int count = 1, rows = 1, columns = 1;
};

// Where the rows of a batch lie: one after another (value s of row b at b length + s), or interleaved (at
// s batch + b), so that a GPU kernel handling value s of every row reads and writes consecutive addresses.
// Input and output alike, each with its own length (n real, n/2+1 complex values).
enum class RowOrder { contiguous, interleaved };

class LocalFFT {
 public:
  // Row lengths: n real values and n/2+1 complex ones for the real transforms, n complex otherwise.
  LocalFFT(Transform transform, int n, int batch, PlanEffort effort, RowOrder order = RowOrder::contiguous);
  // Complex transforms only (complex_forward or complex_backward).
  LocalFFT(Transform transform, Planes planes, PlanEffort effort);
  LocalFFT();  // no plan yet; one is moved in before use
  ~LocalFFT();
  LocalFFT(LocalFFT&&) noexcept;
  LocalFFT& operator=(LocalFFT&&) noexcept;
  // Unnormalised; complex data are interleaved (real, imaginary) doubles. The input is preserved.
  void execute(const double* in, double* out) const;

  // Device bytes the library takes beside the data for such a plan, before making it (cuFFT's work area,
  // and the copy its c2r input runs on; 0 for FFTW, whose plans hold no arrays of that size).
  static unsigned long long library_bytes(Transform transform, int n, int batch);
  static unsigned long long library_bytes(Transform transform, Planes planes);

 private:
  struct Plan;
  std::unique_ptr<Plan> plan_;
};

}  // namespace meridian::fft
