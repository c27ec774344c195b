"""Shared helpers for the post-processing scripts: open a run folder, read its HDF5 output,
draw the standard panels and save figures.

The reading part does not depend on the solver. A run folder holds fields_NNNNN.h5 (datasets
fields/<name>, and whatever else the solver writes there: spectrum/energy, results/<product>) and
diagnostics.h5 (series diagnostics/<quantity>_<statistic>, and the solver's name as the
attribute `solver`) whatever wrote it, so a later solver gets the field and diagnostics plots as
they are. One that records a new statistic adds its suffix to the tuples below. The panels of
one solver's own series (CFD energy, dissipation and spectra; Monte Carlo price convergence) are
the draw_* functions of their sections at the end; the scripts pick them by `solver`.
"""
import argparse
import functools
import glob
import importlib.util
import math
import os
import re
import tomllib
from dataclasses import dataclass

import h5py
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)
import matplotlib.ticker  # noqa: E402
import numpy as np  # noqa: E402

DPI = 120  # pixels per inch: every figure size below is in inches, so its PNG has a fixed pixel size
FIELD_FIGURE = (6.0, 5.0)  # 720 x 600 pixels
DIAGNOSTICS_FIGURE = (7.0, 9.0)  # 840 x 1080 pixels
SUMMARY_FIGURE = (8.5, 11.0)  # one letter page, 1020 x 1320 pixels

CFD_FIGURE = (7.0, 5.0)  # 840 x 600 pixels: the energy spectra

CONSERVED = ("mass",)  # statistics whose relative drift from the first value is plotted
ERROR_NORMS = ("l1_error", "l2_error", "linf_error")  # normalised as in Williamson et al. (1992)
# Fields computed from others in the same file: name -> the components whose Euclidean norm it is.
DERIVED_FIELDS = {"vorticity_magnitude": ("vorticity_x", "vorticity_y", "vorticity_z")}


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

    @property
    def solver(self):
        """The `solver` attribute of diagnostics.h5 ("advection", "cfd_spectral", "monte_carlo")."""
        return self.attrs.get("solver", "")

    @property
    def deck(self):
        """The run's deck (every key, defaults filled in) as nested dicts; {} if it wasn't recorded."""
        return tomllib.loads(self.attrs.get("deck", ""))

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
        """The fields named (default: all, derived ones last) of one field file, as 2-D Fields."""
        with h5py.File(file.path, "r") as f:
            if "fields" not in f:
                raise SystemExit(f"{file.path}: no fields/ group, so no field to plot (the {text(f.attrs['solver'])} "
                                 f"solver writes {', '.join(group + '/' for group in f)} instead)")
            group = f["fields"]
            available = list(group) + [name for name, parts in DERIVED_FIELDS.items() if set(parts) <= set(group)]
            missing = set(names or ()) - set(available)
            if missing:
                raise SystemExit(f"{file.path}: no field {', '.join(sorted(missing))}; it has {', '.join(available)}")
            return [_field(name, group, file) for name in names or available]

    def spectra(self):
        """(FieldFile, E(k)) of every field file with a spectrum/energy, in time order; E[k] is the
        energy in the shell of integer wavenumber k (in units of 2 pi / length)."""
        spectra = []
        for file in self.field_files:
            with h5py.File(file.path, "r") as f:
                if "spectrum/energy" in f:
                    spectra.append((file, f["spectrum/energy"][...]))
        if not spectra:
            raise SystemExit(f"{self.folder}: no field file has a spectrum/energy (only cfd_spectral runs write one)")
        return spectra

    def results(self):
        """results/<product> of the last field file as {product: array}, in the order of RESULTS;
        {} if there is none (only monte_carlo runs write them)."""
        if not self.field_files:
            return {}
        with h5py.File(self.field_files[-1].path, "r") as f:
            return {name: dataset[...] for name, dataset in f.get("results", {}).items()}

    def diagnostics(self):
        path = os.path.join(self.folder, "diagnostics.h5")
        if not os.path.isfile(path):
            raise SystemExit(f"{self.folder}: no diagnostics.h5")
        with h5py.File(path, "r") as f:
            group = f["diagnostics"]
            columns = text(group.attrs["columns"]).split(",")
            series = {column: group[column][...] for column in columns}
            return Diagnostics(series, {key: text(value) for key, value in f.attrs.items()})


