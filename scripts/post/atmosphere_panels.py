#!/usr/bin/env python3
"""Two figures of an atmosphere run (any case: thermal, density current, gravity wave):

theta_panels.png: theta' at the output times, one panel each, stacked (x in km from the domain's
  centre, z in km): filled contours with their lines. For the density current the levels are Straka et
  al.'s (1993), every 1 K from -16.5 to -0.5 K (colder air filled as the coldest band); for any other
  case about 12 levels spanning the theta' of the panels, zero left out (it would draw round-off
  noise). The panels are drawn to scale unless the domain is wider than 8 times its height (the 300 km
  x 10 km gravity wave): then z is stretched to make them 8:1, and the z label says by how much.
energy_mass.png: the relative change from the first record of total_energy and total_mass in
  diagnostics.h5, against time. Mass is conserved to round-off; the energy falls by what viscosity,
  diffusion, hyperviscosity and a Rayleigh layer take out (miniWeather's thermal: a few 1e-5)."""
import matplotlib.colors
import matplotlib.ticker
import numpy as np

import meridian_post as post

MAX_PANELS = 4  # more output times than this are thinned to MAX_PANELS evenly spread ones, first and last kept
MAX_ASPECT = 8.0  # widest panel drawn to scale (width / height); wider domains get z stretched to this
# Inches (120 pixels each). The figure is 10 wide; a panel's plot box is PANEL_WIDTH wide and as tall as
# the aspect makes it, at most MAX_PANEL_HEIGHT, plus PANEL_LABELS for its title and ticks; FIGURE_LABELS
# holds the figure's title and the x label: 1200 x 120 (0.9 + N (min(8.4 / A, 2.5) + 0.55)) pixels for N
# panels of aspect A (the density current's 4 outputs: 1200 x 876).
PANEL_WIDTH, MAX_PANEL_HEIGHT, PANEL_LABELS, FIGURE_LABELS = 8.4, 2.5, 0.55, 0.9
ENERGY_FIGURE = (7.0, 6.0)  # 840 x 720 pixels
STRAKA_LEVELS = np.arange(-16.5, 0.0, 1.0)  # K: the contours of Straka et al.'s figures
AUTOMATIC_LEVELS = 12
FIELD = "theta_perturbation"


def chosen_files(run, times):
    """The field files nearest the times asked for, else every output (thinned to MAX_PANELS)."""
    if times:
        return [run.field_file(time) for time in times]
    files = run.field_files
    if not files:
        raise SystemExit(f"{run.folder}: no fields_*.h5 files")
    keep = np.unique(np.round(np.linspace(0, len(files) - 1, min(len(files), MAX_PANELS))).astype(int))
    return [files[i] for i in keep]


def contour_levels(case, fields):
    """(levels, their spacing, contourf's extend): Straka's for the density current, the air colder
    than the lowest filled too (the bubble starts at -16.6 K: -15 K over the Exner pressure at 3 km);
    otherwise about AUTOMATIC_LEVELS evenly spaced ones spanning the panels' theta', without zero. No
    levels if theta' is zero everywhere (the rest case)."""
    if case == "density_current":
        return STRAKA_LEVELS, STRAKA_LEVELS[1] - STRAKA_LEVELS[0], "min"
    low = min(field.values.min() for field in fields)
    high = max(field.values.max() for field in fields)
    if low == high:
        return np.array([]), 0.0, "neither"
    levels = matplotlib.ticker.MaxNLocator(AUTOMATIC_LEVELS).tick_values(low, high)
    return levels[levels != 0], levels[1] - levels[0], "neither"


def coordinates_km(field):
    """Cell-centre x (from the domain's centre) and z, in km."""
    nz, nx = field.values.shape
    x_low, x_high, z_low, z_high = field.extent
    x = x_low + (np.arange(nx) + 0.5) * (x_high - x_low) / nx - 0.5 * (x_low + x_high)
    z = z_low + (np.arange(nz) + 0.5) * (z_high - z_low) / nz
    return x / 1000, z / 1000


def aspect(field):
    """The domain's width / height."""
    x_low, x_high, z_low, z_high = field.extent
    return (x_high - x_low) / (z_high - z_low)


