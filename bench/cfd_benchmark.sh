#!/usr/bin/env bash
# CFD benchmark: where the pseudo-spectral Navier-Stokes solver's time step goes, and how its distributed FFT
# compares with plain single-process FFTW.
#
# Runs meridian on configs/cfd/taylor_green_re1600.toml at 64^3 and 128^3, each on 1 and 2 MPI ranks, for 10
# steps of the fixed dt 0.001, with output, checkpoints, diagnostics and progress lines switched off (the field
# output at t = 0 and at the end and the final checkpoint cannot be; they are outside the step and left out).
# From rank 0's run summary it takes the step's three phases: compute, fft local (FFTW's 1-D transforms) and
# fft transpose (pack, MPI_Alltoallv, unpack; on 1 rank none for the power-of-two grids up to 64^3, where FFTW
# transforms the whole volume into the spectral layout in one call and the run summary has no such line, a local
# reordering on other grids); before them it runs
# bench/fftw_reference (one 3-D r2c + c2r pair with FFTW_MEASURE and FFTW_ESTIMATE, one process) at each size.
#
# Transforms per step: 4 RK4 stages x 9 (3 backward of velocity, 3 backward of vorticity, 3 forward of the
# products u x omega) = 36 single-component 3-D transforms = 18 r2c + c2r pairs inside meridian's step timer.
# The CFL estimate adds 3 backward transforms per step (39 in all, 19.5 pairs), but it runs before the step
# timer starts and is in none of the phases printed, so the per-pair figures divide by 18.
# Comparison per rank: on R ranks each rank transforms 1/R of every field, so rank 0's seconds per pair are
# compared with FFTW's single-process pair time divided by R (perfect division of the work, no contention).
# Flops: FFTW's convention, 2.5 M log2(M) per real transform of M = N^3 points, 5 M log2(M) per pair.
#
# Output: a table with a row per run, the comparisons with plain FFTW, then lines a script can read:
#   ratio cfd-<N>-<R>rank-stage-over-plain-fftw <FFT stage s/pair / plain FFTW's per rank; 1 is its speed>
#   ratio cfd-<N>-<R>rank-transpose-share <fft transpose / step>
#   ratio cfd-<N>-speedup-1-to-2-ranks <s/step on 1 rank / s/step on 2>
#
# usage: bench/cfd_benchmark.sh [BUILD_DIR]      (BUILD_DIR default: build/release in the repository)
# environment: MERIDIAN        meridian binary          (default BUILD_DIR/apps/meridian)
#              FFTW_REFERENCE  fftw_reference binary    (default BUILD_DIR/bench/fftw_reference)
#              MPIRUN          MPI launcher command     (default mpirun)
#              BENCH_TIMEOUT   seconds allowed per run  (default 600)
set -euo pipefail

# shellcheck source=common.sh source-path=SCRIPTDIR
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
bench_setup "${BASH_SOURCE[0]}" fftw_reference "$@"
fftw_reference=$reference_binary
deck="$repo_root/configs/cfd/taylor_green_re1600.toml"

sizes=(64 128)
rank_counts=(1 2)
# Pairs of transforms per step inside the step timer (see above): 4 stages x 9 transforms / 2.
pairs_per_step=18
# A fixed dt of 0.001 (the CFL one at 128^3 is about 0.05, so the flow hardly moves): end_time 0.01 is 10 steps.
quiet_run=(--set cfd.dt=0.001 --set run.end_time=0.01 --set run.output_interval=0
  --set run.diagnostics_every=100000 --set run.progress_every=100000 --set run.checkpoint_every_minutes=0)

# --- plain FFTW, one process, per size -----------------------------------------------------------------
# fftw_value FILE KEY: the value on fftw_reference's line `KEY value`.
fftw_value() { awk -v key="$2" '$1 == key { print $2 }' "$1"; }

declare -A fftw_pair fftw_gflops fftw_estimate_pair fftw_estimate_gflops
for n in "${sizes[@]}"; do
  echo "fftw_reference: $n^3" >&2
  out="$work_dir/fftw-$n.out"
  timeout "$run_timeout_seconds" "$fftw_reference" "$n" >"$out"
  fftw_pair[$n]=$(fftw_value "$out" fftw_r2c_c2r_seconds)
  fftw_gflops[$n]=$(fftw_value "$out" fftw_r2c_c2r_gflops)
  fftw_estimate_pair[$n]=$(fftw_value "$out" fftw_r2c_c2r_estimate_seconds)
  fftw_estimate_gflops[$n]=$(fftw_value "$out" fftw_r2c_c2r_estimate_gflops)
done

# --- meridian runs -------------------------------------------------------------------------------------
rows=()
ratios=()
ratio_lines=()
declare -A step_seconds

