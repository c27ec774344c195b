# The post-processing scripts turn a short real run into PNG files of the documented pixel sizes
# that are not blank, and print the paths they write.
source "$(dirname "$0")/common.sh"
export MPLCONFIGDIR=$work/matplotlib PYTHONDONTWRITEBYTECODE=1  # no caches in the home or source tree
post() {  # post SCRIPT ARGS...: runs scripts/post/SCRIPT.py
  "$MERIDIAN_PYTHON" "$SOURCE_DIR/scripts/post/$1.py" "${@:2}"
}
check_png() {  # check_png WIDTHxHEIGHT PNG... [options of check_png.py]
  "$MERIDIAN_PYTHON" "$SOURCE_DIR/tests/integration/check_png.py" "$@" > /dev/null || fail "check_png.py $*"
}
# expect_output EXPECTED COMMAND...: the command succeeds and prints exactly EXPECTED.
expect_output() {
  local expected=$1 printed
  shift
  printed=$("$@") || fail "$* exited with an error"
  [ "$printed" = "$expected" ] || fail "$*: printed '$printed', expected '$expected'"
}

for script in plot_fields plot_diagnostics run_summary; do
  post "$script" --help > /dev/null || fail "$script --help"
done

# A whole period of the deformational flow, so the error norms are known at the end (t = 1.5).
run=$work/run
meridian_on 2 run "$SOURCE_DIR/configs/advection/deformational_flow.toml" --set mesh.nx=32 --set mesh.ny=32 \
  --set run.output_interval=0.5 --output "$run" > "$work/run.log"
# A small 3-D run: its field images are the middle z slice.
meridian_on 2 run "$SOURCE_DIR/configs/advection/uniform_3d.toml" --set mesh.nx=12 --set mesh.ny=10 \
  --set mesh.nz=8 --set run.end_time=0.25 --set run.output_interval=0.25 --output "$work/run3d" > "$work/run3d.log"

field_size=720x600  # FIELD_FIGURE, DIAGNOSTICS_FIGURE and SUMMARY_FIGURE at 120 dpi in meridian_post.py
field_colour=0.3    # the image fills about 60% of a field figure
expect_output "$run/cosine_bell_00003.png
$run/gaussian_00003.png" post plot_fields "$run"
expect_output "$work/png/gaussian_00000.png" post plot_fields "$run" --index 0 --field gaussian --out "$work/png"
expect_output "$work/png/cosine_bell_00001.png" post plot_fields "$run" --time 0.6 --field cosine_bell --out "$work/png"
expect_output "$work/png/sine_wave_00001.png" post plot_fields "$work/run3d" --field sine_wave --out "$work/png"
check_png "$field_size" "$run"/{cosine_bell,gaussian}_00003.png "$work"/png/*_0000?.png --min-coloured "$field_colour"
! post plot_fields "$run" --field no_such_tracer 2> /dev/null || fail "plot_fields accepted an unknown field"

expect_output "$run/diagnostics.png" post plot_diagnostics "$run"
check_png 840x1080 "$run/diagnostics.png"

post run_summary "$run" --out "$work/png" > "$work/summary.txt" || fail "run_summary exited with an error"
for line in "solver         advection" "layout         2 ranks" "core-hours" "throughput" "halo exchange" \
  "final error of cosine_bell" "$work/png/summary.png"; do
  grep -qF "$line" "$work/summary.txt" || fail "run_summary printed no '$line'"
done
check_png 1020x1320 "$work/png/summary.png"
echo "post-processing scripts ok"
