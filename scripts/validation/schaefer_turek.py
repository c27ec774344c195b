#!/usr/bin/env python3
"""Schaefer & Turek (1996) benchmark, flow past a cylinder in a channel, 2-D cases: run the
projection solver (cfd_projection) with its immersed cylinder on one or more grids and compare the
force coefficients and the pressure difference with the benchmark's intervals.

--case 2d1 (steady, Re = 20): the final c_D, c_L and dP = p(0.15, 0.2) - p(0.25, 0.2), each against
its interval (the value, the relative error to the interval's midpoint, inside or not), dP also as the
momentum balance along y = 0.2 reads it from the run's last checkpoint ("dP balance",
scripts/post/wall_pressure.py; a cross-check: the solver's probe, a cubic along the normal, reads the
pressure's bend next to the front point that the balance's linear end misses), the observed
convergence order where grids come in threes at one refinement ratio, and how steady the end is
(c_D's change over the last time unit).
--case 2d2 (periodic, Re = 100): after the transient, the largest c_D and c_L over the last full
periods, and St = D f / U_mean with f from the lift's upward zero crossings
(scripts/post/force_coefficients.py), against the benchmark's intervals.

For each resolution N (cells per cylinder diameter along x, D / h = N) it runs
    mpirun -n RANKS meridian run configs/cfd/schaefer_turek_<case>.toml
        --set mesh.nx=22N --set mesh.ny=4N --set run.end_time=T --output DIR/<case>/N
reads DIR/<case>/N/diagnostics.h5, prints the comparison and draws c_D and c_L against time for all
grids in DIR/schaefer_turek_<case>.png.

Run it with Debian's /usr/bin/python3 (it has h5py, numpy and matplotlib)."""
import argparse
import glob
import os
import subprocess
import sys
import tomllib

import h5py
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)
import numpy as np  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts", "post"))
import force_coefficients  # noqa: E402  (found through the path above)
import wall_pressure  # noqa: E402  (found through the path above)
from convergence import report_convergence, report_fit  # noqa: E402  (beside this script)

# The channel is 2.2 x 0.41 and the cylinder's diameter D = 0.1: D / h = N along x means 22 N cells
# along x (h_x = D / N); 4 N along y keeps the deck's 352 x 64 at N = 16 (h_y = 0.41 / 4N = 1.025 h_x).
CELLS_X_PER_RESOLUTION = 22
CELLS_Y_PER_RESOLUTION = 4
DIAMETER = 0.1  # length
DRAG, LIFT, PRESSURE_DIFFERENCE = "body0_drag_coefficient", "body0_lift_coefficient", "pressure_difference"


class Case:
    """One benchmark case: its deck, its mean inflow speed and the benchmark's intervals."""

    def __init__(self, name, mean_velocity, intervals, description):
        self.name = name
        self.deck = os.path.join(ROOT, "configs", "cfd", f"schaefer_turek_{name}.toml")
        self.mean_velocity = mean_velocity  # length/time: U_mean = 2 U_max / 3
        self.intervals = intervals  # quantity -> (low, high), from the deck's header
        self.description = description

    def deck_settings(self):
        with open(self.deck, "rb") as f:
            return tomllib.load(f)

    def deck_end_time(self):
        return self.deck_settings()["run"]["end_time"]


