#!/usr/bin/env bash
# The whole test suite: install what is missing, build Release and run every test through ctest,
# then build the Debug preset (AddressSanitizer + UBSan) and run the unit tests under it, then fuzz
# deck parsing and validation for a minute (clang's libFuzzer).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
jobs=$(nproc)
cmake --preset release
cmake --build --preset release -j "$jobs"
ctest --preset release -j "$jobs"
if [ "${MERIDIAN_SKIP_SANITIZERS:-0}" != 1 ]; then
  cmake --preset debug
  cmake --build --preset debug -j "$jobs"
  ctest --preset debug -j "$jobs"
fi
if [ "${MERIDIAN_SKIP_FUZZ:-0}" != 1 ]; then
  cmake --preset fuzz
  cmake --build --preset fuzz -j "$jobs"
  ctest --preset fuzz
fi
