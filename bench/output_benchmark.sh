#!/usr/bin/env bash
# Output benchmark: how fast meridian writes its field files, against plain serial HDF5 and the disk.
#
# Runs meridian's advection solver on configs/advection/solid_body_rotation.toml at 2048 x 2048 (one tracer,
# 32 MiB of doubles a field file) on 1 and 2 MPI ranks, with a field file at the start and after each of 10
# short steps. Each is a parallel HDF5 file of the global field, written under a temporary name, synced to the
# disk (fsync) and renamed into place; its seconds are the run summary's `output` phase. Two references write
# as many files of the same size, each synced before the next:
#   h5py  one process writing the 2048 x 2048 array with serial HDF5 (Debian's python3-h5py), then fsync
#   dd    1 MiB blocks from /dev/zero (conv=fsync): the disk's durable write bandwidth, the machine's limit
# Every writer's files stay until the end, so each writes into page-cache pages it never had, as a long run
# does. A writer that follows a deletion reuses the pages just freed, and on a virtual machine that is several
# times faster than pages the host must first hand over (measured: 32 MiB in 6 ms against 70 ms).
#
# Output: a row per writer (files, MiB, seconds, MiB/s), then lines a script can read:
#   ratio output-<ranks>rank-of-dd <fraction>      ratio output-<ranks>rank-over-h5py <speed-up>
#
# usage: bench/output_benchmark.sh [BUILD_DIR]      (BUILD_DIR default: build/release in the repository)
# environment: MERIDIAN      meridian binary           (default BUILD_DIR/apps/meridian)
#              MPIRUN        MPI launcher command      (default mpirun)
#              BENCH_TIMEOUT seconds allowed per run   (default 600)
#              TMPDIR        where the files go        (default /tmp): the disk measured
set -euo pipefail

# shellcheck source=common.sh source-path=SCRIPTDIR
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
bench_setup "${BASH_SOURCE[0]}" "" "$@"
python=$(bench_python h5py numpy)
[[ -n $python ]] || { echo "$bench_name: no python3 imports h5py and numpy (scripts/setup.sh installs them)" >&2; exit 1; }
deck="$repo_root/configs/advection/solid_body_rotation.toml"
cells=2048
# dt is about 6e-5 here (courant 0.8), so every step is shortened to land on the next 1e-5.
settings=(--set "mesh.nx=$cells" --set "mesh.ny=$cells" --set run.output_interval=1e-5 --set run.end_time=1e-4
  --set run.checkpoint_every_steps=0 --set run.diagnostics_every=100000 --set run.progress_every=100000)

rows=() ratios=()
# row WRITER FILES BYTES SECONDS: a table row.
row() {
  rows+=("$(awk -v w="$1" -v f="$2" -v b="$3" -v s="$4" \
    'BEGIN { printf "| %s | %d | %.0f | %.3f | %.0f |", w, f, b / 2^20, s, b / 2^20 / s }')")
}

declare -A seconds_of bytes_of
for ranks in 1 2; do
  bench_run_meridian "run$ranks" "$cells^2 advection, a field file every step" "$ranks" "$deck" "${settings[@]}"
  read -r files bytes < <(find "$work_dir/run$ranks" -maxdepth 1 -name 'fields_*.h5' -printf '%s\n' |
    awk '{ s += $1 } END { print NR, s + 0 }')
  seconds=$(awk '/^run summary/ { summary = 1 } summary && $1 == "output" { print $2; exit }' "$work_dir/run$ranks.log")
  [[ -n $seconds && $files -gt 0 ]] || bench_fail_with_log "no output phase or field files in the run" "$work_dir/run$ranks.log"
  row "meridian, $ranks rank(s)" "$files" "$bytes" "$seconds"
  seconds_of[$ranks]=$seconds bytes_of[$ranks]=$bytes
done

echo "h5py: $files files" >&2
mkdir "$work_dir/h5py"
read -r h5py_seconds h5py_bytes < <("$python" - "$cells" "$files" "$work_dir/h5py" <<'EOF'
import os, sys, time
import h5py
import numpy as np
cells, files, folder = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
field = np.random.default_rng(1).random((cells, cells))
written = 0
start = time.perf_counter()
for n in range(files):
    path = os.path.join(folder, f"fields_{n:05d}.h5")
    with h5py.File(path, "w") as f:
        f.create_dataset("q", data=field)
    descriptor = os.open(path, os.O_RDONLY)
    os.fsync(descriptor)
    os.close(descriptor)
    written += os.path.getsize(path)
print(time.perf_counter() - start, written)
EOF
)
row "h5py, 1 process" "$files" "$h5py_bytes" "$h5py_seconds"

echo "dd: $files files" >&2
mib=$(((bytes_of[1] / files + 2 ** 20 - 1) / 2 ** 20))
start=$(date +%s.%N)
for ((n = 0; n < files; ++n)); do
  dd if=/dev/zero of="$work_dir/dd_$n" bs=1M count="$mib" conv=fsync status=none
done
dd_seconds=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
dd_bytes=$((files * mib * 2 ** 20))
row "dd, 1 MiB blocks" "$files" "$dd_bytes" "$dd_seconds"

for ranks in 1 2; do
  ratios+=("$(awk -v r="$ranks" -v b="${bytes_of[$ranks]}" -v s="${seconds_of[$ranks]}" -v db="$dd_bytes" \
    -v ds="$dd_seconds" -v hb="$h5py_bytes" -v hs="$h5py_seconds" \
    'BEGIN { rate = b / s; printf "ratio output-%drank-of-dd %.3f\nratio output-%drank-over-h5py %.3f", r, rate / (db / ds), r, rate / (hb / hs) }')")
done

echo "| writer | files | MiB | seconds | MiB/s |"
echo "|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
printf '%s\n' "${ratios[@]}"