def record_index(dataset):
    """The index of the one record of a field over (time, [z,] y, x), as field files are written (netCDF/CF),
    or () for a field without the time dimension (files written before 2026-12)."""
    return (0,) if dataset.ndim and "time" in dataset.dims[0].keys() else ()


def field_values(dataset):
    """A field's values over ([z,] y, x), whichever layout its file has."""
    return dataset[record_index(dataset) or ...]


def _field(name, group, file):
    """fields/<name>, or the norm of the components of a derived field; 3-D: the middle z slice."""
    parts = DERIVED_FIELDS.get(name, (name,))
    first = group[parts[0]]
    attrs = first.attrs
    where = record_index(first)  # the whole of a 2-D field
    shape = first.shape[len(where):]
    slice_note = ""
    if len(shape) == 3:
        middle = shape[0] // 2
        where += (middle,)
        z = attrs["origin_z"] + (middle + 0.5) * attrs["spacing_z"]
        slice_note = f"z = {z:.4g} (slice {middle} of {shape[0]})"
    components = [group[part][where or ...] for part in parts]  # only the slice is read
    if "_FillValue" in attrs:  # cells where the field is undefined (inside a body): blank in a plot
        components = [np.where(c == attrs["_FillValue"], np.nan, c) for c in components]
    values = components[0] if len(parts) == 1 else np.sqrt(sum(component**2 for component in components))
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


# CFD (cfd_spectral) ------------------------------------------------------------------------------

VALIDATION_SCRIPT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "validation",
                                 "taylor_green_re1600.py")


