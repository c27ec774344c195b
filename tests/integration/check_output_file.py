"""Checks the layout of a Meridian advection output folder with h5py (shapes and attributes)."""
import glob
import os
import sys
import xml.etree.ElementTree as ET

import h5py
import numpy as np

folder = sys.argv[1]
fields = sorted(glob.glob(os.path.join(folder, "fields_*.h5")))
assert len(fields) == 3, f"expected outputs at t = 0, 0.025, 0.05; found {fields}"
for n, path in enumerate(fields):
    with h5py.File(path) as f:
        for attr in ("meridian_format_version", "code_version", "build", "solver", "deck", "time", "step"):
            assert attr in f.attrs, f"{path}: no attribute {attr}"
        assert f.attrs["solver"] == b"advection" or f.attrs["solver"] == "advection"
        assert abs(f.attrs["time"] - 0.025 * n) < 1e-15, f"{path}: time {f.attrs['time']}"
        deck = f.attrs["deck"]
        deck = deck.decode() if isinstance(deck, bytes) else deck
        assert "nx = 40" in deck and "[advection]" in deck, "resolved deck missing keys"
        for name in ("cosine_bell", "gaussian"):
            d = f["fields"][name]
            assert d.shape == (1, 24, 40), f"{name}: shape {d.shape}, expected (time, ny, nx) = (1, 24, 40)"
            assert d.dtype == np.float64
            assert abs(d.attrs["spacing_x"] - 1 / 40) < 1e-17 and abs(d.attrs["spacing_y"] - 1 / 24) < 1e-17
            assert np.isfinite(d[...]).all()
with h5py.File(os.path.join(folder, "diagnostics.h5")) as f:
    d = f["diagnostics"]
    assert d["time"][0] == 0.0 and abs(d["time"][-1] - 0.05) < 1e-15
    assert len(d["cosine_bell_mass"]) == len(d["time"])
    for attr in ("wall_seconds", "core_hours", "throughput", "throughput_unit", "parallel_layout", "restart_checkpoint"):
        assert attr in f.attrs, f"diagnostics.h5: no run-summary attribute {attr}"
    assert f.attrs["throughput"] > 0
    # ru_maxrss is in KiB: a process with MPI, HDF5 and Kokkos loaded holds tens of MB, not tens of KB.
    assert f.attrs["peak_resident_bytes"] > 1e7, f"peak resident memory {f.attrs['peak_resident_bytes']} bytes"
with h5py.File(fields[0]) as f:
    initial = f["fields"]["cosine_bell"][0]
    assert initial.max() > 0.9, "the initial bell is missing"
xdmf = ET.parse(os.path.join(folder, "fields.xmf"))
grids = xdmf.getroot().findall(".//Grid[@GridType='Uniform']")
assert len(grids) == 3, f"XDMF lists {len(grids)} times"
item = grids[-1].find(".//Attribute//DataItem[@Format='HDF']").text
assert item.startswith("fields_00002.h5:/"), item
checkpoints = glob.glob(os.path.join(folder, "checkpoints", "checkpoint_*.h5"))
assert checkpoints, "no checkpoint at the end of the run"
print("output layout ok:", len(fields), "field files, diagnostics, XDMF and", len(checkpoints), "checkpoint(s)")
