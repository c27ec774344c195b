#!/usr/bin/env python3
"""One-page summary of a Meridian run (summary.png): a text block with the solver, parallel layout,
wall time, core-hours, throughput and time per phase (also printed), under panels chosen by the
solver that wrote the run:
  advection (and any other solver): the first and last images of one field side by side, the
    conserved-quantity and error-norm panels; the text adds the final error norms;
  cfd_spectral: the first and last images of the vorticity magnitude (or --field), the kinetic
    energy and dissipation panels; the text adds the energy left, the largest dissipation and the
    largest divergence;
  monte_carlo: the price convergence of each product; the text adds the table of final prices,
    standard errors, closed forms and greeks."""
import numpy as np

import meridian_post as post


def memory_lines(attrs):
    """The run's peak resident host memory and the device's in use at its end (runs before 2026-12-07 wrote
    neither)."""
    if "peak_resident_bytes" not in attrs:
        return []
    line = f"memory         {attrs['peak_resident_bytes'] / 1e9:.3f} GB peak resident host memory (the largest rank)"
    if "device_used_bytes" in attrs:
        line += f"; device {attrs['device_used_bytes'] / 1e9:.3f} GB in use at the end"
    return [line]


def summary_text(run, diagnostics):
    attrs = diagnostics.attrs
    wall = attrs["wall_seconds"]
    lines = [
        f"run            {run.folder}",
        f"solver         {attrs['solver']}   (code {attrs['code_version']})",
        f"layout         {attrs['parallel_layout']}",
        f"final time     {diagnostics.time[-1]:.6g} at step {int(diagnostics.series['step'][-1])}",
        f"wall time      {wall:.3f} s, {attrs['core_hours']:.3g} core-hours",
        f"throughput     {attrs['throughput']:.4g} {attrs['throughput_unit']}",
        *memory_lines(attrs),
        f"restart from   {attrs['restart_checkpoint']}",
        "",
        f"{'phase':<16}{'seconds':>10}{'share of wall':>15}",
    ]
    lines += [f"{phase:<16}{seconds:>10.3f}{seconds / wall:>15.1%}" for phase, seconds in diagnostics.phases()]
    return lines


def error_lines(run, diagnostics):
    lines = []
    for quantity in diagnostics.quantities(post.ERROR_NORMS[0]):
        final = {norm: diagnostics.series[f"{quantity}_{norm}"][-1] for norm in post.ERROR_NORMS}
        if np.isfinite(list(final.values())).all():
            lines.append(f"final error of {quantity}: "
                         + ", ".join(f"{norm.replace('_error', '')} {value:.3e}" for norm, value in final.items()))
    return lines


def cfd_lines(run, diagnostics):
    series = diagnostics.series
    energy = series["kinetic_energy"]
    tgv = post.taylor_green_re1600()
    lines = ["",
             f"kinetic energy {energy[0]:.6g} -> {energy[-1]:.6g} ({energy[-1] / energy[0]:.1%} left)",
             "max dissipation    2 nu enstrophy {:.6f} at t = {:.3g},  -dE/dt {:.6f} at t = {:.3g}".format(
                 *tgv.peak(diagnostics.time, series["dissipation"]), *tgv.peak(*post.decay_rate(diagnostics)))]
    if post.is_taylor_green_re1600(diagnostics):
        reference = tgv.read_reference()
        lines.append("                   reference (512^3 spectral) {:.6f} at t = {:.3g}".format(
            *tgv.peak(reference["time"], reference["energy_decay_rate"])))
    lines.append(f"max |div u|    {np.max(series['max_divergence']):.3g} (largest over the run)")
    return lines


def monte_carlo_lines(run, diagnostics):
    return ["", f"after {int(diagnostics.series['paths'][-1])} paths:"] + post.price_table(diagnostics, run.results())


def field_images(subfig, run, name):
    """The first and last images of field `name` (None: the first in the files), on one colour scale."""
    first, last = (run.read_fields(run.field_file(index=index), [name] if name else None)[0] for index in (0, -1))
    limits = (min(first.values.min(), last.values.min()), max(first.values.max(), last.values.max()))
    for ax, field in zip(subfig.subplots(1, 2), (first, last)):
        post.draw_field(ax, field, limits)  # one colour scale for both, so they compare by eye


def advection_page(fig, run, diagnostics, field):
    # Rows as subfigures, so the equal-aspect images do not set the widths of the panels below them.
    images, panels, text_row = fig.subfigures(3, 1, height_ratios=(1.1, 1.0, 0.8))
    field_images(images, run, field)
    conservation, errors = panels.subplots(1, 2)
    post.draw_conservation(conservation, diagnostics)
    post.draw_errors(errors, diagnostics)
    return text_row


def cfd_page(fig, run, diagnostics, field):
    images, panels, text_row = fig.subfigures(3, 1, height_ratios=(1.1, 1.0, 0.8))
    field_images(images, run, field or "vorticity_magnitude")
    energy, dissipation = panels.subplots(1, 2)
    post.draw_energy(energy, diagnostics)
    post.draw_dissipation(dissipation, diagnostics)
    dissipation.legend(fontsize="x-small")  # five entries in half a page's width
    return text_row


def monte_carlo_page(fig, run, diagnostics, field):
    if field:
        raise SystemExit(f"--field {field}: a monte_carlo run writes no fields (its results are prices)")
    convergence, text_row = fig.subfigures(2, 1, height_ratios=(2.0, 1.0))
    post.draw_convergence_grid(convergence, diagnostics, run.results())
    return text_row


# solver -> (lines added to the text, the page above the text); any other solver: advection's.
SOLVERS = {"cfd_spectral": (cfd_lines, cfd_page), "monte_carlo": (monte_carlo_lines, monte_carlo_page)}


def main():
    arguments = post.parser(__doc__)
    arguments.add_argument("--field", metavar="NAME",
                           help="the field shown (default: the first in the files; cfd_spectral: vorticity_magnitude)")
    args = arguments.parse_args()
    run = post.Run(args.run)
    diagnostics = run.diagnostics()
    solver_lines, page = SOLVERS.get(diagnostics.solver, (error_lines, advection_page))
    text = "\n".join(summary_text(run, diagnostics) + solver_lines(run, diagnostics))

    fig = post.figure(post.SUMMARY_FIGURE)
    text_row = page(fig, run, diagnostics, args.field)
    print(text)
    text_box = text_row.subplots()
    text_box.axis("off")
    text_box.text(0, 1, text, family="monospace", fontsize=8.5, va="top", transform=text_box.transAxes)
    post.save(fig, args, "summary.png")


if __name__ == "__main__":
    main()
