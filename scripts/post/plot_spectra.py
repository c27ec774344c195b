#!/usr/bin/env python3
"""Energy spectra E(k) of a cfd_spectral run (spectra.png): spectrum/energy of every
fields_NNNNN.h5 on log-log axes, coloured by output time, with a k^-5/3 guide line. k is the
integer wavenumber, in units of 2 pi / length. Exits with an error for a run without spectra."""
import meridian_post as post


def main():
    args = post.parser(__doc__).parse_args()
    spectra = post.Run(args.run).spectra()
    fig = post.figure(post.CFD_FIGURE)
    post.draw_spectra(fig.add_subplot(), spectra)
    post.save(fig, args, "spectra.png")


if __name__ == "__main__":
    main()
