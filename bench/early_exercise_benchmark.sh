#!/usr/bin/env bash
# Early-exercise benchmark (issue #25): the Bermudan put S = K = 40, r = 0.06, q = 0, sigma = 0.2, T = 1, 50 exercise
# dates, by meridian's Longstaff-Schwartz (configs/finance/bermudan_put.toml, one rank) beside QuantLib's
# MCAmericanEngine (bench/quantlib_bermudan mc: exercise at each of 50 steps), both with CALIBRATION calibration
# paths and PATHS pricing paths, the monomial basis of order 3, no antithetics and no control variate, on one core
# each; QuantLib's finite-difference price with the same dates (bench/quantlib_bermudan fd) is the reference.
#
# Prints per program the price, its standard error, (price - FD) / SE, the seconds (meridian: the run summary's wall
# time plus the calibration's, which the pricer reports; start-up left out; QuantLib: its NPV() call, which
# calibrates and prices) and the seconds to reach a
# standard error of 0.01 (time x (SE / 0.01)^2: Monte Carlo's error falls as one over the square root of the
# paths); then meridian's pricing pass in path-steps/s beside the European pricer's on the same paths
# (products = european_put, the same deck otherwise), and lines for scripts:
#   ratio early-exercise-time-to-se-over-quantlib VALUE     (QuantLib's seconds to the SE over meridian's; goal >= 20)
#   ratio early-exercise-pricing-over-european VALUE        (path-steps/s; goal >= 0.5)
#
# usage: bench/early_exercise_benchmark.sh [BUILD_DIR]     (BUILD_DIR default: build/release in the repository)
# environment: MERIDIAN           meridian binary              (default BUILD_DIR/apps/meridian)
#              QUANTLIB_BERMUDAN  bench/quantlib_bermudan      (default BUILD_DIR/bench/quantlib_bermudan)
#              CALIBRATION        calibration paths, both      (default 100000)
#              PATHS              pricing paths, both          (default 1000000)
#              BENCH_TIMEOUT      seconds allowed per run      (default 600)
set -euo pipefail

# shellcheck source=common.sh source-path=SCRIPTDIR
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
bench_setup "${BASH_SOURCE[0]}" "" "$@"
quantlib=${QUANTLIB_BERMUDAN:-$build_dir/bench/quantlib_bermudan}
bench_check_binary "$quantlib" quantlib_bermudan
calibration=${CALIBRATION:-100000}
paths=${PATHS:-1000000}
deck="$repo_root/configs/finance/bermudan_put.toml"
common=(--set "finance.spot=[40.0]" --set finance.regression_basis=monomial --set finance.regression_order=3
        --set finance.antithetic=false --set finance.control_variates=false --set finance.calibration_paths="$calibration"
        --set finance.paths="$paths" --set run.write_state=false --set run.progress_every=1000000
        --set run.diagnostics_every=1000000)

# meridian_run LOG SETTINGS...: one rank.
meridian_run() {
  local log=$1
  shift
  timeout "$run_timeout_seconds" "${mpirun[@]}" -n 1 "$meridian" run "$deck" "${common[@]}" "$@" \
    --output "$work_dir/out" >"$log" 2>&1 || { cat "$log" >&2; echo "$bench_name: meridian failed" >&2; exit 1; }
}

reference=$("$quantlib" fd put 40 40 0.06 0.2 1 50)
meridian_run "$work_dir/lsm.log"
read -r m_price m_error < <(awk '$1 == "bermudan_put" && NF == 3 { print $2, $3 }' "$work_dir/lsm.log")
m_seconds=$(awk '/^  wall time/ { wall = $3 } / calibration [0-9.]+ s/ { for (i = 1; i < NF; ++i) if ($i == "calibration") c = $(i + 1) }
                END { print wall + c }' "$work_dir/lsm.log")
m_rate=$(awk '/^  throughput/ { print $2 }' "$work_dir/lsm.log")
meridian_run "$work_dir/european.log" --set 'finance.products=["european_put"]' --set finance.exercise_dates_per_year=0
e_rate=$(awk '/^  throughput/ { print $2 }' "$work_dir/european.log")
read -r q_price q_error q_seconds < <(timeout "$run_timeout_seconds" "$quantlib" mc put 40 40 0.06 0.2 1 50 "$calibration" "$paths" 3)

awk -v fd="$reference" -v mp="$m_price" -v me="$m_error" -v ms="$m_seconds" -v qp="$q_price" -v qe="$q_error" \
    -v qs="$q_seconds" -v mr="$m_rate" -v er="$e_rate" -v cal="$calibration" -v n="$paths" 'BEGIN {
  printf "Bermudan put S = K = 40, sigma 0.2, T = 1, 50 dates; %d calibration + %d pricing paths; QuantLib FD %.5f\n", cal, n, fd
  printf "%-22s %10s %9s %8s %9s %14s\n", "program", "price", "SE", "z vs FD", "seconds", "s to SE 0.01"
  mt = ms * (me / 0.01) ^ 2; qt = qs * (qe / 0.01) ^ 2
  printf "%-22s %10.5f %9.5f %8.2f %9.3f %14.4f\n", "meridian (1 core)", mp, me, (mp - fd) / me, ms, mt
  printf "%-22s %10.5f %9.5f %8.2f %9.3f %14.4f\n", "QuantLib MCAmerican", qp, qe, (qp - fd) / qe, qs, qt
  printf "pricing pass %.3e path-steps/s, European pricer on the same paths %.3e\n", mr, er
  printf "ratio early-exercise-time-to-se-over-quantlib %.2f\n", qt / mt
  printf "ratio early-exercise-pricing-over-european %.3f\n", mr / er
}'
