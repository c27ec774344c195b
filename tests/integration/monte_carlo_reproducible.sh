# Monte Carlo results have the same bits on 1, 2 and 3 ranks, a target standard error stops every
# rank count after the same block, and a restart (on the same or another rank count) is bitwise.
source "$(dirname "$0")/common.sh"
deck="$SOURCE_DIR/configs/finance/portfolio.toml"
settings=(--set finance.paths=60000 --set finance.block_size=500 --set finance.blocks_per_step=4
          --set finance.steps=24 --set run.progress_every=1000 --set run.checkpoint_every_minutes=0)
for ranks in 1 2 3; do
  meridian_on "$ranks" run "$deck" "${settings[@]}" --set finance.target_standard_error=0.1 \
    --output "$work/np$ranks" > "$work/np$ranks.log"
done
$compare "$work/np1" "$work/np2"
$compare "$work/np1" "$work/np3"
paths=$("$MERIDIAN_PYTHON" -c "import h5py, sys; print(int(h5py.File(sys.argv[1])['diagnostics/paths'][-1]))" \
  "$work/np1/diagnostics.h5")
[ "$paths" -lt 60000 ] || fail "the target standard error did not end the run early ($paths paths)"
check_restarts "$deck" "" "${settings[@]}"
