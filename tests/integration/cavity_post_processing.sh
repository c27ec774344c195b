# The projection solver's post-processing: cavity_centrelines.py on a tiny lid-driven cavity prints the
# largest deviation of each centreline profile from Ghia et al. (1982) and draws them; plot_fields.py draws
# its vorticity; force_coefficients.py gives the known Strouhal number of a synthetic lift series;
# wall_pressure.py reads the pressure of an exact stagnation flow at its wall.
source "$(dirname "$0")/post_common.sh"
# within VALUE EXPECTED RELATIVE: |VALUE - EXPECTED| <= RELATIVE |EXPECTED|.
within() {
  "$MERIDIAN_PYTHON" -c "import sys; v, e, r = map(float, sys.argv[1:]); sys.exit(0 if abs(v - e) <= r * abs(e) else 1)" \
    "$@" 2> /dev/null
}

for script in cavity_centrelines force_coefficients; do
  post "$script" --help > /dev/null || fail "$script --help"
done

# The shipped Re 100 deck on 16^2 to t = 2: far from steady, so only that a deviation is printed is checked.
cavity=$work/cavity
meridian_on 1 run "$SOURCE_DIR/configs/cfd/lid_driven_cavity_re100.toml" --set mesh.nx=16 --set mesh.ny=16 \
  --set run.end_time=2 --set run.output_interval=0 --set run.checkpoint_every_minutes=0 --output "$cavity" \
  > "$work/cavity.log"
post cavity_centrelines "$cavity" > "$work/centrelines.txt" || fail "cavity_centrelines exited with an error"
grep -qF "Re = U L / nu = 100; Ghia et al. 1982 at Re 100" "$work/centrelines.txt" ||
  fail "cavity_centrelines did not take Re 100 from the deck: $(head -1 "$work/centrelines.txt")"
for profile in "u along x = 0.5" "v along y = 0.5"; do
  deviation=$(sed -n "s/^max deviation $profile: \([0-9.e+-]*\) .*/\1/p" "$work/centrelines.txt")
  # Ghia's velocities are at most 1 in lid units: a deviation beyond that is a wrong scale, not a coarse grid.
  within "${deviation:-nan}" 0.5 1 || fail "cavity_centrelines: deviation of $profile is '$deviation'"
done
grep -qx "$cavity/cavity_centrelines_00001.png" "$work/centrelines.txt" || fail "cavity_centrelines wrote no PNG"
check_png 1200x600 "$cavity/cavity_centrelines_00001.png"  # lines only: about 0.6% coloured
post cavity_centrelines "$cavity/fields_00001.h5" --re 1000 --out "$work/png" > /dev/null ||
  fail "cavity_centrelines on a field file with --re 1000"
! post cavity_centrelines "$cavity" --re 400 > /dev/null 2>&1 || fail "cavity_centrelines accepted Re 400"

# fields/vorticity is a stored field of cfd_projection, so plot_fields draws it like any other.
[ "$(post plot_fields "$cavity" --field vorticity --out "$work/png")" = "$work/png/vorticity_00001.png" ] ||
  fail "plot_fields --field vorticity"
check_png 720x600 "$work/png/vorticity_00001.png" --min-coloured 0.3

# A lift coefficient oscillating at f = 0.165 after a transient (D = U = 1): St = 0.165 to 1e-3 relative.
forces=$work/forces
"$MERIDIAN_PYTHON" "$SOURCE_DIR/tests/integration/synthetic_forces.py" "$forces" --frequency 0.165
post force_coefficients "$forces" --transient 30 > "$work/forces.txt" || fail "force_coefficients exited with an error"
strouhal=$(awk '$1 == "Strouhal" { print $3 }' "$work/forces.txt")
within "${strouhal:-nan}" 0.165 1e-3 || fail "force_coefficients: St = '$strouhal', expected 0.165"
drag_max=$(sed -n 's/.*c_D max \([0-9.]*\),.*/\1/p' "$work/forces.txt")
within "${drag_max:-nan}" 1.39 1e-3 || fail "force_coefficients: c_D max '$drag_max', expected 1.39"
grep -qx "$forces/forces.png" "$work/forces.txt" || fail "force_coefficients wrote no PNG"
check_png 840x1080 "$forces/forces.png" --min-coloured 0.03  # lines and shaded spans: about 6%
! post force_coefficients "$cavity" > /dev/null 2>&1 || fail "force_coefficients accepted a run without a lift series"
# wall_pressure.py on plane stagnation flow against a wall at x_w from either side, an exact Navier-Stokes
# solution with no viscous term: u = -a (x - x_w), v = a (y - y_w), p = 1 - a^2 ((x - x_w)^2 + (y - y_w)^2) / 2,
# on a grid where the balance's start and the line are cell centres: the wall's p = 1 to round-off.
PYTHONPATH="$SOURCE_DIR/scripts/post" "$MERIDIAN_PYTHON" - "$work/stagnation.h5" <<'PY' || fail "wall_pressure misread a stagnation point"
import sys
import h5py
import numpy as np
import wall_pressure
n, a, h = 64, 3.0, 1 / 64
y_wall = 16.5 * h
for x_wall, sign in ((26.5 * h, 1), (37.5 * h, -1)):
    x_faces, y_faces, centres = np.arange(n) * h, np.arange(n) * h, (np.arange(n) + 0.5) * h
    with h5py.File(sys.argv[1], "w") as f:
        f["state/u"] = -a * (x_faces[None, :] - x_wall) + 0 * centres[:, None]
        f["state/v"] = a * (y_faces[:, None] - y_wall) + 0 * centres[None, :]
        f["state/p"] = 1 - 0.5 * a ** 2 * ((centres[None, :] - x_wall) ** 2 + (centres[:, None] - y_wall) ** 2)
    p = wall_pressure.wall_pressure(wall_pressure.Fields(sys.argv[1], (1.0, 1.0)), (x_wall, y_wall), sign, 1e-3)
    print(f"wall pressure {p:.15f} (fluid towards {sign:+d} x)")
    assert abs(p - 1) < 1e-12, p
PY
echo "cavity post-processing ok"
