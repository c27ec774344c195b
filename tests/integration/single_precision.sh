# numerics.precision = "single" keeps the invariants double has: the same fields bitwise on 1, 2 and
# 3 ranks, and a bitwise restart (its float state is checkpointed as doubles, which hold every float
# exactly). The precision is recorded in the checkpoint: a restart may not change it either way.
source "$(dirname "$0")/common.sh"
single=(--set numerics.precision=single)

deck="$SOURCE_DIR/configs/advection/slotted_disk_fct.toml"
settings=(--set mesh.nx=64 --set mesh.ny=64 --set run.end_time=0.05 --set run.output_interval=0.025
          --set run.diagnostics_every=5 --set run.progress_every=1000 "${single[@]}")
for ranks in 1 2 3; do
  meridian_on "$ranks" run "$deck" "${settings[@]}" --output "$work/np$ranks" > "$work/np$ranks.log"
done
grep -q "in single precision" "$work/np1.log" || fail "the run did not report single precision"
$compare "$work/np1" "$work/np2"
$compare "$work/np1" "$work/np3"

deck="$SOURCE_DIR/configs/advection/deformational_flow.toml"
settings=(--set mesh.nx=48 --set mesh.ny=48 --set run.end_time=0.3 --set run.output_interval=0.1
          --set run.diagnostics_every=3 --set run.progress_every=1000)
check_restarts "$deck" "" "${settings[@]}" "${single[@]}"

# expect_precision_refused FOLDER PRECISION: a restart from FOLDER's latest checkpoint with another
# precision exits with code 3 and names the key.
expect_precision_refused() {
  set +e
  meridian_on 1 run "$deck" "${settings[@]}" --set numerics.precision="$2" --restart latest --output "$1" \
    > "$1.refused.log" 2>&1
  local code=$?
  set -e
  [ "$code" -eq 3 ] || fail "a restart from $1 in $2 precision exited $code, expected 3"
  grep -q "numerics.precision" "$1.refused.log" || fail "the refused restart does not name numerics.precision"
}
expect_precision_refused "$work/split" double
meridian_on 1 run "$deck" "${settings[@]}" --set run.max_steps=3 --output "$work/double" > "$work/double.log"
expect_precision_refused "$work/double" single
echo "single-precision tests passed"
