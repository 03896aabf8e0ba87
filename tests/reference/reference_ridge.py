#!/usr/bin/python3
"""NumPy references for plugins/output-least-squares/tests/test_least_squares_output.cpp.

Gaussian design matrix of the NETLAB parity case (synth3 training data, NETLAB's 10 centres and
variances w_j: phi_j = exp(-||x - c_j||^2 / (2 w_j)), bias column last), 1-of-2 targets.
  - pinv:  W = numpy.linalg.lstsq(Phi, T); 0.5 SSE.
  - ridge: (Phi^T Phi + alpha D) W = Phi^T T, D = diag(1, ..., 1, 0) (bias not penalised),
           alpha = 0.1; 0.5 SSE and the penalty alpha/2 ||W without bias row||^2.
Writes reference_ridge.csv (one row of figures) and reference_ridge_weights.csv beside itself.

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
