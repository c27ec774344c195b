"""Shared helpers for the post-processing scripts: open a run folder, read its HDF5 output,
draw the standard panels and save figures.

Nothing here depends on the solver. A run folder holds fields_NNNNN.h5 (datasets fields/<name>)
and diagnostics.h5 (series diagnostics/<quantity>_<statistic>) whatever wrote it, so a later
solver gets the field and diagnostics plots as they are. One that records a new statistic adds
its suffix to the tuples below; a figure of its own is a new script built from these helpers.
"""
import argparse
import glob
import os
import re
from dataclasses import dataclass

import h5py
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)
import numpy as np  # noqa: E402

DPI = 120  # pixels per inch: every figure size below is in inches, so its PNG has a fixed pixel size
FIELD_FIGURE = (6.0, 5.0)  # 720 x 600 pixels
DIAGNOSTICS_FIGURE = (7.0, 9.0)  # 840 x 1080 pixels
SUMMARY_FIGURE = (8.5, 11.0)  # one letter page, 1020 x 1320 pixels

CONSERVED = ("mass",)  # statistics whose relative drift from the first value is plotted
ERROR_NORMS = ("l1_error", "l2_error", "linf_error")  # normalised as in Williamson et al. (1992)


def text(value):
    """h5py returns string attributes as bytes; anything else is returned as it is."""
    return value.decode() if isinstance(value, bytes) else value


@dataclass
class FieldFile:
    path: str
    number: str  # the NNNNN of fields_NNNNN.h5, reused in the names of the PNGs made from it
    time: float
    step: int


@dataclass
class Field:
    name: str
    values: np.ndarray  # (ny, nx): the field, or the middle z slice of a 3-D one
    extent: tuple  # (x_low, x_high, y_low, y_high) of the cell edges, as imshow takes it
    units: str
    time: float
    step: int
    slice_note: str  # where the 3-D slice lies; "" for a 2-D field


@dataclass
class Diagnostics:
    series: dict  # column name -> 1-D array, in the writer's column order
    attrs: dict  # run summary: wall_seconds, core_hours, throughput, ..., "seconds <phase>"

    @property
    def time(self):
        return self.series["time"]

    def quantities(self, statistic):
        """The quantities q that have a column q_<statistic>."""
        suffix = "_" + statistic
        return [column[: -len(suffix)] for column in self.series if column.endswith(suffix)]

    def phases(self):
        """(phase, seconds) pairs, slowest first."""
        pairs = [(key[len("seconds "):], value) for key, value in self.attrs.items() if key.startswith("seconds ")]
        return sorted(pairs, key=lambda pair: -pair[1])


class Run:
    """The output folder of one `meridian run` (its --output DIR)."""

    def __init__(self, folder):
        if not os.path.isdir(folder):
            raise SystemExit(f"{folder}: no such run folder")
        self.folder = folder
        self.field_files = []
        for path in sorted(glob.glob(os.path.join(folder, "fields_*.h5"))):
            with h5py.File(path, "r") as f:
                number = re.search(r"fields_(\d+)\.h5$", path).group(1)
                self.field_files.append(FieldFile(path, number, float(f.attrs["time"]), int(f.attrs["step"])))

    def field_file(self, time=None, index=None):
        """The output nearest to `time`, else the `index`-th (Python indexing), else the last."""
        if not self.field_files:
            raise SystemExit(f"{self.folder}: no fields_*.h5 files")
        if time is not None:
            return min(self.field_files, key=lambda file: abs(file.time - time))
        try:
            return self.field_files[-1 if index is None else index]
        except IndexError:
            raise SystemExit(f"index {index}: the run has {len(self.field_files)} field files") from None

    def read_fields(self, file, names=None):
        """The fields named (default: all) of one field file, as 2-D Fields."""
        with h5py.File(file.path, "r") as f:
            available = list(f["fields"])
            missing = set(names or ()) - set(available)
            if missing:
                raise SystemExit(f"{file.path}: no field {', '.join(sorted(missing))}; it has {', '.join(available)}")
            return [_field(name, f["fields"][name], file) for name in names or available]

    def diagnostics(self):
        path = os.path.join(self.folder, "diagnostics.h5")
        if not os.path.isfile(path):
            raise SystemExit(f"{self.folder}: no diagnostics.h5")
        with h5py.File(path, "r") as f:
            group = f["diagnostics"]
            columns = text(group.attrs["columns"]).split(",")
            series = {column: group[column][...] for column in columns}
            return Diagnostics(series, {key: text(value) for key, value in f.attrs.items()})


