// The distributed FFT against a direct DFT, against itself on one rank, and Parseval's identity,
// for whatever number of ranks the test runs on, in slab and pencil layouts.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <utility>
#include <ostream>
#include <string>
#include <vector>

#include "mesh/decomposition.hpp"
#include "solvers/common/fft/distributed_fft.hpp"

using meridian::fft::Block;
using meridian::fft::DistributedFFT;

namespace {

using Cells = std::array<long, 3>;

// A reproducible value in [-1, 1) for each global cell, whatever the decomposition.
double sample(long x, long y, long z) {
  std::uint64_t h = static_cast<std::uint64_t>((z * 1000 + y) * 1000 + x) + 0x9e3779b97f4a7c15ULL;
  h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ULL;
  h = (h ^ (h >> 27)) * 0x94d049bb133111ebULL;
  h ^= h >> 31;
  return static_cast<double>(h >> 11) / 4503599627370496.0 - 1.0;
}

meridian::fft::RealPencil filled(const DistributedFFT& fft) {
  auto field = fft.make_real("field");
  auto host = Kokkos::create_mirror_view(field);
  const Block& b = fft.real_block();
  for (long z = 0; z < b.count[0]; ++z)
    for (long y = 0; y < b.count[1]; ++y)
      for (long x = 0; x < b.count[2]; ++x) host(z, y, x) = sample(x + b.offset[2], y + b.offset[1], z + b.offset[0]);
  Kokkos::deep_copy(field, host);
  return field;
}

using HostSpectrum = meridian::fft::ComplexPencil::HostMirror;

HostSpectrum spectrum_of(DistributedFFT& fft) {
  auto spectral = fft.make_spectral("spectrum");
  fft.forward(filled(fft), spectral);
  auto host = Kokkos::create_mirror_view(spectral);
  Kokkos::deep_copy(host, spectral);
  return host;
}

double global_max(double local) {
  double global = 0;
  MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return global;
}

double global_sum(double local) {
  double global = 0;
  MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return global;
}

class DistributedFftTest : public ::testing::TestWithParam<Cells> {};

TEST_P(DistributedFftTest, RoundTripRecoversTheField) {
  DistributedFFT fft(MPI_COMM_WORLD, GetParam(), {0, 0});
  const auto field = filled(fft);
  auto spectral = fft.make_spectral("spectral");
  auto back = fft.make_real("back");
  fft.forward(field, spectral);
  fft.backward(spectral, back);
  auto a = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), field);
  auto b = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), back);
  double error = 0;
  for (std::size_t i = 0; i < a.size(); ++i) error = std::max(error, std::fabs(a.data()[i] - b.data()[i]));
  EXPECT_LT(global_max(error), 1e-13);  // relative: the field is of order one
}

TEST_P(DistributedFftTest, MatchesADirectDft) {
  const Cells n = GetParam();
  DistributedFFT fft(MPI_COMM_WORLD, n, {0, 0});
  const auto spectrum = spectrum_of(fft);
  const Block& b = fft.spectral_block();
  const double two_pi = 2 * std::acos(-1.0);
  double error = 0, size = 0;
  for (long kx = 0; kx < b.count[0]; ++kx)
    for (long ky = 0; ky < b.count[1]; ++ky)
      for (long kz = 0; kz < b.count[2]; ++kz) {
        std::complex<double> direct = 0;
        for (long z = 0; z < n[2]; ++z)
          for (long y = 0; y < n[1]; ++y)
            for (long x = 0; x < n[0]; ++x) {
              const double phase = two_pi * (static_cast<double>((kx + b.offset[0]) * x) / n[0] +
                                             static_cast<double>((ky + b.offset[1]) * y) / n[1] +
                                             static_cast<double>(kz * z) / n[2]);
              direct += sample(x, y, z) * std::polar(1.0, -phase);
            }
        const auto& f = spectrum(kx, ky, kz);
        error = std::max(error, std::abs(std::complex<double>(f.real(), f.imag()) - direct));
        size = std::max(size, std::abs(direct));
      }
  // The direct sum's own rounding grows with the number of terms: 1e-13 of the largest coefficient.
  EXPECT_LT(global_max(error), 1e-13 * global_max(size));
}

