#!/usr/bin/env bash
# Launch-count benchmark (issue #24): what a time step of every shipped deck asks of a GPU besides arithmetic,
# counted by `meridian run --count-launches` on whatever backend the build has (a host build predicts a device
# build's counts: apps/launch_report.hpp and parallel/launch_counts.hpp say how each is counted).
#
# Runs each deck in configs/ on 1 MPI rank for STEPS steps (default 10) with diagnostics, output and
# checkpoints off, and prints per deck rank 0's per-step means over steps 2..STEPS: kernels, reductions,
# library calls (cuFFT/cuSPARSE or their host equivalents), fences, distributed FFTs, halo exchanges, host-device
# copies and their MB, the launch-bound time on a GPU (4 us a launch or library call, 10 us a synchronisation),
# the measured seconds per step on this machine, and the solver's throughput. Then, per deck, what a diagnostics
# record and an output cost (from a second run with both every step).
#
# Output: the table, then lines a script can read:
#   launches <deck> <kernels+library per step> <synchronisations per step> <launch-bound ms per step>
#
# usage: bench/launch_counts.sh [BUILD_DIR]      (BUILD_DIR default: build/release in the repository)
# environment: MERIDIAN        meridian binary          (default BUILD_DIR/apps/meridian)
#              MPIRUN          MPI launcher command     (default mpirun)
#              BENCH_TIMEOUT   seconds allowed per run  (default 600)
#              STEPS           steps per run            (default 10)
#              DECKS           decks to run             (default every configs/*/*.toml)
set -euo pipefail

# shellcheck source=common.sh source-path=SCRIPTDIR
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
bench_setup "${BASH_SOURCE[0]}" "" "$@"
steps=${STEPS:-10}
read -r -a decks <<<"${DECKS:-$(ls "$repo_root"/configs/*/*.toml | tr '\n' ' ')}"

# run_counted DECK LOG SETTINGS...: one rank, STEPS steps, counted.
run_counted() {
  local deck=$1 log=$2
  shift 2
  timeout "$run_timeout_seconds" "${mpirun[@]}" -n 1 "$meridian" run "$deck" --count-launches \
    --set run.max_steps="$steps" --set run.write_state=false --set run.progress_every=1000000 "$@" \
    --output "$work_dir/out" >"$log" 2>&1 || { cat "$log" >&2; echo "$bench_name: $deck failed" >&2; exit 1; }
}

# row LOG NAME: the columns of the table row NAME of the launch table in LOG.
row() { awk -v name="$2" '/launches \(rank 0/ { table = 1 } table && $1 == name { $1 = ""; print }' "$1"; }

printf '%-26s %8s %6s %8s %6s %6s %9s %6s %9s %9s %10s  %s\n' deck kernels reduce library fences ffts exchanges copies \
  "copy MB" "bound ms" "s/step" throughput
for deck in "${decks[@]}"; do
  name=$(basename "$deck" .toml)
  run_counted "$deck" "$work_dir/$name.log" --set run.diagnostics_every=1000000
  read -r _ kernels reductions library fences transforms exchanges h2d d2h _ megabytes bound <<<"$(row "$work_dir/$name.log" step_mean)"
  # The step's phases (the summary's rows above diagnostics) over the steps of the run.
  step_seconds=$(awk '/^  phase +seconds/ { inside = 1; next } inside && $1 == "diagnostics" { inside = 0 }
                      inside { s += $(NF - 1) } /^  steps / { n = $2 } END { printf "%.3e", s / n }' "$work_dir/$name.log")
  throughput=$(awk '$1 == "throughput" { print $2, $3 }' "$work_dir/$name.log")
  printf '%-26s %8s %6s %8s %6s %6s %9s %6s %9s %9s %10s  %s\n' "$name" "$kernels" "$reductions" "$library" "$fences" \
    "$transforms" "$exchanges" "$(awk -v a="$h2d" -v b="$d2h" 'BEGIN { print a + b }')" "$megabytes" "$bound" "$step_seconds" "$throughput"
  synchronisations=$(awk -v r="$reductions" -v f="$fences" -v a="$h2d" -v b="$d2h" 'BEGIN { print r + f + a + b }')
  echo "launches $name $(awk -v k="$kernels" -v l="$library" 'BEGIN { print k + l }') $synchronisations $bound" >>"$work_dir/lines"
done
echo
echo "per diagnostics record and per output (runs with both every step):"
printf '%-26s %-12s %8s %6s %8s %6s %6s %9s %9s\n' deck phase kernels reduce library fences copies "copy MB" "bound ms"
for deck in "${decks[@]}"; do
  name=$(basename "$deck" .toml)
  run_counted "$deck" "$work_dir/$name.every.log" --set run.diagnostics_every=1 --set run.write_state=true \
    --set run.output_interval=0
  for phase in diagnostics output; do
    read -r _ kernels reductions library fences _ _ h2d d2h _ megabytes bound <<<"$(row "$work_dir/$name.every.log" "$phase")"
    printf '%-26s %-12s %8s %6s %8s %6s %6s %9s %9s\n' "$name" "$phase" "$kernels" "$reductions" "$library" "$fences" \
      "$(awk -v a="$h2d" -v b="$d2h" 'BEGIN { print a + b }')" "$megabytes" "$bound"
  done
done
echo
cat "$work_dir/lines"