@functools.cache
def taylor_green_re1600():
    """scripts/validation/taylor_green_re1600.py as a module: its reader of the 512^3 reference
    (read_reference), decay_rate and peak."""
    spec = importlib.util.spec_from_file_location("taylor_green_re1600", VALIDATION_SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # defines functions and constants only: its main() doesn't run
    return module


def is_taylor_green_re1600(diagnostics):
    """Whether the run is the reference case: the 3-D Taylor-Green vortex in a box of side 2 pi with
    nu = 1/1600. Any other deck (random start, another viscosity, 2-D) has no reference curve."""
    deck = diagnostics.deck
    cfd, mesh = deck.get("cfd", {}), deck.get("mesh", {})
    return (diagnostics.solver == "cfd_spectral" and cfd.get("initial") == "taylor_green"
            and math.isclose(cfd.get("viscosity", 0), 1 / 1600) and math.isclose(cfd.get("length", 0), 2 * math.pi)
            and mesh.get("dimensions") == 3)


def decay_rate(diagnostics):
    """(midpoint times, -dE/dt): record i holds the difference quotient over [t(i-1), t(i)]."""
    return taylor_green_re1600().decay_rate(diagnostics.series)


def reference_over_run(diagnostics, column):
    """(time, values) of a column of the 512^3 reference over the run's times and one row either
    side, so that the run, not the reference, sets an axis' range."""
    reference = taylor_green_re1600().read_reference()
    time = reference["time"]
    first, last = np.searchsorted(time, (diagnostics.time[0], diagnostics.time[-1]))
    inside = slice(max(first - 1, 0), last + 1)
    return time[inside], reference[column][inside]


def draw_energy(ax, diagnostics):
    """Kinetic energy (1/2)<|u|^2> against time, with the 512^3 reference's for the reference case."""
    energy = diagnostics.series["kinetic_energy"]
    if is_taylor_green_re1600(diagnostics):
        ax.plot(*reference_over_run(diagnostics, "kinetic_energy"), "k", lw=2, alpha=0.6,
                label="512$^3$ spectral reference")
    ax.plot(diagnostics.time, energy, color="C0", label="kinetic energy $\\frac{1}{2}\\langle|u|^2\\rangle$")
    ax.set_ylabel("energy (length$^2$/time$^2$)")
    _finish(ax, diagnostics, f"kinetic energy ({energy[-1] / energy[0]:.1%} left)", True, "")


def draw_dissipation(ax, diagnostics):
    """2 nu enstrophy at the record times and -dE/dt at the midpoints of the record intervals (the two
    agree in a dealiased spectral code), with the 512^3 reference where the deck is the reference case."""
    ax.plot(*decay_rate(diagnostics), color="C1", lw=3, alpha=0.5, label="$-dE/dt$ (interval midpoints)")
    ax.plot(diagnostics.time, diagnostics.series["dissipation"], "--", color="C0", lw=1.2,
            label="$2\\nu\\,$enstrophy")
    if is_taylor_green_re1600(diagnostics):
        ax.plot(*reference_over_run(diagnostics, "energy_decay_rate"), "k", lw=2, alpha=0.6,
                label="512$^3$ spectral reference")
    else:
        ax.plot([], [], " ", label="no reference (not the Taylor-Green\nRe = 1600 deck)")  # a legend line
    ax.set_ylabel("$\\varepsilon$ (length$^2$/time$^3$)")
    ax.set_ylim(bottom=0)
    _finish(ax, diagnostics, "dissipation rate", True, "")


def draw_divergence(ax, diagnostics):
    """max |div u| on a log axis: a projected spectral velocity is solenoidal to round-off."""
    divergence = diagnostics.series["max_divergence"]
    shown = divergence > 0
    ax.semilogy(diagnostics.time[shown], divergence[shown], ".-", color="C2", label="max |div u|")
    if shown.any():  # two decades either side, so that round-off noise doesn't look like a trend
        ax.set_ylim(divergence[shown].min() / 100, divergence[shown].max() * 100)
    ax.set_ylabel("1/time")
    _finish(ax, diagnostics, "largest divergence of the velocity", shown.any(), "divergence exactly zero")


SPECTRUM_FLOOR = 1e-20  # shells below this fraction of the total energy hold round-off (~1e-32), not flow


def draw_spectra(ax, spectra):
    """E(k) of every output on log-log axes, coloured by time, with a k^-5/3 guide just above the
    last spectrum. k = 0 (the mean flow) and round-off shells (beyond the dealiasing cutoff, or every
    shell but one at the start of a Taylor-Green run) can't or shouldn't be drawn, so they're left out."""
    colours = plt.cm.viridis(np.linspace(0, 0.9, len(spectra)))
    largest_k = 1
    for (file, energy), colour in zip(spectra, colours):
        k = np.arange(len(energy))
        shown = (k > 0) & (energy > SPECTRUM_FLOOR * energy.sum())
        ax.loglog(k[shown], energy[shown], "o-", ms=3, color=colour, label=f"t = {file.time:.4g}")
        largest_k = max(largest_k, k[shown].max(initial=1))
    energy = spectra[-1][1]
    resolved = np.nonzero(energy > SPECTRUM_FLOOR * energy.sum())[0]
    resolved = resolved[resolved > 0]
    if len(resolved) > 1:
        # The guide spans about the lower half (in log k) of the last spectrum's resolved range,
        # just above that spectrum.
        k = np.geomspace(1.5 * resolved[0], 1.5 * np.sqrt(resolved[0] * resolved[-1]), 20)
        guide = k ** (-5 / 3)
        guide *= 2 * np.max(np.interp(k, resolved, energy[resolved]) / guide)
        ax.loglog(k, guide, "k--", lw=1.2, label="$k^{-5/3}$")
    _label_log_axis(ax.xaxis)
    ax.set_xlim(0.8, 1.25 * largest_k)  # the shells drawn (k >= 1), not labels like 100m for k = 0.1
    ax.set_xlabel("wavenumber k (units of 2$\\pi$ / length)")
    ax.set_ylabel("E(k) (length$^3$/time$^2$)")
    ax.set_title(f"energy spectra, {len(spectra)} outputs")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize="small", ncol=2 if len(spectra) > 8 else 1)


def _label_log_axis(axis):
    """Ticks at 1, 2, 5 times powers of ten, labelled 2, 10, 20k, 100k: a log axis spanning less than
    a decade or two otherwise has one label, or crowded ones like 3x10^4 4x10^4."""
    axis.set_major_locator(matplotlib.ticker.LogLocator(subs=(1, 2, 5)))
    axis.set_major_formatter(matplotlib.ticker.EngFormatter(sep=""))
    axis.set_minor_formatter(matplotlib.ticker.NullFormatter())


