"""Compares two Meridian output folders the way the project defines "identical":
every field dataset bitwise, diagnostics that come from MPI reductions to a relative 1e-14,
wall times excluded.

usage: compare_outputs.py DIR_A DIR_B [--fields FILE_A FILE_B] [--round-off]
By default the newest fields_*.h5 of each folder and their diagnostics.h5 are compared.
--round-off relaxes fields and diagnostics to 1e-11 of the largest value of each dataset or
column, for solvers whose sums (FFTs, Krylov) split differently on other rank counts; a
diagnostic such as -dE/dt, a difference of nearly equal energies, carries their round-off. There an
iterative solve's record (columns ending in _iterations or _residual) is not compared: how many
iterations reach the tolerance, and the residual left, follow those sums; nor is what a projection
leaves of the divergence (max_divergence, 1e-15 of round-off whose bits follow the FFT's algorithm:
slabs transform (y, z) planes at once, pencils one axis at a time).
"""
import argparse
import glob
import os
import sys

import h5py
import numpy as np

REDUCTION_TOLERANCE = 1e-14  # relative; sums over ranks round differently for other rank counts
ROUND_OFF = 1e-11  # relative to the largest value, for --round-off


def newest_fields(folder):
    files = sorted(glob.glob(os.path.join(folder, "fields_*.h5")))
    if not files:
        sys.exit(f"no fields_*.h5 in {folder}")
    return files[-1]


def differ(x, y, tolerance):
    if x.shape != y.shape:
        return True
    if tolerance == 0:
        return x.tobytes() != y.tobytes()
    return np.max(np.abs(x - y)) > tolerance * max(np.max(np.abs(x)), np.finfo(float).tiny)


def datasets_in(f):
    found = {}
    f.visititems(lambda name, item: found.__setitem__(name, item[...]) if isinstance(item, h5py.Dataset) else None)
    return found


def compare_fields(a, b, tolerance):
    """Every dataset of two output files: fields, spectra, Monte Carlo results."""
    with h5py.File(a) as fa, h5py.File(b) as fb:
        if fa.attrs["time"] != fb.attrs["time"]:
            return [f"time {fa.attrs['time']!r} != {fb.attrs['time']!r}"]
        x_all, y_all = datasets_in(fa), datasets_in(fb)
        if x_all.keys() != y_all.keys():
            return [f"other datasets: {sorted(x_all)} vs {sorted(y_all)}"]
        problems = []
        for name, x in x_all.items():
            y = y_all[name]
            if differ(x, y, tolerance):
                problems.append(f"{name} differs: max |a-b| = {np.max(np.abs(x - y)) if x.shape == y.shape else 'shape'}")
        return problems


def compare_diagnostics(a, b, tolerance, round_off):
    with h5py.File(a) as fa, h5py.File(b) as fb:
        problems = []
        for name in fa["diagnostics"]:
            if round_off and (name.endswith(("_iterations", "_residual")) or name == "max_divergence"):
                continue
            x, y = fa["diagnostics"][name][...], fb["diagnostics"][name][...]
            if x.shape != y.shape:
                problems.append(f"diagnostics/{name}: {x.shape} records vs {y.shape}")
                continue
            nan_x, nan_y = np.isnan(x), np.isnan(y)
            scale = np.maximum(np.abs(x), np.abs(y))
            if round_off:  # differences of nearly equal numbers (-dE/dt): round-off of the column's size
                scale = np.full_like(scale, np.nanmax(scale) if (~nan_x).any() else 1.0)
            close = np.abs(x - y) <= tolerance * np.where(scale > 0, scale, 1)
            bad = (nan_x != nan_y) | (~nan_x & ~nan_y & ~close)
            if bad.any():
                problems.append(f"diagnostics/{name} differs beyond {tolerance} relative at {np.count_nonzero(bad)} records")
        return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dir_a")
    parser.add_argument("dir_b")
    parser.add_argument("--fields", nargs=2, metavar=("FILE_A", "FILE_B"))
    parser.add_argument("--round-off", action="store_true")
    args = parser.parse_args()
    fields = args.fields or (newest_fields(args.dir_a), newest_fields(args.dir_b))
    problems = compare_fields(*fields, ROUND_OFF if args.round_off else 0)
    problems += compare_diagnostics(os.path.join(args.dir_a, "diagnostics.h5"), os.path.join(args.dir_b, "diagnostics.h5"),
                                    ROUND_OFF if args.round_off else REDUCTION_TOLERANCE, args.round_off)
    for p in problems:
        print(p)
    if problems:
        sys.exit(1)
    print(f"identical: {fields[0]} and {fields[1]}")


if __name__ == "__main__":
    main()