def draw_panel(ax, field, levels, extend, norm):
    """Filled contours and their lines of one theta' field; returns the filled set (for the colour bar),
    or None where no level lies inside the field's range. Values outside the levels stay blank (the
    density current's background, theta' = 0 above its top level), and the band across zero between
    the automatic levels is the colour map's white middle: either way the undisturbed air is white."""
    x, z = coordinates_km(field)
    x_low, x_high, z_low, z_high = (edge / 1000 for edge in field.extent)
    half_width = 0.5 * (x_high - x_low)
    ax.set_xlim(-half_width, half_width)
    ax.set_ylim(z_low, z_high)
    stretch = max(1.0, aspect(field) / MAX_ASPECT)
    ax.set_aspect(stretch)
    ax.set_ylabel("z (km)" + (f", stretched {stretch:.3g}x" if stretch > 1 else ""))
    ax.set_title(f"t = {field.time:g} s   (theta' from {field.values.min():.3g} to {field.values.max():.3g} K)",
                 fontsize="medium")
    inside = levels[(levels >= field.values.min()) & (levels <= field.values.max())]
    if inside.size == 0:
        ax.text(0.5, 0.5, "no contour level inside this panel's range", transform=ax.transAxes,
                ha="center", va="center")
        return None
    filled = ax.contourf(x, z, field.values, levels=levels, cmap="RdBu_r", norm=norm, extend=extend)
    ax.contour(x, z, field.values, levels=levels, colors="k", linewidths=0.5, linestyles="solid")
    return filled


def theta_panels(run, args, case):
    files = chosen_files(run, args.time)
    fields = [run.read_fields(file, [FIELD])[0] for file in files]
    levels, spacing, extend = contour_levels(case, fields)
    panel_height = min(PANEL_WIDTH / min(aspect(fields[0]), MAX_ASPECT), MAX_PANEL_HEIGHT) + PANEL_LABELS
    pixels = round(post.DPI * (FIGURE_LABELS + panel_height * len(fields)))
    fig = post.figure((10.0, (pixels + 0.5) / post.DPI))  # Agg truncates the size to whole pixels: half a pixel more
    axes = fig.subplots(len(fields), 1, sharex=True, squeeze=False)[:, 0]
    if levels.size == 0:
        for ax, field in zip(axes, fields):
            ax.text(0.5, 0.5, f"theta' = {field.values.min():g} K everywhere", transform=ax.transAxes,
                    ha="center", va="center")
    else:
        largest = np.abs(levels).max()
        norm = matplotlib.colors.Normalize(-largest, largest)  # white at zero, whatever the sign of the levels
        filled = [draw_panel(ax, field, levels, extend, norm) for ax, field in zip(axes, fields)]
        shown = [f for f in filled if f is not None]
        if shown:
            fig.colorbar(shown[-1], ax=axes, label="theta' (K)", shrink=0.8, ticks=levels[::2])
    axes[-1].set_xlabel("x from the centre (km)")
    every = f", contours every {spacing:g} K" if levels.size else ""
    fig.suptitle(f"potential temperature perturbation, {case or 'atmosphere'}{every}")
    post.save(fig, args, "theta_panels.png")


def energy_mass(run, args):
    diagnostics = run.diagnostics()
    fig = post.figure(ENERGY_FIGURE)
    axes = fig.subplots(2, 1, sharex=True)
    for ax, column, colour in zip(axes, ("total_energy", "total_mass"), ("C3", "C0")):
        if column not in diagnostics.series:
            raise SystemExit(f"{run.folder}/diagnostics.h5: no {column} series (not an atmosphere run?)")
        values = diagnostics.series[column]
        change = values / values[0] - 1
        ax.plot(diagnostics.time, change, ".-", ms=3, color=colour)
        ax.axhline(0.0, color="gray", lw=0.8)
        if not change.any():  # matplotlib would span +-0.05, as if the change could be that large
            ax.set_ylim(-np.finfo(float).eps, np.finfo(float).eps)
            ax.text(0.5, 0.7, "unchanged to the last bit at every record", transform=ax.transAxes, ha="center")
        ax.ticklabel_format(axis="y", style="sci", scilimits=(-2, 2))
        ax.set_ylabel(f"{column} / its start - 1")
        ax.set_title(f"{column}: {change[-1]:+.3e} at t = {diagnostics.time[-1]:g} s", fontsize="medium")
        ax.grid(alpha=0.3)
    axes[-1].set_xlabel("time (s)")
    post.save(fig, args, "energy_mass.png")


def main():
    arguments = post.parser(__doc__)
    arguments.add_argument("--time", type=float, action="append",
                           help="draw the output nearest this time; repeat it for several (default: every "
                                f"output, at most {MAX_PANELS})")
    args = arguments.parse_args()
    run = post.Run(args.run)
    case = run.diagnostics().deck.get("atmosphere", {}).get("case", "")
    theta_panels(run, args, case)
    energy_mass(run, args)


if __name__ == "__main__":
    main()
