"""Whole-network training (issue 27): Radial's [refine] lbfgs against the two-stage fit and
against a NumPy/SciPy reference of the same model and objective (ERBF-style anisotropic
Gaussian RBF: centres, one log width per centre and input, linear outputs, 1/2 SSE +
alpha/2 |W|^2 without the bias; L-BFGS-B), from the same two-stage start.

  PYTHONPATH=build/python /usr/bin/python3 apps/radial-bench/refine/refine_bench.py [--quick] [--speed]

(--speed: only the seconds per evaluation.)

Prints: (1) friedman1 (n = 2000, noise 0.1, random_state 42) with 95 standard-normal noise
columns, 5-fold R^2 of the two-stage fit, of Radial refined and of the SciPy reference;
(2) seconds per gradient evaluation at N = 10^5 (d = 10, M = 32) of Radial's refinement, of
its weights-only pass (one value-and-gradient pass of the design matrix) and of the SciPy
reference, with the ratios the issue asks for."""
import os
import sys
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # one thread on both sides
import numpy as np  # noqa: E402
import radial  # noqa: E402
from scipy.optimize import minimize
from sklearn.datasets import make_friedman1
from sklearn.model_selection import KFold

from reference import Reference  # noqa: E402

QUICK = "--quick" in sys.argv
SPEED_ONLY = "--speed" in sys.argv
ALPHA = 1e-3


def pipeline(m, refine, iterations, widths="diagonal", centres=True, scale=1.0):
    spec = {"name": "refine-bench", "seed": 1, "threads": 1,
            "data": {"standardize": True, "task": "regression"},
            "basis": {"plugin": "gaussian", "width_rule": "nearest", "width_scale": scale},
            "centres": {"plugin": "kmeans", "count": m},
            "output": {"plugin": "least-squares"},
            "weight-penalty": {"plugin": "weight-decay", "alpha": ALPHA}}
    if refine:
        spec["refine"] = {"plugin": "lbfgs", "iterations": iterations, "widths": widths,
                          "centres": centres, "tolerance": 1e-9}
    return radial.Pipeline(spec)


def network(model):
    """Centres, spherical variances and weights of a two-stage Gaussian model."""
    return {"means": model.centres, "variances": model.shapes[:, 0], "weights": model.weights}


def standardise(x_train, x_test):
    mu, sd = x_train.mean(0), x_train.std(0)
    sd[sd == 0] = 1
    return (x_train - mu) / sd, (x_test - mu) / sd


def r2(p, y):
    return 1 - ((p - y) ** 2).sum() / ((y - y.mean()) ** 2).sum()


def compare_on(title, x, y, m, scale, its=2000):
    folds = list(KFold(5, shuffle=True, random_state=0).split(x))[: 1 if QUICK else 5]
    rows = {"two-stage": [], "radial refined": [], "scipy reference": []}
    secs = {"radial refined": 0.0, "scipy reference": 0.0}
    for tr, te in folds:
        base = pipeline(m, False, 0, scale=scale).fit(x[tr], y[tr], seed=1)
        rows["two-stage"].append(r2(base.predict(x[te]).ravel(), y[te]))
        t = time.perf_counter()
        refined = pipeline(m, True, its, scale=scale).fit(x[tr], y[tr], seed=1)
        secs["radial refined"] += time.perf_counter() - t
        rows["radial refined"].append(r2(refined.predict(x[te]).ravel(), y[te]))
        # The reference from the same two-stage network, on the same standardised rows.
        net = network(base)
        xs, xt = standardise(x[tr], x[te])
        s0 = net["variances"][:, None] * np.ones((1, x.shape[1]))
        ref = Reference(xs, y[tr][:, None], net["means"], s0, net["weights"], ALPHA)
        t = time.perf_counter()
        out = minimize(ref, ref.theta0, jac=True, method="L-BFGS-B",
                       options={"maxiter": its, "ftol": 0, "gtol": 1e-9})
        secs["scipy reference"] += time.perf_counter() - t
        c, s, w = ref.unpack(out.x)
        inv = 1.0 / s
        r2t = xt * xt @ inv.T - 2 * xt @ (c * inv).T + (c * c * inv).sum(1)
        p = (np.exp(-0.5 * np.maximum(r2t, 0)) @ w[:-1] + w[-1]).ravel()
        rows["scipy reference"].append(r2(p, y[te]))
    print(f"\n{title}, M = {m}, width scale {scale}, up to {its} L-BFGS iterations, "
          f"{len(folds)} fold(s): test R^2")
    for k, v in rows.items():
        extra = f"  ({secs[k] / len(folds):.1f} s per fit)" if k in secs else ""
        print(f"  {k:18s} mean {np.mean(v):.5f}  folds {' '.join(f'{r:.5f}' for r in v)}{extra}")


def main():
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo")
                if line.startswith("model name")), "unknown")
    print(f"CPU: {cpu}; OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', '(auto)')}; "
          f"BLAS threads {os.environ['OPENBLAS_NUM_THREADS']}")
    x, y = make_friedman1(n_samples=2000, noise=0.1, random_state=42)
    noisy = np.hstack([x, np.random.RandomState(0).standard_normal((2000, 95))])
    for title, data, m, scale in (("friedman1 (d = 10)", x, 32, 4.0),
                                  ("friedman1 + 95 noise columns", noisy, 15, 1.0)):
        if not SPEED_ONLY:
            compare_on(title, data, y, m, scale)

    n = 20000 if QUICK else 100000
    xb, yb = make_friedman1(n_samples=n, noise=0.1, random_state=1)
    m, its = 32, 20
    full = pipeline(m, True, its).fit(xb, yb, seed=1)
    rep = full.report["refine"]
    radial_eval = rep["seconds"] / rep["gradient_evaluations"]
    weights_only = pipeline(m, True, its, widths="none", centres=False).fit(xb, yb, seed=1)
    rw = weights_only.report["refine"]
    design_eval = rw["seconds"] / rw["gradient_evaluations"]
    base = network(pipeline(m, False, 0).fit(xb, yb, seed=1))
    xs = (xb - xb.mean(0)) / xb.std(0)
    ref = Reference(xs, yb[:, None], base["means"], base["variances"][:, None] * np.ones((1, 10)),
                    base["weights"], ALPHA)
    t = time.perf_counter()
    minimize(ref, ref.theta0, jac=True, method="L-BFGS-B", options={"maxiter": its})
    scipy_eval = (time.perf_counter() - t) / ref.evaluations
    print(f"\nN = {n}, d = 10, M = 32, one thread: seconds per value-and-gradient evaluation")
    print(f"  radial refine (centres + diagonal widths + weights) {radial_eval:.4f}")
    print(f"  radial weights only (one pass of the design)       {design_eval:.4f}"
          f"   ratio {radial_eval / design_eval:.2f} (goal <= 2)")
    print(f"  scipy reference (same objective, NumPy)            {scipy_eval:.4f}"
          f"   radial is {scipy_eval / radial_eval:.1f}x faster (goal >= 5)")


if __name__ == "__main__":
    main()
