#!/usr/bin/python3
"""Reference values for tests/training/test_trainer_reference.cpp: two pipelines trained by
radial::train with fixed centres, recomputed here with NumPy and scikit-learn only.

Both pipelines (tests/reference/trainer/*.toml) read unstandardised inputs, take their centres
and spherical variances v_j from the CSV files this script writes, and use the `gaussian` basis
with width = 0, so the design matrix is

    Phi[n, j] = exp(-||x_n - c_j||^2 / (2 v_j)),   Phi[n, M] = 1 (the bias column, last).

sine-ridge: `least-squares` output with `weight-decay` alpha = A_RIDGE (bias not penalised):
    W = argmin 1/2 ||Phi W - t||^2 + alpha/2 ||W[:M]||^2,
solved by numpy.linalg.lstsq on [Phi; sqrt(alpha) [I 0]] and [t; 0], with Phi computed here
from the formula above. final_error = 1/2 SSE + alpha/2 ||W[:M]||^2; mse = mean squared error.

synth3-logistic: `irls` output, link logistic, `weight-decay` alpha = A_LOGISTIC: scikit-learn's
LogisticRegression(C = 1/alpha) on the M basis columns with a fitted (unpenalised) intercept,
which minimises the same sum_n CE_n + alpha/2 ||w||^2. newton-cg stops with gradients near
1e-8; three Newton steps in NumPy on the same objective take the gradient to rounding level
(recorded as max_abs_gradient), so the weights are the minimiser to ~1e-12.

Run from anywhere:  /usr/bin/python3 tests/reference/trainer_fixed_centres.py
Writes tests/reference/trainer/{sine_centres.csv, synth3_centres.csv, trainer_fixed_centres.json}.
"""
import json
import pathlib
import warnings

import numpy as np
import sklearn
from sklearn.linear_model import LogisticRegression

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE / "trainer"
DATA = HERE.parents[1] / "docs" / "examples" / "data"
A_RIDGE = 0.01
A_LOGISTIC = 0.1


def load(name):
    raw = np.loadtxt(DATA / name, delimiter=",", skiprows=1)
    return raw[:, :-1], raw[:, -1]


def design(x, centres, variances):
    r2 = ((x[:, None, :] - centres[None, :, :]) ** 2).sum(axis=2)
    return np.c_[np.exp(-r2 / (2 * variances[None, :])), np.ones(len(x))]


def write_centres(name, header, centres, variances):
    with open(OUT / name, "w") as f:
        f.write(header + "\n")
        for c, v in zip(centres, variances):
            f.write(",".join(repr(float(a)) for a in list(c) + [v]) + "\n")


out = {"numpy": np.__version__, "sklearn": sklearn.__version__}

# ---- sine: ridge regression on 7 Gaussians of different widths
x, t = load("sine.train.csv")
x_test, t_test = load("sine.test.csv")
centres = np.linspace(0.05, 0.95, 7)[:, None]
variances = np.array([0.004, 0.006, 0.01, 0.008, 0.012, 0.005, 0.009])
write_centres("sine_centres.csv", "x,variance", centres, variances)
phi = design(x, centres, variances)
m = len(centres)
stacked = np.r_[phi, np.sqrt(A_RIDGE) * np.eye(m, m + 1)]
w, *_ = np.linalg.lstsq(stacked, np.r_[t, np.zeros(m)], rcond=None)
residual = phi @ w - t
out["sine_ridge"] = {
    "alpha": A_RIDGE,
    "weights": w.tolist(),
    "final_error": 0.5 * float(residual @ residual) + 0.5 * A_RIDGE * float(w[:m] @ w[:m]),
    "train_mse": float(np.mean(residual ** 2)),
    "test_mse": float(np.mean((design(x_test, centres, variances) @ w - t_test) ** 2)),
    "design_first_rows": phi[:3].tolist(),
}

# ---- synth3: penalised logistic regression on 6 Gaussians
x, y = load("synth3_train.csv")
y = y.astype(int)
centres = np.array([[-1.5, -1.0], [-0.5, 1.5], [0.0, 0.0], [1.0, -1.5], [1.5, 1.0], [2.5, 2.5]])
variances = np.array([0.8, 1.2, 0.5, 1.0, 0.7, 1.5])
write_centres("synth3_centres.csv", "x1,x2,variance", centres, variances)
phi = design(x, centres, variances)
m = len(centres)
model = LogisticRegression(C=1 / A_LOGISTIC, tol=1e-12, max_iter=1000, solver="newton-cg")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # newton-cg's line search at rounding level
    model.fit(phi[:, :m], y)
w = np.r_[model.coef_[0], model.intercept_]
penalty = np.diag(np.r_[np.full(m, A_LOGISTIC), 0.0])


def gradient_hessian(w):
    p = 1 / (1 + np.exp(-phi @ w))
    return phi.T @ (p - y) + penalty @ w, phi.T @ (phi * (p * (1 - p))[:, None]) + penalty


sklearn_gradient = float(np.max(np.abs(gradient_hessian(w)[0])))
for _ in range(3):
    g, h = gradient_hessian(w)
    w = w - np.linalg.solve(h, g)
p = 1 / (1 + np.exp(-phi @ w))
cross_entropy = -np.sum(y * np.log(p) + (1 - y) * np.log(1 - p))
out["synth3_logistic"] = {
    "alpha": A_LOGISTIC,
    "weights": w.tolist(),
    "sklearn_max_abs_gradient": sklearn_gradient,
    "max_abs_gradient": float(np.max(np.abs(gradient_hessian(w)[0]))),
    "final_error": float(cross_entropy) + 0.5 * A_LOGISTIC * float(w[:m] @ w[:m]),
    "train_cross_entropy": float(cross_entropy) / len(y),
    "train_error_rate": float(np.mean((p > 0.5) != (y == 1))),
}

with open(OUT / "trainer_fixed_centres.json", "w") as f:
    json.dump(out, f, indent=1)
    f.write("\n")
print("wrote", OUT / "trainer_fixed_centres.json")