def _field(name, dataset, file):
    attrs = dataset.attrs
    values = dataset[...]
    slice_note = ""
    if values.ndim == 3:
        middle = values.shape[0] // 2
        z = attrs["origin_z"] + (middle + 0.5) * attrs["spacing_z"]
        slice_note = f"z = {z:.4g} (slice {middle} of {values.shape[0]})"
        values = values[middle]
    ny, nx = values.shape
    x0, y0 = attrs["origin_x"], attrs["origin_y"]
    extent = (x0, x0 + nx * attrs["spacing_x"], y0, y0 + ny * attrs["spacing_y"])
    return Field(name, values, extent, text(attrs.get("units", "")), file.time, file.step, slice_note)


def parser(description):
    """An argument parser with the arguments every script shares: the run folder and --out."""
    arguments = argparse.ArgumentParser(description=description)
    arguments.add_argument("run", help="output folder of `meridian run` (its --output DIR)")
    arguments.add_argument("--out", metavar="DIR", help="folder for the PNG files (default: the run folder)")
    return arguments


def figure(size):
    return plt.figure(figsize=size, dpi=DPI, layout="constrained")


def save(fig, args, name):
    """Writes the figure as args.out/name (default the run folder), prints the path and returns it."""
    folder = args.out or args.run
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, name)
    fig.savefig(path, dpi=DPI)  # no bbox_inches="tight": the pixel size stays the figure size
    plt.close(fig)
    print(path)
    return path


def draw_field(ax, field, limits=(None, None)):
    """Image of the field in physical coordinates, with a colorbar; `limits` fixes the colour range."""
    image = ax.imshow(field.values, origin="lower", extent=field.extent, vmin=limits[0], vmax=limits[1],
                      interpolation="nearest", cmap="viridis")
    ax.figure.colorbar(image, ax=ax, label=field.units or field.name, shrink=0.9)
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    ax.set_title(f"{field.name}   t = {field.time:.4g}   step {field.step}"
                 + (f"\n{field.slice_note}" if field.slice_note else ""))


def draw_conservation(ax, diagnostics):
    """|q/q0 - 1| on a log axis: a conserved quantity drifts by round-off (~1e-16), which a linear
    axis shows only as noise about zero, while a leak (open boundaries, a bug) is orders of
    magnitude larger; the log axis shows both against machine epsilon. Exact zeros cannot be drawn."""
    drawn = False
    for statistic in CONSERVED:
        for quantity in diagnostics.quantities(statistic):
            column = f"{quantity}_{statistic}"
            values = diagnostics.series[column]
            with np.errstate(divide="ignore", invalid="ignore"):
                drift = np.abs(values / values[0] - 1)
            shown = np.isfinite(drift) & (drift > 0)
            ax.semilogy(diagnostics.time[shown], drift[shown], ".-", label=column)
            drawn = drawn or shown.any()
    ax.axhline(np.finfo(float).eps, color="gray", linestyle=":", label="machine epsilon")
    ax.set_ylabel("|q / q(0) - 1|")
    _finish(ax, diagnostics, "conserved quantities: relative change", drawn, "no change at all (exactly conserved)")


def draw_range(ax, diagnostics):
    """Min (dashed) and max (solid) of each quantity: over- and undershoots of the exact range."""
    quantities = [q for q in diagnostics.quantities("min") if f"{q}_max" in diagnostics.series]
    for quantity in quantities:
        line, = ax.plot(diagnostics.time, diagnostics.series[f"{quantity}_max"], label=f"{quantity} max")
        ax.plot(diagnostics.time, diagnostics.series[f"{quantity}_min"], "--", color=line.get_color(),
                label=f"{quantity} min")
    ax.set_ylabel("value")
    _finish(ax, diagnostics, "minimum and maximum", bool(quantities), "no min/max recorded")


def draw_errors(ax, diagnostics):
    """Error norms at the times the exact solution is known (NaN elsewhere, zero at t = 0: skipped)."""
    drawn = False
    for colour, quantity in enumerate(diagnostics.quantities(ERROR_NORMS[0])):
        for marker, norm in zip("os^dv", ERROR_NORMS):
            values = diagnostics.series[f"{quantity}_{norm}"]
            known = np.isfinite(values) & (values > 0)
            ax.semilogy(diagnostics.time[known], values[known], marker=marker, color=f"C{colour}",
                        label=f"{quantity} {norm.replace('_error', '')}")
            drawn = drawn or known.any()
    ax.set_ylabel("normalised error")
    _finish(ax, diagnostics, "error norms where known", drawn, "exact solution not known at any output")


def _finish(ax, diagnostics, title, drawn, empty_note):
    ax.set_title(title)
    ax.set_xlabel("time")
    start, end = diagnostics.time[0], diagnostics.time[-1]
    pad = 0.02 * (end - start) or 0.5
    ax.set_xlim(start - pad, end + pad)  # the whole run, even where only the last time is known
    ax.grid(alpha=0.3)
    if drawn:
        ax.legend(fontsize="small")
    else:
        ax.text(0.5, 0.5, empty_note, transform=ax.transAxes, ha="center", va="center")
