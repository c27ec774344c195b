#!/usr/bin/env bash
# 3-D cavity benchmark: time per step of the shipped 3-D lid-driven cavity (configs/cfd/lid_driven_cavity_3d.toml,
# Re 100, Crank-Nicolson viscosity) at N^3 cells with meridian's pressure and viscous step solved directly and by
# CG (projection.pressure_solver = "direct" / "krylov"), on 1 and 2 ranks, and with OpenFOAM's icoFoam on a
# blockMesh cube of the same cells, serially, one run after the other.
#
# Meridian: the deck at N^3, `courant` 0.5, output, checkpoints and progress off. A step's time is the difference
# of two runs' step phases (compute, pressure solve, halo exchange: the run summary's phases less output,
# diagnostics and start-up), WARMUP + STEPS steps less WARMUP steps, over STEPS: the first steps' one-time costs
# (first touches, plans) cancel. Also the pressure solve's share of those phases.
# icoFoam: its cavity tutorial made a cube (side 0.1 m, lid 1 m/s along x, nu 0.001: Re 100; the empty front and
# back made no-slip walls) of N^3 cells, its own schemes and solvers as in bench/cavity_icofoam_benchmark.sh (PISO
# with 2 correctors, p to 1e-6 by DIC-PCG, U to 1e-5), dt = 0.5 h / U; a step's time is its ExecutionTime (CPU
# seconds; one serial process) from step WARMUP to step WARMUP + STEPS, over STEPS.
#
# Per run: s/step, cell-updates/s (N^3 / s/step, all ranks together), s/step x ranks (time per step per core),
# the pressure solve's share; then lines a script can read:
#   ratio cavity3d-<N>-direct-over-krylov-step-time-<R>ranks <direct s/step / krylov s/step>
#   ratio cavity3d-<N>-meridian-over-icofoam-step-time-per-core <meridian direct, 1 rank / icoFoam>
# Without OpenFOAM (no icoFoam after sourcing OPENFOAM_BASHRC) it says so and reports meridian alone.
#
# usage: bench/cavity3d_benchmark.sh [--grid N] [BUILD_DIR]   (N default 64; BUILD_DIR default build/release)
# environment: MERIDIAN          meridian binary               (default BUILD_DIR/apps/meridian)
#              WARMUP, STEPS     steps left out, steps timed   (default 20, 20)
#              OPENFOAM_BASHRC   OpenFOAM's environment        (default /usr/share/openfoam/etc/bashrc, Debian's)
#              OPENFOAM_CAVITY   the icoFoam cavity tutorial   (default Debian's openfoam-examples copy)
#              MPIRUN            MPI launcher command          (default mpirun)
#              BENCH_TIMEOUT     seconds allowed per run       (default 600)
set -euo pipefail

# shellcheck source=common.sh source-path=SCRIPTDIR
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
bench_grid_option "${BASH_SOURCE[0]}" 64 "$@"
bench_setup "${BASH_SOURCE[0]}" "" "${arguments[@]}"
warmup=${WARMUP:-20}
steps=${STEPS:-20}
openfoam_bashrc=${OPENFOAM_BASHRC:-/usr/share/openfoam/etc/bashrc}
tutorial=${OPENFOAM_CAVITY:-/usr/share/doc/openfoam-examples/examples/incompressible/icoFoam/cavity/cavity}
deck="$repo_root/configs/cfd/lid_driven_cavity_3d.toml"
cells=$((grid * grid * grid))

# step_phases LOG: the seconds of the time step's phases in the run summary (bench_summary_awk's `step`) and of
# the pressure solve's ("direct poisson" or "krylov poisson").
step_phases() {
  awk "$bench_summary_awk"'
    $NF ~ /%$/ && /poisson/ { pressure += $(NF - 1) }
    END { printf "%.6f %.6f\n", step, pressure }' "$1"
}

declare -a rows
# --- meridian ------------------------------------------------------------------------------------------------
for ranks in 1 2; do
  for solver in direct krylov; do
    short=()
    for count in "$warmup" $((warmup + steps)); do
      bench_run_meridian "$solver-$ranks-$count" "cavity $grid^3, $solver pressure solve, $count steps" "$ranks" "$deck" \
        --set mesh.nx="$grid" --set mesh.ny="$grid" --set mesh.nz="$grid" --set run.max_steps="$count" \
        --set run.end_time=1e9 --set run.output_interval=1e9 --set run.checkpoint_every_minutes=0 \
        --set run.progress_every=1000000 --set run.diagnostics_every=1000000 \
        --set projection.pressure_solver="\"$solver\""
      read -r total pressure < <(step_phases "$work_dir/$solver-$ranks-$count.log")
      short+=("$total" "$pressure")
    done
    rows+=("$(awk -v a="${short[0]}" -v ap="${short[1]}" -v b="${short[2]}" -v bp="${short[3]}" -v n="$steps" \
      -v c="$cells" -v r="$ranks" -v s="$solver" 'BEGIN {
        t = (b - a) / n; printf "meridian-%s %d %.4e %.3e %.4e %.1f%%\n", s, r, t, c / t, t * r, 100 * (bp - ap) / (b - a) }')")
  done
