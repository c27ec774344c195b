#!/usr/bin/env bash
# Monte Carlo benchmark: how many path-steps per second meridian's Monte Carlo pricer reaches on an
# arithmetic-average Asian call, against a tight hand-vectorised loop with the same random numbers (the
# ceiling) and against QuantLib's Monte Carlo engine (a library doing the same job).
#
# Option: S = 100, K = 100, r = 0.05, q = 0, sigma = 0.2, T = 1, 252 fixings at t = i/252, i = 1..252 (not
# t = 0); GBM with exact log-normal steps, one time step per fixing. A path-step is one path advanced one step.
# Meridian runs configs/finance/portfolio.toml reduced to that one product (no Greeks, no control variate, no
# target error, output, diagnostics, progress lines and checkpoints off) on 1 and 2 MPI ranks, MC_PATHS paths
# each, MC_PASSES times; its best throughput is taken from the run summary (path-steps over the step time,
# halo-free: the ranks only gather block sums). bench/mc_reference_loop prices the same paths with the same
# Philox4x32-10 numbers on one core (best of 3 passes), so its price must match meridian's to rounding;
# bench/quantlib_asian runs QuantLib's MCDiscreteArithmeticAPEngine (Mersenne Twister, no control variate, no
# antithetics, no Brownian bridge) on QUANTLIB_PATHS paths, a different random stream, so its price must agree
# within the standard errors.
# Per core: meridian's per-rank figure (1 rank per core); the two single-core programs' totals.
# Every meridian run and the reference loop are done in both numerics.precision settings, double and single;
# a case (mc-asian-1rank-double, mc-asian-2ranks-single, ...) is a rank count and a precision, and its
# ceiling is the reference loop in the same precision, measured in the same run. The report is a table
# (path-steps/s, per core, ceiling, ratio = per core / ceiling, multiple of QuantLib) and, for scripts,
# lines `ratio CASE VALUE` and, with QuantLib, `quantlib_multiple CASE VALUE`.
#
# usage: bench/monte_carlo_benchmark.sh [BUILD_DIR]      (BUILD_DIR default: build/release in the repository)
# environment: MERIDIAN           meridian binary          (default BUILD_DIR/apps/meridian)
#              MC_REFERENCE_LOOP  mc_reference_loop binary (default BUILD_DIR/bench/mc_reference_loop)
#              QUANTLIB_ASIAN     quantlib_asian binary    (default BUILD_DIR/bench/quantlib_asian; optional:
#                                 without it the QuantLib comparison is skipped)
#              MC_PATHS           paths for meridian and the reference loop (default 1441792, 22 x 65536:
#                                 about 5 s on 1 rank in double; rounded up to whole blocks of 4096)
#              QUANTLIB_PATHS     paths for QuantLib       (default 100000, about 10 s)
#              MC_PASSES          meridian runs per case, the fastest reported (default 3: on a shared
#                                 machine one run may be slowed by other work, as a pass of the loop may)
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
passes=${MC_PASSES:-3}  # meridian runs per case, the best one reported, as the reference loop's best of 3
seed=2026  # the deck's finance.seed, handed to the reference loop so that it draws meridian's numbers

rank_counts=(1 2)
precisions=(double single)
asian_run=(--set 'finance.products=["asian_arithmetic_call"]' --set finance.greeks=false
  --set finance.target_standard_error=0 --set finance.control_variates=false --set finance.steps=252
  --set finance.paths="$paths" --set finance.seed="$seed" --set run.output_interval=0
  --set run.diagnostics_every=100000 --set run.progress_every=100000 --set run.checkpoint_every_minutes=0)

# value_of FILE KEY: the value on a reference program's line `KEY value`; fails when there is none.
value_of() {
  awk -v key="$2" '$1 == key { value = $2; found = 1 } END { if (!found) exit 1; print value }' "$1" ||
    bench_fail_with_log "no '$2' line in $1:" "$1"
}

