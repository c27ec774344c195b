#!/usr/bin/env python3
"""Bryan & Fritsch's (2002) moist bubble beside its dry twin at one output time (default the moist run's
last): bryan_fritsch.png in the moist run's folder (or --out DIR; --output DIR is the same), and the
measures below, printed.

    bryan_fritsch.py MOIST_RUN DRY_RUN [--time T] [--out DIR]

The figure (1800 x 840 pixels): the moist run's panels above, the dry twin's below, x in km from the
domain's centre and z in km, to scale. Left: theta_e' of the moist run and theta' of the dry one,
contoured every 0.4 K; middle: w, every 2 m/s: Bryan & Fritsch's intervals, filled, with the lines
drawn (negative ones dashed) and zero left out, so the band across zero (-0.4 to 0.4 K, -2 to 2 m/s) is
the colour map's white middle and round-off about zero draws nothing. Each column has one colour scale
for both runs. A dotted line marks each run's top, a cross its largest w. Right: the moist run's q_c in
g/kg, every 1 g/kg. The saturated atmosphere is cloud everywhere (8 to 20 g/kg, more aloft), so this
panel shows the layers of q_c and the bubble as a dent in them. Below it, the measures as printed. A
moist run without cloud_mixing_ratio gets the four panels only (1260 x 840).

The measures of each run at that time:
  max w: the largest w of any cell (m/s) and the height of that cell's centre.
  top: the height of the highest cell centre where theta' (dry) or theta_e' (moist) >= 0.1 K.
  mirror asymmetry: max over the cells of |f(x) - f(L - x)| for f = w and f = theta' (theta_e'), with
    the columns paired about the domain's centre L/2. The case is symmetric about it (a centred bubble,
    walls on both sides), so this is zero up to round-off; anything larger means that something treats
    left and right differently (a scheme, a rank boundary).
then the ratios moist / dry of the max w and of the top (NaN where the dry value is zero or missing). Bryan
& Fritsch's point is that a correct moist model gives nearly the dry solution, since their moist bubble
starts with the dry one's buoyancy, so both ratios should be near 1. The two tops are not quite the same
measure, though: the moist bubble's theta_e' starts about twice the dry theta' (3.9 K against 2.0 K at
100 m), so its 0.1 K contour encloses more of the same cos^2 bubble. The ratio of the tops is 1.03 at
t = 0 already (3.75 km against 3.65 km). The two runs must have an output at the same time. Output lines
(the shipped decks at 100 m, t = 1000 s):

    t = 1000 s; moist: RUN (200 x 100 cells); dry: RUN (200 x 100 cells)
    moist max w: 11.79 m/s at z = 4.75 km
    moist top: 8.25 km (highest cell centre with theta_e' >= 0.1 K)
    moist mirror asymmetry: w 2.8e-10 m/s, theta_e' 1.5e-10 K
    dry max w: 12.47 m/s at z = 5.35 km
    dry top: 8.05 km (highest cell centre with theta' >= 0.1 K)
    dry mirror asymmetry: w 8e-14 m/s, theta' 1.1e-13 K
    moist / dry: max w 0.945, top 1.025

then the PNG's path.

Bryan, G. H., and J. M. Fritsch (2002), "A benchmark simulation for moist nonhydrostatic numerical
models", Mon. Wea. Rev. 130, 2917-2928."""
import math
from dataclasses import dataclass

import h5py
import matplotlib.colors
import numpy as np

import atmosphere_panels as panels
import meridian_post as post

MOIST_THETA, DRY_THETA = "theta_e_perturbation", "theta_perturbation"
CLOUD = "cloud_mixing_ratio"
THETA_STEP = 0.4  # K: Bryan & Fritsch's contour interval of theta' and theta_e'
W_STEP = 2.0  # m/s: theirs for w
CLOUD_STEP = 1.0  # g/kg
TOP_THRESHOLD = 0.1  # K: the bubble is where theta' (theta_e') is at least this
MAX_TICKS = 12  # colour bar ticks: every level up to this many, else every other one
SAME_TIME = 1e-6  # s per s: the two outputs compared must be at the same time to this relative tolerance
# Inches (120 pixels each): three panels of the 2:1 domain a row, 1800 x 840 pixels; two without q_c, 1260 x 840.
# The panels are to scale, so their width sets their height: 7 inches hold two rows, titles and colour bars.
FIGURE = (15.0, 7.0)
FIGURE_WITHOUT_CLOUD = (10.5, 7.0)
LABELS = ("moist", "dry")  # the rows, top to bottom


@dataclass
class Output:
    theta: object  # meridian_post.Field: theta_e' of the moist run, theta' of the dry one
    w: object
    cloud: object  # q_c of the moist run (None for the dry one, or a moist run that doesn't write it)


