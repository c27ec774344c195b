#!/usr/bin/env bash
# Poisson benchmark: time per pressure Poisson solve against grid size for the direct solver
# (solvers/common/direct_poisson) and CG with the Jacobi and with the multigrid preconditioner
# (solvers/common/sparse), beside Meridian's own distributed FFT forward + backward pair on the same grid, and
# how each grows (bench/poisson_benchmark).
#
# The problem is the projection solver's pressure equation on the unit square (DIMENSIONS=3: cube) with walls
# all round; CG from zero to a relative residual of 1e-10. With N cells, Jacobi-CG needs O(sqrt N) iterations
# of O(N) work, so its time should grow like N^1.5; multigrid's iterations stay flat, so its time should grow
# like N; the direct solve is O(N log N): transforms along all axes but the last and a tridiagonal solve per
# mode. The exponents are least-squares fits of log(time) against log(N) over the grids timed.
#
# Output: a table (solver, n, cells, iterations, seconds per solve, max error against the exact solution, and
# the solve's time over the FFT pair's), then lines a script can read:
#   ratio poisson-<solver>-time-exponent <fit>
#   ratio poisson-multigrid-iterations-spread <most - fewest iterations over the grids>
#   ratio poisson-direct-over-fft-pair <largest of the direct solve's time / the FFT pair's over the grids>
# and in 3-D a line per grid with plain FFTW's r2c + c2r pair (bench/fftw_reference, one core, FFTW_ESTIMATE) and
# the FFT pair's and the direct solve's time over it.
# and, where a Python with matplotlib is found, the log-log plot in POISSON_PLOT.
#
# usage: bench/poisson_benchmark.sh [BUILD_DIR]      (BUILD_DIR default: build/release in the repository)
# environment: POISSON_BENCHMARK  poisson_benchmark binary  (default BUILD_DIR/bench/poisson_benchmark)
#              FFTW_REFERENCE     fftw_reference binary     (default BUILD_DIR/bench/fftw_reference; 3-D only)
#              MERIDIAN           meridian binary           (default BUILD_DIR/apps/meridian; only checked)
#              RANKS              MPI ranks                 (default 1)
#              DIMENSIONS         2 (32^2 ... 2048^2, default) or 3 (32^3 ... 256^3)
#              POISSON_PLOT       plot file                 (default poisson_scaling.png in the current folder)
#              MPIRUN             MPI launcher command      (default mpirun)
#              BENCH_TIMEOUT      seconds allowed           (default 600)
set -euo pipefail

# shellcheck source=common.sh source-path=SCRIPTDIR
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
bench_setup "${BASH_SOURCE[0]}" poisson_benchmark "$@"
program=$reference_binary
ranks=${RANKS:-1}
plot=${POISSON_PLOT:-poisson_scaling.png}
solves="$work_dir/solves.out"

echo "poisson_benchmark on $ranks rank(s)" >&2
dimensions=${DIMENSIONS:-2}
if [[ $dimensions == 3 ]]; then
  sizes=(--dimensions 3 --smallest 32 --largest 256 --jacobi-largest 64 --multigrid-largest 128)
else
  sizes=(--dimensions 2 --smallest 64 --largest 2048 --jacobi-largest 512 --multigrid-largest 1024)
fi
timeout "$run_timeout_seconds" "${mpirun[@]}" -n "$ranks" "$program" "${sizes[@]}" >"$solves" ||
  bench_fail_with_log "poisson_benchmark failed or timed out:" "$solves"

echo
echo "poisson benchmark ($(nproc) cores, $ranks rank(s); $(date -u '+%Y-%m-%d %H:%M UTC'))"
echo "cell-centred Laplacian in $dimensions-D, walls all round, CG to a relative residual of 1e-10 from zero; seconds: the best of 3 solves or more (as many as take a quarter second)"
echo
printf "%-10s %6s %10s %6s %12s %10s %10s\n" solver n cells iters s/solve "max error" "/fft pair"
awk '$1 == "fft_pair" { pair[$2] = $4 }
  $1 == "solve" { printf "%-10s %6d %10d %6d %12.4e %10.3e %10.2f\n", $2, $3, $4, $5, $6, $7, $6 / pair[$3] }
  $1 == "solve" && $2 == "direct" { r = $6 / pair[$3]; if (r > worst) worst = r }
  END { printf "\nratio poisson-direct-over-fft-pair %.3f\n", worst }' "$solves"
