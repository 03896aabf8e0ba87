#!/usr/bin/python3
"""NumPy references for plugins/output-least-squares/tests/test_least_squares_output.cpp.

Gaussian design matrix of the NETLAB parity case (synth3 training data, NETLAB's 10 centres and
variances w_j: phi_j = exp(-||x - c_j||^2 / (2 w_j)), bias column last), 1-of-2 targets.
  - pinv:  W = numpy.linalg.lstsq(Phi, T); 0.5 SSE.
  - ridge: (Phi^T Phi + alpha D) W = Phi^T T, D = diag(1, ..., 1, 0) (bias not penalised),
           alpha = 0.1; 0.5 SSE and the penalty alpha/2 ||W without bias row||^2.
  - ill-conditioned ridge: the same centres with one wide width sigma (Gaussian exp(-r^2 /
           (2 sigma^2))), so that cond(Phi^T Phi + alpha D) is 2e11 (sigma 8, alpha 1e-8: the
           refined normal equations' case, where the plain normal equations lose 5 digits), 2e13
           (sigma 12, alpha 1e-10: still theirs) and 1e17 (sigma 20, alpha 1e-13: beyond
           1 / epsilon, the SVD's case); W by numpy.linalg.lstsq (SVD) of the stacked
           [Phi; sqrt(alpha) D] against [T; 0].
Writes reference_ridge.csv (one row of figures), reference_ridge_weights.csv and
reference_ridge_ill.csv (per case: sigma, alpha, then W row by row, 22 values) beside itself.

Run from anywhere:  /usr/bin/python3 tests/reference/reference_ridge.py
"""
import pathlib

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
# The NETLAB centres and widths the test also reads (copies of NETLAB's runs).
DATA = ROOT / "plugins" / "output-least-squares" / "tests" / "data"

train = np.loadtxt(ROOT / "docs/examples/data/synth3_train.csv", delimiter=",", skiprows=1)
x, label = train[:, :2], train[:, 2].astype(int)
centres = np.loadtxt(DATA / "netlab_centres.csv", delimiter=",")
widths = np.loadtxt(DATA / "netlab_gauss_widths.csv", delimiter=",")

r2 = ((x[:, None, :] - centres[None, :, :]) ** 2).sum(axis=2)
phi = np.hstack([np.exp(-r2 / (2 * widths[None, :])), np.ones((len(x), 1))])
t = np.eye(2)[label]

w_pinv, *_ = np.linalg.lstsq(phi, t, rcond=None)
half_sse_pinv = 0.5 * ((phi @ w_pinv - t) ** 2).sum()

alpha = 0.1
d = np.eye(phi.shape[1])
d[-1, -1] = 0
w_ridge = np.linalg.solve(phi.T @ phi + alpha * d, phi.T @ t)
half_sse_ridge = 0.5 * ((phi @ w_ridge - t) ** 2).sum()
penalty = 0.5 * alpha * (w_ridge[:-1] ** 2).sum()

with open(HERE / "reference_ridge.csv", "w") as f:
    f.write("alpha,half_sse_pinv,half_sse_ridge,penalty_ridge\n")
    f.write("%.17g,%.17g,%.17g,%.17g\n" % (alpha, half_sse_pinv, half_sse_ridge, penalty))
np.savetxt(HERE / "reference_ridge_weights.csv", w_ridge, delimiter=",", fmt="%.17g")
print("0.5 SSE pinv", half_sse_pinv, "(NETLAB x 2 =", 2 * 12.398455024396405, ")")
print("ridge 0.5 SSE", half_sse_ridge, "penalty", penalty)

with open(HERE / "reference_ridge_ill.csv", "w") as f:
    f.write("sigma,alpha,condition,weights (11 x 2, row-major)\n")
    for sigma, a in [(8.0, 1e-8), (12.0, 1e-10), (20.0, 1e-13)]:
        wide = np.hstack([np.exp(-r2 / (2 * sigma**2)), np.ones((len(x), 1))])
        stacked = np.vstack([wide, np.sqrt(a) * d[:-1]])
        w_ill, *_ = np.linalg.lstsq(stacked, np.vstack([t, np.zeros((10, 2))]), rcond=None)
        cond = np.linalg.cond(wide.T @ wide + a * d)
        f.write(",".join("%.17g" % v for v in [sigma, a, cond, *w_ill.ravel()]) + "\n")
        print("ill-conditioned ridge: sigma", sigma, "alpha", a, "cond %.3g" % cond)
