"""Checks PNG files from the post-processing scripts: each exists, is a PNG of the expected pixel
size and is not blank (its pixels vary, and enough of them are coloured: the plotted data are drawn
in colour, while an empty frame of axes, ticks and labels is black, grey and white only)."""
import argparse
import struct

import matplotlib.image
import numpy as np

arguments = argparse.ArgumentParser(description=__doc__)
arguments.add_argument("size", help="expected WIDTHxHEIGHT in pixels")
arguments.add_argument("png", nargs="+")
# Measured with matplotlib 3.6: a white page has std 0 and an empty axes frame 0.08; the field
# images are near 0.35, diagnostics.png 0.15, summary.png 0.3 (Monte Carlo: 0.17), spectra.png 0.12.
arguments.add_argument("--min-std", type=float, default=0.05, help="least standard deviation of the RGB values (0-1)")
# Empty axes have no coloured pixel; diagnostics.png has 2% (CFD 1%: lines only; Monte Carlo 25%:
# the confidence bands), summary.png 18% (Monte Carlo 17%), spectra.png 1-2%, a field image 60%.
arguments.add_argument("--min-coloured", type=float, default=0.005, help="least fraction of coloured pixels")
args = arguments.parse_args()
width, height = (int(n) for n in args.size.split("x"))

for path in args.png:
    with open(path, "rb") as f:
        header = f.read(24)
    assert header[:8] == b"\x89PNG\r\n\x1a\n" and header[12:16] == b"IHDR", f"{path}: not a PNG file"
    size = struct.unpack(">II", header[16:24])
    assert size == (width, height), f"{path}: {size[0]}x{size[1]} pixels, expected {args.size}"
    rgb = matplotlib.image.imread(path)[..., :3]
    spread = rgb.std()
    assert spread > args.min_std, f"{path}: blank (pixel standard deviation {spread:.3f} <= {args.min_std})"
    coloured = np.mean(rgb.max(axis=-1) - rgb.min(axis=-1) > 0.2)  # 0.2: well clear of anti-aliased grey
    assert coloured > args.min_coloured, f"{path}: no data drawn ({coloured:.1%} coloured pixels)"
    print(f"{path}: {args.size}, pixel std {spread:.3f}, {coloured:.1%} coloured: ok")
