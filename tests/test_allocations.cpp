// Nothing is allocated inside a run's steps. Over a window of N steps and one of 2N steps of each
// solver, each window holding one diagnostics record, one output and one checkpoint written to
// disk, the test counts Kokkos allocations (a Kokkos Tools callback), host operator new (replaced
// in this binary), and the FFT backends' plans and work buffers; the two windows must agree, so a
// step allocates nothing, and Kokkos must allocate nothing at all once the solver is built.
// The same callbacks hold the Kokkos memory a projection run holds at most against the estimate its deck is
// checked with.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <new>

#include <dlfcn.h>
#include <execinfo.h>
#include <unistd.h>

#include "deck_for_tests.hpp"
#include "io/checkpoint.hpp"
#include "io/file_stamp.hpp"
#include "solvers/cfd/projection_solver.hpp"
#include "solvers/common/fft/local_fft.hpp"

namespace {

std::atomic<long> host_allocations{0};
std::atomic<long> kokkos_allocations{0};
// The labels of the first Kokkos allocations counted, so that a failure names what allocated (kept in fixed
// storage: recording them must not allocate on the host).
constexpr int named_allocations = 8, label_length = 64;
char allocation_labels[named_allocations][label_length];
std::atomic<long> first_named{0};  // the count at which naming starts

// Allocations of no bytes hold no memory and are not counted: Kokkos 4's CUDA backend reports one for every
// TeamPolicy launch that asks for no scratch (CudaInternal::resize_team_scratch_space allocates its empty pool
// again while the pool's size stays 0; cudaMalloc of 0 bytes allocates nothing).
// Bytes held in the default memory space (device memory on a GPU; host mirrors are not counted there), now and
// the most since the peak was last reset.
std::atomic<std::int64_t> kokkos_live_bytes{0}, kokkos_peak_bytes{0};

bool in_default_space(const Kokkos::Profiling::SpaceHandle space) {
  return std::strcmp(space.name, Kokkos::DefaultExecutionSpace::memory_space::name()) == 0;
}

void count_kokkos_allocation(const Kokkos::Profiling::SpaceHandle space, const char* label, const void*,
                             std::uint64_t bytes) {
  if (bytes == 0) return;
  if (in_default_space(space)) {
    const std::int64_t live = kokkos_live_bytes += static_cast<std::int64_t>(bytes);
    if (live > kokkos_peak_bytes.load()) kokkos_peak_bytes = live;
  }
  const long n = kokkos_allocations++ - first_named.load();
  if (n >= 0 && n < named_allocations) std::snprintf(allocation_labels[n], label_length, "%s", label);
}

void count_kokkos_deallocation(const Kokkos::Profiling::SpaceHandle space, const char*, const void*, std::uint64_t bytes) {
  if (in_default_space(space)) kokkos_live_bytes -= static_cast<std::int64_t>(bytes);
}

// The labels of the first `count` allocations since naming started (those kept), comma-separated.
std::string first_labels(long count) {
  std::string names;
  for (long n = 0; n < std::min<long>(count, named_allocations); ++n)
    names += (names.empty() ? "" : ", ") + std::string(allocation_labels[n]);
  return names;
}

// Where the host allocations counted since naming started came from: their sizes and first callers (return
// addresses, named as library + offset by where_from), in fixed storage. backtrace() may call malloc, which is
// not counted.
constexpr int traced_allocations = 48, traced_frames = 8;
struct Trace {
  std::size_t bytes;
  void* frames[traced_frames];
  int depth;
};
Trace host_traces[traced_allocations];
std::atomic<long> first_traced{-1};  // host_allocations at which tracing starts; -1: not tracing

// Not inlined: operator new stays small enough for GCC to inline, which keeps its new/delete pairing checks quiet
// (unused in nvcc's device pass, whose operator new counts nothing).
[[gnu::noinline, maybe_unused]] void trace_host_allocation(long n, std::size_t bytes) {
  const long at = first_traced.load() < 0 ? -1 : n - first_traced.load();
  if (at < 0 || at >= traced_allocations) return;
  host_traces[at].bytes = bytes;
  host_traces[at].depth = ::backtrace(host_traces[at].frames, traced_frames);
}

// One line per traced allocation: its size and callers as file+offset (addr2line -e file offset names them).
std::string where_from(long count) {
  std::string out;
  char part[160];
  for (long n = 0; n < std::min<long>(count, traced_allocations); ++n) {
    std::snprintf(part, sizeof part, "\n  %zu bytes from", host_traces[n].bytes);
    out += part;
    for (int f = 2; f < host_traces[n].depth; ++f) {  // past this function and operator new
      Dl_info info{};
      const bool known = ::dladdr(host_traces[n].frames[f], &info) != 0 && info.dli_fname;
      const char* slash = known ? std::strrchr(info.dli_fname, '/') : nullptr;
      const auto offset = reinterpret_cast<std::uintptr_t>(host_traces[n].frames[f]) -
                          (known ? reinterpret_cast<std::uintptr_t>(info.dli_fbase) : 0) - 1;
      std::snprintf(part, sizeof part, " %s+0x%jx", known ? (slash ? slash + 1 : info.dli_fname) : "?",
                    static_cast<std::uintmax_t>(offset));
      out += part;
    }
  }
  return out;
}

}  // namespace

