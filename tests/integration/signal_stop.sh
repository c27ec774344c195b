# SIGTERM mid-run (what Slurm's --signal and spot preemption send): every rank finishes its step,
# a checkpoint is written, meridian exits 75, and a restart from it matches an uninterrupted run.
source "$(dirname "$0")/common.sh"
deck="$SOURCE_DIR/configs/advection/deformational_flow.toml"
settings_advection=(--set mesh.nx=384 --set mesh.ny=384 --set run.end_time=1.5 --set run.output_interval=0.75
                    --set run.checkpoint_every_steps=0 --set run.progress_every=5)
meridian_on 2 run "$deck" "${settings_advection[@]}" --output "$work/whole" > "$work/whole.log"

signal_at_step TERM 10 "$work/stopped" "$deck" "${settings_advection[@]}"
[ "$signalled_exit" -eq 75 ] || { cat "$work/stopped.log"; fail "stopped run exited $signalled_exit, expected 75"; }
grep -q "stopped by signal" "$work/stopped.log" || fail "no stop message"
meridian_on 2 run "$deck" "${settings_advection[@]}" --restart latest --output "$work/stopped" > "$work/resumed.log"
$compare "$work/whole" "$work/stopped"
advection_deck=$deck

# A stop inside one long Monte Carlo step (all 3.2 million paths in one step, a few seconds on 2 ranks of
# the vectorised kernel): the ranks agree to stop after the launch in progress, within a second or two,
# checkpoint how far the step got and exit 75; the restart finishes the step, and every result has the bits
# of an uninterrupted run.
deck="$SOURCE_DIR/configs/finance/portfolio.toml"
blocks=$(((3200000 + 4095) / 4096))
settings=(--set 'finance.products=["asian_arithmetic_call", "european_put"]' --set finance.steps=252
          --set finance.paths=3200000 --set finance.blocks_per_step=$blocks --set finance.target_standard_error=0
          --set finance.greeks=false
          --set run.checkpoint_every_minutes=0 --set run.output_interval=0 --set run.progress_every_seconds=0.3)
meridian_on 2 run "$deck" "${settings[@]}" --output "$work/mc_whole" > "$work/mc_whole.log"
# A step of seconds says how far it got while it runs.
grep -qE "^step +1  in progress: [0-9.]+% after [0-9.]+ s, step ETA" "$work/mc_whole.log" \
  || fail "no progress inside the long Monte Carlo step: $(cat "$work/mc_whole.log")"
timeout 120 "$MPIEXEC" -n 2 "$MERIDIAN" run "$deck" "${settings[@]}" --output "$work/mc_stopped" > "$work/mc_stopped.log" 2>&1 &
launcher=$!
for _ in $(seq 600); do
  [ -e "$work/mc_stopped/fields_00000.h5" ] && break
  sleep 0.05
done
sleep 1
pkill -TERM -f -- "^$MERIDIAN run .*--output $work/mc_stopped" || fail "no Monte Carlo rank to signal"
signalled=$SECONDS
set +e
wait "$launcher"
code=$?
set -e
[ "$code" -eq 75 ] || { cat "$work/mc_stopped.log"; fail "the Monte Carlo run exited $code after SIGTERM, expected 75"; }
[ $((SECONDS - signalled)) -le 3 ] || fail "the Monte Carlo step took $((SECONDS - signalled)) s to honour SIGTERM"
grep -q "steps         0 this run" "$work/mc_stopped.log" || fail "the interrupted step was counted: $(cat "$work/mc_stopped.log")"
meridian_on 2 run "$deck" "${settings[@]}" --restart latest --output "$work/mc_stopped" > "$work/mc_resumed.log"
$compare "$work/mc_whole" "$work/mc_stopped"

# Every phase honours a stop. Setup (deck, decomposition, initial fields of a 2048^2 grid with three
# tracers, about a second): SIGTERM as soon as both ranks have installed their handlers (SigCgt in
# /proc) ends the run before its first step with 75, having written nothing.
setup="$work/setup"
timeout 120 "$MPIEXEC" -n 2 "$MERIDIAN" run "$advection_deck" --set mesh.nx=2048 --set mesh.ny=2048 \
  --set 'advection.tracers=["gaussian", "cosine_bell", "slotted_disk"]' --output "$setup" > "$setup.log" 2>&1 &
launcher=$!
term_bit=$((1 << 14))  # SIGTERM is signal 15
for _ in $(seq 1000); do
  handled=0
  for pid in $(pgrep -f -- "^$MERIDIAN run .*--output $setup"); do
    mask=$(awk '/^SigCgt:/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
    (( 0x${mask:-0} & term_bit )) && handled=$((handled + 1))
  done
  [ "$handled" -eq 2 ] && break
  sleep 0.01
done
[ "$handled" -eq 2 ] || fail "the ranks never installed a SIGTERM handler"
pkill -TERM -f -- "^$MERIDIAN run .*--output $setup"
set +e
wait "$launcher"
code=$?
set -e
[ "$code" -eq 75 ] || { cat "$setup.log"; fail "a stop during setup exited $code, expected 75"; }
grep -q "stopped by signal before the first step; nothing was written" "$setup.log" || fail "$(cat "$setup.log")"
[ -z "$(find "$setup" -name '*.h5' 2>/dev/null)" ] || fail "a stop before the first step wrote $(find "$setup" -name '*.h5')"

# SIGINT (Ctrl-C, or an interrupt forwarded by mpirun) is a stop like SIGTERM: checkpoint and 75.
signal_at_step INT 10 "$work/interrupted" "$advection_deck" "${settings_advection[@]}"
[ "$signalled_exit" -eq 75 ] || { cat "$work/interrupted.log"; fail "SIGINT exited $signalled_exit, expected 75"; }
ls "$work/interrupted/checkpoints/"checkpoint_*.h5 > /dev/null || fail "no checkpoint after SIGINT"