CASES = {
    "2d1": Case("2d1", 0.2, {"c_D": (5.57, 5.59), "c_L": (0.0104, 0.0110), "dP": (0.1172, 0.1176),
                             "dP balance": (0.1172, 0.1176)},
                "2D-1, steady, Re = 20"),
    "2d2": Case("2d2", 1.0, {"c_D,max": (3.22, 3.24), "c_L,max": (0.99, 1.01), "St": (0.295, 0.305)},
                "2D-2, periodic, Re = 100"),
}
STEADY_WINDOW = 1.0  # time: 2d1's steadiness is c_D's change over the last time unit
FIGURE_SIZE = (8.0, 7.0)  # inches; 960 x 840 pixels at DPI
DPI = 120


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--case", choices=sorted(CASES), default="2d1",
                        help="2d1: steady, Re 20; 2d2: periodic, Re 100 (default: 2d1)")
    parser.add_argument("--meridian", default=os.path.join(ROOT, "build", "release", "apps", "meridian"),
                        help="meridian executable (default: build/release/apps/meridian)")
    parser.add_argument("--ranks", type=int, default=2, help="MPI ranks (default: 2)")
    parser.add_argument("--resolution", "--grid", dest="resolution", type=int, action="append", metavar="N",
                        help="D/h along x (the mesh is 22N x 4N); give it several times for several grids "
                             "(default: 16, the deck's 352 x 64)")
    parser.add_argument("--end-time", type=float,
                        help="final time (default: the deck's, 12 for 2d1 and 8 for 2d2)")
    parser.add_argument("--transient", type=float, default=5.0,
                        help="2d2: discard the records before this time (default: 5)")
    parser.add_argument("--periods", type=int, default=3,
                        help="2d2: the maxima of c_D and c_L are taken over this many last full periods (default: 3)")
    parser.add_argument("--output", default=os.path.join(ROOT, "output", "validation_st"),
                        help="folder for the runs (DIR/<case>/N) and the figure (default: output/validation_st)")
    parser.add_argument("--reuse", action="store_true",
                        help="don't run a grid whose folder already has a diagnostics.h5 reaching the end time")
    args = parser.parse_args()
    args.case = CASES[args.case]
    args.resolution = args.resolution or [16]
    if args.end_time is None:
        args.end_time = args.case.deck_end_time()
    # meridian runs in the repository root: paths given relative to here must not move with it
    args.output = os.path.abspath(args.output)
    if os.sep in args.meridian:
        args.meridian = os.path.abspath(args.meridian)
    return args


def read_diagnostics(run_dir):
    """The series of run_dir/diagnostics.h5 that the comparison needs, as a dict of arrays, with the
    run's wall time in seconds (NaN if the file doesn't record it)."""
    with h5py.File(os.path.join(run_dir, "diagnostics.h5"), "r") as f:
        group = f["diagnostics"]
        series = {name: group[name][:] for name in ("time", DRAG, LIFT, PRESSURE_DIFFERENCE)}
        series["wall_seconds"] = float(f.attrs.get("wall_seconds", np.nan))
        return series


def balance_pressure_difference(case, run_dir, end_time):
    """dP read from the run's last checkpoint by the steady momentum balance along the probes' line
    (scripts/post/wall_pressure.py); NaN, said, if that checkpoint is not the run's end."""
    checkpoints = sorted(glob.glob(os.path.join(run_dir, "checkpoints", "checkpoint_*.h5")))
    if not checkpoints:
        print(f"  no checkpoint in {run_dir}: dP balance not read")
        return np.nan
    with h5py.File(checkpoints[-1], "r") as f:
        if not at_end(f["diagnostics"]["time"][-1], end_time):
            print(f"  {checkpoints[-1]} is not the run's end: dP balance not read")
            return np.nan
    projection = case.deck_settings()["projection"]
    front_x, front_y, back_x, back_y = projection["pressure_probes"]
    fields = wall_pressure.Fields(checkpoints[-1], projection["domain"])
    front = wall_pressure.wall_pressure(fields, (front_x, front_y), -1, projection["viscosity"])
    back = wall_pressure.wall_pressure(fields, (back_x, back_y), +1, projection["viscosity"])
    return front - back


def at_end(time, end_time):
    """Whether a record's time is the run's end (to the rounding of the time steps' sum)."""
    return time >= end_time * (1 - 1e-9)


def reaches_end(run_dir, end_time):
    try:
        return at_end(read_diagnostics(run_dir)["time"][-1], end_time)
    except (OSError, KeyError):  # no file, or one left unfinished by a killed run
        return False


def run_grid(args, resolution):
    """Run the case's deck at D/h = resolution (unless --reuse finds it done); returns the run folder."""
    run_dir = os.path.join(args.output, args.case.name, str(resolution))
    nx, ny = CELLS_X_PER_RESOLUTION * resolution, CELLS_Y_PER_RESOLUTION * resolution
    if args.reuse and reaches_end(run_dir, args.end_time):
        print(f"D/h = {resolution} ({nx} x {ny}): reusing {run_dir}")
        return run_dir
    command = ["mpirun", "-n", str(args.ranks), args.meridian, "run", args.case.deck,
               "--set", f"mesh.nx={nx}", "--set", f"mesh.ny={ny}",
               "--set", f"run.end_time={args.end_time:g}", "--output", run_dir]
    print(" ".join(command), flush=True)
    subprocess.run(command, cwd=ROOT, check=True)
    return run_dir


