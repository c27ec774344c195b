#!/usr/bin/env bash
# The GPU bundle and the one-shot device check, as far as they go without a GPU: this build packed by
# scripts/gpu/bundle.sh --from-build must pass its own --check (every library inside the bundle), and
# device_check.sh --dry-run on it must list the gpu-labelled tests, start two ranks of a bundled program
# through the bundle's mpiexec and hydra proxy, parse a run summary into steps, s/step and throughput, and tell
# two HDF5 files of the same bits from two an ulp apart.
source "$(dirname "$0")/common.sh"
build_dir=$(cd "$(dirname "$MERIDIAN")/.." && pwd)
"$SOURCE_DIR/scripts/gpu/bundle.sh" --from-build "$build_dir" "$work/bundle" --check > "$work/bundle.log" 2>&1 ||
  { cat "$work/bundle.log"; fail "bundle.sh --from-build or its --check failed"; }
grep -q "every library resolves inside" "$work/bundle.log" || fail "no library check in: $(cat "$work/bundle.log")"
tests=$(wc -l < "$work/bundle/share/gpu_tests.txt")
[ "$tests" -ge 4 ] || fail "only $tests gpu-labelled tests in the bundle"
grep -q "@BUNDLE@/bin/mpiexec" "$work/bundle/share/gpu_tests.txt" || fail "test commands do not use the bundle's mpiexec"
OUT=$work/out timeout 120 "$work/bundle/device_check.sh" "$work/bundle" --dry-run > "$work/check.log" 2>&1 ||
  { cat "$work/check.log"; fail "device_check.sh --dry-run failed"; }
results=$work/out/results.txt
grep -q "^gpu tests: $tests$" "$results" || fail "the dry run did not list the $tests tests: $(cat "$results")"
grep -q "^launcher: 2 ranks ran stream_triad, 2 reports$" "$results" || fail "the bundled launcher: $(cat "$results")"
grep -q "^summary parsing: 16 1.250000e-01 1.000000e+09$" "$results" || fail "summary parsing: $(cat "$results")"
grep -q "^bit comparison: same differ$" "$results" || fail "the diagnostics' bit comparison: $(cat "$results")"
[ "$(grep -c '^would run' "$results")" -ge 7 ] || fail "the GPU stages were not all listed: $(cat "$results")"
if grep -q "^ratio " "$results"; then fail "a dry run reported a ratio"; fi
echo "bundle of $tests gpu tests checked; dry run passed"
