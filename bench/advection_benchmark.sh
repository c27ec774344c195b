#!/usr/bin/env bash
# Advection benchmark: how close the advection solver's time step comes to the memory bandwidth bound.
#
# Runs meridian on two cases, each on 1 and 2 MPI ranks, for about 16 steps with output, checkpoints and
# diagnostics switched off (the field output at t = 0 and at the end cannot be; the throughput that meridian
# prints excludes it, as it is measured over step time only, halo exchange included):
#   rotation-2d  configs/advection/solid_body_rotation.toml at 2048 x 2048, 1 tracer
#   uniform-3d   the same deck at 128 x 128 x 128, uniform wind, periodic, 1 tracer
# and each again in single precision (numerics.precision = "single"), as rotation-2d-single and uniform-3d-single,
# and then two ceilings, each as one copy alone (the bound for 1 rank) and as two copies at once (for 2 ranks):
#   the STREAM triad (bench/stream_triad), the memory bandwidth;
#   bench/advection_reference_loop, the same RK3 step with the solver's own flux function as plain nested
#   loops over raw arrays (no Kokkos, MPI or halo exchange), one copy on the whole grid or each of two copies
#   on half of it, cut along the axis meridian's 2-rank process grid cuts (y in 2-D, z in 3-D).
#
# Byte model: the least memory traffic of one step per tracer cell (a "cell-update"). Wicker-Skamarock RK3
# has 3 stages; each reads the stage input, reads the old state q^n and writes the stage output (24 bytes),
# and reads the wind's face volume fluxes, precomputed once per run (2 doubles per cell in 2-D, 3 in 3-D):
#   2-D: 3 x (24 + 16) = 120 bytes per cell-update        3-D: 3 x (24 + 24) = 144 bytes per cell-update
# In single precision every one of those values is a 4-byte float: 60 and 72 bytes per cell-update.
# The 5th-order stencil's neighbour rows are assumed to come from cache. (In stage 1 the stage input is q^n
# itself, so a perfect cache would save 8 more bytes there: 112 and 136.) Achieved bandwidth is throughput
# times these bytes, compared with the triad on as many cores as ranks: 1 rank against one triad copy, 2
# ranks against the sum of two copies run at once.
#
# Output: a table with a row per run (throughput, seconds per step, bandwidth, triad and plain-loop fractions,
# halo share), then one line per run and ceiling that a script can read:
#   ratio <case>-<ranks>rank-of-triad <fraction>        ratio <case>-<ranks>rank-of-plain-loop <fraction>
# The plain loop is double precision, so a single-precision case has no plain-loop line; it has instead
#   ratio <case>-single-<ranks>rank-of-double <speed-up>  (its throughput over the double case's)
#
# usage: bench/advection_benchmark.sh [BUILD_DIR]      (BUILD_DIR default: build/release in the repository)
# environment: STREAM_TRIAD  stream_triad binary       (default BUILD_DIR/bench/stream_triad)
#              ADVECTION_REFERENCE_LOOP  the plain loop (default BUILD_DIR/bench/advection_reference_loop)
#              MERIDIAN      meridian binary           (default BUILD_DIR/apps/meridian)
#              MPIRUN        MPI launcher command      (default mpirun)
#              BENCH_TIMEOUT seconds allowed per run   (default 600)
set -euo pipefail

# shellcheck source=common.sh source-path=SCRIPTDIR
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
bench_setup "${BASH_SOURCE[0]}" stream_triad "$@"
stream_triad=$reference_binary
plain_loop=$(bench_binary advection_reference_loop)
deck="$repo_root/configs/advection/solid_body_rotation.toml"

# Bytes per cell-update, by dimension (see the byte model above).
bytes_per_update_2d=$((3 * (24 + 2 * 8)))
bytes_per_update_3d=$((3 * (24 + 3 * 8)))
bytes_per_update_2d_single=$((bytes_per_update_2d / 2))
bytes_per_update_3d_single=$((bytes_per_update_3d / 2))

quiet_run=(--set run.output_interval=0 --set run.checkpoint_every_steps=0
  --set run.diagnostics_every=100000 --set run.progress_every=100000)
# Rotation wind, max |u| = 2 pi 0.5 on the unit square, courant 0.8: dt = 0.8 / (2 pi 0.5 2048 2) = 6.2e-5,
# so end_time 1e-3 is 16 steps and a shortened 17th.
rotation_2d=(--set mesh.nx=2048 --set mesh.ny=2048 --set run.end_time=1e-3)
# Uniform wind u = 1: dt = 0.8 / 128, so end_time 0.1 is 16 steps.
uniform_3d=(--set mesh.dimensions=3 --set mesh.nx=128 --set mesh.ny=128 --set mesh.nz=128
  --set advection.wind=uniform --set 'advection.tracers=["sine_wave"]'
  --set mesh.boundary_x=periodic --set mesh.boundary_y=periodic --set run.end_time=0.1)
single=(--set numerics.precision=single)

# --- ceilings: one copy alone, then two copies sharing one timing window ---------------------------------
triad_1=$(bench_one_copy "stream triad" triad_bandwidth_GBps "$stream_triad")
triad_2=$(bench_two_copies "stream triad" triad_bandwidth_GBps "$stream_triad")
rate=reference_cell_updates_per_second
declare -A plain
plain[rotation-2d-1]=$(bench_one_copy "plain loop 2-D" "$rate" "$plain_loop" --nx 2048 --ny 2048)
plain[rotation-2d-2]=$(bench_two_copies "plain loop 2-D" "$rate" "$plain_loop" --nx 2048 --ny 1024)
plain[uniform-3d-1]=$(bench_one_copy "plain loop 3-D" "$rate" "$plain_loop" --nx 128 --ny 128 --nz 128)
plain[uniform-3d-2]=$(bench_two_copies "plain loop 3-D" "$rate" "$plain_loop" --nx 128 --ny 128 --nz 64)

