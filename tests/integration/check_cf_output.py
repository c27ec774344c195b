"""The netCDF/CF checks of netcdf_cf.sh, with xarray (through netCDF4): for each run folder under WORK, the first
field file's dimensions and coordinates against the cell centres its own deck implies, the diagnostics as series
over time, and the 1- and 3-rank runs' coordinates against the 2-rank run's."""
import os
import sys
import tomllib

import numpy as np
import xarray as xr

work = sys.argv[1]


def opened(name, **options):
    return xr.open_dataset(os.path.join(work, name, "fields_00000.h5"), **options)


def deck(dataset):
    text = dataset.attrs["deck"]
    return tomllib.loads(text.decode() if isinstance(text, bytes) else text)


def centres(length, cells, origin=0.0):
    return origin + (np.arange(cells) + 0.5) * length / cells


def check_coordinates(name, expected, variable):
    with opened(name) as f:
        assert f.attrs["Conventions"] == "CF-1.10", f"{name}: Conventions {f.attrs.get('Conventions')}"
        field = f[variable]
        assert field.dims == ("time",) + tuple(reversed(expected)), f"{name}: {variable} over {field.dims}"
        for axis, values in expected.items():
            assert axis in f.coords, f"{name}: no coordinate {axis}"
            np.testing.assert_allclose(f[axis].values, values, rtol=0, atol=1e-12 * abs(values).max(),
                                       err_msg=f"{name}: coordinate {axis}")
            assert f[axis].attrs["units"] and f[axis].attrs["axis"], f"{name}: {axis} has no units or axis"
        assert f.sizes["time"] == 1 and np.issubdtype(f["time"].dtype, np.datetime64), f"{name}: time {f['time']}"
        print(f"{name}: {variable}{field.dims}, coordinates {', '.join(expected)} at the cell centres; time {f['time'].values[0]}")
        return f


def check_diagnostics(name):
    with xr.open_dataset(os.path.join(work, name, "diagnostics.h5"), group="diagnostics", decode_times=False) as d:
        series = [v for v in d.data_vars]
        assert series and all(d[v].dims == ("time",) for v in series), f"{name}: diagnostics over {[d[v].dims for v in series]}"
        assert d.sizes["time"] >= 2, f"{name}: {d.sizes['time']} records"
        print(f"{name}: diagnostics, {len(series)} series over time ({d.sizes['time']} records)")


with opened("advection") as f:
    mesh = deck(f)["mesh"]
check_coordinates("advection", {"x": centres(1, mesh["nx"]), "y": centres(1, mesh["ny"])}, "cosine_bell")

with opened("atmosphere") as f:
    d = deck(f)
    assert f["z"].attrs["axis"] == "Z" and f["z"].attrs["positive"] == "up", f"atmosphere: z {f['z'].attrs}"
    assert f["u"].attrs["standard_name"] == "eastward_wind" and f["w"].attrs["standard_name"] == "upward_air_velocity"
    assert str(f["time"].values[0]).startswith("2024-06-01T12:00:00"), f"atmosphere: time {f['time'].values}"
check_coordinates("atmosphere", {"x": centres(d["atmosphere"]["width"], d["mesh"]["nx"]),
                                 "z": centres(d["atmosphere"]["height"], d["mesh"]["nz"])}, "theta_perturbation")

with opened("cfd_spectral") as f:
    d = deck(f)
n, length = d["mesh"]["nx"], d["cfd"]["length"]
check_coordinates("cfd_spectral", {"x": np.arange(n) * length / n, "y": np.arange(n) * length / n}, "u")

with opened("cfd_projection") as f:
    d = deck(f)
    mask = f["body_mask"].values[0] > 0
    assert mask.any() and np.isnan(f["u"].values[0][mask]).all() and np.isfinite(f["u"].values[0][~mask]).all(), \
        "cfd_projection: u is not masked (NaN through _FillValue) exactly inside the body"
domain = d["projection"]["domain"]
check_coordinates("cfd_projection", {"x": centres(domain[0], d["mesh"]["nx"]), "y": centres(domain[1], d["mesh"]["ny"])}, "p")

with opened("monte_carlo", decode_times=False) as f:
    assert f["time"].attrs["units"] == "1" and "fraction of the paths" in f["time"].attrs["long_name"], f["time"].attrs
    assert "standard_name" not in f["time"].attrs
    print(f"monte_carlo: time is '{f['time'].attrs['long_name']}' in units '1'")

for name in ("advection", "atmosphere", "cfd_spectral", "cfd_projection", "monte_carlo"):
    check_diagnostics(name)

with opened("advection") as two:
    for other in ("advection_one", "advection_three"):
        with opened(other) as f:
            for axis in ("x", "y"):
                assert np.array_equal(f[axis].values, two[axis].values), f"{other}: {axis} differs from 2 ranks'"
            assert np.array_equal(f["cosine_bell"].values, two["cosine_bell"].values), f"{other}: the field differs"
print("1, 2 and 3 ranks: the same coordinates and field")
