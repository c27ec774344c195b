"""Writes FOLDER/diagnostics.h5 in the layout meridian writes (diagnostics/<column> datasets, their
order in the group's `columns` attribute) with a body's force series of known shedding frequency:
  lift  = 0.02 + A(t) sin(2 pi f t + 0.3), A growing from 0.01 to 0.8 over t < 20 (a transient), then 0.8,
  drag  = 1.35 + 0.04 sin(4 pi f t)        (drag oscillates at twice the lift's frequency),
  pressure_difference = 2.4 + 0.1 sin(2 pi f t),
recorded at uneven times (steps of 0.1 to 0.3, as a Courant-limited run records): about 30 records per period
at the default f = 0.165. usage: synthetic_forces.py FOLDER [--frequency F] [--end-time T]"""
import argparse
import os

import h5py
import numpy as np

arguments = argparse.ArgumentParser(description=__doc__)
arguments.add_argument("folder")
arguments.add_argument("--frequency", type=float, default=0.165)
arguments.add_argument("--end-time", type=float, default=80.0)
args = arguments.parse_args()

steps = np.random.default_rng(11).uniform(0.1, 0.3, int(args.end_time / 0.1))
time = np.concatenate(([0.0], np.cumsum(steps)))
time = time[time <= args.end_time]
growth = np.minimum(0.01 * np.exp(time * np.log(80) / 20), 0.8)
phase = 2 * np.pi * args.frequency * time
series = {"time": time, "step": np.arange(len(time), dtype=float),
          "body0_drag_coefficient": 1.35 + 0.04 * np.sin(2 * phase),
          "body0_lift_coefficient": 0.02 + growth * np.sin(phase + 0.3),
          "pressure_difference": 2.4 + 0.1 * np.sin(phase)}
os.makedirs(args.folder, exist_ok=True)
with h5py.File(os.path.join(args.folder, "diagnostics.h5"), "w") as f:
    f.attrs["solver"] = "cfd_projection"
    group = f.create_group("diagnostics")
    group.attrs["columns"] = ",".join(series)
    for name, values in series.items():
        group[name] = values
