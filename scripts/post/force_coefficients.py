#!/usr/bin/env python3
"""Forces on a body in a cross-flow from a run's diagnostics.h5: the drag and lift coefficients and
the pressure difference against time (forces.png), and from the lift signal after the transient the
shedding frequency f, the Strouhal number St = D f / U_mean, the mean and largest c_D and the largest
|c_L| over the last --periods periods.

The frequency comes from the upward zero crossings of c_L minus its mean, each located by linear
interpolation between the two records either side: f = (crossings - 1) / (time from the first
crossing to the last). That needs no uniform sampling (a Courant-limited run records at uneven
times); on sinusoids recorded 16 to 30 times a period at uneven times, over 7 to 25 periods, it gave
the frequency within 4e-5 relative (the FFT estimate within 2e-3: few periods make coarse bins). The
FFT estimate (the signal resampled uniformly, Hann window, the peak bin refined by a parabola through
the log magnitudes of it and its neighbours) is printed beside it as a check.

The series are the diagnostics columns named by --drag, --lift and --pressure-difference; only the
lift is required (a missing drag or pressure difference leaves its panel empty, with a note)."""
import os

import numpy as np

import meridian_post as post

FIGURE = post.DIAGNOSTICS_FIGURE  # 840 x 1080 pixels: three panels on one time axis


def upward_crossings(time, signal):
    """Times where the signal goes from < 0 to >= 0, by linear interpolation between the records."""
    below = signal[:-1] < 0
    above = signal[1:] >= 0
    k = np.nonzero(below & above)[0]
    return time[k] - signal[k] * (time[k + 1] - time[k]) / (signal[k + 1] - signal[k])


def frequency_by_zero_crossings(time, signal):
    """(frequency, the crossing times): the mean rate of the upward zero crossings of signal - mean."""
    crossings = upward_crossings(time, signal - signal.mean())
    if len(crossings) < 2:
        raise SystemExit(f"fewer than two upward zero crossings of the lift after the transient ({len(crossings)}): "
                         "no period to measure (a longer run, or a shorter --transient)")
    return (len(crossings) - 1) / (crossings[-1] - crossings[0]), crossings


def frequency_by_fft(time, signal):
    """Peak frequency of the Hann-windowed spectrum of the signal resampled at the records' mean
    spacing, the peak refined by a parabola through the log magnitudes of the three bins around it."""
    samples = len(time)
    uniform = np.linspace(time[0], time[-1], samples)
    values = np.interp(uniform, time, signal)
    values = (values - values.mean()) * np.hanning(samples)
    magnitude = np.abs(np.fft.rfft(values))
    peak = int(np.argmax(magnitude[1:])) + 1
    if peak + 1 >= len(magnitude):
        return np.nan
    a, b, c = np.log(magnitude[peak - 1: peak + 2] + 1e-300)
    offset = 0.5 * (a - c) / (a - 2 * b + c)
    return (peak + offset) / (uniform[1] - uniform[0]) / samples


def analyse(time, lift, drag, transient, periods):
    """The numbers printed: frequency (both ways), and c_D, c_L over the last `periods` periods."""
    after = time >= transient
    if after.sum() < 8:
        raise SystemExit(f"only {after.sum()} records after the transient t = {transient:g}: too few to analyse")
    frequency, crossings = frequency_by_zero_crossings(time[after], lift[after])
    window_start = crossings[-1] - periods / frequency if len(crossings) > periods else crossings[0]
    last = (time >= window_start) & (time <= crossings[-1])
    result = {"frequency": frequency, "fft_frequency": frequency_by_fft(time[after], lift[after]),
              "crossings": len(crossings), "window": (time[last][0], time[last][-1]),
              "lift_max": np.abs(lift[last]).max(), "lift_rms": np.sqrt(np.mean(lift[last] ** 2))}
    if drag is not None:
        result["drag_max"], result["drag_mean"] = drag[last].max(), drag[last].mean()
    return result


