"""The convergence report the validation scripts share: for each two successive grids the order of the
error to a reference, log(|e1| / |e2|) / log(r); for each three at one refinement ratio r the observed
order p = log(|f1 - f2| / |f2 - f3|) / log(r) and the Richardson extrapolation f3 + (f3 - f2) / (r^p - 1),
which needs no reference."""
import math


def report_convergence(values, references, grid_label, refinement, decimals, reference_note=lambda name: ""):
    """values: {grid: {quantity: value}}, coarsest grid first; references: {quantity: value};
    grid_label(grid): the grid as printed ("200 m", "D/h 16"); refinement(coarse, fine): their ratio, > 1;
    decimals: the digits of the values printed; reference_note(quantity): what follows an error pair."""
    grids = list(values)
    if len(grids) < 2:
        return
    width = max(len(name) for name in references) + 1
    print("\nconvergence")
    for coarse, fine in zip(grids, grids[1:]):
        ratio = refinement(coarse, fine)
        for name, reference in references.items():
            errors = [values[grid][name] - reference for grid in (coarse, fine)]
            order = math.log(abs(errors[0]) / abs(errors[1])) / math.log(ratio) if errors[1] else math.inf
            print(f"  {name:<{width}}{grid_label(coarse)} -> {grid_label(fine)}: error to the reference "
                  f"{errors[0]:+.{decimals}f} -> {errors[1]:+.{decimals}f}{reference_note(name)}, order {order:.2f}")
    for triple in zip(grids, grids[1:], grids[2:]):
        ratios = (refinement(*triple[:2]), refinement(*triple[1:]))
        grids_label = ", ".join(grid_label(grid) for grid in triple)
        if not math.isclose(*ratios):
            print(f"  {grids_label}: refinement ratios {ratios[0]:g} and {ratios[1]:g} differ: no observed order")
            continue
        for name, reference in references.items():
            f1, f2, f3 = (values[grid][name] for grid in triple)
            label = f"{name:<{width}}{grids_label}:"
            if (f1 - f2) * (f2 - f3) <= 0:
                print(f"  {label} not monotone ({f1:.{decimals}f}, {f2:.{decimals}f}, {f3:.{decimals}f}): "
                      f"no observed order")
                continue
            order = math.log(abs(f1 - f2) / abs(f2 - f3)) / math.log(ratios[0])
            if order <= 0:  # the change does not shrink with the grid: Richardson's series diverges
                print(f"  {label} observed order {order:.2f}: changes of {f1 - f2:+.{decimals}f} and "
                      f"{f2 - f3:+.{decimals}f} do not shrink, no extrapolation")
                continue
            extrapolated = f3 + (f3 - f2) / (ratios[0] ** order - 1)
            print(f"  {label} observed order {order:.2f}, Richardson extrapolation {extrapolated:.{decimals}f} "
                  f"(reference {reference:g})")


def fit_power_law(spacings, values):
    """Least squares f = f0 + C h^p over the grids: p by a scan of [0.25, 6] refined around its best value,
    f0 and C linear for each p. Returns (f0, C, p) and their standard errors from the Jacobian at the
    optimum (None with only three grids: the fit is then exact and says nothing of its uncertainty). The fit
    runs in h / max(h): with h itself, h^p is 1e-7 and C 1e3 at p = 3.4, and the normal matrix's pseudo-inverse
    lost the errors' digits (the same four values gave p +- 0.12 and +- 7.2)."""
    import numpy as np
    scale = float(np.max(spacings))
    h, f = np.asarray(spacings, float) / scale, np.asarray(values, float)

    def linear(p):
        a = np.column_stack([np.ones_like(h), h ** p])
        coefficients, *_ = np.linalg.lstsq(a, f, rcond=None)
        return coefficients, float(np.sum((a @ coefficients - f) ** 2))

    orders = np.linspace(0.25, 6, 2301)
    best = orders[int(np.argmin([linear(p)[1] for p in orders]))]
    fine = np.linspace(max(best - 0.005, 0.25), best + 0.005, 201)
    p = fine[int(np.argmin([linear(q)[1] for q in fine]))]
    (f0, c), residual = linear(p)
    if len(h) <= 3:
        return (f0, c / scale ** p, p), None
    jacobian = np.column_stack([np.ones_like(h), h ** p, c * h ** p * np.log(h)])
    covariance = residual / (len(h) - 3) * np.linalg.pinv(jacobian.T @ jacobian)
    errors = np.sqrt(np.diag(covariance))
    return (f0, c / scale ** p, p), (errors[0], errors[1] / scale ** p, errors[2])


def report_fit(values, spacing, intervals, decimals, reported_only=()):
    """values: {grid: {quantity: value}}; spacing(grid): h; intervals: {quantity: (low, high)}. Prints per
    quantity the fit f0 + C h^p (with 3 or more grids), f0 +- its standard error and whether that range
    overlaps the interval; quantities in reported_only are printed without the overlap verdict."""
    grids = list(values)
    if len(grids) < 3:
        return
    print("\nleast-squares fit f = f0 + C h^p over " + ", ".join(str(grid) for grid in grids))
    for name, (low, high) in intervals.items():
        (f0, c, p), errors = fit_power_law([spacing(grid) for grid in grids], [values[grid][name] for grid in grids])
        if errors is None:
            print(f"  {name:<9} f0 {f0:.{decimals}f}, p {p:.2f} (three grids: exact, no uncertainty)")
            continue
        overlap = "" if name in reported_only else (
            ", overlaps the interval" if f0 + errors[0] >= low and f0 - errors[0] <= high else ", misses the interval")
        print(f"  {name:<9} f0 {f0:.{decimals}f} +- {errors[0]:.{decimals}f}, p {p:.2f} +- {errors[2]:.2f}, "
              f"C {c:.4g}{overlap} [{low:g}, {high:g}]")
