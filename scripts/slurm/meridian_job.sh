# Sourced by the job templates of scripts/slurm/ (advection.sbatch, atmosphere.sbatch, cfd_projection.sbatch,
# cfd_spectral.sbatch, monte_carlo.sbatch) after they set `default_deck`: the machinery every template shares.
# shellcheck shell=bash
#
# Environment (sbatch hands the submitting shell's environment to the job):
#   MERIDIAN                   the binary (default build/release/apps/meridian, else meridian on PATH)
#   MERIDIAN_LAUNCHER          "srun --mpi=pmi2" (default); "mpirun" (MPICH's hydra, which starts one
#                              rank per task of the allocation on every node through Slurm); or any
#                              launch command line, e.g. "srun --mpi=pmix"
#   MERIDIAN_MAX_RESTARTS      requeue at most this many times (default 100)
#   MERIDIAN_FINALIZE_TIMEOUT  seconds the launcher may take to exit after meridian printed its run
#                              summary before the step is ended (default 120; 0: never). MPICH
#                              4.0.2 can hang in MPI_Finalize between nodes (UCX over TCP); without
#                              this a hang would hold the nodes to the time limit and end the chain.
#
# How a stop reaches meridian, and the requeue:
# - `--signal=B:USR1@300` makes Slurm send SIGUSR1 to this batch shell only (B:), not to the job
#   steps, about 300 s before the time limit (up to a minute earlier: Slurm looks once a minute).
#   The lead time must cover one solver step, one checkpoint write and that minute.
# - The shell runs the launcher in the background and `wait`s for it; its USR1 trap forwards the
#   signal with `kill -USR1` to srun, which passes it to every rank on every node (mpirun does the
#   same through its proxies). A signal that comes before the ranks printed anything is held back
#   until their first line (20 s at most): their handlers are installed right after MPI_Init, and
#   earlier it would kill them without a checkpoint.
# - Every rank finishes its step, a checkpoint is written, and meridian exits with 75.
# - The requeue does not trust the launcher's exit code alone (mpirun has been seen to return 0 for
#   ranks that exited 75): the run counts as stopped when the code is 75 or rank 0 printed "stopped
#   by signal after writing ...", and the job requeues itself (`scontrol requeue $SLURM_JOB_ID`)
#   only when there is a checkpoint newer than the one this start resumed from (a start that made
#   no progress is not requeued forever) and no SIGTERM came. SIGTERM means scancel, the time limit
#   itself, or Slurm's own preemption (which requeues by itself with PreemptMode=REQUEUE): the run
#   still checkpoints, and resubmitting continues from it. `--requeue` permits the requeue,
#   `--open-mode=append` keeps every start's lines in one output file. A requeued job waits
#   AuthInfo's cred_expire (120 s by default) and the scheduler's next pass before it starts again.
# - Every start passes `--restart latest` when the output folder's checkpoints/ holds a checkpoint,
#   so a requeued (or resubmitted) job continues bitwise from the newest one.
# - By hand: `scancel --signal=USR1 --batch JOBID` does what --signal=B:USR1 does (checkpoint,
#   requeue); `scancel --signal=USR1 JOBID` signals the ranks directly, with the same result under
#   srun; a plain `scancel JOBID` checkpoints and ends the job.
#
# GPU nodes (a CUDA build): one rank per GPU, e.g. for nodes with 4 GPUs
#   #SBATCH --ntasks-per-node=4
#   #SBATCH --gpus-per-task=1          (or: #SBATCH --gres=gpu:4)
# Meridian takes the GPU numbered by its node-local rank modulo the GPUs it can see, and honours
# CUDA_VISIBLE_DEVICES: with one GPU visible per task it uses that one, with all of a node's GPUs
# visible its ranks take one each. Give each rank a few cores (--cpus-per-task) and never put more
# ranks on a node than it has GPUs.

set -o pipefail   # no -u: empty arrays would be "unbound" in the bash 4.2 of older clusters
say() { echo "[meridian-slurm $(date '+%F %T')] $*"; }

deck=$default_deck
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then
  deck=$1
  shift
fi
run_args=("$@")

if [ -z "${MERIDIAN:-}" ]; then
  if [ -x build/release/apps/meridian ]; then MERIDIAN=$PWD/build/release/apps/meridian; else MERIDIAN=$(command -v meridian || true); fi
fi
[ -n "$MERIDIAN" ] && [ -x "$MERIDIAN" ] || { say "no meridian binary here: set MERIDIAN=/path/to/meridian"; exit 2; }
# Threads for OpenMP builds of Kokkos; srun of Slurm 22.05 no longer reads SLURM_CPUS_PER_TASK.
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-${SLURM_CPUS_PER_TASK:-1}}
[ -n "${SLURM_CPUS_PER_TASK:-}" ] && export SRUN_CPUS_PER_TASK=$SLURM_CPUS_PER_TASK

# The output folder: --output, else the deck's run.output_dir, else output/<deck name> (as meridian).
output="" user_output=0 user_restart=0 check_args=()
set -- "${run_args[@]}"
while [ $# -gt 0 ]; do
  case $1 in
    --output) output=${2:-} user_output=1; shift ;;
    --set) check_args+=(--set "${2:-}"); shift ;;
    --restart) user_restart=1 ;;
  esac
  shift
