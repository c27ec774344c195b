#!/usr/bin/env python3
"""Image of each field of a Meridian run at one output time (3-D fields: the middle z slice),
in physical coordinates with a colorbar. Writes <field>_NNNNN.png, NNNNN from fields_NNNNN.h5.
Files with vorticity_x, _y and _z (cfd_spectral) also have vorticity_magnitude, their norm. A run
whose files have no fields/ group (monte_carlo) is refused with exit status 1."""
import meridian_post as post


def main():
    arguments = post.parser(__doc__)
    when = arguments.add_mutually_exclusive_group()
    when.add_argument("--time", type=float, metavar="T", help="the output time nearest to T (default: the last output)")
    when.add_argument("--index", type=int, metavar="N", help="the N-th field file in time order: 0 the first, -1 the last")
    arguments.add_argument("--field", action="append", metavar="NAME",
                           help="plot only this field (repeatable; default: every field)")
    args = arguments.parse_args()
    run = post.Run(args.run)
    file = run.field_file(args.time, args.index)
    for field in run.read_fields(file, args.field):
        fig = post.figure(post.FIELD_FIGURE)
        post.draw_field(fig.add_subplot(), field)
        post.save(fig, args, f"{field.name}_{file.number}.png")


if __name__ == "__main__":
    main()