# --- meridian on 1 and 2 ranks in each precision, and the reference loop in that precision -----------
# A case is mc-asian-<ranks>rank(s)-<precision>; its ceiling is the reference loop in its precision.
declare -A ranks_of precision_of total per_rank price error reference_rate reference_price reference_error
cases=()
for precision in "${precisions[@]}"; do
  for ranks in "${rank_counts[@]}"; do
    unit=rank
    if ((ranks > 1)); then unit=ranks; fi
    name="mc-asian-$ranks$unit-$precision"
    cases+=("$name")
    ranks_of[$name]=$ranks precision_of[$name]=$precision
    total[$name]=0
    for ((pass = 1; pass <= passes; ++pass)); do
      bench_run_meridian "$name-$pass" "Asian call, $paths paths, $precision precision, pass $pass" "$ranks" "$deck" \
        "${asian_run[@]}" --set "numerics.precision=\"$precision\""
      log="$work_dir/$name-$pass.log"
      # The prices table (before the run summary):  asian_arithmetic_call  PRICE  ERROR
      # The run summary's line:                    throughput  X path-steps/s (Y per rank)
      read -r run_total run_per_rank price["$name"] error["$name"] < <(awk '
        $1 == "asian_arithmetic_call" { price = $2; error = $3 }'"$bench_summary_awk"'
        $1 == "throughput" { total = $2; per_rank = $4; sub(/^\(/, "", per_rank) }
        END { if (total == "" || price == "") exit 1; print total, per_rank, price, error }' "$log") ||
        bench_fail_with_log "no throughput or price in $log:" "$log"
      if awk -v a="$run_total" -v b="${total[$name]}" 'BEGIN { exit !(a > b) }'; then
        total[$name]=$run_total per_rank[$name]=$run_per_rank
      fi
    done
  done
  echo "mc_reference_loop: $paths paths, $precision precision" >&2
  reference_out="$work_dir/reference-$precision.out"
  timeout "$run_timeout_seconds" "$mc_reference_loop" --paths "$paths" --seed "$seed" --precision "$precision" \
    >"$reference_out"
  reference_rate[$precision]=$(value_of "$reference_out" reference_path_steps_per_second)
  reference_price[$precision]=$(value_of "$reference_out" reference_price)
  reference_error[$precision]=$(value_of "$reference_out" reference_standard_error)
done

# --- QuantLib, one core --------------------------------------------------------------------------------
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
meridian: configs/finance/portfolio.toml, that product only, no Greeks, no control variate, $paths paths,
  numerics.precision double and single; path-steps/s over the step time (run summary), per core = per rank,
  the fastest of $passes runs
ceiling: bench/mc_reference_loop in the case's precision, 1 core, the same paths and Philox4x32-10 numbers,
  best of 3 passes, in this run; ratio = per core / ceiling
EOF
if [[ -n $quantlib_rate ]]; then
  echo "QuantLib: MCDiscreteArithmeticAPEngine<PseudoRandom>, 1 core, $quantlib_paths paths, no control variate,"
  echo "  no antithetics, no Brownian bridge (double)"
else
  echo "$quantlib_skipped"
fi
echo
printf "%-24s %5s %14s %14s %14s %8s %12s\n" case cores "path-steps/s" "per core" ceiling ratio "vs QuantLib"
# row NAME CORES TOTAL PER_CORE CEILING: per core over the ceiling, and as a multiple of QuantLib's.
row() {
  awk -v name="$1" -v cores="$2" -v total="$3" -v per_core="$4" -v ceiling="$5" -v quantlib="$quantlib_rate" 'BEGIN {
      versus = quantlib == "" ? "-" : sprintf("%.1fx", per_core / quantlib)
      printf "%-24s %5d %14.3e %14.3e %14.3e %8.3f %12s\n", name, cores, total, per_core, ceiling, per_core / ceiling, versus
    }'
}
for c in "${cases[@]}"; do
  row "$c" "${ranks_of[$c]}" "${total[$c]}" "${per_rank[$c]}" "${reference_rate[${precision_of[$c]}]}"
done
for precision in "${precisions[@]}"; do
  rate=${reference_rate[$precision]}
  row "reference-loop-$precision" 1 "$rate" "$rate" "$rate"
done
if [[ -n $quantlib_rate ]]; then row quantlib 1 "$quantlib_rate" "$quantlib_rate" "$quantlib_rate"; fi

# For scripts: `ratio CASE VALUE` (per core over the ceiling of this run) and, with QuantLib,
# `quantlib_multiple CASE VALUE` (per core over QuantLib's).
echo
for c in "${cases[@]}"; do
  awk -v c="$c" -v x="${per_rank[$c]}" -v y="${reference_rate[${precision_of[$c]}]}" \
    'BEGIN { printf "ratio %s %.3f\n", c, x / y }'
done
if [[ -n $quantlib_rate ]]; then
  for c in "${cases[@]}"; do
    awk -v c="$c" -v x="${per_rank[$c]}" -v y="$quantlib_rate" 'BEGIN { printf "quantlib_multiple %s %.1f\n", c, x / y }'
  done
fi

echo
echo "prices (discounted; +- one standard error)"
for c in "${cases[@]}"; do
  printf "  %-24s %10.6f +- %.6f   (%d paths)\n" "$c" "${price[$c]}" "${error[$c]}" "$paths"
done
for precision in "${precisions[@]}"; do
  printf "  %-24s %10.6f +- %.6f   (%d paths)\n" "reference-loop-$precision" "${reference_price[$precision]}" \
    "${reference_error[$precision]}" "$paths"
done
if [[ -n $quantlib_rate ]]; then
  printf "  %-24s %10.6f +- %.6f   (%d paths)\n" quantlib "$quantlib_price" "$quantlib_error" "$quantlib_paths"
fi
# Meridian is bitwise the same on any rank count, and the reference loop draws the same numbers (its vector
# log/cos/exp round differently in the last bits): both differences should be 0 at 6 decimals, or 1e-6 in
# double; the float math of the two single-precision programs differs by more ulps, so 1e-5 there. Single
# and double share their paths: within 1e-5 relative (as tests/test_monte_carlo.cpp requires). QuantLib's
# stream is independent of meridian's, so its difference is measured in their combined error.
d1=mc-asian-1rank-double d2=mc-asian-2ranks-double s1=mc-asian-1rank-single s2=mc-asian-2ranks-single
awk -v d1="${price[$d1]}" -v d2="${price[$d2]}" -v s1="${price[$s1]}" -v s2="${price[$s2]}" -v e1="${error[$d1]}" \
  -v rd="${reference_price[double]}" -v rs="${reference_price[single]}" \
  -v ql="${quantlib_price:-}" -v eql="${quantlib_error:-}" 'BEGIN {
    printf "  double, 2 ranks - 1 rank:        %+.6f (same paths: 0 expected)\n", d2 - d1
    printf "  single, 2 ranks - 1 rank:        %+.6f (same paths: 0 expected)\n", s2 - s1
    printf "  double - reference loop:         %+.6f (same random numbers: rounding only)\n", d1 - rd
    printf "  single - reference loop:         %+.6f (same random numbers: rounding only)\n", s1 - rs
    printf "  (single - double) / double:      %+.1e (same paths: below 1e-5)\n", (s1 - d1) / d1
    if (ql != "") {
      z = (d1 - ql) / sqrt(e1 * e1 + eql * eql)
      printf "  double - QuantLib:               %+.6f = %+.2f combined standard errors\n", d1 - ql, z
    }
    bad = d2 != d1 || s2 != s1 || (d1 - rd > 1e-6 || rd - d1 > 1e-6) || (s1 - rs > 1e-5 || rs - s1 > 1e-5) ||
          (s1 - d1 > 1e-5 * d1 || d1 - s1 > 1e-5 * d1) || (ql != "" && (z > 4 || z < -4))
    if (bad) print "warning: the prices disagree beyond rounding or 4 standard errors" > "/dev/stderr"
  }'