# Monte Carlo (monte_carlo) -----------------------------------------------------------------------

# The columns of results/<product> in the field files.
RESULTS = ("price", "standard_error", "low_95", "high_95", "delta", "delta_error", "vega", "vega_error", "closed_form")
Z_95 = 1.96  # the two-sided 95% quantile of the normal distribution


def products(diagnostics):
    """The products with a <product>_price and <product>_standard_error series."""
    return [p for p in diagnostics.quantities("price") if f"{p}_standard_error" in diagnostics.series]


def closed_form(results, product):
    """The closed-form price of the product, or NaN if it has none (or no results were read)."""
    return results[product][RESULTS.index("closed_form")] if product in results else np.nan


def draw_convergence(ax, diagnostics, product, exact=np.nan):
    """The product's price against the number of paths (log axis), with its 95% confidence band
    price +- 1.96 se, and the closed form as a horizontal line where there is one."""
    paths = diagnostics.series["paths"]
    price = diagnostics.series[f"{product}_price"]
    error = Z_95 * diagnostics.series[f"{product}_standard_error"]
    known = np.isfinite(price) & (paths > 0)  # the first record, before any path, is NaN
    paths, price, error = paths[known], price[known], error[known]
    ax.fill_between(paths, price - error, price + error, color="C0", alpha=0.4, lw=0, label="95% confidence band")
    ax.errorbar(paths, price, yerr=error if len(paths) == 1 else None, fmt="o-", ms=3, color="C0", capsize=3,
                label="Monte Carlo price")
    title = product
    if np.isfinite(exact):
        ax.axhline(exact, color="C3", ls="--", lw=1.2, label="closed form")
        if len(price):
            title += f"\n(MC - exact) / se = {(price[-1] - exact) / (error[-1] / Z_95):+.2f}"
    ax.set_xscale("log")
    _label_log_axis(ax.xaxis)
    ax.set_title(title, fontsize="medium")
    ax.set_xlabel("paths")
    ax.set_ylabel("price")
    ax.grid(alpha=0.3, which="both")


def draw_convergence_grid(fig, diagnostics, results):
    """One convergence panel per product (one column for up to 3 products, else two), each on its own
    price scale; the legend goes into a spare slot of the grid, else into the first panel."""
    names = products(diagnostics)
    columns = 1 if len(names) <= 3 else 2
    rows = -(-len(names) // columns)
    axes = fig.subplots(rows, columns, squeeze=False).ravel()
    for ax, product in zip(axes, names):
        draw_convergence(ax, diagnostics, product, closed_form(results, product))
    handles = {}
    for ax in axes[: len(names)]:  # the legend entries of every panel, once each
        for handle, label in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(label, handle)
    for ax in axes[len(names):]:
        ax.axis("off")
    if len(axes) > len(names):
        axes[-1].legend(handles.values(), handles.keys(), loc="center")
    elif names:
        axes[0].legend(handles.values(), handles.keys(), fontsize="small")
    return axes


def price_table(diagnostics, results):
    """Lines of the final prices, standard errors, closed forms and greeks, as the run log prints them."""
    lines = [f"{'product':<24}{'price':>11}{'std error':>11}{'closed form':>13}{'(MC-exact)/se':>15}"
             f"{'delta':>10}{'vega':>10}"]
    for product in products(diagnostics):
        row = dict(zip(RESULTS, results.get(product, np.full(len(RESULTS), np.nan))))
        price, error = diagnostics.series[f"{product}_price"][-1], diagnostics.series[f"{product}_standard_error"][-1]
        exact = row["closed_form"]
        exact_text = f"{exact:13.6f}{(price - exact) / error:+15.2f}" if np.isfinite(exact) else f"{'-':>13}{'-':>15}"
        lines.append(f"{product:<24}{price:11.6f}{error:11.6f}{exact_text}{row['delta']:10.4f}{row['vega']:10.4f}")
    return lines