done

# --- icoFoam, in a subshell with OpenFOAM's environment ----------------------------------------------------------
skip=""
# shellcheck disable=SC1090  # OpenFOAM's file, chosen at run time
if [[ ! -f $tutorial/system/blockMeshDict ]]; then
  skip="no icoFoam cavity tutorial at $tutorial (Debian: apt-get install openfoam; or set OPENFOAM_CAVITY)"
elif ! (set +u; [[ ! -f $openfoam_bashrc ]] || source "$openfoam_bashrc" 2>/dev/null; command -v icoFoam) >/dev/null; then
  skip="no icoFoam on PATH (Debian: apt-get install openfoam; or set OPENFOAM_BASHRC)"
fi
if [[ -z $skip ]]; then
  case=$work_dir/icofoam
  dt=$(awk -v n="$grid" 'BEGIN { printf "%.10g", 0.5 * 0.1 / n }')  # Courant 0.5 for the lid: 0.5 h / U
  echo "icoFoam: cavity $grid^3, $((warmup + steps)) steps of $dt s" >&2
  cp -r "$tutorial" "$case"
  chmod -R u+w "$case"
  (
    set +u
    # shellcheck disable=SC1090  # OpenFOAM's file, chosen at run time
    [[ ! -f $openfoam_bashrc ]] || source "$openfoam_bashrc" 2>/dev/null
    set -u
    cd "$case"
    # The tutorial's slab (0.1 x 0.1 x 0.01 m, one cell deep, front and back empty) made a cube of walls.
    foamDictionary -entry vertices -set "( (0 0 0) (1 0 0) (1 1 0) (0 1 0) (0 0 1) (1 0 1) (1 1 1) (0 1 1) )" \
      system/blockMeshDict >/dev/null
    foamDictionary -entry blocks -set "( hex (0 1 2 3 4 5 6 7) ($grid $grid $grid) simpleGrading (1 1 1) )" \
      system/blockMeshDict >/dev/null
    sed -i 's/type *empty *;/type wall;/' system/blockMeshDict  # foamDictionary writes "type empty ;"
    foamDictionary -entry boundaryField/frontAndBack/type -set noSlip 0/U >/dev/null
    foamDictionary -entry boundaryField/frontAndBack/type -set zeroGradient 0/p >/dev/null
    foamDictionary -entry nu -set 0.001 constant/transportProperties >/dev/null
    for setting in "deltaT $dt" "endTime $(awk -v dt="$dt" -v n=$((warmup + steps)) 'BEGIN { print dt * (n + 0.5) }')" \
      "writeControl timeStep" "writeInterval 100000"; do
      foamDictionary -entry "${setting%% *}" -set "${setting#* }" system/controlDict >/dev/null
    done
    blockMesh >blockMesh.log 2>&1
    timeout "$run_timeout_seconds" icoFoam >icoFoam.log 2>&1
  ) || bench_fail_with_log "icoFoam's case failed or timed out; the end of its log:" "$case/icoFoam.log"
  rows+=("$(awk -v w="$warmup" -v n="$steps" -v c="$cells" '
    /^Time = / { step++ }
    /^ExecutionTime = / { if (step == w) start = $3; if (step == w + n) end = $3 }
    END { t = (end - start) / n; printf "icoFoam 1 %.4e %.3e %.4e -\n", t, c / t, t }' "$case/icoFoam.log")")
fi

# --- report ------------------------------------------------------------------------------------------------------
echo
echo "3-D lid-driven cavity, Re 100, $grid^3 cells; s/step over steps $((warmup + 1))-$((warmup + steps))" \
  "($(nproc) cores; $(date -u '+%Y-%m-%d %H:%M UTC'))"
echo
printf "%-18s %5s %11s %14s %15s %9s\n" code ranks s/step cell-updates/s "s/step x ranks" pressure
for row in "${rows[@]}"; do
  # shellcheck disable=SC2086  # the row's words are the columns
  printf "%-18s %5s %11s %14s %15s %9s\n" $row
done
echo
printf '%s\n' "${rows[@]}" | awk -v n="$grid" '
  { t[$1 " " $2] = $3 }
  END {
    for (r = 1; r <= 2; ++r)
      if (("meridian-direct " r) in t && ("meridian-krylov " r) in t)
        printf "ratio cavity3d-%d-direct-over-krylov-step-time-%dranks %.3f\n", n, r, t["meridian-direct " r] / t["meridian-krylov " r]
    if ("icoFoam 1" in t)
      printf "ratio cavity3d-%d-meridian-over-icofoam-step-time-per-core %.3f\n", n, t["meridian-direct 1"] / t["icoFoam 1"]
  }'
[[ -z $skip ]] || echo "OpenFOAM comparison skipped: $skip"
