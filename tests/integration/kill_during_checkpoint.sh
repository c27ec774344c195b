# A run killed outright (SIGKILL, no chance to clean up) while it checkpoints every step leaves the
# previous complete checkpoint as `latest`, and the restart from it matches an uninterrupted run.
source "$(dirname "$0")/common.sh"
deck="$SOURCE_DIR/configs/advection/deformational_flow.toml"
settings=(--set mesh.nx=256 --set mesh.ny=256 --set run.end_time=0.3 --set run.output_interval=0.1
          --set run.progress_every=1 --set run.diagnostics_every=5)
meridian_on 2 run "$deck" "${settings[@]}" --output "$work/whole" > "$work/whole.log"

signal_at_step KILL 20 "$work/killed" "$deck" "${settings[@]}" --set run.checkpoint_every_steps=1
grep -q "run summary" "$work/killed.log" && fail "the run finished before it was killed"
ls "$work/killed/checkpoints/"checkpoint_*.h5 > /dev/null || fail "no complete checkpoint survived"
# A write cut short leaves only a .tmp file, never a broken checkpoint_*.h5.
for checkpoint in "$work/killed/checkpoints/"checkpoint_*.h5; do
  "$MERIDIAN_PYTHON" -c "import h5py, sys; h5py.File(sys.argv[1])['fields']" "$checkpoint" ||
    fail "$checkpoint is not a complete checkpoint"
done
meridian_on 2 run "$deck" "${settings[@]}" --restart latest --output "$work/killed" > "$work/resumed.log"
grep -q "restarting from" "$work/resumed.log" || fail "did not restart"
ls "$work/killed/checkpoints/" | grep -q "\.tmp$" && fail "a leftover .tmp file was not removed"
$compare "$work/whole" "$work/killed"
