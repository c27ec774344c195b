# Sourced by slurm/meridian_job.sh and cloud/spot_run.sh: launching meridian (under its MPI launcher) with a
# copy of its output, passing a stop signal on once the ranks can take it, waiting for it through signals,
# and telling a stop after a checkpoint from the rest.
# shellcheck shell=bash

# start_with_copy SCRATCH COMMAND...: runs COMMAND in the background with its output (stdout and stderr)
# through tee to this shell's stdout and to $run_log (SCRATCH/run.log); sets launcher_pid and tee_pid. tee
# ignores the stop signals, so that it outlives them and keeps the last lines.
start_with_copy() {
  local scratch=$1
  shift
  run_log=$scratch/run.log
  touch "$run_log"
  mkfifo "$scratch/pipe"
  (trap '' USR1 TERM INT; exec tee -a "$run_log") < "$scratch/pipe" &
  tee_pid=$!
  "$@" > "$scratch/pipe" 2>&1 &
  launcher_pid=$!
}

# forward_when_ready SIGNAL: sends SIGNAL to the launcher, which passes it to every rank, once the ranks have
# printed their first line (20 s at most): their handlers are installed right after MPI_Init, and earlier
# the signal would kill them without a checkpoint.
forward_when_ready() {
  (for _ in $(seq 20); do
     grep -qE '^(step |restarting from )' "$run_log" && break
     sleep 1
   done
   kill -s "$1" "$launcher_pid" 2>/dev/null) &
}

# wait_for_launcher: waits until the launcher has exited, through the early returns a trapped signal causes,
# sets launcher_code, and lets tee write the last lines.
wait_for_launcher() {
  launcher_code=0
  while :; do
    wait "$launcher_pid"
    launcher_code=$?
    kill -0 "$launcher_pid" 2>/dev/null || break
  done
  # After an interrupted wait the launcher's own status is still held by the shell: fetch it.
  wait "$launcher_pid" 2>/dev/null
  local again=$?
  [ "$again" -eq 127 ] || launcher_code=$again
  for _ in $(seq 50); do kill -0 "$tee_pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$tee_pid" 2>/dev/null
}

# stopped_after_checkpoint: meridian stopped on a signal after writing a checkpoint. Its exit code is 75, but
# MPICH's mpiexec has been seen to return 0 for ranks that exited 75, so its stop line counts too.
stopped_after_checkpoint() {
  [ "$launcher_code" -eq 75 ] || grep -q 'stopped by signal after writing' "$run_log"
}
