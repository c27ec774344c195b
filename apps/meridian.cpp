// meridian: the command line. Starts MPI and Kokkos, dispatches run / check / info, and turns
// every error into a message and a documented exit code without leaving a rank hanging.
#include <Kokkos_Core.hpp>
#include <hdf5.h>
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "apps/device_binding.hpp"
#include "apps/driver.hpp"
#include "apps/exit_codes.hpp"
#include "apps/finalize.hpp"
#include "apps/signals.hpp"
#include "build_info.hpp"
#include "io/hdf5_file.hpp"
#include "parallel/fence.hpp"
#include "parallel/launch_counts.hpp"
#include "parallel/team_shape.hpp"
#include "solvers/common/fft/real_to_real_rows.hpp"

namespace app = meridian::app;
namespace io = meridian::io;

namespace {

const char* usage =
    "usage:\n"
    "  meridian run DECK [--set section.key=value]... [--restart latest|PATH] [--output DIR] [--count-launches]\n"
    "                                 --count-launches: kernels, reductions, library calls, fences and copies\n"
    "                                 per step in the run summary (what a GPU would pay in launch latency)\n"
    "  meridian check DECK [--set section.key=value]...   validate and print the resolved deck\n"
    "  meridian check --describe KIND                    every deck key of a solver, as a Markdown table\n"
    "  meridian info                                     the build: Kokkos, MPI, HDF5, CUDA\n"
    "  meridian --help | --version\n"
    "environment: MERIDIAN_TEAM_WARPS=2|4|8 warps per GPU team of the row and path kernels (default 8)\n"
    "exit codes: 0 done, 1 failed while running, 2 bad command line or deck, 3 cannot restart,\n"
    "            75 stopped by SIGTERM/SIGUSR1 after a checkpoint (continue with --restart latest)\n";

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Command {
  std::string verb;
  app::RunOptions options;
  bool describe = false;
  bool count_launches = false;
};

Command parse(int argc, char** argv) {
  Command command;
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) throw UsageError("no command given");
  command.verb = args[0];
  for (const auto& a : args) {
    if (a == "--help" || a == "-h" || a == "help") {
      command.verb = "help";
      return command;
    }
    if (a == "--version") {
      command.verb = "version";
      return command;
    }
  }
  if (command.verb != "run" && command.verb != "check" && command.verb != "info")
    throw UsageError("unknown command '" + command.verb + "'");
  for (std::size_t n = 1; n < args.size(); ++n) {
    const std::string& a = args[n];
    const auto value = [&]() -> const std::string& {
      if (n + 1 >= args.size()) throw UsageError(a + " needs a value");
      return args[++n];
    };
    if (a == "--set")
      command.options.overrides.push_back(io::Override::parse(value()));
    else if (a == "--restart" && command.verb == "run")
      command.options.restart = value();
    else if (a == "--output" && command.verb == "run")
      command.options.output_dir = value();
    else if (a == "--describe" && command.verb == "check")
      command.describe = true;
    else if (a == "--count-launches" && command.verb == "run")
      command.count_launches = true;
    else if (!a.empty() && a[0] != '-' && command.options.deck_path.empty())
      command.options.deck_path = a;
    else
      throw UsageError("unexpected argument '" + a + "'");
  }
  // A Kokkos Tools library replaces the callbacks that count (parallel/launch_counts.hpp).
  if (command.count_launches && (std::getenv("KOKKOS_TOOLS_LIBS") || std::getenv("KOKKOS_PROFILE_LIBRARY")))
    throw UsageError("--count-launches counts with its own Kokkos Tools callbacks: unset KOKKOS_TOOLS_LIBS and "
                     "KOKKOS_PROFILE_LIBRARY, or count with that library instead");
  try {
    meridian::parallel::gpu_team_warps();  // a bad setting ends the job here, before anything runs
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  if (command.verb != "info" && command.options.deck_path.empty())
    throw UsageError(command.verb + " needs a " + (command.describe ? "solver kind" : "deck file"));
  return command;
}

void print_info() {
  char mpi_version[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  MPI_Get_library_version(mpi_version, &length);
  unsigned major = 0, minor = 0, release = 0;
  H5get_libversion(&major, &minor, &release);
  std::cout << "Meridian " << meridian::build::version << " (" << meridian::build::git_hash << "), "
            << meridian::build::description << "\n"
            << "Flags    " << meridian::build::flags << "\n"
            << "Kokkos   " << KOKKOS_VERSION / 10000 << "." << KOKKOS_VERSION / 100 % 100 << "." << KOKKOS_VERSION % 100
            << ", default execution space " << Kokkos::DefaultExecutionSpace::name() << "\n"
            << "MPI      " << std::string(mpi_version, length).substr(0, std::string(mpi_version, length).find('\n'))
            << "\n"
            << "HDF5     " << major << "." << minor << "." << release << " (parallel)\n"
#ifdef KOKKOS_ENABLE_CUDA
            << "CUDA     Kokkos CUDA backend enabled; this rank uses device " << Kokkos::Cuda().cuda_device()
            << " (node-local rank modulo the visible devices)\n"
#else
            << "CUDA     Kokkos CUDA backend not enabled\n"
#endif
#ifdef MERIDIAN_HAVE_CUFFT
            << "cuFFT    built in (the Kokkos-free unit; the FFT uses it when Kokkos has CUDA)\n"
#else
            << "cuFFT    not built in (no CUDA toolkit at configure time)\n"
#endif
            << "FFTW     built in (host FFT backend; "
            << (meridian::fft::fftw_has_threads() ? "a rank's OpenMP threads share each transform" : "one thread a rank")
            << ")\n"
#ifdef MERIDIAN_HAVE_CUFFT
            << "cuSPARSE built in (sparse products use it when Kokkos has CUDA)\n";
#else
            << "cuSPARSE not built in (no CUDA toolkit at configure time)\n";
#endif
}

// The same checks as `run`, on the ranks given (a process grid is checked against them), all but
// allocating and stepping. Collective; rank 0 prints.
int check(const Command& command) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (command.describe) {
    const io::Schema schema = app::schema_for(meridian::solvers::find_solver(command.options.deck_path, "--describe"));
    if (rank == 0) schema.describe(std::cout);
    return app::success;
  }
  const std::string kind = io::Deck::peek_solver_kind(command.options.deck_path);
  const auto& solver = meridian::solvers::find_solver(kind, command.options.deck_path);
  const io::Schema schema = app::schema_for(solver);
  const io::Deck deck = io::Deck::load(command.options.deck_path, schema, command.options.overrides);
  app::validate_run_keys(deck);
  solver.validate(deck, MPI_COMM_WORLD);
  if (rank == 0)
    std::cout << "# " << command.options.deck_path << ": valid; resolved deck with every default:\n"
              << deck.resolved_text();
  return app::success;
}

int dispatch(const Command& command) {
  if (command.verb == "info") return print_info(), app::success;
  if (command.verb == "check") return check(command);
  const std::string warning = app::oversubscription_warning(MPI_COMM_WORLD);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0 && !warning.empty()) std::cerr << "meridian: " << warning << std::endl;
  return app::run(command.options, MPI_COMM_WORLD);
}

