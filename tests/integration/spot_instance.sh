# scripts/cloud/spot_run.sh against a stand-in for the clouds' metadata services (fake_cloud_metadata.py)
# that announces the reclaim once the run is under way: for AWS's, GCP's and Azure's notice the runner sends
# SIGTERM, the ranks checkpoint and the run exits 75; run again with --restart latest (the next instance) it
# finishes with the bits of an uninterrupted run. A provider named outright that does not answer is refused
# before anything runs; auto without any runs the command unwatched.
source "$(dirname "$0")/common.sh"
spot="$SOURCE_DIR/scripts/cloud/spot_run.sh"
deck="$SOURCE_DIR/configs/advection/deformational_flow.toml"
settings=(--set mesh.nx=384 --set mesh.ny=384 --set run.end_time=1.5 --set run.output_interval=0.75
          --set run.checkpoint_every_steps=0 --set run.progress_every=5)
meridian_on 2 run "$deck" "${settings[@]}" --output "$work/whole" > "$work/whole.log"

"$MERIDIAN_PYTHON" "$SOURCE_DIR/tests/integration/fake_cloud_metadata.py" "$work/notice" "$work/port" &
server=$!
trap 'kill "$server" 2> /dev/null; rm -rf "$work"' EXIT
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
[ -s "$work/port" ] || fail "the fake metadata service did not start"
export MERIDIAN_SPOT_METADATA="http://127.0.0.1:$(cat "$work/port")"

for provider in gcp aws azure; do
  rm -f "$work/notice"
  timeout 120 bash "$spot" --provider "$provider" --poll 0.1 -- "$MPIEXEC" -n 2 "$MERIDIAN" run "$deck" "${settings[@]}" \
    --output "$work/$provider" > "$work/$provider.log" 2>&1 &
  runner=$!
  for _ in $(seq 600); do grep -q "^step  *10 " "$work/$provider.log" && break; sleep 0.05; done
  touch "$work/notice"
  set +e
  wait "$runner"
  code=$?
  set -e
  [ "$code" -eq 75 ] || { cat "$work/$provider.log"; fail "$provider: the run exited $code after the notice, expected 75"; }
  grep -q "$provider announces the reclaim" "$work/$provider.log" || fail "$provider: no notice line"
  grep -q "stopped by signal" "$work/$provider.log" || fail "$provider: no checkpoint on the way out"
done

rm -f "$work/notice"
timeout 120 bash "$spot" --provider gcp --poll 0.1 -- "$MPIEXEC" -n 2 "$MERIDIAN" run "$deck" "${settings[@]}" \
  --restart latest --output "$work/gcp" > "$work/resumed.log" 2>&1 || { cat "$work/resumed.log"; fail "the resumed run failed"; }
$compare "$work/whole" "$work/gcp"

set +e
MERIDIAN_SPOT_METADATA=http://127.0.0.1:1 bash "$spot" --provider aws -- touch "$work/ran" 2> "$work/refused.log"
code=$?
set -e
[ "$code" -eq 2 ] && [ ! -e "$work/ran" ] || fail "a provider that does not answer: exit $code, expected 2 before running"
grep -q "does not answer" "$work/refused.log" || fail "no message for the silent provider"
MERIDIAN_SPOT_METADATA=http://127.0.0.1:1 bash "$spot" -- touch "$work/ran" 2> "$work/unwatched.log" || fail "auto: the command failed"
[ -e "$work/ran" ] && grep -q "running without a preemption watch" "$work/unwatched.log" || fail "auto without a service"
echo "spot runner: every provider's notice stopped the run with a checkpoint; the resumed run has the uninterrupted bits"
