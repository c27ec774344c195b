#!/usr/bin/env bash
# Monte Carlo benchmark: how many path-steps per second meridian's Monte Carlo pricer reaches on an
# arithmetic-average Asian call, against a tight hand-vectorised loop with the same random numbers (the
# ceiling) and against QuantLib's Monte Carlo engine (a library doing the same job).
#
# Option: S = 100, K = 100, r = 0.05, q = 0, sigma = 0.2, T = 1, 252 fixings at t = i/252, i = 1..252 (not
# t = 0); GBM with exact log-normal steps, one time step per fixing. A path-step is one path advanced one step.
# Meridian runs configs/finance/portfolio.toml reduced to that one product (no Greeks, no control variate, no
# target error, output, diagnostics, progress lines and checkpoints off) on 1 and 2 MPI ranks, MC_PATHS paths
# each; its throughput is taken from the run summary (path-steps over the step time, halo-free: the ranks only
# gather block sums). bench/mc_reference_loop prices the same paths with the same Philox4x32-10 numbers on one
# core (best of 3 passes), so its price must match meridian's to rounding; bench/quantlib_asian runs QuantLib's
# MCDiscreteArithmeticAPEngine (Mersenne Twister, no control variate, no antithetics, no Brownian bridge) on
# QUANTLIB_PATHS paths, a different random stream, so its price must agree within the standard errors.
# Per core: meridian's per-rank figure (1 rank per core); the two single-core programs' totals.
#
# usage: bench/monte_carlo_benchmark.sh [BUILD_DIR]      (BUILD_DIR default: build/release in the repository)
# environment: MERIDIAN           meridian binary          (default BUILD_DIR/apps/meridian)
#              MC_REFERENCE_LOOP  mc_reference_loop binary (default BUILD_DIR/bench/mc_reference_loop)
#              QUANTLIB_ASIAN     quantlib_asian binary    (default BUILD_DIR/bench/quantlib_asian; optional:
#                                 without it the QuantLib comparison is skipped)
#              MC_PATHS           paths for meridian and the reference loop (default 1441792, 22 x 65536:
#                                 about 20 s on 1 rank, 10 s on 2; rounded up to whole blocks of 4096)
#              QUANTLIB_PATHS     paths for QuantLib       (default 100000, about 10 s)
#              MPIRUN             MPI launcher command     (default mpirun)
#              BENCH_TIMEOUT      seconds allowed per run  (default 600)
set -euo pipefail

# shellcheck source=common.sh source-path=SCRIPTDIR
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
bench_setup "${BASH_SOURCE[0]}" mc_reference_loop "$@"
mc_reference_loop=$reference_binary
quantlib_asian=${QUANTLIB_ASIAN:-$build_dir/bench/quantlib_asian}
deck="$repo_root/configs/finance/portfolio.toml"
block_size=4096  # the deck's finance.block_size: meridian rounds the paths up to whole blocks
paths=${MC_PATHS:-1441792}
paths=$(((paths + block_size - 1) / block_size * block_size))
quantlib_paths=${QUANTLIB_PATHS:-100000}
seed=2026  # the deck's finance.seed, handed to the reference loop so that it draws meridian's numbers

rank_counts=(1 2)
asian_run=(--set 'finance.products=["asian_arithmetic_call"]' --set finance.greeks=false
  --set finance.target_standard_error=0 --set finance.control_variates=false --set finance.steps=252
  --set finance.paths="$paths" --set finance.seed="$seed" --set run.output_interval=0
  --set run.diagnostics_every=100000 --set run.progress_every=100000 --set run.checkpoint_every_minutes=0)

# value_of FILE KEY: the value on a reference program's line `KEY value`; fails when there is none.
value_of() {
  awk -v key="$2" '$1 == key { value = $2; found = 1 } END { if (!found) exit 1; print value }' "$1" ||
    bench_fail_with_log "no '$2' line in $1:" "$1"
}