// mpiexec forwards each rank's stderr from a pipe and stops reading when it kills the job: under load the
// line just written was lost (CI saw exit 1 with no message). A moment for the launcher to read it costs a
// failing job 0.2 s.
[[noreturn]] void abort_after_report(int code) {
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);
}

// Kokkos' finalize fences, and after a device fault every fence throws (parallel/fence.hpp): such a process
// ends without finalizing Kokkos, its exit code already that of the failure.
void finalize_kokkos() {
  try {
    meridian::parallel::fence();
  } catch (const std::exception&) {
    return;
  }
  Kokkos::finalize();
}

// One write per message, so that the lines of ranks failing together do not interleave.
void report_failure(int rank, const char* what, const char* message) {
  const std::string line = "meridian: rank " + std::to_string(rank) + ": " + what + ": " + message + "\n";
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  app::install_stop_handlers();
  // The command line first: help, the version and usage errors need no Kokkos (and get no banner).
  Command command;
  try {
    command = parse(argc, argv);
  } catch (const UsageError& e) {
    if (rank == 0) std::cerr << "meridian: " << e.what() << "\n" << usage;
    app::finalize_and_exit(app::input_error);
  }
  if (command.verb == "help" || command.verb == "version") {
    if (rank == 0 && command.verb == "help") std::cout << usage;
    if (rank == 0 && command.verb == "version")
      std::cout << "meridian " << meridian::build::version << " (" << meridian::build::git_hash << ")\n";
    app::finalize_and_exit(app::success);
  }
  int code = app::success;
  bool abort_job = false;
  {
    // Kokkos takes its own copy of the arguments, with this rank's GPU added on CUDA builds.
    std::vector<std::string> kokkos_args = app::kokkos_arguments(argc, argv, MPI_COMM_WORLD);
    std::vector<char*> kokkos_argv;
    for (auto& a : kokkos_args) kokkos_argv.push_back(a.data());
    int kokkos_argc = static_cast<int>(kokkos_argv.size());
    if (command.count_launches) meridian::parallel::enable_launch_counting();  // before Kokkos starts
    Kokkos::initialize(kokkos_argc, kokkos_argv.data());
    try {
      // info is answered by rank 0 alone; run and check are collective.
      if (rank == 0 || command.verb != "info") code = dispatch(command);
    } catch (const io::DeckError& e) {
      // Decks are read and checked identically on every rank, so every rank is here: rank 0 reports.
      if (rank == 0) std::cerr << "meridian: deck error: " << e.what() << std::endl;
      code = app::input_error;
    } catch (const app::RestartError& e) {
      if (rank == 0) std::cerr << "meridian: cannot restart: " << e.what() << std::endl;
      code = app::restart_error;
    } catch (const io::FileError& e) {
      report_failure(rank, "file error", e.what());
      code = app::runtime_failure;
      abort_job = size > 1;
    } catch (const std::bad_alloc&) {
      report_failure(rank, "error", "out of host memory (the deck's estimate fitted: other processes on the node "
                                    "took the memory, or a limit is below what the node reports)");
      code = app::runtime_failure;
      abort_job = size > 1;
    } catch (const std::exception& e) {
      report_failure(rank, "error", e.what());
      code = app::runtime_failure;
      abort_job = size > 1;
    }
    // An error on one rank may leave the others waiting in a collective: end the whole job now, with Kokkos
    // still up (after a device fault its finalize would throw before MPI_Abort).
    if (abort_job) abort_after_report(code);
    finalize_kokkos();
  }
  app::finalize_and_exit(code);
}
