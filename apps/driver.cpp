#include "apps/driver.hpp"

#include <Kokkos_Core.hpp>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <regex>
#include <sstream>

#include "apps/exit_codes.hpp"
#include "apps/injected_fault.hpp"
#include "apps/launch_report.hpp"
#include "apps/signals.hpp"
#include "io/broadcast.hpp"
#include "io/cf_fields.hpp"
#include "io/checkpoint.hpp"
#include "io/durable_rename.hpp"
#include "io/file_stamp.hpp"
#include "io/run_lock.hpp"
#include "io/time_series.hpp"
#include "solvers/common/memory_budget.hpp"
#include "solvers/common/step_progress.hpp"
#include "io/xdmf.hpp"
#include "mesh/message_buffer.hpp"
#include "mesh/timers.hpp"
#include "parallel/fence.hpp"
#include "solvers/registry.hpp"

namespace meridian::app {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

void declare_run_keys(io::Schema& schema) {
  using io::KeyType;
  const auto add = [&schema](io::KeySpec spec) { schema.add(std::move(spec)).restart_may_change = true; };
  add({"run", "end_time", KeyType::real, 1.0, "time", "simulated time at which the run ends", {}, 0, 1e12, true});
  add({"run", "output_interval", KeyType::real, 0.25, "time",
       "simulated time between field outputs (0: only the start and the end); steps are shortened to land on "
       "each output time (the last up to four before it made equal)",
       {}, 0, 1e12});
  add({"run", "checkpoint_every_steps", KeyType::integer, 0L, "steps", "checkpoint every N steps (0: off)", {}, 0, 1e12});
  add({"run", "checkpoint_every_minutes", KeyType::real, 0.0, "minutes",
       "checkpoint when this much wall time has passed since the last one (0: off)", {}, 0, 1e9});
  add({"run", "checkpoint_keep", KeyType::integer, 3L, "files", "how many of the newest checkpoints to keep", {}, 1, 1e6});
  add({"run", "progress_every", KeyType::integer, 10L, "steps", "print a progress line every N steps", {}, 1, 1e12});
  add({"run", "progress_every_seconds", KeyType::real, 10.0, "seconds",
       "inside a step that runs longer (Monte Carlo), print how far it got at most this often (0: never)", {}, 0,
       1e9});
  add({"run", "diagnostics_every", KeyType::integer, 10L, "steps",
       "record diagnostics every N steps (and at every output time)", {}, 1, 1e12});
  add({"run", "max_steps", KeyType::integer, 0L, "steps", "stop after this many steps in total (0: no limit)", {}, 0, 1e15});
  add({"run", "gpu_aware_mpi", KeyType::string, std::string("auto"), "",
       "MPI reads and writes device buffers directly (true), or messages are staged through pinned host buffers "
       "(false); auto: directly where the MPI library reports CUDA support (MPIX_Query_cuda_support) or device "
       "memory is host memory",
       {"auto", "true", "false"}});
  add({"run", "write_state", KeyType::boolean, true, "",
       "write field files and checkpoints (false: neither, for runs that only measure speed; diagnostics and the "
       "summary are still written, and a run stopped by a signal cannot be continued)"});
  add({"run", "epoch", KeyType::string, std::string("2000-01-01 00:00:00"), "",
       "the date and time (UTC) that simulated time 0 stands for in the output's CF time axis, \"YYYY-MM-DD "
       "hh:mm:ss\": its units are \"seconds since\" this"});
  add({"run", "fenced_timing", KeyType::boolean, false, "",
       "every phase timer waits for the device before reading the clock, so that on a GPU each phase of the run "
       "summary holds the device time of its own work, at the price of two synchronisations per timed phase; "
       "false: on a GPU only the step's total is device time (the driver waits once at the end of each step) and "
       "a phase inside it holds what its work cost the host (launching, waiting for MPI and reductions); no "
       "effect on the host backends, whose kernels finish before they return"});
  add({"run", "output_dir", KeyType::string, std::string(""), "",
       "folder for output and checkpoints (empty: output/<deck name>); --output overrides it"});
}

// The overrides as they ran: --output is run.output_dir, so the deck stored in every file says where
// the run wrote.
std::vector<io::Override> recorded_overrides(const RunOptions& options) {
  std::vector<io::Override> overrides = options.overrides;
  if (!options.output_dir.empty()) overrides.push_back({"run", "output_dir", io::to_text(io::Value(options.output_dir))});
  return overrides;
}

std::string output_directory(const RunOptions& options, const io::Deck& deck) {
  if (!options.output_dir.empty()) return options.output_dir;
  const std::string& from_deck = deck.string("run", "output_dir");
  if (!from_deck.empty()) return from_deck;
  return (fs::path("output") / fs::path(options.deck_path).stem()).string();
}

// Sets the process-wide message path from the deck before any exchange is built.
mesh::MessagePath message_path_of(const io::Deck& deck) {
  try {
    const mesh::MessagePath path = mesh::choose_message_path(deck.string("run", "gpu_aware_mpi"));
    mesh::set_default_message_path(path);
    return path;
  } catch (const mesh::MessagePathError& e) {
    deck.fail("run", "gpu_aware_mpi", e.what());
  }
}

// run.epoch as CF wants it in "seconds since": YYYY-MM-DD hh:mm:ss, each field in its range.
void check_epoch(const io::Deck& deck) {
  const std::string& epoch = deck.string("run", "epoch");
  std::smatch m;
  const bool shaped = std::regex_match(epoch, m, std::regex(R"((\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2}))"));
  const auto field = [&m](int n) { return std::stoi(m[n].str()); };
  if (!shaped || field(2) < 1 || field(2) > 12 || field(3) < 1 || field(3) > 31 || field(4) > 23 || field(5) > 59 ||
      field(6) > 60)
    deck.fail("run", "epoch", "\"" + epoch + "\" is not a date and time \"YYYY-MM-DD hh:mm:ss\" (month 01-12, day 01-31, "
              "hour 00-23), e.g. \"2000-01-01 00:00:00\"");
}

// The output's time axis: CF time since the deck's epoch, unless the solver's time is another quantity.
io::TimeAxis time_axis_of(const io::Deck& deck, const solvers::Solver& solver) {
  validate_run_keys(deck);
  return solver.time_axis(deck.string("run", "epoch"));
}

int rank_of(MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  return rank;
}

std::string clock_text(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "--:--:--";
  const long s = std::lround(seconds);
  std::ostringstream out;
  out << s / 3600 << ":" << std::setw(2) << std::setfill('0') << (s / 60) % 60 << ":" << std::setw(2) << s % 60;
  return out.str();
}

// What rank 0 prints at the end of a run and stores with the diagnostics.
struct RunSummary {
  std::string layout;
  int ranks = 1;
  long steps = 0;  // this run, not counting those before a restart
  double wall_seconds = 0, core_hours = 0;
  double throughput = 0;  // solver work per second of stepping (halo exchange included)
  std::string throughput_unit;
  std::string checkpoint;  // the one a restart would use
  std::vector<std::pair<std::string, double>> phases;
  solvers::MemoryUse memory;  // the largest over the ranks
};

// Everything about a run that is not the solver's state: where it is in time and what it wrote.
struct RunState {
  double time = 0;
  long step = 0;
  std::vector<double> output_times;
  io::TimeSeries history;
};

class Run {
 public:
  Run(const RunOptions& options, MPI_Comm comm);
  int execute();

