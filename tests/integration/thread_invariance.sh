# A rank's OpenMP threads share its FFTs (FFTW's own threads, and for large planes a plane a thread with a
# buffer each), and the answers must not depend on how many there are: bitwise the same on 1 and 2 threads for
# the spectral solver's one-rank volume transform, its slab path's 2-D plane transforms (FFTW's), the same with
# planes of 128 x 130 (the column pass in buffered blocks, a last block of 2), and the 3-D cavity's direct
# pressure and viscous solves (FFTW's real-to-real rows). A build whose Kokkos has no OpenMP runs one thread a
# rank: skipped (77).
source "$(dirname "$0")/common.sh"
"$MERIDIAN" info 2>/dev/null | grep -q "OpenMP threads share" || { echo "SKIP: FFTW runs one thread a rank here"; exit 77; }

# on_threads THREADS NAME DECK SETTINGS...: one rank of THREADS threads, output in $work/NAME.THREADS.
on_threads() {
  local threads=$1 name=$2
  shift 2
  OMP_NUM_THREADS=$threads meridian_on 1 run "$@" --output "$work/$name.$threads" > "$work/$name.$threads.log"
}

spectral="$SOURCE_DIR/configs/cfd/taylor_green_re1600.toml"
steps=(--set cfd.dt=0.01 --set run.end_time=0.03 --set run.output_interval=0.03 --set run.progress_every=1000)
cavity="$SOURCE_DIR/configs/cfd/lid_driven_cavity_3d.toml"
for threads in 1 2; do
  on_threads "$threads" volume "$spectral" --set mesh.nx=64 --set mesh.ny=64 --set mesh.nz=64 "${steps[@]}"
  on_threads "$threads" planes "$spectral" --set mesh.nx=12 --set mesh.ny=48 --set mesh.nz=40 "${steps[@]}"
  on_threads "$threads" blocks "$spectral" --set mesh.nx=12 --set mesh.ny=128 --set mesh.nz=130 "${steps[@]}"
  on_threads "$threads" cavity "$cavity" --set mesh.nx=32 --set mesh.ny=32 --set mesh.nz=32 --set run.max_steps=4 \
    --set run.output_interval=0 --set run.progress_every=1000
done
# The state each run ends with, from its last checkpoint: every dataset bitwise. (The diagnostics are sums
# that Kokkos reduces over the threads, whose round-off follows their count.)
"$MERIDIAN_PYTHON" - "$work" <<'PY' || fail "a run's state differs between 1 and 2 threads"
import glob, sys, h5py
status = 0
for name in ("volume", "planes", "blocks", "cavity"):
    files = [h5py.File(sorted(glob.glob(f"{sys.argv[1]}/{name}.{t}/checkpoints/*.h5"))[-1], "r") for t in (1, 2)]
    names = []
    state = lambda n: isinstance(files[0][n], h5py.Dataset) and not n.startswith("diagnostics")
    files[0].visit(lambda n: names.append(n) if state(n) else None)
    different = [n for n in names if files[0][n][()].tobytes() != files[1][n][()].tobytes()]
    print(f"{name}: {len(names)} datasets, {len(different)} differ {different[:5]}")
    status |= bool(different) or not names
sys.exit(status)
PY