def compare(name, value, interval):
    """One row: quantity, value, the interval, the relative error to its midpoint, inside or not."""
    low, high = interval
    middle = 0.5 * (low + high)
    inside = "yes" if low <= value <= high else "no"
    return f"  {name:<9}{value:11.5f}   {f'[{low:g}, {high:g}]':<18}{value / middle - 1:+10.2%}   {inside}"


def table(rows):
    print(f"  {'quantity':<9}{'value':>11}   {'benchmark':<18}{'vs middle':>10}   inside")
    for row in rows:
        print(row)


def steady_values(series):
    """2d1: the final c_D, c_L, dP; c_D's range over the last STEADY_WINDOW time units before the final
    record, and its change in the final record, each relative to its final value. The run shortens its
    last step to land on the end time (and each step before an output time), and the force depends on
    the step length a little, so the final record's change is not unsteadiness and is told apart."""
    time, drag = series["time"], series[DRAG]
    late = (time >= time[-1] - STEADY_WINDOW)[:-1]
    drift = (drag[:-1][late].max() - drag[:-1][late].min()) / abs(drag[-1])
    last_step_change = (drag[-1] - drag[-2]) / abs(drag[-1])
    values = {"c_D": drag[-1], "c_L": series[LIFT][-1], "dP": series[PRESSURE_DIFFERENCE][-1],
              "dP balance": series["dP balance"]}
    return values, drift, last_step_change


def periodic_values(series, transient, periods, mean_velocity):
    """2d2: the largest c_D and c_L over the last full periods after the transient, St, and the
    analysis of force_coefficients.analyse (its window and the number of crossings)."""
    time, drag, lift = series["time"], series[DRAG], series[LIFT]
    result = force_coefficients.analyse(time, lift, drag, transient, periods)
    start, end = result["window"]
    last = (time >= start) & (time <= end)
    values = {"c_D,max": drag[last].max(), "c_L,max": lift[last].max(),
              "St": DIAMETER * result["frequency"] / mean_velocity}
    return values, result


def run_summary(resolution, series):
    nx, ny = CELLS_X_PER_RESOLUTION * resolution, CELLS_Y_PER_RESOLUTION * resolution
    return (f"\nD/h = {resolution} ({nx} x {ny}; t = {series['time'][0]:g} .. {series['time'][-1]:g}, "
            f"{len(series['time'])} records, wall time {series['wall_seconds']:.0f} s)")


def report_steady(args, runs):
    """Per grid, the final values against the intervals and the steadiness; then the convergence."""
    values = {}
    for resolution, series in runs.items():
        values[resolution], drift, last_step_change = steady_values(series)
        print(run_summary(resolution, series))
        table([compare(name, value, args.case.intervals[name]) for name, value in values[resolution].items()])
        print(f"  steadiness: c_D changed by {drift:.1e} of itself over the last {STEADY_WINDOW:g} time unit before "
              f"the final record, and by {last_step_change:+.1e} in the final record (its step shortened to land "
              f"on the end time)")
    middles = {name: 0.5 * (low + high) for name, (low, high) in args.case.intervals.items()}
    report_convergence({grid: values[grid] for grid in sorted(values)}, middles,
                       grid_label=lambda grid: f"D/h {grid}", refinement=lambda coarse, fine: fine / coarse,
                       decimals=5, reference_note=lambda name: f" (the interval's midpoint; half-width "
                       f"{0.5 * (args.case.intervals[name][1] - args.case.intervals[name][0]):g})")
    report_fit(values, spacing=lambda grid: 1.0 / grid, intervals=args.case.intervals, decimals=5,
               reported_only=("c_L",))


