# Schaefer & Turek (1996) 2D-1, the steady cylinder in a channel at Re 20, from its shipped deck at D/h = 16
# on 2 ranks: the drag coefficient and the front-back pressure difference within 5% of the benchmark's
# values (c_D in [5.57, 5.59], dP in [0.1172, 0.1176]; measured here 5.590 and 0.1146), and steady (c_D
# changing by less than 1e-4 of itself over the last time unit). Finer grids: scripts/validation/schaefer_turek.py.
source "$(dirname "$0")/common.sh"
deck="$SOURCE_DIR/configs/cfd/schaefer_turek_2d1.toml"
meridian_on 2 run "$deck" --set run.end_time=8 --set run.output_interval=4 --set run.progress_every=10000 \
  --set run.checkpoint_every_minutes=0 --output "$work/run" > "$work/run.log"
"$MERIDIAN_PYTHON" - "$work/run/diagnostics.h5" <<'PY' || fail "Schaefer-Turek 2D-1 coefficients out of bounds"
import sys, h5py, numpy
with h5py.File(sys.argv[1]) as f:
    d = f["diagnostics"]
    t, cd, dp = d["time"][:], d["body0_drag_coefficient"][:], d["pressure_difference"][:]
late = t >= t[-1] - 1
drift = (cd[late].max() - cd[late].min()) / abs(cd[-1])
print(f"c_D = {cd[-1]:.4f} (benchmark 5.58), dP = {dp[-1]:.4f} (0.1174), c_D changed by {drift:.1e} of itself over the last time unit")
assert abs(cd[-1] / 5.58 - 1) <= 0.05, cd[-1]
assert abs(dp[-1] / 0.1174 - 1) <= 0.05, dp[-1]
assert drift < 1e-4, drift
PY