# run_case N RANKS: one run; appends a row to `rows` and the comparison with plain FFTW to `ratios`.
run_case() {
  local n=$1 ranks=$2
  bench_run_meridian "cfd-$n-$ranks" "$n^3" "$ranks" "$deck" \
    --set mesh.nx="$n" --set mesh.ny="$n" --set mesh.nz="$n" "${quiet_run[@]}"
  local log="$work_dir/cfd-$n-$ranks.log"
  # The run summary's lines:  steps N this run ... / compute S P% / fft local S P% / fft transpose S P% (none on
  # one rank with the whole-volume transform: 0)
  local result
  result=$(awk -v n="$n" -v ranks="$ranks" -v pairs="$pairs_per_step" -v fftw="${fftw_pair[$n]}" \
    -v fftw_estimate="${fftw_estimate_pair[$n]}" "$bench_summary_awk"'
    $1 == "fft" && $2 == "local" { local_fft = $3 }
    $1 == "fft" && $2 == "transpose" { transpose = $3 }
    END {
      step = compute + local_fft + transpose
      if (!steps || local_fft == "" || (transpose == "" && ranks > 1) || step <= 0) exit 1
      local_per_pair = local_fft / (steps * pairs)
      stage_per_pair = (local_fft + transpose) / (steps * pairs)
      fftw_per_rank = fftw / ranks             # each rank transforms 1/ranks of the data
      printf "%5d %5d %10.4f %9.1f%% %9.1f%% %6.1f%% %6d %11.3e %11.3e %11.3e\n", n, ranks, step / steps,
             100 * local_fft / step, 100 * transpose / step, 100 * compute / step, pairs, local_per_pair,
             stage_per_pair, fftw_per_rank
      printf "%d^3 on %d rank(s): FFT stage vs plain FFTW: %.2f   local FFTs vs plain FFTW: %.2f" \
             "   (local FFTs vs FFTW_ESTIMATE: %.2f)\n", n, ranks, stage_per_pair / fftw_per_rank,
             local_per_pair / fftw_per_rank, local_per_pair / (fftw_estimate / ranks)
      case_name = sprintf("cfd-%d-%drank", n, ranks)
      printf "ratio %s-stage-over-plain-fftw %.4f\n", case_name, stage_per_pair / fftw_per_rank
      printf "ratio %s-transpose-share %.4f\n", case_name, transpose / step
      printf "%.6e\n", step / steps
    }' "$log") || bench_fail_with_log "no run summary with the step phases in $log:" "$log"
  rows+=("$(sed -n 1p <<<"$result")")
  ratios+=("$(sed -n 2p <<<"$result")")
  ratio_lines+=("$(sed -n 3p <<<"$result")" "$(sed -n 4p <<<"$result")")
  step_seconds[$n-$ranks]=$(sed -n 5p <<<"$result")
}

for n in "${sizes[@]}"; do
  for ranks in "${rank_counts[@]}"; do run_case "$n" "$ranks"; done
  ratio_lines+=("$(awk -v n="$n" -v one="${step_seconds[$n-1]}" -v two="${step_seconds[$n-2]}" \
    'BEGIN { printf "ratio cfd-%d-speedup-1-to-2-ranks %.4f", n, one / two }')")
done

# --- report --------------------------------------------------------------------------------------------
cat <<EOF

cfd benchmark ($(nproc) cores; $(date -u '+%Y-%m-%d %H:%M UTC'))
deck configs/cfd/taylor_green_re1600.toml, dt 0.001, 10 steps, FFT plans as the deck says (estimate); rank 0's phases
s/step = compute + fft local + fft transpose per step; "rest" is compute (RK stages, curl, cross product,
  projection; the backward transform's normalisation is done by its last transpose, or by the copy a one-rank
  whole-volume c2r runs on)
pairs/step: 36 transforms = 18 r2c + c2r pairs inside the step (4 RK stages x 9); the CFL estimate's 3 more
  (39 in all, 19.5 pairs) run outside the step timer
plain FFTW, one process, one 3-D r2c + c2r pair (flops: 5 M log2 M per pair, M = N^3):
EOF
for n in "${sizes[@]}"; do
  printf "  %d^3: %.3e s (%s GFlop/s) with FFTW_MEASURE, %.3e s (%s GFlop/s) with FFTW_ESTIMATE\n" "$n" \
    "${fftw_pair[$n]}" "${fftw_gflops[$n]}" "${fftw_estimate_pair[$n]}" "${fftw_estimate_gflops[$n]}"
done
cat <<EOF
per rank: R ranks each transform 1/R of the data, so rank 0's s/pair is compared with FFTW_MEASURE's pair / R
FFT stage = fft local + fft transpose

EOF
printf "%5s %5s %10s %10s %10s %7s %6s %11s %11s %11s\n" N ranks s/step "local FFT" transpose rest pairs \
  "local/pair" "stage/pair" "FFTW/rank"
for row in "${rows[@]}"; do echo "$row"; done
echo
for line in "${ratios[@]}"; do echo "$line"; done
echo
for line in "${ratio_lines[@]}"; do echo "$line"; done