 private:
  void start_fresh();
  void restart_from(const std::string& which);
  void restore_checkpoint(const std::string& path);
  // `at_output`: the record of an output time (or the start or end), with every diagnostic.
  void record_diagnostics(bool at_output);
  void write_output();
  void write_diagnostics_file(const RunSummary* summary = nullptr);
  std::string write_checkpoint();
  // `shortened`: dt was cut below the stable step to land on an output or the end time.
  void print_progress(double dt, double step_seconds, bool shortened);
  // Inside a step that reports how far it got: a line at most every run.progress_every_seconds.
  void print_step_progress(double fraction_done);
  void raise_injected_fault();
  void fault_device_if_due();
  void prepare_output_folders();
  RunSummary summarise(long steps, double run_seconds, const std::string& checkpoint) const;
  void print_summary(const RunSummary& summary) const;
  double next_output_time() const;
  bool at_end() const;

  RunOptions options_;
  MPI_Comm comm_;
  int rank_;
  std::string kind_;
  const solvers::SolverEntry& entry_;
  io::Schema schema_;
  io::Deck deck_;
  std::string directory_;
  mesh::MessagePath message_path_;
  std::unique_ptr<solvers::Solver> solver_;
  io::TimeAxis time_axis_;
  io::CheckpointStore checkpoints_;
  RunState state_;
  double end_time_, output_interval_;
  bool write_state_;
  Clock::time_point start_ = Clock::now();
  Clock::time_point step_start_ = start_, last_progress_line_ = start_;
  double start_time_ = 0;  // simulated time when this run (or restart) began
  InjectedFault fault_ = injected_fault();
  LaunchReport launches_;
  io::RunLock lock_;  // rank 0's, on the output folder
};

// Rank 0 makes every folder the run writes, checks it can write there, and locks the output folder;
// any failure is every rank's deck error (exit 2) before a step is taken.
void Run::prepare_output_folders() {
  std::string problem;
  if (rank_ == 0) {
    for (const fs::path& folder : {fs::path(directory_), fs::path(checkpoints_.directory())}) {
      std::error_code error;
      fs::create_directories(folder, error);
      if (error || !fs::is_directory(folder))
        problem = folder.string() + ": cannot make the folder (" +
                  (error ? error.message() : std::string("a file of that name is in the way")) + ")";
      else if (::access(folder.c_str(), W_OK) != 0)
        problem = folder.string() + ": the folder is not writable";
      if (!problem.empty()) break;
    }
    if (problem.empty()) {
      try {
        lock_ = io::RunLock(directory_);
      } catch (const io::LockError& e) {
        problem = e.what();
      }
    }
  }
  io::broadcast_from_rank0(problem, comm_);
  if (!problem.empty()) throw io::DeckError(problem);
}

// A device fault in the kernels of the step after step STEP: as after a sticky CUDA error, every fence from
// the step's own on throws, while the step's timer, which fences as on a GPU, is still open.
void Run::fault_device_if_due() {
  if (fault_.kind != "device" || fault_.rank != rank_ || fault_.step != state_.step) return;
  timing::set_fences(true);
  parallel::inject_device_fault();
}

void Run::raise_injected_fault() {
  if (fault_.rank != rank_ || fault_.step != state_.step) return;
  if (fault_.kind == "throw") throw std::runtime_error("injected fault at step " + std::to_string(state_.step));
  if (fault_.kind == "io") throw io::FileError("injected I/O error at step " + std::to_string(state_.step));
  if (fault_.kind == "nan") {
    auto state = solver_->state();
    for (auto& d : state)
      if (!d.values.empty()) d.values[0] = std::nan("");
    solver_->restore(state);
  }
}

Run::Run(const RunOptions& options, MPI_Comm comm)
    : options_(options),
      comm_(comm),
      rank_(rank_of(comm)),
      kind_(io::Deck::peek_solver_kind(options.deck_path)),
      entry_(solvers::find_solver(kind_, options.deck_path)),
      schema_(schema_for(entry_)),
      deck_(io::Deck::load(options.deck_path, schema_, recorded_overrides(options))),
      directory_(output_directory(options, deck_)),
      message_path_(message_path_of(deck_)),
      solver_(entry_.build(deck_, comm)),
      time_axis_(time_axis_of(deck_, *solver_)),
      checkpoints_((fs::path(directory_) / "checkpoints").string(), static_cast<int>(deck_.integer("run", "checkpoint_keep")),
                   comm),
      end_time_(deck_.real("run", "end_time")),
      output_interval_(deck_.real("run", "output_interval")),
      write_state_(deck_.boolean("run", "write_state")) {
  timing::set_fences(deck_.boolean("run", "fenced_timing"));
}

double Run::next_output_time() const {
  if (output_interval_ <= 0) return end_time_;
  // Output times are whole multiples of the interval, computed the same way each time, so a run
  // that landed on one compares equal to it; extra outputs (a stop at max_steps) do not shift them.
  long k = static_cast<long>(std::floor(state_.time / output_interval_));
  while (static_cast<double>(k) * output_interval_ <= state_.time) ++k;
  return std::min(end_time_, static_cast<double>(k) * output_interval_);
}

bool Run::at_end() const {
  const long max_steps = deck_.integer("run", "max_steps");
  return state_.time >= end_time_ || solver_->finished() || (max_steps > 0 && state_.step >= max_steps);
}

void Run::record_diagnostics(bool at_output) {
  timing::ScopedTimer timer("diagnostics");
  const CountedScope counted(launches_, CountedPhase::diagnostics);
  std::vector<std::string> names{"time", "step"}, units{"time", "steps"};
  std::vector<double> values{state_.time, static_cast<double>(state_.step)};
  const auto scalars = at_output ? solver_->diagnostics(state_.time) : solver_->diagnostics_between_outputs(state_.time);
  for (const auto& d : scalars) {
    if (d.must_be_finite && !std::isfinite(d.value)) {
      write_output();
      std::ostringstream msg;
      msg << "diagnostic '" << d.name << "' is " << d.value << " at step " << state_.step << ", time " << state_.time
          << ": the state is no longer finite (last fields written to " << directory_
          << "); reduce the Courant number or check the deck";
      throw std::runtime_error(msg.str());
    }
    names.push_back(d.name);
    values.push_back(d.value);
    units.push_back(d.unit);
  }
  state_.history.append(names, values, units);
}

void Run::write_diagnostics_file(const RunSummary* summary) {
  const std::string path = (fs::path(directory_) / "diagnostics.h5").string();
  {
    io::H5File file = io::H5File::create(path + ".tmp", comm_);
    io::write_stamp(file, {kind_, deck_.resolved_text(), state_.time, state_.step});
    state_.history.write(file, "diagnostics");
    io::attach_series_to_time(file, "diagnostics", state_.history.names(), time_axis_);
    if (summary) {
      file.set_attribute("parallel_layout", summary->layout);
      file.set_attribute("wall_seconds", summary->wall_seconds);
      file.set_attribute("core_hours", summary->core_hours);
      file.set_attribute("throughput", summary->throughput);
      file.set_attribute("throughput_unit", summary->throughput_unit);
      file.set_attribute("restart_checkpoint", summary->checkpoint);
      file.set_attribute("peak_resident_bytes", static_cast<double>(summary->memory.peak_resident));
      if (summary->memory.device_total > 0)
        file.set_attribute("device_used_bytes", static_cast<double>(summary->memory.device_used));
      for (const auto& [phase, seconds] : summary->phases) file.set_attribute("seconds " + phase, seconds);
    }
    file.close();
  }
  MPI_Barrier(comm_);
  if (rank_ == 0) io::durable_rename(path + ".tmp", path);
}

void Run::write_output() {
  if (!write_state_) {  // the output time is passed all the same, so the run steps as it would
    state_.output_times.push_back(state_.time);
    return;
  }
  timing::ScopedTimer timer("output");
  const CountedScope counted(launches_, CountedPhase::output);
  std::ostringstream name;
  name << "fields_" << std::setw(5) << std::setfill('0') << state_.output_times.size() << ".h5";
  const auto& fields = solver_->output_fields();
  // Written under a temporary name and moved into place when complete: a failed or interrupted write
  // leaves a .tmp file, never a half-written output under the real name.
  const fs::path path = fs::path(directory_) / name.str();
  {
    io::H5File file = io::H5File::create(path.string() + ".tmp", comm_);
    io::write_stamp(file, {kind_, deck_.resolved_text(), state_.time, state_.step});
    io::write_cf_time(file, time_axis_, state_.time);
    io::write_cf_fields(file, fields);
    file.close();
  }
  MPI_Barrier(comm_);
  if (rank_ == 0) io::durable_rename(path.string() + ".tmp", path);
  state_.output_times.push_back(state_.time);
  if (rank_ == 0) {
    std::vector<io::XdmfStep> steps;
    for (std::size_t n = 0; n < state_.output_times.size(); ++n) {
      std::ostringstream file;
      file << "fields_" << std::setw(5) << std::setfill('0') << n << ".h5";
      steps.push_back({file.str(), state_.output_times[n]});
    }
    std::vector<io::DatasetBox> boxes;
    for (const auto& f : fields) boxes.push_back(f.box);
    io::write_xdmf((fs::path(directory_) / "fields.xmf").string(), steps, boxes);
  }
  write_diagnostics_file();
}

std::string Run::write_checkpoint() {
  if (!write_state_) return "";
  timing::ScopedTimer timer("checkpoint");
  const CountedScope counted(launches_, CountedPhase::checkpoint);
  return checkpoints_.write({kind_, deck_.resolved_text(), state_.time, state_.step}, solver_->state(),
                            [this](io::H5File& file) {
                              state_.history.write(file, "diagnostics");
    io::attach_series_to_time(file, "diagnostics", state_.history.names(), time_axis_);
                              file.write_series("run/output_times", state_.output_times);
                              for (const auto& s : solver_->state_scalars())
                                file.set_attribute("state " + s.name, s.value);
                              if (fault_.kind == "kill_in_checkpoint" && fault_.rank == rank_ &&
                                  fault_.step == state_.step)
                                std::raise(SIGKILL);
                            });
}

void Run::start_fresh() {
  record_diagnostics(true);
  write_output();
}

void Run::restart_from(const std::string& which) {
  // Every rank opens the same file, so a bad checkpoint fails on all of them together.
  try {
    restore_checkpoint(checkpoints_.resolve(which));
  } catch (const io::FileError& e) {
    throw RestartError(e.what());
  }
}

void Run::restore_checkpoint(const std::string& path) {
  io::H5File file = io::H5File::open_read(path, comm_);
  const io::FileStamp stamp = io::read_stamp(file);
  if (stamp.solver != kind_)
    throw RestartError(path + ": a checkpoint of solver '" + stamp.solver + "', but the deck runs '" + kind_ + "'");
  const io::Deck saved = io::Deck::from_text(stamp.deck, path + " (its stored deck)", schema_);
  const auto conflicts = deck_.restart_conflicts(saved);
  if (!conflicts.empty()) {
    std::string msg = options_.deck_path + ": cannot continue " + path + ", the deck changed keys a restart must keep:";
    for (const auto& c : conflicts) msg += "\n  " + c;
    throw RestartError(msg);
  }
  std::vector<io::HostDataset> state;
  for (const auto& box : solver_->state_layout()) state.push_back({box, {}});
  io::read_checkpoint_state(file, state, comm_);
  solver_->restore(state);
  auto scalars = solver_->state_scalars();
  for (auto& s : scalars) {
    if (!file.has_attribute("state " + s.name))
      throw RestartError(path + ": no attribute 'state " + s.name + "', which this version of solver '" + kind_ +
                         "' needs to continue (a checkpoint from an older Meridian); start the run afresh");
    s.value = file.real_attribute("state " + s.name);
  }
  solver_->restore_scalars(scalars);
  state_.time = stamp.time;
  state_.step = stamp.step;
  state_.history = io::TimeSeries::read(file, "diagnostics");
  state_.output_times = file.read_series("run/output_times");
  if (rank_ == 0) std::cout << "restarting from " << path << " at step " << stamp.step << ", time " << stamp.time << "\n";
}

void Run::print_progress(double dt, double step_seconds, bool shortened) {
  const std::vector<solvers::Scalar> values = solver_->progress(dt);  // on every rank: it may reduce
  if (rank_ != 0) return;
  last_progress_line_ = Clock::now();
  const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
  std::ostringstream line;
  line << "step " << std::setw(7) << state_.step << "  t = " << std::scientific << std::setprecision(6) << state_.time
       << "  dt = " << std::setprecision(3) << dt;
  for (const auto& p : values) line << "  " << p.name << " = " << std::defaultfloat << std::setprecision(6) << p.value;
  if (shortened) line << " (step shortened to land on t = " << std::defaultfloat << std::setprecision(9) << state_.time << ")";
  const double advanced = state_.time - start_time_;
  const double rate = advanced > 0 ? elapsed / advanced : 0;  // wall seconds per unit of simulated time
  line << "  wall/step = " << std::scientific << std::setprecision(3) << step_seconds << " s"
       << "  ETA " << clock_text((end_time_ - state_.time) * rate);
  std::cout << line.str() << std::endl;
}

void Run::print_step_progress(double fraction_done) {
  const double every = deck_.real("run", "progress_every_seconds");
  const auto now = Clock::now();
  if (rank_ != 0 || every <= 0 || now - last_progress_line_ < std::chrono::duration<double>(every)) return;
  last_progress_line_ = now;
  const double in_step = std::chrono::duration<double>(now - step_start_).count();
  std::ostringstream line;
  line << "step " << std::setw(7) << state_.step + 1 << "  in progress: " << std::fixed << std::setprecision(1)
       << 100 * fraction_done << "% after " << in_step << " s, step ETA "
       << clock_text(fraction_done > 0 ? in_step * (1 - fraction_done) / fraction_done : -1);
  std::cout << line.str() << std::endl;
}

RunSummary Run::summarise(long steps, double run_seconds, const std::string& checkpoint) const {
  const auto& phases = timing::phase_seconds();
  const auto seconds_of = [&phases](const std::string& phase) {
    const auto it = phases.find(phase);
    return it == phases.end() ? 0.0 : it->second;
  };
  RunSummary summary;
  MPI_Comm_size(comm_, &summary.ranks);
  summary.layout = solver_->layout() + (message_path_ == mesh::MessagePath::direct
                                            ? "; MPI messages straight from field memory"
                                            : "; MPI messages staged through pinned host buffers");
  summary.steps = steps;
  summary.wall_seconds = run_seconds;
  summary.core_hours = run_seconds * summary.ranks / 3600.0;
  const double stepping = seconds_of("step");
  summary.throughput = stepping > 0 ? solver_->work_per_step() * steps / stepping : 0.0;
  summary.throughput_unit = solver_->work_unit() + "/s";
  summary.checkpoint = checkpoint;
  summary.memory = solvers::memory_use();
  std::uint64_t memory[3] = {summary.memory.peak_resident, summary.memory.device_used, summary.memory.device_total};
  MPI_Allreduce(MPI_IN_PLACE, memory, 3, MPI_UINT64_T, MPI_MAX, comm_);
  summary.memory = {memory[0], memory[1], memory[2]};
  // The time step split into what the layers below recorded inside it (halo exchange, FFTs, ...)
  // and the rest, which is the solver's own compute.
  double inside = 0;
  std::vector<std::pair<std::string, double>> parts;
  for (const auto& [path, seconds] : phases)
    if (path.rfind("step/", 0) == 0 && path.find('/', 5) == std::string::npos) {
      parts.emplace_back(path.substr(5), seconds);
      inside += seconds;
    }
  summary.phases.emplace_back("compute", stepping - inside);
  summary.phases.insert(summary.phases.end(), parts.begin(), parts.end());
  double accounted = stepping;
  for (const char* phase : {"diagnostics", "output", "checkpoint"}) {
    summary.phases.emplace_back(phase, seconds_of(phase));
    accounted += seconds_of(phase);
  }
  // Start-up, restart reading, the summary itself: so that the shares add to 100%.
  summary.phases.emplace_back("other", std::max(0.0, run_seconds - accounted));
  // Every rank stores the same attributes: the slowest rank's times.
  std::vector<double> times{summary.wall_seconds};
  for (const auto& p : summary.phases) times.push_back(p.second);
  MPI_Allreduce(MPI_IN_PLACE, times.data(), static_cast<int>(times.size()), MPI_DOUBLE, MPI_MAX, comm_);
  summary.wall_seconds = times[0];
  for (std::size_t i = 0; i < summary.phases.size(); ++i) summary.phases[i].second = times[i + 1];
  summary.core_hours = summary.wall_seconds * summary.ranks / 3600.0;
  return summary;
}

void Run::print_summary(const RunSummary& summary) const {
  if (rank_ != 0) return;
  std::ostringstream out;
  out << "\nrun summary\n"
      << "  layout        " << summary.layout << "\n"
      << "  steps         " << summary.steps << " this run, " << state_.step << " in total; final time "
      << state_.time << "\n"
      << "  wall time     " << std::fixed << std::setprecision(3) << summary.wall_seconds << " s, "
      << std::setprecision(6) << summary.core_hours << " core-hours\n";
  out << "  phase                seconds   share\n";
  for (const auto& [name, seconds] : summary.phases)
    out << "  " << std::left << std::setw(18) << name << std::right << std::setw(10) << std::setprecision(3) << seconds
        << std::setw(7) << std::setprecision(1) << 100.0 * seconds / std::max(summary.wall_seconds, 1e-12) << "%\n";
  if (summary.throughput > 0)
    out << "  throughput    " << std::scientific << std::setprecision(3) << summary.throughput << " "
        << summary.throughput_unit << " (" << summary.throughput / summary.ranks << " per rank)\n";
  const auto gb = [](std::uint64_t bytes) { return static_cast<double>(bytes) / 1e9; };
  out << "  memory        " << std::fixed << std::setprecision(3) << gb(summary.memory.peak_resident)
      << " GB peak resident host memory (the largest rank)";
  if (summary.memory.device_total > 0)
    out << "; device " << gb(summary.memory.device_used) << " of " << gb(summary.memory.device_total)
        << " GB in use at the end";
  out << "\n";
  if (parallel::launch_counting_enabled()) out << launches_.table();
  out << "  restart from  " << (summary.checkpoint.empty() ? "(no checkpoint written)" : summary.checkpoint) << "\n";
  std::cout << solver_->report() << out.str() << std::flush;
}

int Run::execute() {
  // A stop asked for before the first step (while the deck was read, say) ends the run here: there
  // is nothing new to checkpoint.
  int stop_before = stop_requested() ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &stop_before, 1, MPI_INT, MPI_MAX, comm_);
  if (stop_before) {
    if (rank_ == 0) std::cout << "stopped by signal before the first step; nothing was written" << std::endl;
    return preempted;
  }
  prepare_output_folders();
  if (options_.restart.empty())
    start_fresh();
  else
    restart_from(options_.restart);
  const long progress_every = deck_.integer("run", "progress_every");
  const long diagnostics_every = deck_.integer("run", "diagnostics_every");
  const long checkpoint_steps = deck_.integer("run", "checkpoint_every_steps");
  const double checkpoint_seconds = 60.0 * deck_.real("run", "checkpoint_every_minutes");
  auto last_checkpoint = Clock::now();
  start_time_ = state_.time;
  std::string checkpoint;
  long checkpoint_step = -1;
  long steps = 0;
  int stop = 0;
  solvers::set_step_progress_reporter([this](double fraction) { print_step_progress(fraction); });
  struct Uninstall {
    ~Uninstall() { solvers::set_step_progress_reporter({}); }
  } uninstall;
  while (!at_end() && !stop) {
    const double target = next_output_time();
    const auto step_start = Clock::now();
    step_start_ = step_start;
    double dt = 0;
    bool lands = false, shortened = false;
    {
      // The step's time includes choosing dt (a CFL number may need the velocity in physical space).
      timing::ScopedTimer timer("step");
      const CountedScope counted(launches_, steps == 0 ? CountedPhase::first_step : CountedPhase::step);
      const double stable = solver_->stable_dt(state_.time);
      const StepChoice choice = step_towards(target - state_.time, stable);
      dt = choice.dt, lands = choice.lands;
      shortened = lands && dt < stable;
      solver_->step(state_.time, dt);
      fault_device_if_due();
      parallel::fence();
    }
    if (solver_->step_interrupted()) {
      // Stopped inside the step (all ranks agreed): the step is not counted, and the checkpoint holds
      // how far it got, so the restart finishes it as it would have finished.
      stop = 1;
      checkpoint = write_checkpoint();
      checkpoint_step = state_.step;
      break;
    }
    const double step_seconds = std::chrono::duration<double>(Clock::now() - step_start).count();
    state_.time = lands ? target : state_.time + dt;
    ++state_.step;
    ++steps;
    raise_injected_fault();
    const bool output_now = lands && (output_interval_ > 0 || state_.time >= end_time_);
    // A stop at max_steps or by signal records and writes nothing extra, so a run continued from
    // its checkpoint produces exactly the files of an uninterrupted run.
    if (state_.step % diagnostics_every == 0 || output_now) record_diagnostics(output_now);
    if (output_now) write_output();
    if (state_.step % progress_every == 0 || at_end()) print_progress(dt, step_seconds, shortened);
    // Stop and wall-clock requests are agreed on by all ranks, so every rank checkpoints together.
    int flags[2] = {stop_requested() ? 1 : 0,
                    checkpoint_seconds > 0 && Clock::now() - last_checkpoint >= std::chrono::duration<double>(checkpoint_seconds)};
    MPI_Allreduce(MPI_IN_PLACE, flags, 2, MPI_INT, MPI_MAX, comm_);
    stop = flags[0];
    if (stop || flags[1] || (checkpoint_steps > 0 && state_.step % checkpoint_steps == 0)) {
      checkpoint = write_checkpoint();
      checkpoint_step = state_.step;
      last_checkpoint = Clock::now();
    }
  }
  if (solver_->finished() && state_.output_times.back() != state_.time) {
    // A solver done before the end time (a standard error reached) gets its final record and
    // output, unless the step's cadence has just recorded it.
    if (state_.step % diagnostics_every != 0) record_diagnostics(true);
    write_output();
  }
  if (checkpoint_step != state_.step) checkpoint = write_checkpoint();
  const double run_seconds = std::chrono::duration<double>(Clock::now() - start_).count();
  const RunSummary summary = summarise(steps, run_seconds, checkpoint);
  write_diagnostics_file(&summary);
  print_summary(summary);
  if (stop && rank_ == 0)
    std::cout << "stopped by signal after writing " << checkpoint << "; continue with --restart latest" << std::endl;
  return stop ? preempted : success;
}

}  // namespace

void validate_run_keys(const io::Deck& deck) { check_epoch(deck); }

io::Schema schema_for(const solvers::SolverEntry& solver) {
  io::Schema schema;
  std::vector<std::string> kinds;
  for (const auto& e : solvers::registry()) kinds.push_back(e.kind);
  schema.add({"solver", "kind", io::KeyType::string, std::nullopt, "", "which solver runs this deck", kinds});
  declare_run_keys(schema);
  solver.declare_keys(schema);
  return schema;
}

StepChoice step_towards(double remaining, double stable) {
  // Tolerant by 1e-10 of a step, so that rounding in the time does not add a sliver of a step.
  const double needed = std::max(1.0, std::ceil(remaining / stable * (1 - 1e-10)));
  if (needed > 4) return {stable, false};
  return {remaining / needed, needed == 1};
}

int run(const RunOptions& options, MPI_Comm comm) {
  Run run(options, comm);
  return run.execute();
}

}  // namespace meridian::app
