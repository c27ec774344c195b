# The post-processing scripts turn short real runs of each solver (advection 2-D and 3-D, CFD, Monte
# Carlo) into PNG files of the documented pixel sizes that are not blank, and print the paths they
# write; the scripts that need what a run lacks (fields, spectra) say so and fail.
source "$(dirname "$0")/post_common.sh"

for script in plot_fields plot_diagnostics run_summary plot_spectra; do
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
for line in "solver         advection" "layout         2 ranks" "core-hours" "throughput" "GB peak resident" "halo exchange" \
  "final error of cosine_bell" "$work/png/summary.png"; do
  grep -qF "$line" "$work/summary.txt" || fail "run_summary printed no '$line'"
done
check_png 1020x1320 "$work/png/summary.png"
expect_refusal "no field file has a spectrum/energy" post plot_spectra "$run"

# CFD: the Taylor-Green deck at Re = 1600 (so the dissipation panel has its reference curve), 16^3 to t = 1.
cfd=$work/cfd
meridian_on 2 run "$SOURCE_DIR/configs/cfd/taylor_green_re1600.toml" --set mesh.nx=16 --set mesh.ny=16 \
  --set mesh.nz=16 --set run.end_time=1 --set run.output_interval=0.5 --output "$cfd" > "$work/cfd.log"
# Every stored field of the last output (the middle z slice), then the derived vorticity magnitude.
expect_output "$(for field in u v vorticity_x vorticity_y vorticity_z w vorticity_magnitude; do
  echo "$cfd/${field}_00002.png"; done)" post plot_fields "$cfd"
expect_output "$work/png_cfd/vorticity_magnitude_00000.png" \
  post plot_fields "$cfd" --index 0 --field vorticity_magnitude --out "$work/png_cfd"
check_png "$field_size" "$cfd"/*_00002.png "$work/png_cfd/vorticity_magnitude_00000.png" --min-coloured "$field_colour"
expect_output "$cfd/diagnostics.png" post plot_diagnostics "$cfd"
check_png 840x1080 "$cfd/diagnostics.png"
expect_output "$cfd/spectra.png" post plot_spectra "$cfd"
check_png 840x600 "$cfd/spectra.png"  # CFD_FIGURE
post run_summary "$cfd" --out "$work/png_cfd" > "$work/summary_cfd.txt" || fail "run_summary (CFD) failed"
for line in "solver         cfd_spectral" "16 x 16 x 16 modes" "fft transpose" "kinetic energy 0.125 -> " \
  "max dissipation    2 nu enstrophy" "reference (512^3 spectral) 0.012858" "max |div u|" \
  "$work/png_cfd/summary.png"; do
  grep -qF "$line" "$work/summary_cfd.txt" || fail "run_summary (CFD) printed no '$line'"
done
check_png 1020x1320 "$work/png_cfd/summary.png"

# Monte Carlo: the portfolio on 20000 paths (5 blocks of 4096) of 12 steps, with no early stop.
mc=$work/mc
meridian_on 2 run "$SOURCE_DIR/configs/finance/portfolio.toml" --set finance.paths=20000 --set finance.steps=12 \
  --set finance.target_standard_error=0 --output "$mc" > "$work/mc.log"
mc_colour=0.1  # the 95% confidence bands fill about a quarter of the Monte Carlo figures
expect_output "$mc/diagnostics.png" post plot_diagnostics "$mc"
check_png 840x1080 "$mc/diagnostics.png" --min-coloured "$mc_colour"
post run_summary "$mc" --out "$work/png_mc" > "$work/summary_mc.txt" || fail "run_summary (Monte Carlo) failed"
for line in "solver         monte_carlo" "after 20480 paths:" "(MC-exact)/se" "asian_arithmetic_call" "lookback_call" \
  "$work/png_mc/summary.png"; do
  grep -qF "$line" "$work/summary_mc.txt" || fail "run_summary (Monte Carlo) printed no '$line'"
done
# The European call has a closed form (Black-Scholes): price, error, closed form and (MC - exact)/se,
# which must be a plausible draw (|z| < 3), not merely a number in the column.
z=$(awk '$1 == "european_call" {print $5}' "$work/summary_mc.txt")
"$MERIDIAN_PYTHON" -c "import sys; sys.exit(0 if abs(float(sys.argv[1])) < 3 else 1)" "${z:-nan}" \
  || fail "run_summary (Monte Carlo): european_call (MC-exact)/se is '$z', not |z| < 3"
check_png 1020x1320 "$work/png_mc/summary.png" --min-coloured "$mc_colour"
# Its field files hold results/, no fields/: the field scripts say so and fail.
expect_refusal "no fields/ group" post plot_fields "$mc"
expect_refusal "no field file has a spectrum/energy" post plot_spectra "$mc"
expect_refusal "a monte_carlo run writes no fields" post run_summary "$mc" --field price --out "$work/png_mc"
echo "post-processing scripts ok"
