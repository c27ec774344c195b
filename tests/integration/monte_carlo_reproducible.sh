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
# The deck records diagnostics after every step, so the run must end at the first step where every
# product's standard error is at or below the target: one was above it at the step before. (The end
# of the run records its last step a second time.)
"$MERIDIAN_PYTHON" - "$work/np1/diagnostics.h5" 0.1 <<'EOF' || fail "the target standard error did not end the run at the right step"
import sys
import h5py
import numpy as np
with h5py.File(sys.argv[1]) as f:
    steps = f["diagnostics/step"][...]
    errors = np.array([f["diagnostics"][name][...] for name in f["diagnostics"] if name.endswith("_standard_error")])
target = float(sys.argv[2])
assert len(set(steps)) == len(steps), f"a step recorded twice: {steps}"
last, before = len(steps) - 1, len(steps) - 2
assert errors.shape[0] == 5 and steps[before] == steps[last] - 1, (errors.shape, steps)
assert (errors[:, last] <= target).all(), f"an error above the target at the end: {errors[:, last]}"
assert (errors[:, before] > target).any(), f"every error was at the target a step earlier: {errors[:, before]}"
EOF
check_restarts "$deck" "" "${settings[@]}"
# Early exercise: the Longstaff-Schwartz rule is fitted again by every run, the same on every rank count, so the
# out-of-sample price and a restart keep their bits too.
bermudan="$SOURCE_DIR/configs/finance/bermudan_put.toml"
bermudan_settings=(--set finance.paths=40000 --set finance.calibration_paths=20000 --set finance.block_size=1000
                   --set finance.blocks_per_step=4 --set run.progress_every=1000 --set run.checkpoint_every_minutes=0)
for ranks in 1 2 3; do
  meridian_on "$ranks" run "$bermudan" "${bermudan_settings[@]}" --output "$work/bermudan$ranks" > "$work/bermudan$ranks.log"
done
$compare "$work/bermudan1" "$work/bermudan2"
$compare "$work/bermudan1" "$work/bermudan3"
# The American by Richardson extrapolation: three rules on the same paths, still the same bits on 1 and 3 ranks.
for ranks in 1 3; do
  meridian_on "$ranks" run "$bermudan" "${bermudan_settings[@]}" --set finance.steps=200 \
    --set 'finance.exercise_extrapolation="richardson"' --output "$work/american$ranks" > "$work/american$ranks.log"
done
$compare "$work/american1" "$work/american3"
rm -rf "$work/whole" "$work/split" "$work/four"
check_restarts "$bermudan" "" "${bermudan_settings[@]}"
