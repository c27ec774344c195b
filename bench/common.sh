# shellcheck shell=bash
# Shared by the benchmark scripts in bench/: sourced, not run. Each script keeps its own usage text in its
# header comments, from line 2 to the `set -euo pipefail` line, and starts with
#   source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
#   bench_setup "${BASH_SOURCE[0]}" REFERENCE_TARGET "$@"
# bench_setup sets these globals for the script:
#   bench_name           the script's file name, which starts its error messages
#   repo_root            the repository
#   build_dir            argument 1, default build/release in the repository
#   meridian             $MERIDIAN, default BUILD_DIR/apps/meridian
#   reference_binary     bench_binary REFERENCE_TARGET (below); unset when REFERENCE_TARGET is "" (no such binary)
#   mpirun               $MPIRUN split into words, default mpirun
#   run_timeout_seconds  $BENCH_TIMEOUT, default 600
#   work_dir             a temporary directory, removed on exit

# bench_usage SCRIPT: the script's header comments from line 2 to `set -euo pipefail`, without the `# `.
bench_usage() {
  sed -n '2,/^set -euo/p' "$1" | sed -e '$d' -e 's/^# \{0,1\}//'
}

# bench_setup SCRIPT REFERENCE_TARGET ARGS...: parses ARGS (at most a build directory, or -h/--help), sets the
# globals above, checks that both binaries are there, makes work_dir and warns when the machine is busy.
bench_setup() {
  local script=$1 reference_target=$2
  shift 2
  bench_name=$(basename "$script")
  repo_root=$(cd "$(dirname "$script")/.." && pwd)
  build_dir="$repo_root/build/release"
  case "${1:-}" in
    -h | --help) bench_usage "$script"; exit 0 ;;
    -*) echo "$bench_name: unknown option $1" >&2; bench_usage "$script" >&2; exit 2 ;;
    "") ;;
    *) build_dir=$1 ;;
  esac
  if [[ $# -gt 1 ]]; then
    echo "$bench_name: at most one argument, the build directory" >&2
    exit 2
  fi

  meridian=${MERIDIAN:-$build_dir/apps/meridian}
  bench_check_binary "$meridian" meridian
  if [[ -n $reference_target ]]; then
    # shellcheck disable=SC2034  # read by the scripts that source this file
    reference_binary=$(bench_binary "$reference_target")
  fi
  read -r -a mpirun <<<"${MPIRUN:-mpirun}"
  run_timeout_seconds=${BENCH_TIMEOUT:-600}

  work_dir=$(mktemp -d -t "${bench_name%.sh}.XXXXXX")
  trap 'rm -rf "$work_dir"' EXIT

  local load
  load=$(cut -d' ' -f1 /proc/loadavg)
  if awk -v load="$load" 'BEGIN { exit !(load > 0.5) }'; then
    echo "warning: load average $load before starting; other work on these cores will lower the numbers" >&2
  fi
}

# bench_check_binary PATH TARGET: exits with a hint to build TARGET unless PATH is executable.
bench_check_binary() {
  if [[ ! -x $1 ]]; then
    echo "$bench_name: $1 not found or not executable" >&2
    echo "  build it: cmake --build $build_dir --target $2" >&2
    exit 1
  fi
}

# bench_binary TARGET: prints the path of bench/TARGET, from the environment variable named TARGET in upper
# case (stream_triad: $STREAM_TRIAD), default BUILD_DIR/bench/TARGET; exits when it is not there. Call it
# after bench_setup.
bench_binary() {
  local variable=${1^^}
  local binary=${!variable:-$build_dir/bench/$1}
  bench_check_binary "$binary" "$1"
  echo "$binary"
}

# bench_fail_with_log MESSAGE LOG: prints MESSAGE and the end of LOG, then exits.
# bench_python MODULE...: prints the first interpreter that imports every MODULE (Debian's /usr/bin/python3
# first: the python3 on PATH here does not see Debian's python3-* packages), or nothing.
bench_python() {
  local imports candidate
  imports=$(IFS=,; echo "$*")
  for candidate in /usr/bin/python3 python3; do
    if command -v "$candidate" >/dev/null && "$candidate" -c "import $imports" 2>/dev/null; then
      echo "$candidate"
      return
    fi
  done
}

bench_fail_with_log() {
  echo "$bench_name: $1" >&2
  tail -n 20 "$2" >&2
  exit 1
}

# bench_run_meridian RUN DESCRIPTION RANKS DECK SETTINGS...: `meridian run DECK SETTINGS...` on RANKS ranks
# under the timeout, with output to work_dir/RUN and its log to work_dir/RUN.log; exits if the run fails.
bench_run_meridian() {
  local run=$1 description=$2 ranks=$3
  shift 3
  echo "meridian: $description on $ranks rank(s)" >&2
  if ! timeout "$run_timeout_seconds" "${mpirun[@]}" -n "$ranks" "$meridian" run "$@" \
    --output "$work_dir/$run" >"$work_dir/$run.log" 2>&1; then
    bench_fail_with_log "$description on $ranks rank(s) failed or timed out; the end of its log:" \
      "$work_dir/$run.log"
  fi
}

# The start of an awk program reading a meridian log: it skips all before the run summary and takes the
# summary's `steps N this run ...` and `compute S P%` lines into `steps` and `compute`, and into `step` the
# seconds of every phase of the time step (all but diagnostics, output, checkpoint and other: compute, halo
# exchange, FFTs, pressure and viscous solves). Append the rules for the script's other lines and an END block.
# shellcheck disable=SC2016,SC2034  # $1 and $2 are awk's; the variable is used by the scripts
bench_summary_awk='
    /^run summary/ { summary = 1 }
    !summary { next }
    $1 == "steps" { steps = $2 }
    $1 == "compute" { compute = $2 }
    $NF ~ /%$/ && $1 !~ /^(phase|diagnostics|output|checkpoint|other)$/ { step += $(NF - 1) }'

# Ceiling programs (stream_triad, the reference loops) print lines `KEY value`; these run one copy alone (the
# bound for 1 rank) or two copies at once (for 2 ranks) and print KEY's value.
# bench_value_in FILE KEY: the value on the line `KEY value` of a ceiling program's output.
bench_value_in() { awk -v key="$2" '$1 == key { print $2 }' "$1"; }

# bench_one_copy NAME KEY PROGRAM ARGS...: prints KEY's value from one run of PROGRAM.
bench_one_copy() {
  local name=$1 key=$2
  shift 2
  echo "$name: one copy" >&2
  timeout "$run_timeout_seconds" "$@" >"$work_dir/$name-1.out"
  bench_value_in "$work_dir/$name-1.out" "$key"
}

# bench_two_copies NAME KEY PROGRAM ARGS...: prints the sum of KEY's values from two copies of PROGRAM run at
# once. Both set up their arrays, then wait for the same wall-clock start and count only repetitions that end
# before the same deadline, so every counted repetition ran while the other copy was also running.
bench_two_copies() {
  local name=$1 key=$2
  shift 2
  echo "$name: two copies at once" >&2
  local start_at=$(($(date +%s) + 4))  # leaves time to fill the arrays
  timeout "$run_timeout_seconds" "$@" --start-at "$start_at" --duration 3 >"$work_dir/$name-2a.out" &
  local first_copy=$!
  timeout "$run_timeout_seconds" "$@" --start-at "$start_at" --duration 3 >"$work_dir/$name-2b.out"
  wait "$first_copy"
  awk -v a="$(bench_value_in "$work_dir/$name-2a.out" "$key")" -v b="$(bench_value_in "$work_dir/$name-2b.out" "$key")" \
    'BEGIN { printf "%.4e", a + b }'
}

# bench_grid_option SCRIPT DEFAULT ARGS...: `grid` from ARGS' --grid N (or --grid=N), DEFAULT without one, at least
# 8; `arguments`, the rest of ARGS.
bench_grid_option() {
  local script=$1
  grid=$2
  arguments=()
  shift 2
  while [[ $# -gt 0 ]]; do
    case $1 in
      --grid) grid=${2:?--grid needs a number of cells}; shift 2 ;;
      --grid=*) grid=${1#--grid=}; shift ;;
      *) arguments+=("$1"); shift ;;
    esac
  done
  [[ $grid =~ ^[0-9]+$ && $grid -ge 8 ]] || { echo "$(basename "$script"): --grid $grid: need N >= 8" >&2; exit 2; }
}