# --- meridian, 1 and 2 ranks ---------------------------------------------------------------------------
declare -A total per_rank price error
for ranks in "${rank_counts[@]}"; do
  bench_run_meridian "asian-$ranks" "Asian call, $paths paths" "$ranks" "$deck" "${asian_run[@]}"
  log="$work_dir/asian-$ranks.log"
  # The prices table (before the run summary):  asian_arithmetic_call  PRICE  ERROR
  # The run summary's line:                    throughput  X path-steps/s (Y per rank)
  read -r total["$ranks"] per_rank["$ranks"] price["$ranks"] error["$ranks"] < <(awk '
    $1 == "asian_arithmetic_call" { price = $2; error = $3 }'"$bench_summary_awk"'
    $1 == "throughput" { total = $2; per_rank = $4; sub(/^\(/, "", per_rank) }
    END { if (total == "" || price == "") exit 1; print total, per_rank, price, error }' "$log") ||
    bench_fail_with_log "no throughput or price in $log:" "$log"
done

# --- the reference loop and QuantLib, one core each ----------------------------------------------------
echo "mc_reference_loop: $paths paths" >&2
reference_out="$work_dir/reference.out"
timeout "$run_timeout_seconds" "$mc_reference_loop" --paths "$paths" --seed "$seed" >"$reference_out"
reference_rate=$(value_of "$reference_out" reference_path_steps_per_second)
reference_price=$(value_of "$reference_out" reference_price)
reference_error=$(value_of "$reference_out" reference_standard_error)

quantlib_rate="" quantlib_skipped=""
if [[ -x $quantlib_asian ]]; then
  echo "quantlib_asian: $quantlib_paths paths" >&2
  quantlib_out="$work_dir/quantlib.out"
  timeout "$run_timeout_seconds" "$quantlib_asian" --paths "$quantlib_paths" >"$quantlib_out"
  quantlib_rate=$(value_of "$quantlib_out" quantlib_path_steps_per_second)
  quantlib_price=$(value_of "$quantlib_out" quantlib_price)
  quantlib_error=$(value_of "$quantlib_out" quantlib_standard_error)
else
  quantlib_skipped="QuantLib comparison skipped: $quantlib_asian not found or not executable (build it:
  cmake --build $build_dir --target quantlib_asian, which needs QuantLib, e.g. Debian's libquantlib0-dev)"
  echo "$quantlib_skipped" >&2
fi

# --- report --------------------------------------------------------------------------------------------
cat <<EOF

monte carlo benchmark ($(nproc) cores; $(date -u '+%Y-%m-%d %H:%M UTC'))
arithmetic-average Asian call: S = 100, K = 100, r = 0.05, q = 0, sigma = 0.2, T = 1, 252 fixings at t = i/252
meridian: configs/finance/portfolio.toml, that product only, no Greeks, no control variate, $paths paths;
  path-steps/s over the step time (run summary), per core = per rank
reference loop: bench/mc_reference_loop, 1 core, the same paths and Philox4x32-10 numbers, best of 3 passes
EOF
if [[ -n $quantlib_rate ]]; then
  echo "QuantLib: MCDiscreteArithmeticAPEngine<PseudoRandom>, 1 core, $quantlib_paths paths, no control variate,"
  echo "  no antithetics, no Brownian bridge"
else
  echo "$quantlib_skipped"
fi
echo
printf "%-16s %5s %14s %14s %14s %12s\n" run cores "path-steps/s" "per core" "of ceiling" "vs QuantLib"
# row NAME CORES TOTAL PER_CORE: per core as a fraction of the reference loop's and as a multiple of QuantLib's.
row() {
  awk -v name="$1" -v cores="$2" -v total="$3" -v per_core="$4" -v ceiling="$reference_rate" \
    -v quantlib="$quantlib_rate" 'BEGIN {
      versus = quantlib == "" ? "-" : sprintf("%.1fx", per_core / quantlib)
      printf "%-16s %5d %14.3e %14.3e %13.1f%% %12s\n", name, cores, total, per_core, 100 * per_core / ceiling, versus
    }'
}
for ranks in "${rank_counts[@]}"; do
  row "meridian" "$ranks" "${total[$ranks]}" "${per_rank[$ranks]}"
done
row "reference loop" 1 "$reference_rate" "$reference_rate"
if [[ -n $quantlib_rate ]]; then row "QuantLib" 1 "$quantlib_rate" "$quantlib_rate"; fi

echo
echo "prices (discounted; +- one standard error)"
printf "  %-22s %10.6f +- %.6f   (%d paths)\n" "meridian, 1 rank" "${price[1]}" "${error[1]}" "$paths"
printf "  %-22s %10.6f +- %.6f   (%d paths)\n" "meridian, 2 ranks" "${price[2]}" "${error[2]}" "$paths"
printf "  %-22s %10.6f +- %.6f   (%d paths)\n" "reference loop" "$reference_price" "$reference_error" "$paths"
if [[ -n $quantlib_rate ]]; then
  printf "  %-22s %10.6f +- %.6f   (%d paths)\n" "QuantLib" "$quantlib_price" "$quantlib_error" "$quantlib_paths"
fi
# Meridian is bitwise the same on any rank count, and the reference loop draws the same numbers (its vector
# log/cos/exp round differently in the last bits): both differences should be 0 at 6 decimals, or 1e-6.
# QuantLib's stream is independent of meridian's, so its difference is measured in their combined error.
awk -v p1="${price[1]}" -v p2="${price[2]}" -v e1="${error[1]}" -v ref="$reference_price" \
  -v ql="${quantlib_price:-}" -v eql="${quantlib_error:-}" 'BEGIN {
    printf "  meridian 2 ranks - 1 rank:       %+.6f (same paths: 0 expected)\n", p2 - p1
    printf "  meridian - reference loop:       %+.6f (same random numbers: rounding only)\n", p1 - ref
    if (ql != "") {
      z = (p1 - ql) / sqrt(e1 * e1 + eql * eql)
      printf "  meridian - QuantLib:             %+.6f = %+.2f combined standard errors\n", p1 - ql, z
    }
    bad = (p2 - p1 > 1e-6 || p1 - p2 > 1e-6) || (p1 - ref > 1e-5 || ref - p1 > 1e-5) || (ql != "" && (z > 4 || z < -4))
    if (bad) print "warning: the prices disagree beyond rounding or 4 standard errors" > "/dev/stderr"
  }'
