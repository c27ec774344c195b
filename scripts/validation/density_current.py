#!/usr/bin/env python3
"""Straka et al. (1993) density current: run the atmosphere solver's shipped deck
(configs/atmosphere/density_current.toml) at one or more grid spacings and compare the front
position and the theta' minimum at the end time (900 s) with the converged reference.

For each spacing H (metres, the same along x and z) it runs
    mpirun -n RANKS meridian run configs/atmosphere/density_current.toml
        --set mesh.nx=51200/H --set mesh.nz=6400/H --set run.end_time=T --output DIR/H
and measures the last output with scripts/post/density_current.py (imported, not copied): the front
is where the -1 K contour of theta' meets the ground, right of the centre, measured from the centre.
It prints, per spacing, both values with their difference from the reference; with two or more
spacings, the order at which each difference shrinks; with three at one refinement ratio, the
observed order of convergence and the Richardson extrapolation.

Run it with Debian's /usr/bin/python3 (it has h5py, numpy and matplotlib)."""
import argparse
import math
import os
import subprocess
import sys
import tomllib

import h5py

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts", "post"))
import density_current  # noqa: E402  (found through the path above)
from convergence import report_convergence  # noqa: E402  (beside this script)

DECK = os.path.join(ROOT, "configs", "atmosphere", "density_current.toml")
WIDTH, HEIGHT = 51200.0, 6400.0  # m, the deck's domain
HORIZONTAL_CELLS_KEY, VERTICAL_CELLS_KEY = "mesh.nx", "mesh.nz"  # the deck keys of the cell counts
REFERENCE = {"front (km)": density_current.REFERENCE_FRONT_KM, "theta' min (K)": density_current.REFERENCE_THETA_MIN}


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--meridian", default=os.path.join(ROOT, "build", "release", "apps", "meridian"),
                        help="meridian executable (default: build/release/apps/meridian)")
    parser.add_argument("--ranks", type=int, default=2, help="MPI ranks (default: 2)")
    parser.add_argument("--spacing", type=float, action="append", metavar="H",
                        help="grid spacing in metres along x and z; give it several times for several grids "
                             "(default: 200, 100 and 50)")
    parser.add_argument("--end-time", type=float, help="final time in seconds (default: the deck's, 900)")
    parser.add_argument("--output", default=os.path.join(ROOT, "output", "validation_straka"),
                        help="folder for the runs, DIR/H (default: output/validation_straka)")
    parser.add_argument("--reuse", action="store_true",
                        help="don't run a spacing whose folder already has an output at the end time")
    args = parser.parse_args()
    args.spacing = sorted(args.spacing or [200.0, 100.0, 50.0], reverse=True)
    if args.end_time is None:
        with open(DECK, "rb") as f:
            args.end_time = tomllib.load(f)["run"]["end_time"]
    # meridian runs in the repository root: paths given relative to here must not move with it
    args.output = os.path.abspath(args.output)
    if os.sep in args.meridian:
        args.meridian = os.path.abspath(args.meridian)
    return args


def cells(spacing):
    nx, nz = WIDTH / spacing, HEIGHT / spacing
    if not (nx.is_integer() and nz.is_integer()):
        raise SystemExit(f"spacing {spacing:g} m does not divide the {WIDTH:g} m x {HEIGHT:g} m domain")
    return int(nx), int(nz)


def run_folder(args, spacing):
    return os.path.join(args.output, f"{spacing:g}")


def reaches_end(folder, end_time):
    try:
        return density_current.measure_run(folder).time >= end_time * (1 - 1e-9)
    except SystemExit:  # no folder or no field file yet
        return False


def run_spacing(args, spacing):
    """Run the deck at this spacing (unless --reuse finds it done); returns the run folder."""
    folder = run_folder(args, spacing)
    nx, nz = cells(spacing)
    if args.reuse and reaches_end(folder, args.end_time):
        print(f"{spacing:g} m ({nx} x {nz}): reusing {folder}")
        return folder
    command = ["mpirun", "-n", str(args.ranks), args.meridian, "run", DECK,
               "--set", f"{HORIZONTAL_CELLS_KEY}={nx}", "--set", f"{VERTICAL_CELLS_KEY}={nz}",
               "--set", f"run.end_time={args.end_time:g}", "--set", "run.checkpoint_every_minutes=0",
               "--output", folder]
    print(" ".join(command), flush=True)
    subprocess.run(command, cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    return folder


def wall_seconds(folder):
    with h5py.File(os.path.join(folder, "diagnostics.h5"), "r") as f:
        return float(f.attrs.get("wall_seconds", math.nan))


def report(args, measurements, walls):
    print(f"\nStraka et al. (1993) density current at t = {args.end_time:g} s; reference (converged, 25 m): front "
          f"{density_current.REFERENCE_FRONT_KM:g} km from the centre, theta' min {density_current.REFERENCE_THETA_MIN:g} K")
    print(f"\n| spacing | cells | wall | front (km) | vs {density_current.REFERENCE_FRONT_KM:g} km | theta' min (K) "
          f"| vs {density_current.REFERENCE_THETA_MIN:g} K |")
    print("|---|---|---|---|---|---|---|")
    for spacing, m in measurements.items():
        front_error = m.front_km - density_current.REFERENCE_FRONT_KM
        theta_error = m.theta_min - density_current.REFERENCE_THETA_MIN
        print(f"| {spacing:g} m | {m.cells[0]} x {m.cells[1]} | {walls[spacing]:.0f} s | {m.front_km:.3f} "
              f"| {front_error:+.3f} km ({front_error / density_current.REFERENCE_FRONT_KM:+.1%}) | {m.theta_min:.3f} "
              f"| {theta_error:+.3f} K ({theta_error / abs(density_current.REFERENCE_THETA_MIN):+.1%}) |")
    report_convergence({spacing: {"front (km)": m.front_km, "theta' min (K)": m.theta_min}
                        for spacing, m in measurements.items()},
                       REFERENCE, grid_label=lambda spacing: f"{spacing:g} m",
                       refinement=lambda coarse, fine: coarse / fine, decimals=3)


def main():
    args = parse_args()
    measurements, walls = {}, {}
    try:
        for spacing in args.spacing:
            folder = run_spacing(args, spacing)
            measurements[spacing] = density_current.measure_run(folder)
            walls[spacing] = wall_seconds(folder)
    except subprocess.CalledProcessError as error:
        sys.exit(f"meridian failed ({error.returncode}): {' '.join(error.cmd)}")
    report(args, measurements, walls)


if __name__ == "__main__":
    main()
