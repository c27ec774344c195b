#!/usr/bin/env python3
"""Time series of a Meridian run's diagnostics.h5, in one figure (diagnostics.png), chosen by the
solver that wrote it:
  advection (and any other solver): relative change of the conserved quantities (log scale), min
    and max, and the error norms where they are known;
  cfd_spectral: kinetic energy; dissipation rate, 2 nu enstrophy and -dE/dt, against the reference
    DNS for the Taylor-Green Re = 1600 deck; the largest velocity divergence;
  monte_carlo: each product's price against the number of paths, with its 95% confidence band and
    its closed form (read from the last fields_NNNNN.h5) where it has one."""
import meridian_post as post


def time_panels(fig, diagnostics, *draws):
    """One panel per draw function, stacked on a shared time axis."""
    axes = fig.subplots(len(draws), 1, sharex=True)
    for ax, draw in zip(axes, draws):
        draw(ax, diagnostics)
    for ax in axes[:-1]:
        ax.set_xlabel("")  # the panels share the time axis of the bottom one


def advection(fig, run, diagnostics):
    time_panels(fig, diagnostics, post.draw_conservation, post.draw_range, post.draw_errors)


def cfd(fig, run, diagnostics):
    time_panels(fig, diagnostics, post.draw_energy, post.draw_dissipation, post.draw_divergence)


def monte_carlo(fig, run, diagnostics):
    post.draw_convergence_grid(fig, diagnostics, run.results())
    fig.suptitle(f"price convergence, {int(diagnostics.series['paths'][-1])} paths")


LAYOUTS = {"cfd_spectral": cfd, "monte_carlo": monte_carlo}  # any other solver: advection's panels


def main():
    args = post.parser(__doc__).parse_args()
    run = post.Run(args.run)
    diagnostics = run.diagnostics()
    fig = post.figure(post.DIAGNOSTICS_FIGURE)
    LAYOUTS.get(diagnostics.solver, advection)(fig, run, diagnostics)
    post.save(fig, args, "diagnostics.png")


if __name__ == "__main__":
    main()
