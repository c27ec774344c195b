# Shared by the integration tests: where the binary is and how to launch it.
# ctest sets MERIDIAN, MERIDIAN_PYTHON, MPIEXEC and SOURCE_DIR.
set -euo pipefail
: "${MERIDIAN:?}" "${MERIDIAN_PYTHON:?}" "${MPIEXEC:?}" "${SOURCE_DIR:?}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
compare="$MERIDIAN_PYTHON $SOURCE_DIR/tests/integration/compare_outputs.py"

# meridian_on RANKS ARGS...: every launch is bounded, so a hang fails the test.
meridian_on() {
  local ranks=$1
  shift
  timeout 120 "$MPIEXEC" -n "$ranks" "$MERIDIAN" "$@"
}

fail() {
  echo "FAIL: $*" >&2
  exit 1
}
