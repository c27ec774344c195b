#!/usr/bin/env python3
"""Time series of a Meridian run's diagnostics.h5, in one figure (diagnostics.png): relative change
of the conserved quantities (log scale), min and max, and the error norms where they are known."""
import meridian_post as post


def main():
    args = post.parser(__doc__).parse_args()
    diagnostics = post.Run(args.run).diagnostics()
    fig = post.figure(post.DIAGNOSTICS_FIGURE)
    conservation, value_range, errors = fig.subplots(3, 1, sharex=True)
    post.draw_conservation(conservation, diagnostics)
    post.draw_range(value_range, diagnostics)
    post.draw_errors(errors, diagnostics)
    for ax in (conservation, value_range):
        ax.set_xlabel("")  # the panels share the time axis of the bottom one
    post.save(fig, args, "diagnostics.png")


if __name__ == "__main__":
    main()
