#!/usr/bin/env bash
# Cavity benchmark: the lid-driven cavity at Re = 100 with meridian's cfd_projection solver and with OpenFOAM's
# icoFoam, on the same N x N cells, at the same Courant number, one process each, run one after the other.
#
# Meridian: configs/cfd/lid_driven_cavity_re100.toml (unit square, lid speed 1, nu = 0.01) on N^2, Courant
# number COURANT (dt = COURANT / max(sum |u_a| / h_a), the lid speed on the first step; Crank-Nicolson
# viscosity has no viscous limit), to END_TIME, fields every OUTPUT_EVERY, no checkpoint.
# icoFoam: its cavity tutorial (side 0.1 m, lid 1 m/s; the tutorial's nu = 0.01 is Re 10, so nu = 0.001 for
# Re 100) on N x N x 1 cells, its own schemes and solvers (PISO, 2 correctors; U to 1e-5, p to 1e-6), the fixed
# dt = COURANT h / U (Courant number COURANT for the lid speed), to END_TIME L/U = END_TIME x 0.1 s, ASCII
# fields every OUTPUT_EVERY L/U.
# Times are in units of L/U for both (for icoFoam 0.1 s).
#
# What it measures, for each code:
#   s/step      meridian: the step's phases (compute, halo exchange, pressure and viscous solves) of its run
#               summary over its steps;
#               icoFoam: its ClockTime (wall seconds, whole ones; its ExecutionTime is CPU time, which leaves out
#               the time other work takes the core; used only when the run is under 10 s) from the first step to the last over the steps between (its writes
#               included, its start-up left out)
#   steady      the first output time t at which the steady residual max |u(t) - u(t - dT)| / dT (both
#               components, every cell, in units of U and L/U; dT = OUTPUT_EVERY) is below STEADY_TOLERANCE,
#               its step, and the time to get there = that step x s/step
#   Ghia        the largest deviations of u along x = L/2 and of v along y = L/2 from Ghia et al. (1982) at the
#               last output (END_TIME), in units of U (scripts/post/cavity_centrelines.py's centrelines)
# then lines a script can read:
#   ratio cavity-<N>-meridian-over-icofoam-step-time <meridian s/step / icoFoam s/step>
#   ratio cavity-<N>-meridian-over-icofoam-steady-time <meridian's time to steady / icoFoam's>
# Without OpenFOAM (no icoFoam on PATH after sourcing OPENFOAM_BASHRC) it says so and reports meridian alone.
#
# usage: bench/cavity_icofoam_benchmark.sh [--grid N] [BUILD_DIR]   (N default 128; BUILD_DIR default
#        build/release in the repository)
# environment: MERIDIAN          meridian binary             (default BUILD_DIR/apps/meridian)
#              END_TIME          end time, units of L/U      (default 25)
#              OUTPUT_EVERY      output interval, L/U        (default 0.5)
#              COURANT           Courant number of both      (default 0.5, the deck's)
#              STEADY_TOLERANCE  steady residual threshold   (default 1e-4: icoFoam's residual stalls near
#                                                            1.4e-5 at 128^2, the tutorial's U tolerance 1e-5)
#              OPENFOAM_BASHRC   OpenFOAM's environment, sourced in a subshell for icoFoam only
#                                                            (default /usr/share/openfoam/etc/bashrc, Debian's)
#              OPENFOAM_CAVITY   the icoFoam cavity tutorial (default Debian's openfoam-examples copy)
#              MPIRUN            MPI launcher command        (default mpirun)
#              BENCH_TIMEOUT     seconds allowed per run     (default 600)
set -euo pipefail

# shellcheck source=common.sh source-path=SCRIPTDIR
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
bench_grid_option "${BASH_SOURCE[0]}" 128 "$@"
bench_setup "${BASH_SOURCE[0]}" "" "${arguments[@]}"
end_time=${END_TIME:-25}
output_every=${OUTPUT_EVERY:-0.5}
courant=${COURANT:-0.5}
tolerance=${STEADY_TOLERANCE:-1e-4}
openfoam_bashrc=${OPENFOAM_BASHRC:-/usr/share/openfoam/etc/bashrc}
tutorial=${OPENFOAM_CAVITY:-/usr/share/doc/openfoam-examples/examples/incompressible/icoFoam/cavity/cavity}
deck="$repo_root/configs/cfd/lid_driven_cavity_re100.toml"
compare=("$repo_root/bench/cavity_compare.py" --tolerance "$tolerance")