@dataclass
class Measures:
    theta_name: str  # "theta'" or "theta_e'"
    max_w: float  # m/s
    max_w_at: tuple  # (x, z) in km, x from the centre, of the cell with the largest w
    top: float  # km; NaN where no cell reaches TOP_THRESHOLD
    asymmetry_w: float  # m/s
    asymmetry_theta: float  # K


def measure(theta, w):
    """The Measures of one run from its theta' (or theta_e') and w Fields."""
    x, z = panels.coordinates_km(w)
    row, column = np.unravel_index(np.argmax(w.values), w.values.shape)
    warm = np.flatnonzero((theta.values >= TOP_THRESHOLD).any(axis=1))
    name = "theta_e'" if theta.name == MOIST_THETA else "theta'"
    return Measures(name, float(w.values[row, column]), (x[column], z[row]), z[warm[-1]] if warm.size else np.nan,
                    mirror_asymmetry(w.values), mirror_asymmetry(theta.values))


def mirror_asymmetry(values):
    """max |f(x) - f(L - x)|: the columns of a uniform grid are mirror images of those counted from the other end."""
    return float(np.abs(values - values[:, ::-1]).max())


def symmetric_levels(fields, step):
    """Every `step` from below the smallest value to above the largest of the fields, at least one level
    either side of zero and zero left out: the band across zero is the colour map's white middle."""
    low = min(math.floor(min(field.values.min() for field in fields) / step), -1)
    high = max(math.ceil(max(field.values.max() for field in fields) / step), 1)
    levels = step * np.arange(low, high + 1)
    return levels[levels != 0]


def draw(ax, field, levels, cmap, norm, scale=1.0):
    """Filled contours of the field (times `scale`) with their lines, to scale; returns the filled set."""
    x, z = panels.coordinates_km(field)
    x_low, x_high, z_low, z_high = (edge / 1000 for edge in field.extent)
    half_width = 0.5 * (x_high - x_low)
    ax.set_xlim(-half_width, half_width)
    ax.set_ylim(z_low, z_high)
    ax.set_aspect(1.0)
    values = scale * field.values
    filled = ax.contourf(x, z, values, levels=levels, cmap=cmap, norm=norm)
    if norm is not None:  # the half cell between the outer centres and the walls as the undisturbed air's band
        ax.set_facecolor(filled.cmap(norm(0.0)))
    crossed = levels[(levels > values.min()) & (levels < values.max())]  # none for w at t = 0
    if crossed.size:
        ax.contour(x, z, values, levels=crossed, colors="k", linewidths=0.5)  # negative levels dashed
    return filled


def mark(theta_ax, w_ax, measures):
    """The measures on the panels: the top as a dotted line, the largest w as a cross."""
    if np.isfinite(measures.top):
        theta_ax.axhline(measures.top, color="k", linestyle=":", linewidth=1)
    if measures.max_w > 0:  # not at t = 0, when w = 0 everywhere
        w_ax.plot(*measures.max_w_at, "x", color="k", markersize=7, markeredgewidth=1.5)


def read(run, time, label):
    """The Output of the `label` ("moist" or "dry") run nearest `time`."""
    file = run.field_file(time)
    with h5py.File(file.path, "r") as f:
        names = set(f.get("fields", ()))
    if label == "dry" and MOIST_THETA in names:  # the arguments swapped, or two moist runs
        raise SystemExit(f"{run.folder} has {MOIST_THETA}: it is a moist run (give the moist run first, then the dry)")
    theta, w = run.read_fields(file, [MOIST_THETA if label == "moist" else DRY_THETA, "w"])
    cloud = run.read_fields(file, [CLOUD])[0] if label == "moist" and CLOUD in names else None
    return Output(theta, w, cloud)


def ratio(numerator, denominator):
    """numerator / denominator, NaN where that is undefined (no w at t = 0, no bubble top)."""
    return numerator / denominator if denominator != 0 and np.isfinite(denominator) else np.nan


def report(runs, fields, measures):
    """The printed lines (without the PNG's path)."""
    time = fields["moist"].w.time
    cells = {label: "{1} x {0} cells".format(*fields[label].w.values.shape) for label in runs}
    lines = [f"t = {time:g} s; " + "; ".join(f"{label}: {runs[label].folder} ({cells[label]})" for label in runs)]
    for label, m in measures.items():
        top = f"{m.top:.2f} km" if np.isfinite(m.top) else "none"
        lines += [f"{label} max w: {m.max_w:.4g} m/s at z = {m.max_w_at[1]:.2f} km",
                  f"{label} top: {top} (highest cell centre with {m.theta_name} >= {TOP_THRESHOLD:g} K)",
                  f"{label} mirror asymmetry: w {m.asymmetry_w:.2g} m/s, {m.theta_name} {m.asymmetry_theta:.2g} K"]
    moist, dry = measures["moist"], measures["dry"]
    lines.append(f"moist / dry: max w {ratio(moist.max_w, dry.max_w):.3f}, top {ratio(moist.top, dry.top):.3f}")
    return lines