done
resolved=$("$MERIDIAN" check "$deck" "${check_args[@]}" 2>&1) || {
  printf '%s\n' "$resolved"
  say "the deck does not validate: nothing was run"
  exit 2
}
if [ -z "$output" ]; then
  output=$(printf '%s\n' "$resolved" | sed -n '/^\[run\]/,/^\[/s/^output_dir = "\(.*\)"$/\1/p' | head -n 1)
  name=$(basename "$deck")
  [ -n "$output" ] || output=output/${name%.*}
fi
out_args=()
[ "$user_output" -eq 1 ] || out_args=(--output "$output")

newest_checkpoint() { ls "$output"/checkpoints/checkpoint_*.h5 2>/dev/null | sort | tail -n 1; }
before=$(newest_checkpoint)
restart_args=()
[ "$user_restart" -eq 0 ] && [ -n "$before" ] && restart_args=(--restart latest)

read -r -a launch <<< "${MERIDIAN_LAUNCHER:-srun --mpi=pmi2}"
case ${#launch[@]}:$(basename "${launch[0]}") in
  1:mpirun | 1:mpiexec | 1:mpiexec.hydra) launch+=(-n "${SLURM_NTASKS:-1}") ;;
esac

# The ranks' output goes through tee into this job's output file and a copy read below
# (launcher.sh, which the cloud runner shares).
# shellcheck source=../launcher.sh
source "$helper_dir/../launcher.sh" || { say "no $helper_dir/../launcher.sh: keep scripts/ whole"; exit 2; }
scratch=$(mktemp -d "${TMPDIR:-/tmp}/meridian-slurm.XXXXXX")
launcher_pid="" watchdog_pid="" got_usr1=0 got_term=0
cleanup() {
  [ -n "$watchdog_pid" ] && kill "$watchdog_pid" 2>/dev/null
  rm -rf "$scratch"
}
trap cleanup EXIT

on_signal() {
  if [ "$1" = USR1 ]; then got_usr1=1; else got_term=1; fi
  say "SIG$1 received: forwarding it to the ranks (they finish their step and write a checkpoint)"
  [ -z "$launcher_pid" ] || forward_when_ready "$1"
}
trap 'on_signal USR1' USR1
trap 'on_signal TERM' TERM

say "job ${SLURM_JOB_ID:-?} start $((${SLURM_RESTART_COUNT:-0} + 1)) on ${SLURM_JOB_NUM_NODES:-?} node(s) (${SLURM_JOB_NODELIST:-?}), ${SLURM_NTASKS:-?} ranks${CUDA_VISIBLE_DEVICES:+, CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES}"
say "${before:+resuming from $before: }${launch[*]} $MERIDIAN run $deck ${run_args[*]} ${out_args[*]} ${restart_args[*]}"
start_with_copy "$scratch" "${launch[@]}" "$MERIDIAN" run "$deck" "${run_args[@]}" "${out_args[@]}" "${restart_args[@]}"
[ "$got_usr1" -eq 1 ] && forward_when_ready USR1
[ "$got_term" -eq 1 ] && forward_when_ready TERM

finalize_timeout=${MERIDIAN_FINALIZE_TIMEOUT:-120}
if [ "$finalize_timeout" -gt 0 ]; then
  (trap '' USR1 TERM
   while kill -0 "$launcher_pid" 2>/dev/null && ! grep -q '^run summary' "$run_log"; do sleep 2; done
   for _ in $(seq "$finalize_timeout"); do
     kill -0 "$launcher_pid" 2>/dev/null || exit 0
     sleep 1
   done
   touch "$scratch/finalize_timeout"
   say "the launcher has not exited ${finalize_timeout} s after meridian's run summary (an MPI_Finalize hang?): ending the step"
   kill -INT "$launcher_pid" 2>/dev/null; sleep 0.3; kill -INT "$launcher_pid" 2>/dev/null  # srun: two Ctrl-C kill the step
   sleep 10
   kill -KILL "$launcher_pid" 2>/dev/null) &
  watchdog_pid=$!
fi

wait_for_launcher
code=$launcher_code

after=$(newest_checkpoint)
stopped=0
stopped_after_checkpoint && stopped=1
if [ "$stopped" -eq 1 ]; then
  if [ -z "$after" ] || [ "$after" = "$before" ]; then
    say "meridian stopped (exit code $code) without a checkpoint newer than ${before:-none}: not requeued"
    exit 75
  fi
  if [ "$got_term" -eq 1 ]; then
    say "stopped by SIGTERM (scancel, the time limit or Slurm's preemption) after writing $after: not requeued here; resubmitting this script continues from it"
    exit 75
  fi
  if [ "${SLURM_RESTART_COUNT:-0}" -ge "${MERIDIAN_MAX_RESTARTS:-100}" ]; then
    say "stopped after writing $after; already requeued ${SLURM_RESTART_COUNT:-0} times (MERIDIAN_MAX_RESTARTS): not requeued"
    exit 75
  fi
  say "stopped by signal (exit code $code) after writing $after: requeueing job $SLURM_JOB_ID"
  if timeout 60 scontrol requeue "$SLURM_JOB_ID"; then
    exit 0
  fi
  say "scontrol requeue failed (submitted with --no-requeue?): resubmit this script to continue from $after"
  exit 75
fi
if [ "$code" -eq 0 ] || { [ -e "$scratch/finalize_timeout" ] && grep -q '^run summary' "$run_log"; }; then
  say "run finished; output in $output"
  exit 0
fi
say "meridian failed with exit code $code: not requeued"
exit "$code"
