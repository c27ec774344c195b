# The atmosphere solver's post-processing: atmosphere_panels.py draws theta' panels and the energy and mass
# drift of a short density current (Straka's contour levels) and of a short rising thermal (levels of its
# own), in PNGs of the documented sizes that are not blank; density_current.py measures the front of the
# density current and refuses the thermal, which has none; bryan_fritsch.py draws Bryan & Fritsch's moist bubble
# beside its dry twin, prints their measures and refuses the runs given the wrong way round.
source "$(dirname "$0")/post_common.sh"
quiet=(--set run.progress_every=100000 --set run.checkpoint_every_minutes=0)

for script in atmosphere_panels density_current bryan_fritsch; do
  post "$script" --help > /dev/null || fail "$script --help"
done

# 400 m cells to 300 s, outputs every 100 s: four panels of the 8:1 domain.
current=$work/current
meridian_on 2 run "$SOURCE_DIR/configs/atmosphere/density_current.toml" --set mesh.nx=128 --set mesh.nz=16 \
  --set run.end_time=300 --set run.output_interval=100 "${quiet[@]}" --output "$current" > "$work/current.log"
expect_output "$current/theta_panels.png
$current/energy_mass.png" post atmosphere_panels "$current"
check_png 1200x876 "$current/theta_panels.png" --min-coloured 0.01  # the cold air only: about 2% coloured
check_png 840x720 "$current/energy_mass.png" --min-coloured 0.003  # two lines: about 0.6%
post density_current "$current" > "$work/front.txt" || fail "density_current exited with an error"
front=$(sed -n 's/^front position: \([0-9.]*\) km .*/\1/p' "$work/front.txt")
# At 300 s the front has spread about 4.5 km from the centre (measured 4.53 km at 400 m).
"$MERIDIAN_PYTHON" -c "import sys; sys.exit(not 3.5 < float(sys.argv[1]) < 5.5)" "${front:-nan}" ||
  fail "density_current: front at '$front' km after 300 s"

# The rising thermal, 500 m cells to 200 s: three panels of the 2:1 domain, and one with --time.
thermal=$work/thermal
meridian_on 2 run "$SOURCE_DIR/configs/atmosphere/rising_thermal.toml" --set mesh.nx=40 --set mesh.nz=20 \
  --set run.end_time=200 --set run.output_interval=100 "${quiet[@]}" --output "$thermal" > "$work/thermal.log"
expect_output "$thermal/theta_panels.png
$thermal/energy_mass.png" post atmosphere_panels "$thermal"
check_png 1200x1206 "$thermal/theta_panels.png" --min-coloured 0.02  # about 5%
check_png 840x720 "$thermal/energy_mass.png" --min-coloured 0.003
expect_output "$work/png/theta_panels.png
$work/png/energy_mass.png" post atmosphere_panels "$thermal" --time 200 --out "$work/png"
check_png 1200x474 "$work/png/theta_panels.png" --min-coloured 0.02
expect_refusal "not a density current" post density_current "$thermal"

# Bryan & Fritsch's moist bubble and its dry twin, 500 m cells to 200 s (about 4 s for both).
moist=$work/bf_moist dry=$work/bf_dry
for twin in moist dry; do
  meridian_on 2 run "$SOURCE_DIR/configs/atmosphere/bryan_fritsch_$twin.toml" --set mesh.nx=40 --set mesh.nz=20 \
    --set run.end_time=200 --set run.output_interval=100 "${quiet[@]}" --output "$work/bf_$twin" > "$work/bf_$twin.log"
done
post bryan_fritsch "$moist" "$dry" > "$work/bf.txt" || fail "bryan_fritsch exited with an error"
[ "$(tail -n 1 "$work/bf.txt")" = "$moist/bryan_fritsch.png" ] || fail "bryan_fritsch printed $(cat "$work/bf.txt")"
[ "$(grep -c -E '^(moist|dry) (max w|top|mirror asymmetry): ' "$work/bf.txt")" = 6 ] || fail "bryan_fritsch: measures"
check_png 1800x840 "$moist/bryan_fritsch.png" --min-coloured 0.03  # about 9%
# The moist bubble starts with the dry one's buoyancy: at 200 s their max w agree to about 5% (1.04 measured).
ratio=$(sed -n 's|^moist / dry: max w \([0-9.]*\), top .*|\1|p' "$work/bf.txt")
"$MERIDIAN_PYTHON" -c "import sys; sys.exit(not 0.9 < float(sys.argv[1]) < 1.1)" "${ratio:-nan}" ||
  fail "bryan_fritsch: moist / dry max w '$ratio' at 200 s"
expect_refusal "no field theta_e_perturbation" post bryan_fritsch "$dry" "$moist"

# A run of another solver has no theta'.
advection=$work/advection
meridian_on 1 run "$SOURCE_DIR/configs/advection/deformational_flow.toml" --set mesh.nx=16 --set mesh.ny=16 \
  --set run.end_time=0.1 "${quiet[@]}" --output "$advection" > "$work/advection.log"
expect_refusal "no field theta_perturbation" post atmosphere_panels "$advection"
echo "atmosphere post-processing ok"