TEST_P(DistributedFftTest, SameSpectrumOnAnyRankCountSlabOrPencil) {
  const Cells n = GetParam();
  DistributedFFT serial(MPI_COMM_SELF, n, {1, 1});
  const auto reference = spectrum_of(serial);
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  for (const std::array<int, 2> grid : {std::array<int, 2>{ranks, 1}, std::array<int, 2>{0, 0}}) {
    if (n[2] == 1 && grid[1] != 1) continue;
    DistributedFFT fft(MPI_COMM_WORLD, n, grid);
    const auto spectrum = spectrum_of(fft);
    const Block& b = fft.spectral_block();
    double error = 0, size = 0;
    for (long kx = 0; kx < b.count[0]; ++kx)
      for (long ky = 0; ky < b.count[1]; ++ky)
        for (long kz = 0; kz < b.count[2]; ++kz) {
          const auto d = spectrum(kx, ky, kz) - reference(kx + b.offset[0], ky + b.offset[1], kz);
          error = std::max(error, Kokkos::abs(d));
          size = std::max(size, Kokkos::abs(reference(kx + b.offset[0], ky + b.offset[1], kz)));
        }
    EXPECT_LE(global_max(error), 1e-14 * global_max(size))
        << "process grid " << fft.process_grid()[0] << " x " << fft.process_grid()[1];
  }
}

TEST_P(DistributedFftTest, ParsevalHolds) {
  const Cells n = GetParam();
  DistributedFFT fft(MPI_COMM_WORLD, n, {0, 0});
  const auto spectrum = spectrum_of(fft);
  const Block& b = fft.spectral_block();
  double spectral_energy = 0;
  for (long kx = 0; kx < b.count[0]; ++kx) {
    const long k = kx + b.offset[0];
    // The r2c half spectrum holds each kx once; all but kx = 0 and the Nyquist one stand for two.
    const double weight = (k == 0 || 2 * k == n[0]) ? 1.0 : 2.0;
    for (long ky = 0; ky < b.count[1]; ++ky)
      for (long kz = 0; kz < b.count[2]; ++kz) spectral_energy += weight * Kokkos::abs(spectrum(kx, ky, kz)) * Kokkos::abs(spectrum(kx, ky, kz));
  }
  double energy = 0;
  const Block& r = fft.real_block();
  for (long z = 0; z < r.count[0]; ++z)
    for (long y = 0; y < r.count[1]; ++y)
      for (long x = 0; x < r.count[2]; ++x) energy += std::pow(sample(x, y + r.offset[1], z + r.offset[0]), 2);
  const double total = global_sum(energy), from_spectrum = global_sum(spectral_energy) / fft.global_cells();
  EXPECT_NEAR(from_spectrum / total, 1.0, 1e-13);
}

// MPI taking the buffers directly or through pinned host copies must move the same bits. Device buffers
// handed to an MPI without CUDA support would crash inside MPI (Debian's MPICH in the GPU bundle).
TEST_P(DistributedFftTest, DirectAndStagedMessagesGiveTheSameBits) {
  using meridian::mesh::MessagePath;
  if (!meridian::parallel::device_memory_is_host && !meridian::mesh::mpi_is_cuda_aware())
    GTEST_SKIP() << "MPI is not CUDA-aware";
  DistributedFFT direct(MPI_COMM_WORLD, GetParam(), {0, 0}, meridian::fft::PlanEffort::estimate, MessagePath::direct);
  DistributedFFT staged(MPI_COMM_WORLD, GetParam(), {0, 0}, meridian::fft::PlanEffort::estimate, MessagePath::staged);
  const auto a = spectrum_of(direct), b = spectrum_of(staged);
  long differing = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    differing += a.data()[i].real() != b.data()[i].real() || a.data()[i].imag() != b.data()[i].imag();
  EXPECT_EQ(global_sum(static_cast<double>(differing)), 0.0);
  auto back_direct = direct.make_real("back_direct"), back_staged = staged.make_real("back_staged");
  auto spectral = direct.make_spectral("spectral");
  direct.forward(filled(direct), spectral);
  direct.backward(spectral, back_direct);
  staged.backward(spectral, back_staged);
  const auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), back_direct);
  const auto y = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), back_staged);
  differing = 0;
  for (std::size_t i = 0; i < x.size(); ++i) differing += x.data()[i] != y.data()[i];
  EXPECT_EQ(global_sum(static_cast<double>(differing)), 0.0);
}

