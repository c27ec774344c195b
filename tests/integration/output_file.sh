# A short run's HDF5 output opens with h5py with the documented datasets and attributes.
source "$(dirname "$0")/common.sh"
meridian_on 2 run "$SOURCE_DIR/configs/advection/deformational_flow.toml" --set mesh.nx=40 --set mesh.ny=24 \
  --set run.end_time=0.05 --set run.output_interval=0.025 --output "$work/run" > "$work/run.log"
"$MERIDIAN_PYTHON" "$SOURCE_DIR/tests/integration/check_output_file.py" "$work/run"
# Steps cut short to land on the output times say so in the progress line, with the Courant number
# of the step actually taken (below the deck's 0.8).
grep "^step" "$work/run.log" | grep -q "courant = 0\.[0-7][0-9]* (step shortened to land on t = 0.05)" \
  || fail "the last step's progress line is not marked as shortened: $(grep '^step' "$work/run.log" | tail -1)"
