#pragma once
// Batched FFTs: one-dimensional over rows (`batch` transforms of length n, row after row or interleaved),
// or two-dimensional over contiguous planes (Planes).
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

// 2-D transforms of `count` contiguous planes of rows x columns values (columns contiguous; the real
// transforms' complex planes rows x (columns / 2 + 1)); a complex plane of one column is a 1-D transform of its
// rows. A slab FFT transforms its (y, z) planes so, where a transform along y alone would have run along a
// stride; the direct Poisson solver's Makhoul form its (y, x) planes. (FFTW backend: complex planes from 128 x 128
// values run their column pass in buffered blocks, a plane a host thread; local_fft_fftw.cpp.)
struct Planes {
  int count = 1, rows = 1, columns = 1;
};

// A whole 3-D transform from real values in (z, y, x) order to the spectrum in (kx, ky, kz) order (kx < nx/2 + 1),
// or back: the transposition a slab FFT otherwise makes by a pass of its own, written by the library as it
// goes. FFTW's guru interface takes any strides on either side; cuFFT's advanced layout cannot describe the
// transposed side, so only the FFTW backend makes such a plan (a distributed FFT on one host rank).
struct Volume {
  int nx = 1, ny = 1, nz = 1;
};

// Where the rows of a batch lie: one after another (value s of row b at b length + s), or interleaved (at
// s batch + b), so that a GPU kernel handling value s of every row reads and writes consecutive addresses.
// Input and output alike, each with its own length (n real, n/2+1 complex values).
enum class RowOrder { contiguous, interleaved };

// Whether a transform leaves its input as it was, or may use it as scratch. cuFFT's complex-to-real transforms
// overwrite their input, so keeping it costs a copy: a read and a write of the spectrum, as much as the kernels
// on either side of the transform each take (FFTW's take a slower algorithm instead).
enum class Input { kept, scratch };

class LocalFFT {
 public:
  // Row lengths: n real values and n/2+1 complex ones for the real transforms, n complex otherwise.
  LocalFFT(Transform transform, int n, int batch, PlanEffort effort, RowOrder order = RowOrder::contiguous,
           Input input = Input::kept);
  // A real plane has at least two rows and two columns (cuFFT may refuse a length-1 axis).
  LocalFFT(Transform transform, Planes planes, PlanEffort effort, Input input = Input::kept);
  // Real-to-complex or complex-to-real only; the FFTW backend only (cuFFT's throws std::logic_error).
  LocalFFT(Transform transform, Volume volume, PlanEffort effort, Input input = Input::kept);
  LocalFFT();  // no plan yet; one is moved in before use
  ~LocalFFT();
  LocalFFT(LocalFFT&&) noexcept;
  LocalFFT& operator=(LocalFFT&&) noexcept;
  // Unnormalised; complex data are interleaved (real, imaginary) doubles. The input is preserved unless the
  // plan was made with Input::scratch.
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
