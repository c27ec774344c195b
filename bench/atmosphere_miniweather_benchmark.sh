#!/usr/bin/env bash
# Atmosphere benchmark beside miniWeather: the rising thermal with meridian's atmosphere solver and with
# miniWeather's C MPI code (mrnorman/miniWeather, miniWeather_mpi.cpp) on the same cells, the same fixed dt and
# the same numerics, on 1 and 2 MPI ranks, each run REPEATS times, the fastest reported.
#
# The case (one place below, the `case` block): miniWeather's thermal, 20 km x 10 km, 400 x 200 cells of 50 m,
# 100 simulated seconds at miniWeather's fixed dt = min(dx, dz) / 450 m/s x 1.5 = 1/6 s (600 steps, the last
# one a few ulps short on both sides), 4th-order face reconstruction, hyperviscosity 0.05, dimensional
# splitting (x then z, swapped every step), periodic sides. Both codes split x over the ranks (miniWeather
# cannot split z), so meridian gets the process grid [RANKS, 1, 0].
#
# miniWeather's grid, simulated time and initial state are compile-time macros, so MINIWEATHER_EXE must be
# built for this case, e.g. (nothing of miniWeather is in this repository):
#   mpicxx -O3 -march=native -D_NX=400 -D_NZ=200 -D_SIM_TIME=100 -D_OUT_FREQ=-1 -D_DATA_SPEC=2 -DNO_INFORM \
#     miniWeather_mpi.cpp -o mw_thermal_400x200_100s
# (Upstream's code includes pnetcdf.h even with output off; Debian's PnetCDF is an OpenMPI build, so a stub
# header of no-op ncmpi_* functions beside it serves.) The script checks the grid and dt miniWeather prints
# and, where it prints a `max_abs_w: W [theta_min, theta_max]` line (upstream's does not: it prints d_mass and
# d_te only), that its final max |w| and theta' range are meridian's (to 1e-3 of max |w| and of the largest
# theta'; the codes agree to 1e-4 m/s and 2e-5 K): a binary built for another simulated time or initial
# state is refused, with the reason. Without MINIWEATHER_EXE (or with one that is
# not executable or is refused) it says `miniWeather comparison skipped: ...` and reports meridian alone.
#
# What it measures, for each code and rank count:
#   s to 100 s  the time loop alone: meridian's step phases (compute + halo exchange of its run summary;
#               start-up, output and checkpoint left out), miniWeather's printed `CPU Time` (a steady_clock
#               wall time around its time loop, so its start-up is left out too)
#   cell-upd/s  cells x steps / that time; a cell-update is one cell advanced one full time step (both
#               directional sweeps, 6 RK stages)
#   d_mass, d_te  the relative change of total mass and of total energy from t = 0 to 100 s, each code's own:
#               meridian's total energy has the potential energy and (u^2 + w^2) / 2; miniWeather's te is
#               rho (u^2 + w^2) + rho cv T, no potential energy, so the two d_te are different quantities
#               (tests/test_atmosphere.cpp compares meridian with miniWeather's own definition)
#   triad       meridian's bandwidth at the byte model below, as a fraction of the STREAM triad on as many
#               cores as ranks (1 rank against one copy, 2 against two copies at once)
#   halo        meridian's halo exchange as a share of its step (rank 0's run summary)
# then `ratio atmosphere-400x200-<R>rank-meridian-over-miniweather <cell-upd/s ratio>` per rank count.
#
# Byte model (meridian, per cell-update; neighbour rows from cache, write-allocate not counted): every RK
# stage runs two kernels over the rank's cells, the face fluxes (read the forcing state's 4 components, write
# 4 face fluxes: 64 B) and the tendencies (read the 4 fluxes, the 4 components of the sweep's initial state,
# the forcing's density for the buoyancy, write 4 components: 104 B): 168 B a stage, 6 stages a step:
#   6 x (2 x 32 + 3 x 32 + 8) = 1008 B per cell-update
# The halo fills touch 2 rows or columns of 404 or 204 and are left out. At 400 x 200 the state, the stage and
# the fluxes are 7.8 MB per rank, inside this machine's L3, so the triad (arrays far beyond any cache) is the
# bandwidth of memory, not of the cache these arrays sit in: a fraction above 1 is possible.
#
# usage: bench/atmosphere_miniweather_benchmark.sh [BUILD_DIR]   (default: build/release in the repository)
# environment: MINIWEATHER_EXE  miniWeather built for this case (see above; unset: meridian alone)
#              REPEATS          runs of each code and rank count, the fastest reported (default 3)
#              STREAM_TRIAD     stream_triad binary         (default BUILD_DIR/bench/stream_triad)
#              MERIDIAN         meridian binary             (default BUILD_DIR/apps/meridian)
#              MPIRUN           MPI launcher command        (default mpirun)
#              BENCH_TIMEOUT    seconds allowed per run     (default 600)
set -euo pipefail

