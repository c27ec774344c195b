"""The pressure at a point of a wall that a grid line along x meets head on (a stagnation point on a line of
symmetry, such as the front and back points of a cylinder in a cross-flow), read from a projection run's
checkpoint by the steady x-momentum balance along that line instead of by extrapolating the pressure:

    p(wall) = p(x0) - sign * (integral over s from 0 to start h_x of dp/dx at wall + sign s),
    dp/dx = -u u_x - v u_y + nu (u_xx + u_yy),

x0 = wall + sign * start h_x (sign +1 where the fluid lies at larger x). The integrand is sampled from the
velocity faces every h_x / 8 from `near` h_x to x0 and extrapolated linearly (a line fitted over its first h_x)
over the last `near` h_x, where the immersed body's forcing sets the faces. Next to a stagnation point the
pressure's gradient is mostly the viscous term nu u_xx, smooth up to the wall, while the pressure itself bends
over the few cells an extrapolation of it spans: on the Schaefer-Turek 2D-1 cylinder (sharp forcing) this
reading's error to the benchmark's dP falls at orders 2.1 and 2.4 from D/h = 24 to 32 to 48, the solver's
extrapolation's at 1.2 and 1.3 (scripts/validation/README.md).

Steady flow only (no du/dt term); 2-D checkpoints (state/u, state/v, state/p, the cell-centred pressure and the
staggered velocities of cfd_projection, the domain's lower corner at the origin)."""
import h5py
import numpy as np

SAMPLES_PER_CELL = 8


class Fields:
    """A 2-D MAC checkpoint's state with bilinear interpolation of each staggered field."""

    def __init__(self, checkpoint, extent):
        with h5py.File(checkpoint, "r") as f:
            self.u, self.v, self.p = (np.array(f["state"][name]) for name in ("u", "v", "p"))
        ny, nx = self.p.shape
        self.h = (extent[0] / nx, extent[1] / ny)

    def _at(self, field, x, y, offset_x, offset_y):
        qx, qy = x / self.h[0] - offset_x, y / self.h[1] - offset_y
        i, j = int(np.floor(qx)), int(np.floor(qy))
        tx, ty = qx - i, qy - j
        return ((1 - tx) * (1 - ty) * field[j, i] + tx * (1 - ty) * field[j, i + 1] +
                (1 - tx) * ty * field[j + 1, i] + tx * ty * field[j + 1, i + 1])

    def u_at(self, x, y):  # u on the x faces: x = i h_x, y = (j + 1/2) h_y
        return self._at(self.u, x, y, 0.0, 0.5)

    def v_at(self, x, y):  # v on the y faces: x = (i + 1/2) h_x, y = j h_y
        return self._at(self.v, x, y, 0.5, 0.0)

    def p_at(self, x, y):  # p at the cell centres
        return self._at(self.p, x, y, 0.5, 0.5)

    def pressure_gradient_x(self, x, y, viscosity):
        """dp/dx from the steady x-momentum equation, its derivatives by central differences of width h."""
        hx, hy = self.h
        u = self.u_at
        u_x = (u(x + 0.5 * hx, y) - u(x - 0.5 * hx, y)) / hx
        u_y = (u(x, y + 0.5 * hy) - u(x, y - 0.5 * hy)) / hy
        u_xx = (u(x + hx, y) - 2 * u(x, y) + u(x - hx, y)) / hx ** 2
        u_yy = (u(x, y + hy) - 2 * u(x, y) + u(x, y - hy)) / hy ** 2
        return -u(x, y) * u_x - self.v_at(x, y) * u_y + viscosity * (u_xx + u_yy)


def wall_pressure(fields, wall, sign, viscosity, start=4.0, near=2.0):
    """p at the wall point `wall` = (x, y), the fluid towards sign * x (sign = +1 or -1)."""
    hx = fields.h[0]
    s = np.linspace(near, start, int(round((start - near) * SAMPLES_PER_CELL)) + 1)
    gradient = np.array([fields.pressure_gradient_x(wall[0] + sign * d * hx, wall[1], viscosity) for d in s])
    first_cell = s <= near + 1
    slope, intercept = np.polyfit(s[first_cell], gradient[first_cell], 1)
    sampled = np.sum(0.5 * (gradient[1:] + gradient[:-1]) * np.diff(s)) * hx
    extrapolated = (intercept + 0.5 * slope * near) * near * hx
    return fields.p_at(wall[0] + sign * start * hx, wall[1]) - sign * (sampled + extrapolated)