// nvcc compiles this for the device too, where nothing is counted and the device heap serves it. On
// the host out of memory ends the test binary instead of throwing std::bad_alloc.
void* operator new(std::size_t size) {
#ifdef __CUDA_ARCH__
  return ::malloc(size > 0 ? size : 1);
#else
  // Host allocations of at least this size are counted. Kokkos builds a std::string for the label of
  // every kernel launch and fence (its API takes const std::string&); those are short. Anything of a
  // field's size or a buffer's is far above it on the grids below (the smallest field is 8 KiB).
  constexpr std::size_t counted_bytes = 512;
  if (size >= counted_bytes) trace_host_allocation(host_allocations++, size);
  void* p = std::malloc(size > 0 ? size : 1);
  if (!p) std::abort();
  return p;
#endif
}
// The nothrow form too (std::stable_sort's buffer, in the multigrid's banded Cholesky): under AddressSanitizer
// its own would pair with the free() above as a mismatch.
void* operator new(std::size_t size, const std::nothrow_t&) noexcept { return ::operator new(size); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }

namespace {

namespace fs = std::filesystem;
using meridian::testing::deck_of;

struct Counts {
  long kokkos, host, fft;
};

Counts counts_now() { return {kokkos_allocations.load(), host_allocations.load(), meridian::fft::backend_allocations()}; }

class Window {
 public:
  Window(const std::string& kind, const std::vector<std::string>& settings)
      : kind_(kind),
        deck_(deck_of(kind, settings)),
        solver_(meridian::solvers::find_solver(kind, "test").build(deck_, MPI_COMM_WORLD)),
        directory_(directory()),
        checkpoints_((directory_ / "checkpoints").string(), 1, MPI_COMM_WORLD) {}
  ~Window() {
    MPI_Barrier(MPI_COMM_WORLD);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) fs::remove_all(directory_);
  }

  // Allocations made by `steps` steps, a diagnostics record, an output file and a checkpoint.
  Counts run(int steps) {
    const Counts before = counts_now();
    for (int n = 0; n < steps; ++n) {
      const double dt = solver_->stable_dt(time_);
      solver_->step(time_, dt);
      time_ += dt;
      ++step_;
    }
    solver_->diagnostics(time_);
    write_output();
    checkpoints_.write(stamp(), solver_->state(), [](meridian::io::H5File&) {});
    Kokkos::fence();
    const Counts after = counts_now();
    return {after.kokkos - before.kokkos, after.host - before.host, after.fft - before.fft};
  }

 private:
  // A folder of rank 0's choosing, shared by every rank.
  static fs::path directory() {
    int rank = 0, root_pid = ::getpid();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Bcast(&root_pid, 1, MPI_INT, 0, MPI_COMM_WORLD);
    const fs::path shared = fs::temp_directory_path() / ("meridian_allocations_" + std::to_string(root_pid));
    if (rank == 0) fs::create_directories(shared);
    MPI_Barrier(MPI_COMM_WORLD);
    return shared;
  }
  meridian::io::FileStamp stamp() const { return {kind_, deck_.resolved_text(), time_, step_}; }
  void write_output() {
    auto file = meridian::io::H5File::create((directory_ / "fields.h5").string(), MPI_COMM_WORLD);
    meridian::io::write_stamp(file, stamp());
    for (const auto& f : solver_->output_fields()) file.write(f);
    file.close();
  }

  std::string kind_;
  meridian::io::Deck deck_;
  std::unique_ptr<meridian::solvers::Solver> solver_;
  fs::path directory_;
  meridian::io::CheckpointStore checkpoints_;
  double time_ = 0;
  long step_ = 0;
};

void expect_no_allocation_in_steps(const std::string& kind, const std::vector<std::string>& settings, int steps) {
  Window window(kind, settings);
  window.run(1);  // first uses: a timer's table entry, Kokkos' team scratch, HDF5's caches
  first_named = kokkos_allocations.load();
  first_traced = host_allocations.load();
  const Counts short_window = window.run(steps), long_window = window.run(2 * steps);
  first_traced = -1;
  EXPECT_EQ(short_window.kokkos, 0) << kind << ": Kokkos allocations in " << steps << " steps, the first ones "
                                    << first_labels(short_window.kokkos);
  EXPECT_EQ(long_window.kokkos, 0) << kind << ": Kokkos allocations in " << 2 * steps << " steps";
  EXPECT_EQ(short_window.host, long_window.host) << kind << ": host allocations differ between " << steps << " and "
                                                 << 2 * steps << " steps; those of both windows:"
                                                 << where_from(short_window.host + long_window.host);
  EXPECT_EQ(short_window.fft, 0) << kind << ": FFT plans or buffers made inside the steps";
  EXPECT_EQ(long_window.fft, 0);
}

