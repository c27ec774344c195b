# Single-precision Monte Carlo paths keep the guarantees of double: the same bits on 1 and 2 ranks and
# after a restart on the same or another rank count. The precision is fixed at the first run: a restart
# that changes it is refused with exit code 3 and names the key.
source "$(dirname "$0")/common.sh"
deck="$SOURCE_DIR/configs/finance/portfolio.toml"
settings=(--set finance.paths=60000 --set finance.block_size=500 --set finance.blocks_per_step=4
          --set finance.steps=24 --set run.progress_every=1000 --set run.checkpoint_every_minutes=0
          --set 'numerics.precision="single"')
for ranks in 1 2; do
  meridian_on "$ranks" run "$deck" "${settings[@]}" --output "$work/np$ranks" > "$work/np$ranks.log"
done
$compare "$work/np1" "$work/np2"
check_restarts "$deck" "" "${settings[@]}"

set +e
meridian_on 2 run "$deck" "${settings[@]}" --set 'numerics.precision="double"' --restart latest \
  --output "$work/split" > "$work/changed.log" 2>&1
code=$?
set -e
[ "$code" -eq 3 ] || fail "a restart in double from a single-precision checkpoint exited $code, expected 3"
grep -q "numerics.precision" "$work/changed.log" || fail "the refused restart does not name numerics.precision"
echo "monte carlo precision tests passed"
