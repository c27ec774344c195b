#!/usr/bin/env bash
# A run owns its output folder: a second run started on the folder of a running one exits 2 at once,
# naming the folder and the first run's host and PID, and the first run ends as if alone; a lock file
# left by a dead run is taken over; a folder the run cannot make is refused before any step.
source "$(dirname "$0")/common.sh"
deck="$SOURCE_DIR/configs/advection/deformational_flow.toml"
settings=(--set mesh.nx=384 --set mesh.ny=384 --set run.end_time=1.5 --set run.output_interval=0.5
          --set run.checkpoint_every_steps=0)
meridian_on 2 run "$deck" "${settings[@]}" --output "$work/alone" > "$work/alone.log"

meridian_on 2 run "$deck" "${settings[@]}" --output "$work/shared" > "$work/first.log" 2>&1 &
first=$!
for _ in $(seq 600); do
  [ -e "$work/shared/fields_00000.h5" ] && break
  sleep 0.05
done
set +e
meridian_on 2 run "$deck" "${settings[@]}" --output "$work/shared" > "$work/second.log" 2>&1
second_code=$?
wait "$first"
first_code=$?
set -e
[ "$second_code" -eq 2 ] || { cat "$work/second.log"; fail "the second run exited $second_code, expected 2"; }
grep -q "$work/shared: the output folder is in use by another run (host and PID $(hostname) [0-9]*)" \
  "$work/second.log" || fail "the refusal does not name the folder and the owner: $(cat "$work/second.log")"
[ "$first_code" -eq 0 ] || { cat "$work/first.log"; fail "the first run exited $first_code"; }
grep -q "steps  *[0-9]* this run" "$work/first.log" || fail "the first run did not finish"
$compare "$work/alone" "$work/shared"

# A dead run's lock file: the flock went with it, so the next run takes the folder over.
mkdir -p "$work/stale"
echo "$(hostname) 999999999" > "$work/stale/.meridian.lock"
meridian_on 1 run "$deck" --set mesh.nx=32 --set mesh.ny=32 --output "$work/stale" > "$work/stale.log" 2>&1 ||
  { cat "$work/stale.log"; fail "a stale lock file stopped the run"; }

# A file where the checkpoint folder must go: refused at the start, exit 2, naming it.
mkdir -p "$work/blocked"
touch "$work/blocked/checkpoints"
set +e
meridian_on 2 run "$deck" --set mesh.nx=32 --set mesh.ny=32 --output "$work/blocked" > "$work/blocked.log" 2>&1
code=$?
set -e
[ "$code" -eq 2 ] || { cat "$work/blocked.log"; fail "a file in the checkpoint folder's place: exit $code, expected 2"; }
grep -q "$work/blocked/checkpoints: cannot make the folder" "$work/blocked.log" || fail "not named: $(cat "$work/blocked.log")"
if grep -q "^step" "$work/blocked.log"; then fail "steps were taken before the folder was refused"; fi
echo "output folder lock checked"