class Allocations : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    Kokkos::Tools::Experimental::set_allocate_data_callback(count_kokkos_allocation);
    Kokkos::Tools::Experimental::set_deallocate_data_callback(count_kokkos_deallocation);
  }
  static void TearDownTestSuite() {
    Kokkos::Tools::Experimental::set_allocate_data_callback(nullptr);
    Kokkos::Tools::Experimental::set_deallocate_data_callback(nullptr);
  }
};

TEST_F(Allocations, NoneInsideAdvectionStepsWithFct) {
  expect_no_allocation_in_steps("advection", {"mesh.nx=48", "mesh.ny=40", "advection.tracers=[\"slotted_disk\", \"cosine_bell\"]",
                                              "advection.limiter=\"fct\"", "advection.courant=0.5"},
                                4);
}

TEST_F(Allocations, NoneInsideThreeDimensionalAdvectionSteps) {
  expect_no_allocation_in_steps("advection", {"mesh.dimensions=3", "mesh.nx=16", "mesh.ny=16", "mesh.nz=16",
                                              "advection.wind=\"uniform\"", "advection.tracers=[\"gaussian\"]"},
                                3);
}

TEST_F(Allocations, NoneInsideSpectralSteps) {
  expect_no_allocation_in_steps("cfd_spectral", {"mesh.dimensions=3", "mesh.nx=16", "mesh.ny=16", "mesh.nz=16",
                                                 "cfd.passive_scalar=true"},
                                3);
}

TEST_F(Allocations, NoneInsideAtmosphereSteps) {
  expect_no_allocation_in_steps("atmosphere", {"mesh.nx=40", "mesh.nz=20", "atmosphere.sides=\"wall\"",
                                               "atmosphere.viscosity=75.0", "atmosphere.diffusivity=75.0"},
                                3);
}

TEST_F(Allocations, NoneInsideThreeDimensionalAtmosphereSteps) {
  expect_no_allocation_in_steps("atmosphere", {"mesh.dimensions=3", "mesh.nx=8", "mesh.ny=8", "mesh.nz=8",
                                               "atmosphere.sides=\"wall\"", "atmosphere.viscosity=75.0",
                                               "atmosphere.diffusivity=75.0"},
                                3);
}

TEST_F(Allocations, NoneInsideMonteCarloSteps) {
  expect_no_allocation_in_steps("monte_carlo", {"finance.products=[\"european_call\", \"asian_arithmetic_call\"]",
                                                "finance.steps=16", "finance.paths=10000000", "finance.block_size=512",
                                                "finance.blocks_per_step=4", "finance.greeks=true"},
                                3);
}

// The most Kokkos memory a projection run holds at once (building it, steps, diagnostics, an output file and a
// checkpoint) against the deck's estimate (projection_bytes_per_rank, which validate() holds against the
// memory there): at least what the run held, and at most half as much again (measured: 1-14% above), so that
// a deck the machine can take is not refused.
void expect_projection_estimate_covers(const std::vector<std::string>& settings) {
  const auto deck = deck_of("cfd_projection", settings);
  const double estimate = static_cast<double>(meridian::cfd::projection_bytes_per_rank(deck, MPI_COMM_WORLD));
  const std::int64_t before = kokkos_live_bytes.load();
  kokkos_peak_bytes = before;
  {
    Window window("cfd_projection", settings);
    window.run(2);
  }
  const double held = static_cast<double>(kokkos_peak_bytes.load() - before);
  std::string deck_settings;
  for (const auto& x : settings) deck_settings += " " + x;
  EXPECT_GE(estimate, held) << deck_settings;
  EXPECT_LE(estimate, 1.5 * held) << deck_settings;
}

// The shipped decks' kinds: 3-D and 2-D boxes with the direct or the Krylov pressure solve, Crank-Nicolson
// or explicit viscosity, the fourth-order advection, and a cylinder in a channel (Crank-Nicolson by CG).
TEST_F(Allocations, ProjectionEstimateCoversWhatARunHolds) {
  const std::vector<std::string> box = {"mesh.dimensions=3", "mesh.nx=24", "mesh.ny=20", "mesh.nz=16"};
  const std::vector<std::string> plane = {"mesh.nx=96", "mesh.ny=80"};
  const std::vector<std::string> cylinder = {
      "mesh.nx=176", "mesh.ny=32", "mesh.boundary_x=\"open\"", "mesh.boundary_y=\"open\"",
      "projection.domain=[2.2, 0.41, 1.0]", "projection.faces=[\"inflow\", \"outflow\", \"wall\", \"wall\"]",
      "projection.inflow_velocity=0.3", "bodies.shapes=[\"circle\"]", "bodies.centres=[0.2, 0.2]", "bodies.sizes=[0.1]"};
  const auto with = [](std::vector<std::string> settings, const std::string& more) {
    settings.push_back(more);
    return settings;
  };
  for (const auto& grid : {box, plane, cylinder}) {
    expect_projection_estimate_covers(grid);
    expect_projection_estimate_covers(with(grid, "projection.pressure_solver=\"krylov\""));
    expect_projection_estimate_covers(with(grid, "projection.viscous_scheme=\"explicit\""));
  }
  expect_projection_estimate_covers(with(plane, "projection.advection_scheme=\"central4\""));
}

}  // namespace