def panel(ax, time, values, label, transient, window):
    if values is None:
        ax.text(0.5, 0.5, f"no {label} in the diagnostics", transform=ax.transAxes, ha="center", va="center")
    else:
        ax.plot(time, values, color="C0", lw=1)
    ax.axvspan(time[0], transient, color="gray", alpha=0.15, lw=0, label="transient (discarded)")
    if window:
        ax.axvspan(*window, color="C1", alpha=0.15, lw=0, label="last periods")
    ax.set_ylabel(label)
    ax.grid(alpha=0.3)


def main():
    arguments = post.parser(__doc__)
    arguments.add_argument("--drag", default="body0_drag_coefficient", help="drag coefficient column (default %(default)s)")
    arguments.add_argument("--lift", default="body0_lift_coefficient", help="lift coefficient column (default %(default)s)")
    arguments.add_argument("--pressure-difference", default="pressure_difference",
                           help="pressure difference column (default %(default)s)")
    arguments.add_argument("--diameter", type=float, default=1.0, help="body diameter D (length; default 1)")
    arguments.add_argument("--velocity", type=float, default=1.0, help="mean inflow speed U_mean (length/time; default 1)")
    arguments.add_argument("--transient", type=float, metavar="T",
                           help="discard the records before time T (default: the first half of the run)")
    arguments.add_argument("--periods", type=int, default=3, help="periods at the end for c_D and c_L (default 3)")
    args = arguments.parse_args()
    if os.path.isfile(args.run):  # diagnostics.h5 itself
        args.run = os.path.dirname(args.run) or "."
    diagnostics = post.Run(args.run).diagnostics()
    series = diagnostics.series
    if args.lift not in series:
        raise SystemExit(f"{args.run}/diagnostics.h5: no column {args.lift}; it has {', '.join(series)}")
    time, lift = diagnostics.time, series[args.lift]
    drag, pressure = series.get(args.drag), series.get(args.pressure_difference)
    transient = args.transient if args.transient is not None else 0.5 * (time[0] + time[-1])
    result = analyse(time, lift, drag, transient, args.periods)
    strouhal = args.diameter * result["frequency"] / args.velocity
    fft_strouhal = args.diameter * result["fft_frequency"] / args.velocity
    print(f"force coefficients: {args.run}/diagnostics.h5, t = {time[0]:.6g} ... {time[-1]:.6g}, {len(time)} records; "
          f"transient t < {transient:.6g} discarded; D = {args.diameter:g}, U_mean = {args.velocity:g}")
    print(f"lift frequency {result['frequency']:.6g} (zero crossings: {result['crossings']} upward; "
          f"FFT with interpolated peak: {result['fft_frequency']:.6g})")
    print(f"Strouhal number {strouhal:.6f} (FFT: {fft_strouhal:.6f})")
    window = result["window"]
    print(f"over t = {window[0]:.6g} ... {window[1]:.6g} (the last {args.periods} periods): "
          f"c_L max |c_L| {result['lift_max']:.6f}, rms {result['lift_rms']:.6f}"
          + (f"; c_D max {result['drag_max']:.6f}, mean {result['drag_mean']:.6f}" if drag is not None else
             f"; no {args.drag}"))
    fig = post.figure(FIGURE)
    axes = fig.subplots(3, 1, sharex=True)
    panel(axes[0], time, drag, args.drag, transient, window)
    panel(axes[1], time, lift, args.lift, transient, window)
    panel(axes[2], time, pressure, args.pressure_difference, transient, window)
    axes[0].set_title(f"St = D f / U = {strouhal:.4f}   (f = {result['frequency']:.4g}, D = {args.diameter:g}, "
                      f"U = {args.velocity:g})")
    axes[1].legend(fontsize="small", loc="upper left")
    axes[2].set_xlabel("time")
    post.save(fig, args, "forces.png")


if __name__ == "__main__":
    main()
