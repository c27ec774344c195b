# Straka et al. (1993), the density current, from its shipped deck at 200 m on 2 ranks to 900 s: the front
# (where the -1 K contour of theta' meets the ground, from the centre) and the theta' minimum within the
# bounds of scripts/post/density_current.py around the converged reference (15.54 km +- 1 km, -9.77 K
# +- 1 K; measured here 14.90 km and -10.25 K). The finer grids: scripts/validation/density_current.py.
source "$(dirname "$0")/common.sh"
export MPLCONFIGDIR=$work/matplotlib PYTHONDONTWRITEBYTECODE=1  # no caches in the home or source tree
spacing=200                                                      # m, along x and z
cells=(--set mesh.nx=$((51200 / spacing)) --set mesh.nz=$((6400 / spacing)))
meridian_on 2 run "$SOURCE_DIR/configs/atmosphere/density_current.toml" "${cells[@]}" --set run.progress_every=100000 \
  --set run.checkpoint_every_minutes=0 --output "$work/run" > "$work/run.log"
"$MERIDIAN_PYTHON" - "$SOURCE_DIR/scripts/post" "$work/run" <<'PY' || fail "density current front or theta' minimum out of bounds"
import sys
sys.path.insert(0, sys.argv[1])
import density_current as dc
m = dc.measure_run(sys.argv[2])
print(f"t = {m.time:g} s, {m.cells[0]} x {m.cells[1]}: front {m.front_km:.3f} km (reference {dc.REFERENCE_FRONT_KM} "
      f"+- {dc.FRONT_TOLERANCE_KM}), theta' min {m.theta_min:.3f} K ({dc.REFERENCE_THETA_MIN} +- {dc.THETA_MIN_TOLERANCE})")
assert abs(m.time - 900) < 1e-6, m.time
assert abs(m.front_km - dc.REFERENCE_FRONT_KM) <= dc.FRONT_TOLERANCE_KM, m.front_km
assert abs(m.theta_min - dc.REFERENCE_THETA_MIN) <= dc.THETA_MIN_TOLERANCE, m.theta_min
PY
