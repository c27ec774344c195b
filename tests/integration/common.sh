# Shared by the integration tests: where the binary is and how to launch it.
# ctest sets MERIDIAN, MERIDIAN_PYTHON, MPIEXEC and SOURCE_DIR.
set -euo pipefail
: "${MERIDIAN:?}" "${MERIDIAN_PYTHON:?}" "${MPIEXEC:?}" "${SOURCE_DIR:?}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
compare="$MERIDIAN_PYTHON $SOURCE_DIR/tests/integration/compare_outputs.py"

# meridian_on RANKS ARGS...: every launch is bounded, so a hang fails the test.
meridian_on() {
  local ranks=$1
  shift
  timeout "${run_timeout:-120}" "$MPIEXEC" -n "$ranks" "$MERIDIAN" "$@"
}

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# run_in_two_parts RANKS_BEFORE RANKS_AFTER STEPS FOLDER DECK SETTINGS...: the first STEPS steps,
# a checkpoint, then a restart from it to the end, on the rank counts given.
run_in_two_parts() {
  local before=$1 after=$2 steps=$3 folder=$4 deck=$5
  shift 5
  meridian_on "$before" run "$deck" "$@" --set run.max_steps="$steps" --output "$folder" > "$folder.first.log"
  ls "$folder/checkpoints/" | grep -q "checkpoint_0*$steps.h5" || fail "no checkpoint at step $steps"
  meridian_on "$after" run "$deck" "$@" --restart latest --output "$folder" > "$folder.second.log"
  grep -q "restarting from" "$folder.second.log" || fail "the second part did not restart"
}

# steps_in LOG: the number of steps a run reports in its summary.
steps_in() {
  grep -o 'steps  *[0-9]*' "$1" | head -1 | grep -o '[0-9]*$'
}

# check_restarts DECK FOUR_TO_TWO_FLAGS SETTINGS...: a run on 2 ranks equals its first half, a
# checkpoint and a restart on 2 ranks bitwise; the same split written on 4 ranks and continued on
# 2 is compared with FOUR_TO_TWO_FLAGS ("" for bitwise, "--round-off" for FFT or Krylov solvers).
check_restarts() {
  local deck=$1 four_to_two=$2
  shift 2
  meridian_on 2 run "$deck" "$@" --output "$work/whole" > "$work/whole.log"
  local half=$(($(steps_in "$work/whole.log") / 2))
  [ "$half" -gt 2 ] || fail "too few steps to split"
  run_in_two_parts 2 2 "$half" "$work/split" "$deck" "$@"
  $compare "$work/whole" "$work/split"
  run_in_two_parts 4 2 "$half" "$work/four" "$deck" "$@"
  $compare $four_to_two "$work/whole" "$work/four"
}

# signal_at_step SIGNAL STEP FOLDER DECK SETTINGS...: runs a deck on 2 ranks into FOLDER and, once it
# prints progress for STEP, sends SIGNAL to the ranks themselves (as Slurm's scancel --signal does);
# sets $signalled_exit to the launcher's exit code. The log is FOLDER.log.
signal_at_step() {
  local signal=$1 step=$2 folder=$3 deck=$4
  shift 4
  timeout 120 "$MPIEXEC" -n 2 "$MERIDIAN" run "$deck" "$@" --output "$folder" > "$folder.log" 2>&1 &
  local launcher=$!
  for _ in $(seq 600); do
    grep -q "^step  *$step " "$folder.log" && break
    sleep 0.05
  done
  pkill "-$signal" -f -- "^$MERIDIAN run .*--output $folder" || fail "no rank to signal"
  set +e
  wait "$launcher"
  signalled_exit=$?
  set -e
}

# all_readable PATH [PREFIX]: every dataset of every .h5 file at or under PATH reads back whole and,
# given PREFIX, every file holds a dataset whose name starts with it.
all_readable() {
  "$MERIDIAN_PYTHON" - "$1" "${2:-}" <<'PY'
import h5py, pathlib, sys
root, prefix = pathlib.Path(sys.argv[1]), sys.argv[2]
for path in [root] if root.is_file() else sorted(root.rglob("*.h5")):
    names = []
    def read(name, item):
        if isinstance(item, h5py.Dataset):
            assert item[()] is not None, name
            names.append(name)
    with h5py.File(path, "r") as f:
        f.visititems(read)
    assert not prefix or any(n.startswith(prefix) for n in names), (str(path), names)
PY
}
