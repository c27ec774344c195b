# Restart is bitwise: 2N steps in one run equal N steps, a restart, and N more; and a checkpoint
# written on 4 ranks continues on 2.
source "$(dirname "$0")/common.sh"
deck="$SOURCE_DIR/configs/advection/deformational_flow.toml"
settings=(--set mesh.nx=48 --set mesh.ny=48 --set run.end_time=0.3 --set run.output_interval=0.1
          --set run.diagnostics_every=3 --set run.progress_every=1000)
check_restarts "$deck" "" "${settings[@]}"

# A restart that changes the grid is refused with exit code 3 and names the key.
set +e
meridian_on 2 run "$deck" "${settings[@]}" --set mesh.nx=64 --restart latest --output "$work/four" > "$work/bad.log" 2>&1
code=$?
set -e
[ "$code" -eq 3 ] || fail "restart with another grid exited $code, expected 3"
grep -q "mesh.nx" "$work/bad.log" || fail "restart error does not name mesh.nx"

# A truncated checkpoint is refused, not read.
newest=$(ls "$work/four/checkpoints/"checkpoint_*.h5 | tail -1)
truncate -s 2000 "$newest"
set +e
meridian_on 1 run "$deck" "${settings[@]}" --restart "$newest" --output "$work/four" > "$work/trunc.log" 2>&1
code=$?
set -e
[ "$code" -ne 0 ] || fail "a truncated checkpoint was accepted"
grep -qi "truncated\|cannot open\|corrupt" "$work/trunc.log" || fail "no clear message for a truncated checkpoint"
echo "restart tests passed"
