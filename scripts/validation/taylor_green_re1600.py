#!/usr/bin/env python3
"""Taylor-Green vortex at Re = 1600: run the pseudo-spectral CFD solver (cfd_spectral) on one or
more grids and compare it with the 512^3 pseudo-spectral reference of the workshop case.

For each grid N it runs
    mpirun -n RANKS meridian run configs/cfd/taylor_green_re1600.toml
        --set mesh.nx=N --set mesh.ny=N --set mesh.nz=N --set run.end_time=T --output DIR/N
reads DIR/N/diagnostics.h5 and prints, against tests/data/tgv_re1600_spectral512.dat, the peak of
-dE/dt and of the enstrophy, and the difference of the whole -dE/dt, enstrophy and kinetic energy
curves; then a table of those differences over the grids, and draws the curves in
DIR/tgv_re1600_dissipation.png.

Run it with Debian's /usr/bin/python3 (it has h5py, numpy and matplotlib). Without matplotlib (the GPU
image, where scripts/gpu/device_check.sh runs it on a 256^3 run) it prints the same and draws nothing."""
import argparse
import os
import subprocess
import sys

import h5py
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DECK = os.path.join(ROOT, "configs", "cfd", "taylor_green_re1600.toml")
REFERENCE = os.path.join(ROOT, "tests", "data", "tgv_re1600_spectral512.dat")
VISCOSITY = 1.0 / 1600  # the case's nu (V0 = L = 1): the dissipation is 2 nu enstrophy
# Under-resolved grids (64^3) show two close maxima of -dE/dt; this window holds the main one.
PEAK_WINDOW = (8.0, 10.0)
FIGURE_SIZE = (8.0, 5.5)  # inches; 960 x 660 pixels at DPI
DPI = 120


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--meridian", default=os.path.join(ROOT, "build", "release", "apps", "meridian"),
                        help="meridian executable (default: build/release/apps/meridian)")
    parser.add_argument("--ranks", type=int, default=2, help="MPI ranks (default: 2)")
    parser.add_argument("--grid", type=int, action="append",
                        help="modes per direction; give it several times for several grids (default: 64)")
    parser.add_argument("--end-time", type=float, default=20.0, help="final time (default: 20)")
    parser.add_argument("--output", default=os.path.join(ROOT, "output", "validation_tgv"),
                        help="folder for the runs (DIR/N) and the figure (default: output/validation_tgv)")
    parser.add_argument("--reuse", action="store_true",
                        help="don't run a grid whose folder already has a diagnostics.h5 reaching the end time")
    parser.add_argument("--reference", default=REFERENCE,
                        help="the 512^3 reference (default: tests/data/tgv_re1600_spectral512.dat)")
    args = parser.parse_args()
    args.grid = args.grid or [64]
    # meridian runs in the repository root: paths given relative to here must not move with it
    args.output = os.path.abspath(args.output)
    args.reference = os.path.abspath(args.reference)
    if os.sep in args.meridian:
        args.meridian = os.path.abspath(args.meridian)
    return args


def read_diagnostics(run_dir):
    """The series of run_dir/diagnostics.h5 that the comparison needs, as a dict of arrays."""
    with h5py.File(os.path.join(run_dir, "diagnostics.h5"), "r") as f:
        group = f["diagnostics"]
        return {name: group[name][:] for name in ("time", "kinetic_energy", "enstrophy", "energy_decay_rate")}


def read_reference(path=REFERENCE):
    """The 512^3 reference's columns ('#' lines are its header), under the names the runs use."""
    time, energy, rate, enstrophy = np.loadtxt(path, comments="#", unpack=True)
    return {"time": time, "kinetic_energy": energy, "energy_decay_rate": rate, "enstrophy": enstrophy}


def reaches_end(run_dir, end_time):
    try:
        return read_diagnostics(run_dir)["time"][-1] >= end_time * (1 - 1e-9)
    except (OSError, KeyError):  # no file, or one left unfinished by a killed run
        return False


def run_grid(args, grid):
    """Run the deck on a grid^3 mesh (unless --reuse finds it done); returns the run folder."""
    run_dir = os.path.join(args.output, str(grid))
    if args.reuse and reaches_end(run_dir, args.end_time):
        print(f"{grid}^3: reusing {run_dir}")
        return run_dir
    command = ["mpirun", "-n", str(args.ranks), args.meridian, "run", DECK,
               "--set", f"mesh.nx={grid}", "--set", f"mesh.ny={grid}", "--set", f"mesh.nz={grid}",
               "--set", f"run.end_time={args.end_time:g}", "--output", run_dir]
    print(" ".join(command), flush=True)
    subprocess.run(command, cwd=ROOT, check=True)
    return run_dir


def decay_rate(series):
    """-dE/dt and its times. A run's record i holds the difference quotient over [t(i-1), t(i)]
    (NaN at the first), so it belongs at the interval's midpoint, not at t(i)."""
    time = series["time"]
    return 0.5 * (time[1:] + time[:-1]), series["energy_decay_rate"][1:]


def peak(time, values, window=(-np.inf, np.inf)):
    """(largest value, its time) among the points with window[0] <= time <= window[1]."""
    inside = (time >= window[0]) & (time <= window[1])
    i = np.argmax(np.where(inside, values, -np.inf))
    return values[i], time[i]