python=$(bench_python h5py matplotlib)
[[ -n $python ]] || { echo "$bench_name: no Python with h5py and matplotlib found" >&2; exit 1; }
export MPLCONFIGDIR=$work_dir/matplotlib

# value FILE KEY: the value on cavity_compare.py's line `KEY value`.
value() { awk -v key="$2" '$1 == key { print $2 }' "$1"; }
declare -A step_seconds steady_time steady_step steady_seconds final_residual deviation_u deviation_v steps dt wall

# --- meridian ------------------------------------------------------------------------------------------
start=$(date +%s.%N)
bench_run_meridian meridian "cavity $grid^2 to t = $end_time" 1 "$deck" --set mesh.nx="$grid" --set mesh.ny="$grid" \
  --set projection.courant="$courant" --set run.end_time="$end_time" --set run.output_interval="$output_every" \
  --set run.checkpoint_every_minutes=0 --set run.progress_every=1000000 --set run.diagnostics_every=1000
wall[meridian]=$(awk -v start="$start" -v end="$(date +%s.%N)" 'BEGIN { printf "%.1f", end - start }')
read -r 'steps[meridian]' 'step_seconds[meridian]' < <(awk "$bench_summary_awk"'
  END { printf "%d %.4e\n", steps, step / steps }' "$work_dir/meridian.log")
dt[meridian]=$(awk -v t="$end_time" -v n="${steps[meridian]}" 'BEGIN { printf "%.4e (mean)", t / n }')
"$python" "${compare[@]}" meridian "$work_dir/meridian" >"$work_dir/meridian.compare" ||
  bench_fail_with_log "reading meridian's output failed" "$work_dir/meridian.compare"
codes=(meridian)

# --- icoFoam, in a subshell with OpenFOAM's environment --------------------------------------------------
# Debian's bashrc sets WM_PROJECT_DIR and the rest (the tools need them to find etc/controlDict) but, sourced
# outside a source tree, complains of missing foamEtcFile and foamCleanPath on stderr; harmless, so silenced.
openfoam_lidspeed=1 openfoam_length=0.1  # the tutorial's: m/s and m
openfoam_dt=$(awk -v c="$courant" -v l="$openfoam_length" -v n="$grid" -v u="$openfoam_lidspeed" \
  'BEGIN { printf "%.10g", c * l / n / u }')
case=$work_dir/icofoam
skip=""
# shellcheck disable=SC1090  # OpenFOAM's file, chosen at run time
if [[ ! -f $tutorial/system/blockMeshDict ]]; then
  skip="no icoFoam cavity tutorial at $tutorial (Debian: apt-get install openfoam; or set OPENFOAM_CAVITY)"
elif ! (set +u; [[ ! -f $openfoam_bashrc ]] || source "$openfoam_bashrc" 2>/dev/null; command -v icoFoam) >/dev/null; then
  skip="no icoFoam on PATH (Debian: apt-get install openfoam; or set OPENFOAM_BASHRC)"
fi
if [[ -n $skip ]]; then
  echo "OpenFOAM comparison skipped: $skip" >&2
else
  echo "icoFoam: cavity $grid^2 to t = $end_time L/U, dt $openfoam_dt s" >&2
  cp -r "$tutorial" "$case"
  chmod -R u+w "$case"
  start=$(date +%s.%N)
  (
    set +u
    # shellcheck disable=SC1090
    [[ ! -f $openfoam_bashrc ]] || source "$openfoam_bashrc" 2>/dev/null
    set -u
    cd "$case"
    foamDictionary -entry blocks -set "( hex (0 1 2 3 4 5 6 7) ($grid $grid 1) simpleGrading (1 1 1) )" \
      system/blockMeshDict >/dev/null
    foamDictionary -entry nu -set "$(awk -v u=$openfoam_lidspeed -v l=$openfoam_length 'BEGIN { print u * l / 100 }')" \
      constant/transportProperties >/dev/null
    for setting in "deltaT $openfoam_dt" "endTime $(awk -v t="$end_time" -v l=$openfoam_length 'BEGIN { print t * l }')" \
      "writeControl runTime" "writeInterval $(awk -v t="$output_every" -v l=$openfoam_length 'BEGIN { print t * l }')" \
      "writePrecision 10" "timePrecision 8"; do
      foamDictionary -entry "${setting%% *}" -set "${setting#* }" system/controlDict >/dev/null
    done
    blockMesh >blockMesh.log 2>&1
    timeout "$run_timeout_seconds" icoFoam >icoFoam.log 2>&1
    postProcess -func writeCellCentres -time 0 >postProcess.log 2>&1
  ) || bench_fail_with_log "icoFoam's case failed or timed out; the end of its log:" "$case/icoFoam.log"
  wall[icofoam]=$(awk -v start="$start" -v end="$(date +%s.%N)" 'BEGIN { printf "%.1f", end - start }')
  read -r 'steps[icofoam]' 'step_seconds[icofoam]' < <(awk '
    /^Time = / { steps++ }
    # ClockTime: wall seconds, like the timers of meridian, but whole seconds: CPU seconds (ExecutionTime) for a
    # run of under 10 s
    /^ExecutionTime = / { if (!steps_seen++) { cpu0 = $3; wall0 = $7 }; cpu = $3; wall = $7 }
    END { printf "%d %.4e\n", steps, (wall - wall0 >= 10 ? wall - wall0 : cpu - cpu0) / (steps - 1) }' "$case/icoFoam.log")
  dt[icofoam]="$openfoam_dt s = $(awk -v dt="$openfoam_dt" -v l=$openfoam_length -v u=$openfoam_lidspeed \
    'BEGIN { printf "%.4e", dt * u / l }')"
  "$python" "${compare[@]}" openfoam "$case" --length $openfoam_length --speed $openfoam_lidspeed \
    --dt "$openfoam_dt" >"$work_dir/icofoam.compare" ||
    bench_fail_with_log "reading icoFoam's output failed" "$work_dir/icofoam.compare"
  codes+=(icofoam)
fi

# --- report ------------------------------------------------------------------------------------------
for code in "${codes[@]}"; do
  file=$work_dir/$code.compare
  steady_time[$code]=$(value "$file" steady_time)
  steady_step[$code]=$(value "$file" steady_step)
  final_residual[$code]=$(value "$file" final_residual)
  deviation_u[$code]=$(value "$file" deviation_u)
  deviation_v[$code]=$(value "$file" deviation_v)
  steady_seconds[$code]=$(awk -v s="${steady_step[$code]}" -v t="${step_seconds[$code]}" \
    'BEGIN { if (s == "nan") print "not reached"; else printf "%.1f", s * t }')
done

echo
echo "lid-driven cavity, Re 100, $grid x $grid cells, Courant $courant, to t = $end_time L/U, one process each" \
  "($(nproc) cores; $(date -u '+%Y-%m-%d %H:%M UTC'))"
echo "steady: max |u(t) - u(t - $output_every)| / $output_every < $tolerance (units of U, L/U); Ghia: at t = $end_time"
echo
printf "%-9s %7s %-26s %11s %9s %9s %8s %12s %11s %10s %10s\n" code steps "dt (L/U)" s/step wall_s \
  steady_t steady_n steady_s final_res ghia_u ghia_v
for code in "${codes[@]}"; do
  printf "%-9s %7d %-26s %11s %9s %9s %8s %12s %11s %10s %10s\n" "$code" "${steps[$code]}" "${dt[$code]}" \
    "${step_seconds[$code]}" "${wall[$code]}" "${steady_time[$code]}" "${steady_step[$code]}" \
    "${steady_seconds[$code]}" "${final_residual[$code]}" "${deviation_u[$code]}" "${deviation_v[$code]}"
done
echo
if [[ ${#codes[@]} -eq 2 ]]; then
  awk -v m="${step_seconds[meridian]}" -v o="${step_seconds[icofoam]}" -v n="$grid" \
    'BEGIN { printf "ratio cavity-%d-meridian-over-icofoam-step-time %.3f\n", n, m / o }'
  awk -v m="${steady_seconds[meridian]}" -v o="${steady_seconds[icofoam]}" -v n="$grid" \
    'BEGIN { if (m + 0 > 0 && o + 0 > 0) printf "ratio cavity-%d-meridian-over-icofoam-steady-time %.3f\n", n, m / o
             else printf "ratio cavity-%d-meridian-over-icofoam-steady-time nan (not reached by both)\n", n }'
else
  echo "OpenFOAM comparison skipped: $skip"
fi