# shellcheck source=common.sh source-path=SCRIPTDIR
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
bench_setup "${BASH_SOURCE[0]}" stream_triad "$@"
stream_triad=$reference_binary
repeats=${REPEATS:-3}
[[ $repeats =~ ^[1-9][0-9]*$ ]] || { echo "$bench_name: REPEATS=$repeats: need a positive integer" >&2; exit 2; }
python=$(bench_python h5py)
[[ -n $python ]] || { echo "$bench_name: no Python with h5py found (meridian's diagnostics.h5)" >&2; exit 1; }

# --- the case --------------------------------------------------------------------------------------------
nx=400 nz=200            # cells along x and the vertical
width=20000 height=10000 # m, miniWeather's xlen and zlen
end_time=100             # s
hyperviscosity=0.05      # miniWeather's hv_beta
# miniWeather's dt = dmin(dx, dz) / max_speed * cfl (450 m/s, 1.5), the same double operations, all 17 digits.
dt=$(awk -v w=$width -v h=$height -v nx=$nx -v nz=$nz \
  'BEGIN { dx = w / nx; dz = h / nz; printf "%.17g", (dx < dz ? dx : dz) / 450 * 1.5 }')
# miniWeather's steps to end_time: its loop, shortening the step that would pass the end (awk's doubles).
steps=$(awk -v dt="$dt" -v end=$end_time \
  'BEGIN { while (t < end) { d = (t + dt > end) ? end - t : dt; t += d; n++ }; print n }')
cells=$((nx * nz))
bytes_per_update=$((6 * (2 * 32 + 3 * 32 + 8)))
deck="$repo_root/configs/atmosphere/rising_thermal.toml"
meridian_case=(--set mesh.nx="$nx" --set mesh.nz="$nz" --set atmosphere.case=thermal
  --set atmosphere.width="$width" --set atmosphere.height="$height" --set atmosphere.surface_theta=300
  --set atmosphere.sides=periodic --set atmosphere.dt="$dt" --set atmosphere.hyperviscosity="$hyperviscosity"
  --set atmosphere.reconstruction=fourth_order --set atmosphere.splitting=alternating
  --set run.end_time="$end_time" --set run.output_interval=0 --set run.checkpoint_every_minutes=0
  --set run.checkpoint_every_steps=0 --set run.progress_every=1000000 --set run.diagnostics_every=1000000)

# --- miniWeather: usable? ----------------------------------------------------------------------------------
miniweather=${MINIWEATHER_EXE:-}
skip=""
if [[ -z $miniweather ]]; then
  skip="MINIWEATHER_EXE is not set"
elif [[ ! -x $miniweather ]]; then
  skip="MINIWEATHER_EXE=$miniweather is not an executable file"
fi

# run_miniweather RUN RANKS: runs miniWeather in work_dir/RUN (its output.nc, if built with output, lands
# there) and prints `seconds d_mass d_te max_abs_w theta_min theta_max steps nx nz dt` from its log (the steps
# are its loop's, replayed above: it does not print them).
run_miniweather() {
  local run=$1 ranks=$2
  echo "miniWeather: thermal on $ranks rank(s)" >&2
  mkdir -p "$work_dir/$run"
  (cd "$work_dir/$run" && timeout "$run_timeout_seconds" "${mpirun[@]}" -n "$ranks" "$miniweather") \
    >"$work_dir/$run.log" 2>&1 || bench_fail_with_log "miniWeather on $ranks rank(s) failed or timed out:" \
    "$work_dir/$run.log"
  awk -v steps="$steps" '/^nx_glob, nz_glob:/ { nx = $3; nz = $4 }
       /^dt:/ { dt = $2 }
       /^CPU Time:/ { seconds = $3 }
       /^d_mass:/ { mass = $2 }
       /^d_te:/ { te = $2 }
       /^max_abs_w:/ { w = $2; range = $0; sub(/.*\[/, "", range); sub(/\].*/, "", range); split(range, r, ", *") }
       END { if (seconds == "" || te == "") exit 1
             print seconds, mass, te, (w == "" ? "nan" : w), (w == "" ? "nan" : r[1]), (w == "" ? "nan" : r[2]), steps,
                   nx, nz, dt }' \
    "$work_dir/$run.log" || bench_fail_with_log "no CPU Time, d_mass and d_te in miniWeather's log:" "$work_dir/$run.log"
}

