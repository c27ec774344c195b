# SIGTERM mid-run (what Slurm's --signal and spot preemption send): every rank finishes its step,
# a checkpoint is written, meridian exits 75, and a restart from it matches an uninterrupted run.
source "$(dirname "$0")/common.sh"
deck="$SOURCE_DIR/configs/advection/deformational_flow.toml"
settings=(--set mesh.nx=384 --set mesh.ny=384 --set run.end_time=1.5 --set run.output_interval=0.75
          --set run.checkpoint_every_steps=0 --set run.progress_every=5)
meridian_on 2 run "$deck" "${settings[@]}" --output "$work/whole" > "$work/whole.log"

signal_at_step TERM 10 "$work/stopped" "$deck" "${settings[@]}"
[ "$signalled_exit" -eq 75 ] || { cat "$work/stopped.log"; fail "stopped run exited $signalled_exit, expected 75"; }
grep -q "stopped by signal" "$work/stopped.log" || fail "no stop message"
meridian_on 2 run "$deck" "${settings[@]}" --restart latest --output "$work/stopped" > "$work/resumed.log"
$compare "$work/whole" "$work/stopped"
