#!/usr/bin/env python3
"""One-page summary of a Meridian run (summary.png): the first and last images of one field side by
side, the conserved-quantity and error-norm panels, and a text block with the solver, parallel
layout, wall time, core-hours, throughput and time per phase. The text is also printed."""
import numpy as np

import meridian_post as post


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
        f"restart from   {attrs['restart_checkpoint']}",
        "",
        f"{'phase':<16}{'seconds':>10}{'share of wall':>15}",
    ]
    lines += [f"{phase:<16}{seconds:>10.3f}{seconds / wall:>15.1%}" for phase, seconds in diagnostics.phases()]
    for quantity in diagnostics.quantities(post.ERROR_NORMS[0]):
        final = {norm: diagnostics.series[f"{quantity}_{norm}"][-1] for norm in post.ERROR_NORMS}
        if np.isfinite(list(final.values())).all():
            lines.append(f"final error of {quantity}: "
                         + ", ".join(f"{norm.replace('_error', '')} {value:.3e}" for norm, value in final.items()))
    return "\n".join(lines)


def main():
    arguments = post.parser(__doc__)
    arguments.add_argument("--field", metavar="NAME", help="the field shown (default: the first in the files)")
    args = arguments.parse_args()
    run = post.Run(args.run)
    diagnostics = run.diagnostics()
    names = [args.field] if args.field else None
    first, last = (run.read_fields(run.field_file(index=index), names)[0] for index in (0, -1))
    text = summary_text(run, diagnostics)
    print(text)

    fig = post.figure(post.SUMMARY_FIGURE)
    # Rows as subfigures, so the equal-aspect images do not set the widths of the panels below them.
    images, panels, text_row = fig.subfigures(3, 1, height_ratios=(1.1, 1.0, 0.8))
    limits = (min(first.values.min(), last.values.min()), max(first.values.max(), last.values.max()))
    for ax, field in zip(images.subplots(1, 2), (first, last)):
        post.draw_field(ax, field, limits)  # one colour scale for both, so they compare by eye
    conservation, errors = panels.subplots(1, 2)
    post.draw_conservation(conservation, diagnostics)
    post.draw_errors(errors, diagnostics)
    text_box = text_row.subplots()
    text_box.axis("off")
    text_box.text(0, 1, text, family="monospace", fontsize=8.5, va="top", transform=text_box.transAxes)
    post.save(fig, args, "summary.png")


if __name__ == "__main__":
    main()
