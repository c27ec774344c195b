# A rank killed outright (SIGKILL, no chance to clean up) in the middle of a checkpoint write (its
# fields written, the file still open: MERIDIAN_FAULT=1:20:kill_in_checkpoint) leaves that write as
# a .tmp file and the previous complete checkpoint as `latest`, every dataset of which reads back;
# the restart from it matches an uninterrupted run.
source "$(dirname "$0")/common.sh"
deck="$SOURCE_DIR/configs/advection/deformational_flow.toml"
settings=(--set mesh.nx=64 --set mesh.ny=64 --set run.end_time=0.3 --set run.output_interval=0.1
          --set run.progress_every=1 --set run.diagnostics_every=5)
meridian_on 2 run "$deck" "${settings[@]}" --output "$work/whole" > "$work/whole.log"

! MERIDIAN_FAULT=1:20:kill_in_checkpoint meridian_on 2 run "$deck" "${settings[@]}" \
  --set run.checkpoint_every_steps=1 --output "$work/killed" > "$work/killed.log" 2>&1 \
  || fail "the run survived the kill"
grep -q "run summary" "$work/killed.log" && fail "the run finished although a rank was killed"
checkpoints="$work/killed/checkpoints"
ls "$checkpoints" | grep -q "checkpoint_0*20\.h5\.tmp$" || fail "no .tmp of the interrupted write: $(ls "$checkpoints")"
ls "$checkpoints" | grep -q "checkpoint_0*20\.h5$" && fail "the interrupted checkpoint was published"
ls "$checkpoints" | grep -q "checkpoint_0*19\.h5$" || fail "the checkpoint before the kill is gone: $(ls "$checkpoints")"
# Every dataset of every surviving checkpoint reads back whole.
all_readable "$checkpoints" fields/ || fail "a surviving checkpoint does not read back whole"
meridian_on 2 run "$deck" "${settings[@]}" --restart latest --output "$work/killed" > "$work/resumed.log"
grep -q "restarting from .*checkpoint_0*19.h5" "$work/resumed.log" || fail "did not restart from step 19: $(grep restarting "$work/resumed.log")"
ls "$checkpoints" | grep -q "\.tmp$" && fail "a leftover .tmp file was not removed"
$compare "$work/whole" "$work/killed"