def curve_difference(time, values, reference_time, reference_values, end_time):
    """Relative L2 (in time) and largest differences of a curve from the reference interpolated at
    the curve's times, over the part of [0, end_time] that the reference spans; the largest as a
    fraction of the reference's maximum there, with its time."""
    inside = (time >= reference_time[0]) & (time <= min(end_time, reference_time[-1]))
    t = time[inside]
    reference = np.interp(t, reference_time, reference_values)
    difference = values[inside] - reference
    l2 = np.sqrt(np.trapz(difference**2, t) / np.trapz(reference**2, t))
    worst = np.argmax(np.abs(difference))
    return l2, np.abs(difference[worst]) / np.abs(reference).max(), t[worst]


def curves(series, reference, end_time):
    """{name: (L2, max, time of max)} of a run's -dE/dt, enstrophy and kinetic energy curves."""
    return {"-dE/dt": curve_difference(*decay_rate(series), reference["time"],
                                       reference["energy_decay_rate"], end_time),
            "enstrophy": curve_difference(series["time"], series["enstrophy"], reference["time"],
                                          reference["enstrophy"], end_time),
            "kinetic energy": curve_difference(series["time"], series["kinetic_energy"], reference["time"],
                                               reference["kinetic_energy"], end_time)}


def report(grid, series, reference, differences):
    """Print the peaks of one grid against the reference's, and its curves' differences."""
    reference_peak = peak(reference["time"], reference["energy_decay_rate"])
    rows = [("-dE/dt, argmax", peak(*decay_rate(series))),
            (f"-dE/dt, max in {PEAK_WINDOW[0]:g}<=t<={PEAK_WINDOW[1]:g}", peak(*decay_rate(series), PEAK_WINDOW)),
            ("2 nu enstrophy, argmax", peak(series["time"], 2 * VISCOSITY * series["enstrophy"])),
            ("reference 512^3, -dE/dt", reference_peak)]
    print(f"\n{grid}^3 (t = {series['time'][0]:g} .. {series['time'][-1]:g}, {len(series['time']) - 1} steps)")
    print(f"  {'peak':<28}{'value':>10}{'t':>7}{'vs 512^3':>11}")
    for name, (value, time) in rows:
        print(f"  {name:<28}{value:10.6f}{time:7.2f}{value / reference_peak[0] - 1:+11.1%}")
    print(f"  {'curve vs 512^3':<28}{'L2':>10}{'max':>7}{'at t':>11}")
    for name, (l2, worst, worst_time) in differences.items():
        print(f"  {name:<28}{l2:10.2%}{worst:7.1%}{worst_time:11.2f}")


def convergence(differences):
    """The curve differences over the grids: they must fall as the grid resolves the cascade."""
    names = list(next(iter(differences.values())))
    print("\nrelative L2 difference from the 512^3 reference, by grid")
    print(f"  {'grid':<8}" + "".join(f"{name:>16}" for name in names))
    for grid, by_name in differences.items():
        print(f"  {str(grid) + '^3':<8}" + "".join(f"{by_name[name][0]:16.2%}" for name in names))


def plot(runs, reference, path):
    """Reference curve, and -dE/dt (wide, pale) and 2 nu enstrophy (dashed, on top) of each grid:
    the two nearly coincide, so they are drawn so that both stay visible. Nothing without matplotlib."""
    try:
        import matplotlib
    except ImportError:
        print(f"\nno figure: this python ({sys.executable}) has no matplotlib")
        return
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=FIGURE_SIZE, dpi=DPI)
    ax.plot(reference["time"], reference["energy_decay_rate"], "k", lw=2.5, alpha=0.6,
            label="512$^3$ pseudo-spectral reference $-dE/dt$")
    for (grid, series), colour in zip(runs.items(), plt.cm.tab10.colors):
        ax.plot(*decay_rate(series), color=colour, lw=3, alpha=0.45, label=f"{grid}$^3$  $-dE/dt$")
        ax.plot(series["time"], 2 * VISCOSITY * series["enstrophy"], "--", color=colour, lw=1.2,
                label=f"{grid}$^3$  $2\\nu\\,$enstrophy")
    ax.set_xlabel("time $t\\,V_0/L$")
    ax.set_ylabel("dissipation rate $\\varepsilon\\,L/V_0^3$")
    ax.set_title("Taylor-Green vortex, Re = 1600: dissipation rate")
    ax.set_xlim(left=0.0)
    ax.set_ylim(bottom=0.0)
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    print(f"\nwrote {path}")


def main():
    args = parse_args()
    reference = read_reference(args.reference)
    try:
        runs = {grid: read_diagnostics(run_grid(args, grid)) for grid in args.grid}
    except subprocess.CalledProcessError as error:
        sys.exit(f"meridian failed ({error.returncode}): {' '.join(error.cmd)}")
    differences = {grid: curves(series, reference, args.end_time) for grid, series in runs.items()}
    for grid, series in runs.items():
        report(grid, series, reference, differences[grid])
    convergence(differences)
    plot(runs, reference, os.path.join(args.output, "tgv_re1600_dissipation.png"))


if __name__ == "__main__":
    main()