// Even and odd extents, a 2-D grid (nz = 1), a size where nx/2+1 is small, and power-of-two extents (on one host
// rank the whole-volume transform, LocalFFT's Volume; the others take the slab path there).
INSTANTIATE_TEST_SUITE_P(Sizes, DistributedFftTest,
                         ::testing::Values(Cells{8, 6, 4}, Cells{7, 5, 9}, Cells{9, 8, 1}, Cells{12, 10, 6},
                                           Cells{6, 9, 8}, Cells{8, 4, 16}));

// The 2-D transform of complex planes as a slab FFT makes it, against a direct DFT along each axis in turn. Planes
// of 128 x 130 values take the FFTW backend's column pass in blocks of 8 through a buffer (local_fft_fftw.cpp),
// 130 columns leaving a last block of 2; cuFFT plans them whole.
TEST(LocalFftPlanes, LargePlanesMatchADirectDft) {
  using meridian::fft::Complex;
  const meridian::fft::Planes planes{2, 128, 130};
  const long rows = planes.rows, columns = planes.columns, size = planes.count * rows * columns;
  Kokkos::View<Complex*> in("in", size), out("out", size);
  auto values = Kokkos::create_mirror_view(in);
  for (long i = 0; i < size; ++i) values(i) = Complex(sample(i, 0, 1), sample(i, 1, 0));
  Kokkos::deep_copy(in, values);
  const double two_pi = 2 * std::acos(-1.0);
  // One direct DFT of length n over `count` rows `stride` apart, starting at `first`, from a into b.
  const auto dft = [&](const std::vector<std::complex<double>>& a, std::vector<std::complex<double>>& b, long first,
                       long n, long stride, int sign) {
    for (long k = 0; k < n; ++k) {
      std::complex<double> sum = 0;
      for (long j = 0; j < n; ++j) sum += a[first + j * stride] * std::polar(1.0, sign * two_pi * ((j * k) % n) / n);
      b[first + k * stride] = sum;
    }
  };
  for (const auto& [transform, sign] : {std::pair{meridian::fft::Transform::complex_forward, -1},
                                       std::pair{meridian::fft::Transform::complex_backward, 1}}) {
    const meridian::fft::LocalFFT fft(transform, planes, meridian::fft::PlanEffort::estimate);
    fft.execute(reinterpret_cast<const double*>(in.data()), reinterpret_cast<double*>(out.data()));
    const auto result = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
    std::vector<std::complex<double>> a(size), b(size);
    for (long i = 0; i < size; ++i) a[i] = {values(i).real(), values(i).imag()};
    for (long p = 0; p < planes.count; ++p) {
      for (long r = 0; r < rows; ++r) dft(a, b, (p * rows + r) * columns, columns, 1, sign);
      for (long c = 0; c < columns; ++c) dft(b, a, p * rows * columns + c, rows, columns, sign);
    }
    double error = 0, largest = 0;
    for (long i = 0; i < size; ++i) {
      error = std::max(error, std::abs(std::complex<double>(result(i).real(), result(i).imag()) - a[i]));
      largest = std::max(largest, std::abs(a[i]));
    }
    EXPECT_LT(error, 1e-13 * largest) << (sign < 0 ? "forward" : "backward");
    const auto input = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), in);
    long changed = 0;
    for (long i = 0; i < size; ++i) changed += input(i) != values(i);
    EXPECT_EQ(changed, 0) << "the input is kept";
  }
}

// Grids whose transposes send slices wider than 64 and than 128 along the contiguous axis: a GPU launch
// whose tile there exceeded 64 packed only the first 64 of every 128 (gpu-review.md A1), so these catch it on
// a device, on 2 slab ranks and on 2 x 2 pencils.
struct WideCase {
  Cells cells;
  std::array<int, 2> grid;
  std::string transpose;             // the transpose whose slices are wide
  std::vector<long> widths;          // the scattered axis's extent sent to each peer in it
};