# run_meridian RUN RANKS: one meridian run; prints `seconds d_mass d_te max_abs_w theta_min theta_max steps
# halo_share` (the halo exchange's share of the step on rank 0).
run_meridian() {
  local run=$1 ranks=$2
  bench_run_meridian "$run" "thermal ${nx}x$nz to t = $end_time s" "$ranks" "$deck" "${meridian_case[@]}" \
    --set "mesh.process_grid=[$ranks, 1, 0]"
  local log="$work_dir/$run.log" timing conservation
  timing=$(awk "$bench_summary_awk"'
    $1 == "halo" && $2 == "exchange" { halo = $3 }
    END { if (!steps) exit 1; printf "%.6e %d %.4f\n", compute + halo, steps, halo / (compute + halo) }' "$log") ||
    bench_fail_with_log "no run summary in $log:" "$log"
  # The first and last records of the diagnostics: t = 0 and the end (both output times).
  conservation=$("$python" - "$work_dir/$run/diagnostics.h5" <<'EOF'
import sys
import h5py
with h5py.File(sys.argv[1], "r") as f:
    d = f["diagnostics"]
    mass, energy = d["total_mass"][...], d["total_energy"][...]
    print(f"{(mass[-1] - mass[0]) / mass[0]:.6e} {(energy[-1] - energy[0]) / energy[0]:.6e}"
          f" {d['max_abs_w'][-1]:.6f} {d['min_theta_perturbation'][-1]:.6f} {d['max_theta_perturbation'][-1]:.6f}")
EOF
  ) || bench_fail_with_log "reading $work_dir/$run/diagnostics.h5 failed" "$log"
  read -r seconds run_steps halo_share <<<"$timing"
  echo "$seconds $conservation $run_steps $halo_share"
}

# A miniWeather binary built for another case is refused before the repeats: its grid and dt must be ours.
if [[ -z $skip ]]; then
  read -r _ _ _ _ _ _ _ mw_nx mw_nz mw_dt < <(run_miniweather miniweather-check 1)
  if [[ $mw_nx != "$nx" || $mw_nz != "$nz" ]] ||
    ! awk -v a="$mw_dt" -v b="$dt" 'BEGIN { exit !(a - b < 1e-6 && b - a < 1e-6) }'; then
    skip="$miniweather runs ${mw_nx:-?} x ${mw_nz:-?} cells at dt ${mw_dt:-?} s, not $nx x $nz at $dt s (rebuild it with -D_NX=$nx -D_NZ=$nz)"
  fi
fi
[[ -z $skip ]] || echo "miniWeather comparison skipped: $skip" >&2

# --- the runs: each repeat runs every code and rank count once, so a busy spell slows them alike ----------
declare -A best
codes=(meridian)
[[ -n $skip ]] || codes+=(miniweather)
for ((repeat = 1; repeat <= repeats; ++repeat)); do
  for ranks in 1 2; do
    for code in "${codes[@]}"; do
      result=$(run_"$code" "$code-$ranks-$repeat" "$ranks")
      seconds=${result%% *}
      if [[ -z ${best[$code-$ranks]:-} ]] || awk -v a="$seconds" -v b="${best[$code-$ranks]%% *}" 'BEGIN { exit !(a < b) }'; then
        best[$code-$ranks]=$result
      fi
    done
  done
done

# The same case on both sides: meridian's steps are miniWeather's, and miniWeather's final state is meridian's.
for ranks in 1 2; do
  read -r _ _ _ _ _ _ meridian_steps _ <<<"${best[meridian-$ranks]}"
  [[ $meridian_steps == "$steps" ]] ||
    echo "warning: meridian took $meridian_steps steps on $ranks rank(s), miniWeather's loop $steps" >&2
done
if [[ -z $skip ]]; then
  read -r _ _ _ w_meridian low_meridian high_meridian _ <<<"${best[meridian-1]}"
  read -r _ _ _ w_miniweather low_miniweather high_miniweather _ <<<"${best[miniweather-1]}"
  if [[ $w_miniweather == nan ]]; then
    echo "note: $miniweather prints no final max_abs_w line (upstream's miniWeather_mpi.cpp prints only d_mass and" \
      "d_te), so its simulated time is not checked; its grid and dt are" >&2
  elif ! awk -v a="$w_meridian $low_meridian $high_meridian" -v b="$w_miniweather $low_miniweather $high_miniweather" '
      BEGIN { split(a, x); split(b, y)
              # max |w| to 1e-3 of itself, both ends of the theta range to 1e-3 of its top (the bottom is ~0)
              for (i = 1; i <= 3; ++i) { d = x[i] - y[i]; if (d < 0) d = -d; s = i == 1 ? x[1] : x[3]
                                         if (!(d <= 1e-3 * (s < 0 ? -s : s))) exit 1 } }'; then
    skip="$miniweather ends with max |w| $w_miniweather m/s and theta' in [$low_miniweather, $high_miniweather] K,"
    skip+=" meridian at t = $end_time s with $w_meridian and [$low_meridian, $high_meridian]: not the thermal to"
    skip+=" $end_time s (rebuild it with -D_SIM_TIME=$end_time -D_DATA_SPEC=2)"
    echo "miniWeather comparison skipped: $skip" >&2
    codes=(meridian)
  fi
fi

triad_1=$(bench_one_copy "stream triad" triad_bandwidth_GBps "$stream_triad")
triad_2=$(bench_two_copies "stream triad" triad_bandwidth_GBps "$stream_triad")

# --- report --------------------------------------------------------------------------------------------
cat <<EOF

rising thermal, $nx x $nz cells, $end_time s at dt = $dt s ($steps steps), 4th order, hyperviscosity $hyperviscosity,
dimensionally split; fastest of $repeats runs each ($(nproc) cores; $(date -u '+%Y-%m-%d %H:%M UTC'))
byte model (meridian): 6 stages x (face fluxes: read 4 components + write 4 fluxes = 64 B; tendencies: read 4
  fluxes + 4 initial components + the forcing's density, write 4 components = 104 B) = $bytes_per_update B per cell-update
STREAM triad: 1 copy $triad_1 GB/s, 2 copies at once $triad_2 GB/s (the arrays here fit in L3: see the header)

EOF
printf "%-11s %5s %6s %12s %12s %12s %12s %13s %13s %10s %7s %8s %6s\n" code ranks steps "s to ${end_time} s" s/step \
  cell-upd/s "per rank" d_mass d_te "max |w|" GB/s "of triad" halo
declare -A rate
for ranks in 1 2; do
  for code in "${codes[@]}"; do
    read -r seconds mass energy w _ _ run_steps halo_share <<<"${best[$code-$ranks]}"
    triad=$([[ $ranks == 1 ]] && echo "$triad_1" || echo "$triad_2")
    rate[$code-$ranks]=$(awk -v c=$cells -v n="$run_steps" -v s="$seconds" 'BEGIN { printf "%.4e", c * n / s }')
    awk -v code="$code" -v ranks="$ranks" -v n="$run_steps" -v s="$seconds" -v r="${rate[$code-$ranks]}" \
      -v mass="$mass" -v energy="$energy" -v w="$w" -v bytes=$bytes_per_update -v triad="$triad" \
      -v halo="$halo_share" 'BEGIN {
        if (code == "meridian") { bandwidth = sprintf("%7.2f", r * bytes / 1e9); of = sprintf("%7.1f%%", 100 * r * bytes / 1e9 / triad)
                                  halo = sprintf("%5.1f%%", 100 * halo) }
        else { bandwidth = sprintf("%7s", "-"); of = sprintf("%8s", "-"); halo = sprintf("%6s", "-") }
        printf "%-11s %5d %6d %12.3f %12.3e %12.3e %12.3e %13s %13s %10s %s %s %s\n", code, ranks, n, s, s / n, r, r / ranks,
               mass, energy, w, bandwidth, of, halo }'
  done
done
echo
if [[ -n $skip ]]; then
  echo "miniWeather comparison skipped: $skip"
else
  for ranks in 1 2; do
    awk -v m="${rate[meridian-$ranks]}" -v o="${rate[miniweather-$ranks]}" -v r="$ranks" -v nx=$nx -v nz=$nz \
      'BEGIN { printf "ratio atmosphere-%dx%d-%drank-meridian-over-miniweather %.3f\n", nx, nz, r, m / o }'
  done
fi
