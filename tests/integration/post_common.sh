# What the post-processing tests share: the scripts run with the interpreter that imports h5py, with
# matplotlib's cache in the test's folder, and the checks of what they print and draw.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
export MPLCONFIGDIR=$work/matplotlib PYTHONDONTWRITEBYTECODE=1  # no caches in the home or source tree
post() {  # post SCRIPT ARGS...: runs scripts/post/SCRIPT.py
  "$MERIDIAN_PYTHON" "$SOURCE_DIR/scripts/post/$1.py" "${@:2}"
}
check_png() {  # check_png WIDTHxHEIGHT PNG... [options of check_png.py]
  "$MERIDIAN_PYTHON" "$SOURCE_DIR/tests/integration/check_png.py" "$@" > /dev/null || fail "check_png.py $*"
}
# expect_output EXPECTED COMMAND...: the command succeeds and prints exactly EXPECTED.
expect_output() {
  local expected=$1 printed
  shift
  printed=$("$@") || fail "$* exited with an error"
  [ "$printed" = "$expected" ] || fail "$*: printed '$printed', expected '$expected'"
}
# expect_refusal MESSAGE COMMAND...: the command fails, saying MESSAGE on stderr.
expect_refusal() {
  local message=$1
  shift
  ! "$@" > /dev/null 2> "$work/refusal" || fail "$* succeeded"
  grep -qF "$message" "$work/refusal" || fail "$*: said '$(cat "$work/refusal")', not '$message'"
}