// gpu-review.md A1's formulas: x_to_y sends (nx/2+1)/p1 to each peer, y_to_z ny/p2, the pencils' y_to_x
// ny/p1, z_to_y nz/p2.
void PrintTo(const WideCase& c, std::ostream* out) {
  *out << c.cells[0] << " x " << c.cells[1] << " x " << c.cells[2] << " on " << c.grid[0] << " x " << c.grid[1] << ", "
       << c.transpose;
}

std::vector<long> peer_widths(const WideCase& c) {
  const long nxh = c.cells[0] / 2 + 1, ny = c.cells[1], nz = c.cells[2];
  const auto [n, parts] = c.transpose == "x_to_y"   ? std::pair{nxh, c.grid[0]}
                          : c.transpose == "y_to_z" ? std::pair{ny, c.grid[1]}
                          : c.transpose == "y_to_x" ? std::pair{ny, c.grid[0]}
                                                    : std::pair{nz, c.grid[1]};
  std::vector<long> widths;
  for (int p = 0; p < parts; ++p) widths.push_back(meridian::mesh::block_size(n, parts, p));
  return widths;
}

class DistributedFftWideSlices : public ::testing::TestWithParam<WideCase> {};

TEST_P(DistributedFftWideSlices, MatchOneRankAndRoundTrip) {
  const WideCase& c = GetParam();
  ASSERT_EQ(peer_widths(c), c.widths) << "the grid no longer gives the slice widths this case is for";
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  if (ranks != c.grid[0] * c.grid[1]) GTEST_SKIP() << "needs " << c.grid[0] * c.grid[1] << " ranks";
  DistributedFFT fft(MPI_COMM_WORLD, c.cells, c.grid);
  ASSERT_EQ(fft.process_grid(), c.grid);
  DistributedFFT serial(MPI_COMM_SELF, c.cells, {1, 1});
  const auto spectrum = spectrum_of(fft), reference = spectrum_of(serial);
  const Block& b = fft.spectral_block();
  double error = 0, size = 0;
  for (long kx = 0; kx < b.count[0]; ++kx)
    for (long ky = 0; ky < b.count[1]; ++ky)
      for (long kz = 0; kz < b.count[2]; ++kz) {
        const auto& r = reference(kx + b.offset[0], ky + b.offset[1], kz);
        error = std::max(error, Kokkos::abs(spectrum(kx, ky, kz) - r));
        size = std::max(size, Kokkos::abs(r));
      }
  EXPECT_LE(global_max(error), 1e-13 * global_max(size));  // FFTs of different lengths' rounding; a lost slice is O(1)

  const auto field = filled(fft);
  auto spectral = fft.make_spectral("spectral");
  auto back = fft.make_real("back");
  fft.forward(field, spectral);
  fft.backward(spectral, back);
  const auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), field);
  const auto y = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), back);
  error = 0;
  for (std::size_t i = 0; i < x.size(); ++i) error = std::max(error, std::fabs(x.data()[i] - y.data()[i]));
  EXPECT_LT(global_max(error), 1e-13);  // the field is of order one
}

INSTANTIATE_TEST_SUITE_P(
    Widths, DistributedFftWideSlices,
    ::testing::Values(WideCase{{300, 12, 8}, {2, 1}, "x_to_y", {76, 75}}, WideCase{{600, 12, 8}, {2, 1}, "x_to_y", {151, 150}},
                      WideCase{{300, 12, 8}, {2, 2}, "x_to_y", {76, 75}}, WideCase{{600, 12, 8}, {2, 2}, "x_to_y", {151, 150}},
                      WideCase{{8, 300, 8}, {2, 2}, "y_to_z", {150, 150}}, WideCase{{8, 300, 8}, {2, 2}, "y_to_x", {150, 150}},
                      WideCase{{8, 8, 300}, {2, 2}, "z_to_y", {150, 150}}, WideCase{{8, 160, 8}, {2, 2}, "y_to_z", {80, 80}},
                      WideCase{{8, 160, 8}, {2, 2}, "y_to_x", {80, 80}}, WideCase{{8, 8, 160}, {2, 2}, "z_to_y", {80, 80}}));

}  // namespace
