#pragma once
// A distributed 3-D real-to-complex FFT on a pencil decomposition (CaNS/heFFTe style): one object,
// plans made once, `forward` and `backward`, the transposes hidden inside.
//
// Real space: x-pencils (z, y, x), x whole, y split over the first process-grid axis (p1) and z
// over the second (p2). Spectral space: z-pencils (kx, ky, kz), kz whole, kx (n_x/2+1 of them)
// split over p1 and ky over p2. A process grid with p2 = 1 gives slabs. A 2-D grid is nz = 1.
// Transposes: MPI_Alltoallv within the rows and columns of the process grid, on buffers made once and packed
// and unpacked by Kokkos kernels; a rank's own share moves straight from pencil to pencil, as direct_poisson's
// reshapes do, not through the buffers and MPI. With slabs (p2 = 1, which one rank is too) a rank holds every z
// and, after one transpose, every y: that transpose unpacks straight into the spectral layout, where one batched
// 2-D transform of the (y, z) planes finishes the job, so each direction has one transpose, not two. One rank on
// the host, on a 3-D grid of up to 64^3 cells with power-of-two extents, makes no transpose of its own: FFTW
// transforms the whole volume in one call, writing the spectral layout as it goes (LocalFFT's Volume). Only
// there does that pay: 0.73-0.84 of the slab path's FFT time at 32^3 and 64^3 on one core, the same step time at
// 64^3 since the transposes' tiles (parallel/box_copy.hpp), but 1.2-1.7x at 96^3, 160^3, 192^3 and 256^3 and on 2-D
// grids from 512^2, and since those tiles 1.15-1.2x the slab path's step time at 128^3 (bench/README.md).
#include <mpi.h>

#include <Kokkos_Complex.hpp>
#include <Kokkos_Core.hpp>
#include <array>
#include <vector>

#include "mesh/field.hpp"
#include "mesh/message_buffer.hpp"
#include "parallel/device_memory.hpp"
#include "solvers/common/fft/local_fft.hpp"

namespace meridian::fft {

using Complex = Kokkos::complex<double>;
using RealPencil = Kokkos::View<double***, mesh::Layout>;
using ComplexPencil = Kokkos::View<Complex***, mesh::Layout>;

// A rank's block of a global array, per axis in View order (slowest first).
struct Block {
  std::array<long, 3> offset{}, count{};
  long size() const { return count[0] * count[1] * count[2]; }
};

// One global transpose within a row or column of the process grid. In logical coordinates
// (kept, gathered, scattered): the kept axis is the same on every rank of the communicator, the
// gathered one is split in `from` and whole in `to`, the scattered one whole in `from` and split in
// `to`. The message counts and offsets are worked out once, when the FFT is planned.
struct PencilTranspose {
  MPI_Comm comm = MPI_COMM_NULL;
  int parts = 1, me = 0;
  long kept = 0;                        // local extent of the kept axis
  long gathered = 0, scattered = 0;     // global extents
  Kokkos::Array<int, 3> from_axis{};    // View dimension of (kept, gathered, scattered) in `from`
  Kokkos::Array<int, 3> to_axis{};      // ... and in `to`
  std::vector<int> send_counts, send_offsets, receive_counts, receive_offsets;  // in doubles
  long sent = 0, received = 0;                                                  // in complex values
};

class DistributedFFT {
 public:
  // cells: global extents (nx, ny, nz); process_grid {p1, p2}, zeros let MPI choose (p2 = 1 when nz = 1).
  DistributedFFT(MPI_Comm comm, std::array<long, 3> cells, std::array<int, 2> process_grid,
                 PlanEffort effort = PlanEffort::estimate, mesh::MessagePath path = mesh::default_message_path());
  // The constructor's checks of the grid and the ranks, without planning (throws DecompositionError).
  static void check_layout(MPI_Comm comm, std::array<long, 3> cells, std::array<int, 2> process_grid);
  // Device bytes a rank's local FFT library takes beside the pencils (cuFFT's work areas and c2r copy; 0 with
  // FFTW), for the memory estimate made before planning; the largest rank's, on the grid the constructor picks.
  static unsigned long long library_bytes(MPI_Comm comm, std::array<long, 3> cells, std::array<int, 2> process_grid);
  ~DistributedFFT();
  DistributedFFT(const DistributedFFT&) = delete;
  DistributedFFT& operator=(const DistributedFFT&) = delete;

  // Unnormalised forward transform: F(k) = sum_x f(x) exp(-i k.x).
  void forward(const RealPencil& in, const ComplexPencil& out);
  // Inverse, normalised by the number of cells, so backward(forward(f)) = f.
  void backward(const ComplexPencil& in, const RealPencil& out);

  // Layout (z, y, x) of this rank's real block and (kx, ky, kz) of its spectral block.
  const Block& real_block() const { return real_; }
  const Block& spectral_block() const { return spectral_; }
  RealPencil make_real(const std::string& label) const;
  ComplexPencil make_spectral(const std::string& label) const;
  std::array<int, 2> process_grid() const { return dims_; }
  long global_cells() const { return cells_[0] * cells_[1] * cells_[2]; }
  std::array<long, 3> cells() const { return cells_; }

 private:
  // `scale` multiplies every value moved (the backward transform's normalisation, at no extra pass).
  void transpose(const PencilTranspose& t, const ComplexPencil& from, const ComplexPencil& to, double scale = 1);
  bool slabs() const { return dims_[1] == 1; }
  bool whole() const { return whole_; }
  void run_local(const LocalFFT& fft, const double* in, double* out);

  std::array<long, 3> cells_;
  std::array<int, 2> dims_{};
  bool whole_ = false;  // one FFTW call a direction over the whole volume (see above)
  MPI_Comm grid_ = MPI_COMM_NULL, row_ = MPI_COMM_NULL, column_ = MPI_COMM_NULL;
  Block real_, x_spectral_, y_pencil_, spectral_;
  // Pencils: x_to_y_, y_to_z_ forward and z_to_y_, y_to_x_ backward; slabs: x_to_y_ (to the spectral
  // layout) forward and y_to_x_ (from it) backward.
  PencilTranspose x_to_y_, y_to_z_, z_to_y_, y_to_x_;
  // Slabs: y_forward_ and y_backward_ transform (y, z) planes, and there is no z pass, y_work2_ or z_work_.
  // Whole: r2c_ and c2r_ transform the volume, and y_work_ (spectral shape) holds c2r_'s input; nothing else.
  LocalFFT r2c_, c2r_, y_forward_, y_backward_, z_forward_, z_backward_;
  ComplexPencil x_work_, y_work_, y_work2_, z_work_;  // slabs: y_work_ has the spectral shape
  mesh::MessageBuffer send_, receive_;
};

}  // namespace meridian::fft
