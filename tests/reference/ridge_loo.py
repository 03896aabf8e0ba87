#!/usr/bin/python3
"""Reference for the closed-form LOO and GCV of ridge least squares with an unpenalised bias
(tests/selection/test_ridge_loo.cpp): every leave-one-out error by an explicit refit without
the row (numpy.linalg.solve), GCV from the explicit hat matrix. Writes ridge_loo.json.

    /usr/bin/python3 tests/reference/ridge_loo.py
"""
import json
import os

import numpy as np

rng = np.random.default_rng(7)
n, m, k = 40, 6, 2
x = rng.uniform(-2.0, 2.0, (n, 2))
centres = rng.uniform(-2.0, 2.0, (m, 2))
# The design: Gaussian activations exp(-||x - c||^2 / 2), as the test's basis maps them.
phi = np.exp(-0.5 * ((x[:, None, :] - centres[None, :, :]) ** 2).sum(axis=2))
targets = np.column_stack([np.sin(2 * x[:, 0]) + 0.1 * rng.standard_normal(n),
                           x[:, 0] * x[:, 1] + 0.1 * rng.standard_normal(n)])
lambdas = [1e-6, 1e-3, 1e-1, 1.0, 10.0]


def fit(p, t, lam):
    """Ridge with an unpenalised bias: minimise ||[p 1] w - t||^2 + lam ||w[:-1]||^2."""
    a = np.column_stack([p, np.ones(len(p))])
    penalty = lam * np.eye(m + 1)
    penalty[m, m] = 0.0
    return np.linalg.solve(a.T @ a + penalty, a.T @ t), a


loo, gcv, dof = [], [], []
for lam in lambdas:
    errors = 0.0
    for i in range(n):
        keep = np.arange(n) != i
        w, _ = fit(phi[keep], targets[keep], lam)
        pred = np.append(phi[i], 1.0) @ w
        errors += np.sum((targets[i] - pred) ** 2)
    loo.append(errors / n)
    w, a = fit(phi, targets, lam)
    penalty = lam * np.eye(m + 1)
    penalty[m, m] = 0.0
    hat = a @ np.linalg.solve(a.T @ a + penalty, a.T)
    resid = targets - a @ w
    trace = np.trace(hat)
    dof.append(trace)
    gcv.append(n * np.sum(resid ** 2) / (n - trace) ** 2)

out = {"x": x.tolist(), "centres": centres.tolist(), "targets": targets.tolist(), "lambdas": lambdas,
       "loo": loo, "gcv": gcv, "dof": dof}
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "ridge_loo.json"), "w") as f:
    json.dump(out, f, indent=1)