# --- meridian runs -------------------------------------------------------------------------------------
rows=() ratios=()
declare -A throughput

# run_case NAME RANKS BYTES_PER_UPDATE TRIAD_GBPS DECK_SETTINGS...: one run, its table row in `rows` and its
# ratio lines in `ratios`. A NAME ending in -single has no plain loop, and is compared with the double run of
# the same case, which must come first.
run_case() {
  local name=$1 ranks=$2 bytes=$3 triad=$4
  local loop=${plain[$name-$ranks]:-}
  shift 4
  bench_run_meridian "$name-$ranks" "$name" "$ranks" "$deck" "$@" "${quiet_run[@]}"
  local log="$work_dir/$name-$ranks.log"
  # The run summary's lines:  steps N this run ... / compute S P% / halo exchange S P% /
  #                           throughput R cell-updates/s (R' per rank)
  local row of_triad of_loop rate
  read -r of_triad of_loop rate row < <(awk -v name="$name" -v ranks="$ranks" -v bytes="$bytes" -v triad="$triad" \
    -v loop="$loop" "$bench_summary_awk"'
    $1 == "halo" && $2 == "exchange" { halo = $3 }
    $1 == "throughput" { rate = $2; per_rank = $4; sub(/^\(/, "", per_rank) }
    END {
      if (!steps || rate == "") exit 1
      bandwidth = rate * bytes / 1e9
      if (loop == "") { of_loop = "-"; against_loop = sprintf("%12s %8s", "-", "-") }
      else { of_loop = sprintf("%.4f", rate / loop); against_loop = sprintf("%12.3e %7.1f%%", loop, 100 * rate / loop) }
      printf "%.4f %s %s %-18s %5d %14.3e %14.3e %10.4f %8d %8.2f %8.2f %7.1f%% %s %6.1f%%\n",
             bandwidth / triad, of_loop, rate, name, ranks, rate, per_rank, (compute + halo) / steps, bytes,
             bandwidth, triad, 100 * bandwidth / triad, against_loop, 100 * halo / (compute + halo)
    }' "$log") || bench_fail_with_log "no run summary with a throughput in $log:" "$log"
  [[ -n $row ]] || bench_fail_with_log "no run summary with a throughput in $log:" "$log"
  rows+=("$row")
  throughput[$name-$ranks]=$rate
  ratios+=("ratio $name-${ranks}rank-of-triad $of_triad")
  if [[ $name == *-single ]]; then
    ratios+=("ratio $name-${ranks}rank-of-double $(awk -v a="$rate" -v b="${throughput[${name%-single}-$ranks]}" \
      'BEGIN { printf "%.4f", a / b }')")
  else
    ratios+=("ratio $name-${ranks}rank-of-plain-loop $of_loop")
  fi
}

run_case rotation-2d 1 "$bytes_per_update_2d" "$triad_1" "${rotation_2d[@]}"
run_case rotation-2d 2 "$bytes_per_update_2d" "$triad_2" "${rotation_2d[@]}"
run_case uniform-3d 1 "$bytes_per_update_3d" "$triad_1" "${uniform_3d[@]}"
run_case uniform-3d 2 "$bytes_per_update_3d" "$triad_2" "${uniform_3d[@]}"
run_case rotation-2d-single 1 "$bytes_per_update_2d_single" "$triad_1" "${rotation_2d[@]}" "${single[@]}"
run_case rotation-2d-single 2 "$bytes_per_update_2d_single" "$triad_2" "${rotation_2d[@]}" "${single[@]}"
run_case uniform-3d-single 1 "$bytes_per_update_3d_single" "$triad_1" "${uniform_3d[@]}" "${single[@]}"
run_case uniform-3d-single 2 "$bytes_per_update_3d_single" "$triad_2" "${uniform_3d[@]}" "${single[@]}"

# --- report --------------------------------------------------------------------------------------------
cat <<EOF

advection benchmark ($(nproc) cores; $(date -u '+%Y-%m-%d %H:%M UTC'))
byte model, least traffic per cell-update (one tracer cell advanced one RK3 step), neighbour rows from cache:
  3 stages x (read stage input + read q^n + write stage output = 24 B + read the wind's face fluxes, 8 B per axis)
  2-D: 3 x (24 + 16) = $bytes_per_update_2d B      3-D: 3 x (24 + 24) = $bytes_per_update_3d B
  single precision (the -single cases), 4-byte values: 2-D $bytes_per_update_2d_single B, 3-D $bytes_per_update_3d_single B
STREAM triad (24 B per element counted, write-allocate not): 1 copy $triad_1 GB/s, 2 copies at once $triad_2 GB/s
plain loop: the same RK3 step as plain nested loops (bench/advection_reference_loop), cell-updates/s, in double
  precision only: the -single cases are compared with the triad and with their double case
bounds: 1 rank against 1 copy, 2 ranks against 2 copies at once; s/step is compute + halo exchange on rank 0

EOF
printf "%-18s %5s %14s %14s %10s %8s %8s %8s %8s %12s %8s %7s\n" case ranks cell-upd/s "per rank" s/step B/upd \
  GB/s "triad" "of triad" "plain loop" "of loop" "halo"
for row in "${rows[@]}"; do echo "$row"; done
echo
for line in "${ratios[@]}"; do echo "$line"; done