def draw_column(fig, axes, fields, measures, name, step, units, quantity):
    """theta' (theta_e') or w of both runs, one above the other, on one scale: the same colour is the same
    value. Its colour bar goes under the column."""
    shown = [getattr(fields[label], name) for label in LABELS]
    levels = symmetric_levels(shown, step)
    largest = np.abs(levels).max()
    norm = matplotlib.colors.Normalize(-largest, largest)  # white at zero whatever the range's signs
    for ax, label, field in zip(axes, LABELS, shown):
        filled = draw(ax, field, levels, "RdBu_r", norm)
        symbol = measures[label].theta_name if name == "theta" else "w"
        ax.set_title(f"{label} {symbol} ({units}): {field.values.min():.3g} to {field.values.max():.3g}",
                     fontsize="medium")
    fig.colorbar(filled, ax=axes, location="bottom", shrink=0.8, aspect=40,
                 ticks=levels if len(levels) <= MAX_TICKS else levels[::2],
                 label=f"{quantity} ({units}), contours every {step:g} {units}")


def draw_cloud(fig, axes, cloud, lines):
    """q_c of the moist run in the upper panel; the measures in the lower, as text; the colour bar below both."""
    grams = 1000 * cloud.values  # kg/kg to g/kg
    levels = CLOUD_STEP * np.arange(math.floor(grams.min() / CLOUD_STEP), math.ceil(grams.max() / CLOUD_STEP) + 1)
    filled = draw(axes[0], cloud, levels[levels > 0], "Blues", None, scale=1000)
    axes[0].set_title(f"moist q_c (g/kg): {grams.min():.3g} to {grams.max():.3g}", fontsize="medium")
    axes[0].tick_params(labelbottom=True)  # the x axes are shared, but below this one is no panel
    axes[0].set_xlabel("x from the centre (km)")
    fig.colorbar(filled, ax=axes, location="bottom", shrink=0.8, aspect=40,
                 label=f"moist q_c (g/kg), contours every {CLOUD_STEP:g} g/kg")
    axes[1].axis("off")
    text = axes[1].text(0.0, 1.0, "\n".join(lines[1:]), transform=axes[1].transAxes, va="top", ha="left",
                        family="monospace", fontsize="small")
    text.set_in_layout(False)  # it fits the slot; counted, it would shift the column's panels


def plot(fields, measures, lines, args):
    with_cloud = fields["moist"].cloud is not None
    fig = post.figure(FIGURE if with_cloud else FIGURE_WITHOUT_CLOUD)
    axes = fig.subplots(2, 3 if with_cloud else 2, sharex=True, sharey=True)
    draw_column(fig, axes[:, 0], fields, measures, "theta", THETA_STEP, "K", "theta_e' (moist), theta' (dry)")
    draw_column(fig, axes[:, 1], fields, measures, "w", W_STEP, "m/s", "w")
    for row, label in enumerate(LABELS):
        mark(axes[row, 0], axes[row, 1], measures[label])
        axes[row, 0].set_ylabel(f"{label}\nz (km)")
    for ax in axes[-1, :2]:
        ax.set_xlabel("x from the centre (km)")
    if with_cloud:
        draw_cloud(fig, axes[:, 2], fields["moist"].cloud, lines)
    fig.suptitle(f"Bryan & Fritsch (2002): moist bubble (top) and its dry twin (bottom), t = {fields['moist'].w.time:g}"
                 f" s; dotted: top ({TOP_THRESHOLD:g} K), x: max w")
    post.save(fig, args, "bryan_fritsch.png")


def main():
    arguments = post.parser(__doc__)
    arguments.add_argument("dry", help="output folder of the dry twin's run")
    arguments.add_argument("--output", dest="out", metavar="DIR", help="the same as --out")
    arguments.add_argument("--time", type=float, help="the output nearest this time (default: the moist run's last)")
    args = arguments.parse_args()
    runs = dict(zip(LABELS, (post.Run(args.run), post.Run(args.dry))))
    time = args.time if args.time is not None else runs["moist"].field_file().time
    fields = {label: read(runs[label], time, label) for label in LABELS}
    moist_time, dry_time = fields["moist"].w.time, fields["dry"].w.time
    if abs(moist_time - dry_time) > SAME_TIME * max(1.0, abs(moist_time)):
        raise SystemExit(f"the outputs nearest t = {time:g} s are at {moist_time:g} s (moist) and {dry_time:g} s (dry):"
                         " the runs must have an output at the same time")
    measures = {label: measure(fields[label].theta, fields[label].w) for label in LABELS}
    lines = report(runs, fields, measures)
    print("\n".join(lines))
    plot(fields, measures, lines, args)


if __name__ == "__main__":
    main()