def report_periodic(args, runs):
    """Per grid, the maxima and St against the intervals, and the largest c_L of each period after the
    transient (periodicity: they should agree)."""
    fitted = {}
    for resolution, series in runs.items():
        values, result = periodic_values(series, args.transient, args.periods, args.case.mean_velocity)
        fitted[resolution] = values
        print(run_summary(resolution, series))
        start, end = result["window"]
        print(f"  transient t < {args.transient:g} discarded; {result['crossings']} upward zero crossings of c_L; "
              f"maxima over t = {start:.4g} .. {end:.4g} (the last {args.periods} full periods); "
              f"f = {result['frequency']:.5g} (FFT {result['fft_frequency']:.5g})")
        table([compare(name, value, args.case.intervals[name]) for name, value in values.items()])
        last = (series["time"] >= start) & (series["time"] <= end)
        lift = series[LIFT][last]
        print(f"  c_L over the same periods: min {lift.min():.5f}, mean {lift.mean():+.5f}, "
              f"half the peak-to-peak {0.5 * (lift.max() - lift.min()):.5f} (a symmetric body sheds with mean ~0)")
        print("  largest c_L of each period after the transient: "
              + ", ".join(f"{peak:.4f}" for peak in period_maxima(series, args.transient)))
    report_fit({grid: fitted[grid] for grid in sorted(fitted)}, spacing=lambda grid: 1.0 / grid,
               intervals=args.case.intervals, decimals=5)


def period_maxima(series, transient):
    """The largest c_L between each two successive upward zero crossings (of c_L minus its mean) after
    the transient."""
    time, lift = series["time"], series[LIFT]
    after = time >= transient
    crossings = force_coefficients.upward_crossings(time[after], lift[after] - lift[after].mean())
    return [lift[(time >= a) & (time <= b)].max() for a, b in zip(crossings, crossings[1:])]


def plot(args, runs, path):
    """c_D and c_L against time for every grid, with the benchmark intervals as bands (2d1: the values;
    2d2: the maxima) and, for 2d2, the discarded transient shaded."""
    fig, (drag_axes, lift_axes) = plt.subplots(2, 1, sharex=True, figsize=FIGURE_SIZE, dpi=DPI)
    bands = list(args.case.intervals.values())[:2]  # c_D's and c_L's
    for axes, column, label, band in ((drag_axes, DRAG, "$c_D$", bands[0]), (lift_axes, LIFT, "$c_L$", bands[1])):
        for (resolution, series), colour in zip(runs.items(), plt.cm.tab10.colors):
            axes.plot(series["time"], series[column], color=colour, lw=1.2, label=f"D/h = {resolution}")
        axes.axhspan(*band, color="k", alpha=0.2, lw=0, label="benchmark" + (" maximum" if args.case.name == "2d2" else ""))
        if args.case.name == "2d2":
            axes.axvspan(0.0, args.transient, color="gray", alpha=0.1, lw=0, label="transient (discarded)")
        axes.set_ylabel(label)
        axes.grid(alpha=0.3)
    if args.case.name == "2d1":  # the start-up transient dwarfs the steady values: show the second half
        drag_axes.set_ylim(*late_limits(runs, DRAG, bands[0], margin=0.1))
        lift_axes.set_ylim(*late_limits(runs, LIFT, bands[1] + (0.0,), margin=0.2))
    drag_axes.set_title(f"Schaefer & Turek {args.case.description}: force coefficients")
    drag_axes.legend(fontsize="small")
    lift_axes.set_xlabel("time")
    lift_axes.set_xlim(left=0.0)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    print(f"\nwrote {path}")


def late_limits(runs, column, band, margin):
    """y limits spanning every run's column over the second half of its run, and the band's values,
    widened by margin of that span at each end."""
    late = [series[column][series["time"] >= 0.5 * series["time"][-1]] for series in runs.values()]
    low = min(min(values.min() for values in late), *band)
    high = max(max(values.max() for values in late), *band)
    return low - margin * (high - low), high + margin * (high - low)


def main():
    args = parse_args()
    try:
        runs = {}
        for resolution in args.resolution:
            run_dir = run_grid(args, resolution)
            runs[resolution] = read_diagnostics(run_dir)
            if args.case.name == "2d1":
                runs[resolution]["dP balance"] = balance_pressure_difference(args.case, run_dir, args.end_time)
    except subprocess.CalledProcessError as error:
        sys.exit(f"meridian failed ({error.returncode}): {' '.join(error.cmd)}")
    if args.case.name == "2d1":
        report_steady(args, runs)
    else:
        report_periodic(args, runs)
    plot(args, runs, os.path.join(args.output, f"schaefer_turek_{args.case.name}.png"))


if __name__ == "__main__":
    main()
