#!/usr/bin/env python3
"""Straka et al. (1993) density current: the front position and the theta' minimum of one output of
an atmosphere run (default the last, about t = 900 s for the shipped deck), against the converged
reference. Prints three lines:

    t = 900 s, 256 x 32 cells
    front position: 14.896 km from the centre (reference 15.54 km, difference -0.644 km)
    theta' minimum: -10.246 K (reference -9.77 K, difference -0.476 K)

The front is where the -1 K contour of theta' meets the ground, as Straka et al. measure it: the
largest x of the lowest cell row with theta' <= -1 K, moved on to the -1 K crossing by linear
interpolation towards the next cell. The current is symmetric about the centre, so only the right
half counts, and x is measured from the centre (Straka's domain is [-25.6, 25.6] km, Meridian's
[0, 51.2] km). The theta' minimum is over the whole field.

Straka, J. M., R. B. Wilhelmson, L. J. Wicker, J. R. Anderson and K. K. Droegemeier (1993),
"Numerical solutions of a non-linear density current: A benchmark solution and comparisons",
Int. J. Numer. Methods Fluids 17, 1-22."""
import argparse
from dataclasses import dataclass

import numpy as np

import meridian_post as post

FIELD = "theta_perturbation"
FRONT_CONTOUR = -1.0  # K: the theta' contour whose meeting with the ground is the front

# The converged solution at 900 s (Straka et al.'s 25 m runs): front 15.54 km from the centre, theta'
# minimum -9.77 K. Quoted second-hand: the paper itself was not at hand, and these are the values that
# codes reproducing the test cite for it (one more rounds them to 15.5 km and -9.8 K).
REFERENCE_FRONT_KM = 15.54
REFERENCE_THETA_MIN = -9.77  # K

# Accepted at 200 m (tests/integration/density_current.sh). The paper's spread of its intercomparison
# models at 200 m could not be found, so these are not published bounds: 1 km is 5 cells at 200 m and
# 6% of the front's distance, 1 K is 10% of the minimum. Measured here (fourth-order scheme, 2026-12):
# 14.90 km and -10.25 K at 200 m, 15.24 km and -10.07 K at 100 m, 15.37 km and -9.88 K at 50 m.
FRONT_TOLERANCE_KM = 1.0
THETA_MIN_TOLERANCE = 1.0  # K


@dataclass
class Measurement:
    time: float  # s
    front_km: float  # from the centre; NaN if no ground cell right of the centre is at -1 K or below
    theta_min: float  # K
    cells: tuple  # (nx, nz) of the run


def front_position(ground_row, x_centres, centre):
    """Distance from `centre` (same units as x) of the -1 K crossing of the right half of `ground_row`
    (theta' of the lowest cells at `x_centres`); NaN if none of its cells is at -1 K or below."""
    right = x_centres > centre
    x, theta = x_centres[right], ground_row[right]
    cold = np.flatnonzero(theta <= FRONT_CONTOUR)
    if not cold.size:
        return np.nan
    last = cold[-1]
    if last + 1 == len(theta):  # the current has reached the wall
        return x[last] - centre
    fraction = (FRONT_CONTOUR - theta[last]) / (theta[last + 1] - theta[last])
    return x[last] + fraction * (x[last + 1] - x[last]) - centre


def measure(field):
    """The Measurement of a theta' Field (meridian_post.Field, rows along z from the ground)."""
    nz, nx = field.values.shape
    x_low, x_high = field.extent[:2]
    x_centres = x_low + (np.arange(nx) + 0.5) * (x_high - x_low) / nx
    front = front_position(field.values[0], x_centres, 0.5 * (x_low + x_high))
    return Measurement(field.time, front / 1000, float(field.values.min()), (nx, nz))


def measure_run(folder, time=None):
    """The Measurement of the output of the run folder nearest `time` (default: the last output)."""
    run = post.Run(folder)
    return measure(run.read_fields(run.field_file(time), [FIELD])[0])


def main():
    arguments = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    arguments.add_argument("run", help="output folder of `meridian run` (its --output DIR)")
    arguments.add_argument("--time", type=float, help="the output nearest this time (default: the last)")
    args = arguments.parse_args()
    result = measure_run(args.run, args.time)
    if np.isnan(result.front_km):
        raise SystemExit(f"{args.run}: no ground cell right of the centre has theta' <= {FRONT_CONTOUR:g} K at "
                         f"t = {result.time:g} s: not a density current")
    print(f"t = {result.time:g} s, {result.cells[0]} x {result.cells[1]} cells")
    print(f"front position: {result.front_km:.3f} km from the centre (reference {REFERENCE_FRONT_KM:g} km, "
          f"difference {result.front_km - REFERENCE_FRONT_KM:+.3f} km)")
    print(f"theta' minimum: {result.theta_min:.3f} K (reference {REFERENCE_THETA_MIN:g} K, "
          f"difference {result.theta_min - REFERENCE_THETA_MIN:+.3f} K)")


if __name__ == "__main__":
    main()
