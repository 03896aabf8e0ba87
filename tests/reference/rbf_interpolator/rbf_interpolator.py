"""Reference values for the polynomial term of the conditionally positive definite bases
(basis.polynomial, radial/core/polynomial_term.hpp), from SciPy's RBFInterpolator and from a
direct NumPy solve of the constrained least-squares problem. Run with Debian's interpreter:

    /usr/bin/python3 tests/reference/rbf_interpolator/rbf_interpolator.py

It writes, beside itself, train.csv (x1, x2, y), query.csv (x1, x2), centres.csv (the fixed
centres of the least-squares cases) and expected.csv: one column per case, one row per query
point. tests/python/test_polynomial_term.py trains the matching pipelines with the CLI and the
Python module and compares their predictions with these to 1e-8.

Cases (Radial's kernels: thin-plate r^2 log r, cubic r^3, multiquadric sqrt(r^2 + c^2);
SciPy's thin_plate_spline and cubic are the same functions, its multiquadric is
-sqrt(1 + (eps r)^2) = -(1/c) sqrt(r^2 + c^2) with eps = 1/c, which scales the kernel and so
leaves the interpolant unchanged; smoothing is Radial's weight-penalty rkhs alpha):
  tps1          thin_plate_spline, degree 1 (SciPy's default), smoothing 0
  tps1_smooth   thin_plate_spline, degree 1, smoothing 0.1
  tps2          thin_plate_spline, degree 2, smoothing 0
  cubic1        cubic, degree 1, smoothing 0
  cubic1_smooth cubic, degree 1, smoothing 0.01
  mq0           multiquadric, epsilon 1/0.7, degree 0, smoothing 0
  ls_tps1       least squares with the 12 centres of centres.csv (fewer than the 40 rows):
                min ||y - Phi w - P b||^2 subject to P_c^T w = 0, solved as its KKT system
  ls_tps1_smooth the same plus 0.01 w^T K_cc w (the RKHS-norm penalty, alpha = 0.01 with
                Radial's 1/2 on both terms)
"""

import pathlib

import numpy as np
from scipy.interpolate import RBFInterpolator

HERE = pathlib.Path(__file__).resolve().parent

rng = np.random.default_rng(49)
n, n_query, m = 40, 25, 12
# Inputs on unequal, off-centre ranges, so the polynomial's shift and scale matter.
x = np.column_stack([rng.uniform(-2.0, 3.0, n), rng.uniform(10.0, 12.0, n)])
y = np.sin(1.3 * x[:, 0]) * np.cos(2.0 * x[:, 1]) + 0.1 * rng.normal(size=n)
xq = np.column_stack([rng.uniform(-2.0, 3.0, n_query), rng.uniform(10.0, 12.0, n_query)])
centres = x[rng.choice(n, m, replace=False)] + 0.05 * rng.normal(size=(m, 2))

cases = {}
for name, kernel, degree, smoothing, eps in [
        ("tps1", "thin_plate_spline", 1, 0.0, 1.0),
        ("tps1_smooth", "thin_plate_spline", 1, 0.1, 1.0),
        ("tps2", "thin_plate_spline", 2, 0.0, 1.0),
        ("cubic1", "cubic", 1, 0.0, 1.0),
        ("cubic1_smooth", "cubic", 1, 0.01, 1.0),
        ("mq0", "multiquadric", 0, 0.0, 1.0 / 0.7)]:
    f = RBFInterpolator(x, y, kernel=kernel, degree=degree, smoothing=smoothing, epsilon=eps)
    cases[name] = f(xq)


def tps(r):
    out = np.zeros_like(r)
    nz = r > 0
    out[nz] = r[nz] ** 2 * np.log(r[nz])
    return out


def dist(a, b):
    return np.sqrt(((a[:, None, :] - b[None, :, :]) ** 2).sum(axis=2))


def linear(a):
    return np.column_stack([np.ones(len(a)), a])


def constrained_least_squares(alpha):
    """min 1/2 ||y - Phi w - P b||^2 + alpha/2 w^T K w s.t. P_c^T w = 0, by its KKT system."""
    phi, k, p, pc = tps(dist(x, centres)), tps(dist(centres, centres)), linear(x), linear(centres)
    q = p.shape[1]
    kkt = np.zeros((m + 2 * q, m + 2 * q))
    kkt[:m, :m] = phi.T @ phi + alpha * k
    kkt[:m, m:m + q] = phi.T @ p
    kkt[m:m + q, :m] = p.T @ phi
    kkt[m:m + q, m:m + q] = p.T @ p
    kkt[:m, m + q:] = pc
    kkt[m + q:, :m] = pc.T
    rhs = np.concatenate([phi.T @ y, p.T @ y, np.zeros(q)])
    sol = np.linalg.solve(kkt, rhs)
    w, b = sol[:m], sol[m:m + q]
    assert np.abs(pc.T @ w).max() < 1e-9
    return tps(dist(xq, centres)) @ w + linear(xq) @ b


cases["ls_tps1"] = constrained_least_squares(0.0)
cases["ls_tps1_smooth"] = constrained_least_squares(0.01)


def write(name, header, rows):
    with open(HERE / name, "w") as f:
        f.write(",".join(header) + "\n")
        for row in rows:
            f.write(",".join(repr(float(v)) for v in row) + "\n")


write("train.csv", ["x1", "x2", "y"], np.column_stack([x, y]))
write("query.csv", ["x1", "x2"], xq)
write("centres.csv", ["x1", "x2"], centres)
write("expected.csv", list(cases), np.column_stack(list(cases.values())))
