#!/usr/bin/env python3
"""Lid-driven cavity against Ghia, Ghia & Shin (1982): u along the vertical centreline x = L/2 and v
along the horizontal centreline y = L/2 of one output of a cfd_projection run, interpolated from the
cell centres (linearly across the centreline, then linearly along it, with the wall values at the two
ends), compared with Ghia's table at its points. Prints the largest |u/U - u_Ghia| and |v/U - v_Ghia|
(velocities in units of the lid speed U, coordinates in units of L) and writes
cavity_centrelines_NNNNN.png. Re = U L / nu from the resolved deck stored in the file, or --re; the
table has columns for some Reynolds numbers only (Re 100 and 1000), and another Re is refused."""
import os

import h5py
import numpy as np

import meridian_post as post

REPOSITORY = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GHIA_TABLE = os.path.join(REPOSITORY, "tests", "data", "ghia1982_cavity_centerlines.csv")
FIGURE = (10.0, 5.0)  # 1200 x 600 pixels: the two profiles side by side
PROFILES = ("u", "v")  # u along x = L/2 (coordinate y), v along y = L/2 (coordinate x)


def read_ghia(path=GHIA_TABLE):
    """{Re: {"u": (y, u), "v": (x, v)}} from the table: coordinates in units of L, velocities of U."""
    rows = [line.strip().split(",") for line in open(path) if line.strip() and not line.startswith("#")]
    header, rows = rows[0], rows[1:]
    table = {}
    for column, name in enumerate(header):
        if not name.startswith("Re"):
            continue
        table[float(name[2:])] = {
            profile: tuple(np.array([float(row[index]) for row in rows if row[0].startswith(profile)])
                           for index in (header.index("coord"), column))
            for profile in PROFILES}
    return table


def lid_speed(wall_velocity):
    """The speed of the fastest wall: the lid's, [x = 0, x = L, y = 0, y = L] as the deck gives them."""
    return max(abs(w) for w in wall_velocity)


def centrelines(u, v, length, wall_velocity):
    """u(y) along x = L/2 and v(x) along y = L/2 from cell-centred (ny, nx) arrays on [0, L]^2, with
    the walls' tangential velocities at the ends: {"u": (y, u), "v": (x, v)}."""
    ny, nx = u.shape
    x = (np.arange(nx) + 0.5) * length / nx
    y = (np.arange(ny) + 0.5) * length / ny
    u_centre = np.array([np.interp(length / 2, x, row) for row in u])  # across x = L/2, each row
    v_centre = np.array([np.interp(length / 2, y, column) for column in v.T])  # across y = L/2, each column
    return {"u": (np.concatenate(([0], y, [length])), np.concatenate(([wall_velocity[2]], u_centre, [wall_velocity[3]]))),
            "v": (np.concatenate(([0], x, [length])), np.concatenate(([wall_velocity[0]], v_centre, [wall_velocity[1]])))}


def deviations(profiles, reference, length, speed):
    """{profile: (largest |value/U - Ghia|, the coordinate/L where it is, points compared)}."""
    result = {}
    for name in PROFILES:
        at, values = profiles[name]
        ghia_at, ghia = reference[name]
        error = np.abs(np.interp(ghia_at * length, at, values) / speed - ghia)
        result[name] = (error.max(), ghia_at[error.argmax()], len(ghia))
    return result


def reynolds_column(table, reynolds):
    """The table's column for this Re (within 1%), else SystemExit naming the ones there are."""
    for column in table:
        if abs(reynolds - column) <= 0.01 * column:
            return column
    raise SystemExit(f"Re = {reynolds:g}: Ghia's table has Re {', '.join(f'{c:g}' for c in table)} only "
                     "(give --re to compare with one of them anyway)")


def print_deviations(found, label=""):
    for name, across, along in (("u", "x", "y"), ("v", "y", "x")):
        largest, where, points = found[name]
        print(f"{label}max deviation {name} along {across} = 0.5: {largest:.6f} (at {along} = {where:.4f}; "
              f"{points} Ghia points)")


def draw(fig, profiles, reference, length, speed, reynolds, title):
    axes = fig.subplots(1, 2)
    for ax, name in zip(axes, PROFILES):
        at, values = profiles[name]
        ghia_at, ghia = reference[name]
        across = "x" if name == "u" else "y"
        if name == "u":
            ax.plot(values / speed, at / length, "-", color="C0", label="this run")
            ax.plot(ghia, ghia_at, "o", color="k", mfc="none", label="Ghia et al. 1982")
            ax.set_xlabel("u / U"), ax.set_ylabel("y / L")
        else:
            ax.plot(at / length, values / speed, "-", color="C0", label="this run")
            ax.plot(ghia_at, ghia, "o", color="k", mfc="none", label="Ghia et al. 1982")
            ax.set_xlabel("x / L"), ax.set_ylabel("v / U")
        ax.set_title(f"{name} along {across} = L/2, Re = {reynolds:g}")
        ax.grid(alpha=0.3)
        ax.legend(fontsize="small")
    fig.suptitle(title)


def main():
    arguments = post.parser(__doc__)
    arguments.add_argument("--time", type=float, metavar="T", help="the output time nearest to T (default: the last)")
    arguments.add_argument("--re", type=float, metavar="RE", help="Reynolds number of the table column to compare "
                           "with (default: U L / nu from the deck in the file)")
    arguments.add_argument("--reference", metavar="CSV", default=GHIA_TABLE, help=f"Ghia's table (default {GHIA_TABLE})")
    args = arguments.parse_args()
    if os.path.isfile(args.run):  # a field file itself: the PNG goes beside it
        path, number = args.run, os.path.basename(args.run).removeprefix("fields_").removesuffix(".h5")
        args.run = os.path.dirname(path) or "."
    else:
        file = post.Run(args.run).field_file(args.time)
        path, number = file.path, file.number
    with h5py.File(path, "r") as f:
        if post.text(f.attrs.get("solver", "")) != "cfd_projection":
            raise SystemExit(f"{path}: written by the {post.text(f.attrs.get('solver', 'unknown'))} solver, "
                             "not cfd_projection")
        deck = post.tomllib.loads(post.text(f.attrs["deck"]))
        u, v = post.field_values(f["fields/u"]), post.field_values(f["fields/v"])
        time = float(f.attrs["time"])
    projection = deck["projection"]
    # The square's side is the x extent of projection.domain; an empty wall_velocity means every wall at rest.
    length, nu = projection["domain"][0], projection["viscosity"]
    walls = projection["wall_velocity"] or [0.0, 0.0, 0.0, 0.0]
    speed = lid_speed(walls)
    if speed == 0:
        raise SystemExit(f"{path}: every wall is at rest (projection.wall_velocity), so this is no lid-driven cavity")
    table = read_ghia(args.reference)
    reynolds = reynolds_column(table, args.re if args.re is not None else speed * length / nu if nu > 0 else np.inf)
    profiles = centrelines(u, v, length, walls)
    ny, nx = u.shape
    print(f"cavity centrelines: {path}, t = {time:.6g}, {nx} x {ny} cells, U = {speed:g}, L = {length:g}, "
          f"nu = {nu:g}, Re = U L / nu = {speed * length / nu if nu > 0 else np.inf:g}; Ghia et al. 1982 at Re {reynolds:g}")
    print_deviations(deviations(profiles, table[reynolds], length, speed))
    fig = post.figure(FIGURE)
    draw(fig, profiles, table[reynolds], length, speed, reynolds, f"{nx} x {ny} cells, t = {time:.4g}")
    post.save(fig, args, f"cavity_centrelines_{number}.png")


if __name__ == "__main__":
    main()