awk '$1 == "fft_pair" { printf "%-10s %6d %10d %6s %12.4e\n", "fft pair", $2, $3, "-", $4 }' "$solves"
# In 3-D, the FFT pair beside plain FFTW's (bench/fftw_reference: one 3-D r2c + c2r on one core, FFTW_ESTIMATE as
# the solver plans), so that the direct solve's cost can be read against the library's own.
if [[ $dimensions == 3 ]]; then
  fftw_reference=$(bench_binary fftw_reference)
  for ((n = 32; n <= 256; n *= 2)); do
    timeout "$run_timeout_seconds" "$fftw_reference" "$n" --repetitions 3 >"$work_dir/fftw_$n.out" ||
      bench_fail_with_log "fftw_reference $n failed or timed out:" "$work_dir/fftw_$n.out"
    awk -v n="$n" '$1 == "fftw_r2c_c2r_estimate_seconds" { print "fftw", n, $2 }' "$work_dir/fftw_$n.out" >>"$solves"
  done
  awk '$1 == "fft_pair" { pair[$2] = $4 } $1 == "fftw" { fftw[$2] = $3 }
    $1 == "solve" && $2 == "direct" { direct[$3] = $6 }
    END { for (n in fftw) if (n in pair) printf "%-10s %6d %10d %6s %12.4e  fft pair / fftw %.2f, direct / fftw %.2f\n",
            "fftw", n, n * n * n, "-", fftw[n], pair[n] / fftw[n], direct[n] / fftw[n] }' "$solves" | sort -k2 -n
fi
echo
# Least-squares slope of log(seconds) against log(cells), and the spread of multigrid's iteration counts.
awk '$1 == "solve" {
    p = $2; x = log($4); y = log($6)
    n[p]++; sx[p] += x; sy[p] += y; sxx[p] += x * x; sxy[p] += x * y
    if (!(p in fewest) || $5 < fewest[p]) fewest[p] = $5
    if ($5 > most[p]) most[p] = $5
  }
  END {
    for (p in n) printf "ratio poisson-%s-time-exponent %.3f\n", p,
      (n[p] * sxy[p] - sx[p] * sy[p]) / (n[p] * sxx[p] - sx[p] * sx[p])
    printf "ratio poisson-multigrid-iterations-spread %d\n", most["multigrid"] - fewest["multigrid"]
  }' "$solves" | sort

python=$(bench_python matplotlib)
if [[ -z $python ]]; then
  echo "plot skipped: no Python with matplotlib found"
  exit 0
fi
"$python" - "$solves" "$plot" <<'PY'
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)

runs = {}
for line in open(sys.argv[1]):
    words = line.split()
    if words and words[0] == "solve":
        runs.setdefault(words[1], []).append((int(words[3]), float(words[5])))
fig, ax = plt.subplots(figsize=(6, 4.5))
for name, points in sorted(runs.items()):
    cells, seconds = zip(*points)
    ax.loglog(cells, seconds, "o-", label=name if name == "direct" else f"CG + {name}")
first_cells, first_seconds = runs["multigrid"][0]
cells = [c for c, _ in runs["multigrid"]]
ax.loglog(cells, [first_seconds * c / first_cells for c in cells], "k:", label="~ N")
ax.loglog(cells, [first_seconds * (c / first_cells) ** 1.5 for c in cells], "k--", label="~ N^1.5")
ax.set_xlabel("cells N")
ax.set_ylabel("seconds per solve (residual 1e-10)")
ax.legend()
ax.grid(True, which="both", alpha=0.3)
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=120)
print(f"plot: {sys.argv[2]}")
PY
