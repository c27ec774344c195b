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
