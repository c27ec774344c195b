"""Reads the outputs of one lid-driven cavity run, Meridian's (fields_NNNNN.h5) or icoFoam's (ASCII time
folders of U), for bench/cavity_icofoam_benchmark.sh, and prints lines the script reads:
  outputs N                   field outputs read (t = 0 included)
  steady_time T               the first output time (units of L/U) whose steady residual is below TOLERANCE, or nan
  steady_step S               the time step of that output, or nan
  final_time T                the last output's time (units of L/U)
  final_residual R            the last output's steady residual
  deviation_u D   deviation_v D   the last output's largest deviations from Ghia et al. (1982), in units of U
The steady residual of an output at t is max over the cells and both components of |u(t) - u(t - dT)| / dT,
made dimensionless with U and L (dT: the time from the output before). Both codes' cell-centred velocities are
used as they are stored; the centrelines are those of scripts/post/cavity_centrelines.py.
usage: cavity_compare.py meridian RUN_DIR --tolerance TOL
       cavity_compare.py openfoam CASE_DIR --tolerance TOL --length L --speed U --dt DT"""
import argparse
import glob
import os
import re
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scripts", "post"))
import cavity_centrelines  # noqa: E402  (after its folder is on the path)
import h5py  # noqa: E402
import meridian_post  # noqa: E402

NUMBER = r"[-+0-9.eE]+"


def meridian_outputs(folder):
    """[(time, step, u, v)] of a Meridian run in time order; lengths and times in the deck's units."""
    outputs = []
    for path in sorted(glob.glob(os.path.join(folder, "fields_*.h5"))):
        with h5py.File(path, "r") as f:
            outputs.append((float(f.attrs["time"]), int(f.attrs["step"]), meridian_post.field_values(f["fields/u"]),
                            meridian_post.field_values(f["fields/v"])))
    return outputs


def openfoam_vectors(path):
    """The internalField of an ASCII OpenFOAM volVectorField (U, or C from writeCellCentres): (cells, 3)."""
    text = open(path).read()
    match = re.search(r"internalField\s+nonuniform\s+List<vector>\s*(\d+)\s*\(", text)
    if not match:
        raise SystemExit(f"{path}: no nonuniform internalField (a uniform U is the initial rest state)")
    count = int(match.group(1))
    values = np.array(re.findall(rf"\(({NUMBER}) ({NUMBER}) ({NUMBER})\)", text[match.end():])[:count], dtype=float)
    if len(values) != count:
        raise SystemExit(f"{path}: {len(values)} vectors read, {count} expected")
    return values


def openfoam_outputs(case, length, speed, dt):
    """[(time in L/U, step, u / speed, v / speed)] of an icoFoam case, on (ny, nx) arrays of its cells
    placed by their centres (0/C, from `postProcess -func writeCellCentres -time 0`)."""
    centres = openfoam_vectors(os.path.join(case, "0", "C"))
    n = int(round(np.sqrt(len(centres))))
    column = np.floor(centres[:, 0] / length * n).astype(int)
    row = np.floor(centres[:, 1] / length * n).astype(int)
    times = sorted((float(name), name) for name in os.listdir(case) if re.fullmatch(NUMBER, name))
    outputs = []
    for time, name in times:
        u = np.zeros((n, n)), np.zeros((n, n))
        if time > 0:
            velocity = openfoam_vectors(os.path.join(case, name, "U"))
            for component in (0, 1):
                u[component][row, column] = velocity[:, component] / speed
        outputs.append((time * speed / length, int(round(time / dt)), u[0], u[1]))
    return outputs


def main():
    arguments = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    arguments.add_argument("code", choices=("meridian", "openfoam"))
    arguments.add_argument("folder")
    arguments.add_argument("--tolerance", type=float, required=True)
    arguments.add_argument("--length", type=float, default=1.0, help="openfoam: the cavity's side (m)")
    arguments.add_argument("--speed", type=float, default=1.0, help="openfoam: the lid speed (m/s)")
    arguments.add_argument("--dt", type=float, help="openfoam: its fixed time step (s)")
    args = arguments.parse_args()
    if args.code == "meridian":
        outputs = meridian_outputs(args.folder)
    else:
        outputs = openfoam_outputs(args.folder, args.length, args.speed, args.dt)
    if len(outputs) < 2:
        raise SystemExit(f"{args.folder}: {len(outputs)} outputs, at least 2 needed")
    steady_time = steady_step = np.nan
    for (time_before, _, u_before, v_before), (time, step, u, v) in zip(outputs, outputs[1:]):
        residual = max(np.abs(u - u_before).max(), np.abs(v - v_before).max()) / (time - time_before)
        if residual < args.tolerance and np.isnan(steady_time):
            steady_time, steady_step = time, step
    print(f"outputs {len(outputs)}")
    print(f"steady_time {steady_time:.6g}")
    print(f"steady_step {steady_step}")
    print(f"final_time {outputs[-1][0]:.6g}")
    print(f"final_residual {residual:.4e}")
    table = cavity_centrelines.read_ghia()[100.0]
    u, v = outputs[-1][2:]
    # In units of L and U: the unit square, the lid y = 1 moving with u = 1.
    found = cavity_centrelines.deviations(cavity_centrelines.centrelines(u, v, 1.0, [0, 0, 0, 1]), table, 1.0, 1.0)
    print(f"deviation_u {found['u'][0]:.6f}")
    print(f"deviation_v {found['v'][0]:.6f}")


if __name__ == "__main__":
    main()
