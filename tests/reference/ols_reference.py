#!/usr/bin/python3
"""Orthogonal least squares forward selection in NumPy, written from the papers (independent of
Radial's plugins/centres-ols): Chen, Cowan & Grant 1991 (classical Gram-Schmidt on the original
candidate columns at every step, the error reduction ratio, its multi-output sum), the
regularised form of Chen, Chng & Alkadhimi 1996, and the GCV and leave-one-out figures of
Orr 1995. The bias column (all ones) is the first regressor, as in the network's design [Phi, 1].

lam="reestimate": Orr's re-estimation of the regularisation parameter during the selection
(Orr 1995; Orr 1996, "Introduction to radial basis function networks": ridge regression's GCV
re-estimation formula, used in his regularised forward selection). After every step lambda is
iterated to the fixed point of

    lambda = e^T e trace(A^-1 J - lambda A^-1 J A^-1 J) / (w^T J A^-1 J w trace(P))

written here with explicit matrices: H = [1, chosen orthogonal columns], J = diag(0, 1, ..., 1)
(the bias unpenalised), A = H^T H + lambda J, P = I - H A^-1 H^T, w = A^-1 H^T D, e = P D
(for J = I this is Orr's lambda = y^T P^2 y trace(A^-1 - lambda A^-2) / (w^T A^-1 w trace(P))).
The first centre is chosen with lambda = 0. Each fixed point is checked (the script stops
otherwise) against the minimiser of GCV(lambda) = N e^T e / trace(P)^2 found by
scipy.optimize.minimize_scalar, to 1e-5 relative.

For lambda = 0 the leave-one-out figure of the orthogonal form is checked here against explicit
leave-one-out refits by numpy.linalg.lstsq (the script stops if they differ by 1e-8 relative).

    /usr/bin/python3 tests/reference/ols_reference.py > tests/reference/ols/ols_reference.json
"""

import json
import os

import numpy as np
from scipy.optimize import minimize_scalar

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "docs", "examples", "data")


def gaussian_design(x, centres, sigma):
    d2 = ((x[:, None, :] - centres[None, :, :]) ** 2).sum(axis=2)
    return np.exp(-d2 / (2.0 * sigma ** 2))


def ridge_parts(H, D, lam):
    """The projection P, weights w, A^-1 and J of ridge regression on H with the bias
    (column 0) unpenalised."""
    J = np.eye(H.shape[1])
    J[0, 0] = 0.0
    Ainv = np.linalg.inv(H.T @ H + lam * J)
    P = np.eye(H.shape[0]) - H @ Ainv @ H.T
    return P, Ainv @ H.T @ D, Ainv, J


def gcv_of(H, D, lam):
    P, _, _, _ = ridge_parts(H, D, lam)
    E = P @ D
    return H.shape[0] * float((E ** 2).sum()) / np.trace(P) ** 2


def reestimated(H, D, start):
    """Orr's re-estimation formula iterated to its fixed point from `start` (matrix form)."""
    lam = start
    for _ in range(1000):
        P, w, Ainv, J = ridge_parts(H, D, lam)
        E = P @ D
        AJ = Ainv @ J
        trace_term = np.trace(AJ - lam * AJ @ AJ)
        weights = float(np.trace(w.T @ J @ Ainv @ J @ w))
        nxt = float((E ** 2).sum()) * trace_term / (weights * np.trace(P))
        done = abs(nxt - lam) <= 1e-10 * max(nxt, lam)
        lam = nxt
        if done:
            break
    else:
        raise AssertionError("the re-estimation did not converge")
    # Independent check: the fixed point is where GCV is least (a bounded search in log lambda).
    best = minimize_scalar(lambda t: gcv_of(H, D, np.exp(t)), bounds=(np.log(lam) - 8, np.log(lam) + 8),
                           method="bounded", options={"xatol": 1e-9})
    assert abs(np.exp(best.x) - lam) <= 1e-5 * lam, (lam, np.exp(best.x))
    assert gcv_of(H, D, lam) <= best.fun * (1 + 1e-12), (gcv_of(H, D, lam), best.fun)
    return lam


def ols(P, D, count, lam=0.0, stop="count", goal=0.0, dependence=1e-10):
    """P: N x Mc candidate columns; D: N x K targets. Returns the selection record."""
    reestimate = lam == "reestimate"
    lam = 0.0 if reestimate else lam
    n, mc = P.shape
    total = float((D ** 2).sum())
    ones = np.ones(n)
    W = [ones]                      # chosen orthogonal columns, bias first
    h = [float(n)]
    g = [D.mean(axis=0)]            # the bias's weights: unpenalised
    bias_err = float(n * (g[0] ** 2).sum() / total)
    base = P - P.mean(axis=0)       # squared norms after the bias, for the dependence test
    base_norm = (base ** 2).sum(axis=0)
    chosen, errs = [], []

    def figures():
        E = D - W[0][:, None] * g[0][None, :] - sum(
            wi[:, None] * ((wi @ D) / (hi + lam))[None, :] for wi, hi in zip(W[1:], h[1:]))
        sse = float((E ** 2).sum())
        gamma = 1.0 + sum(hi / (hi + lam) for hi in h[1:])
        H = np.outer(ones, ones) / n + sum(np.outer(wi, wi) / (hi + lam)
                                           for wi, hi in zip(W[1:], h[1:]))
        hd = np.diag(H)
        loo = float(((E / (1.0 - hd)[:, None]) ** 2).sum() / n)
        gcv = n * sse / (n - gamma) ** 2
        return sse / (n * D.shape[1]), gcv, loo

    mse, gcv, loo = [list(v) for v in zip(figures())]
    lams = [lam]
    while len(chosen) < count:
        if stop == "goal" and mse[-1] <= goal:
            break
        best, best_err, best_w = None, -1.0, None
        for k in range(mc):
            if k in chosen:
                continue
            p = P[:, k]
            w = p.copy()
            for wi, hi in zip(W, h):           # classical Gram-Schmidt on the original column
                w -= (wi @ p) / hi * wi
            hk = w @ w
            if not (hk > dependence * base_norm[k]) or not (base_norm[k] > 0):
                continue
            err = float(((w @ D) ** 2).sum() / ((hk + lam) * total))
            if err > best_err:
                best, best_err, best_w = k, err, w
        if best is None:
            break
        hk = float(best_w @ best_w)
        W.append(best_w)
        h.append(hk)
        chosen.append(best)
        errs.append(best_err)
        previous = lam
        if reestimate:
            lam = reestimated(np.column_stack(W), D, lam)
        m, gc, lo = figures()
        if stop in ("gcv", "loo") and len(chosen) > 1:  # the first centre always stays
            crit = gcv if stop == "gcv" else loo
            if not ((gc if stop == "gcv" else lo) < crit[-1]):
                chosen.pop()
                errs.pop()
                lam = previous
                break
        mse.append(m)
        gcv.append(gc)
        loo.append(lo)
        lams.append(lam)
    record = {"selected": chosen, "error_reduction": errs, "bias_error_reduction": bias_err,
              "mse": mse, "gcv": gcv, "loo": loo}
    if reestimate:
        record["lambda_path"] = lams
    return record


def explicit_loo(P, D, chosen):
    """Mean over rows of the squared leave-one-out residuals (summed over outputs), by refits."""
    n = P.shape[0]
    X = np.column_stack([np.ones(n)] + [P[:, k] for k in chosen])
    total = 0.0
    for i in range(n):
        keep = np.arange(n) != i
        coef = np.linalg.lstsq(X[keep], D[keep], rcond=None)[0]
        total += float(((D[i] - X[i] @ coef) ** 2).sum())
    return total / n


def load(name):
    data = np.loadtxt(os.path.join(DATA, name), delimiter=",", skiprows=1)
    return data[:, :-1], data[:, -1]


def main():
    cases = []
    x, y = load("sine.train.csv")
    D = y[:, None]
    P = gaussian_design(x, x, 0.1)
    for label, kwargs in [("sine count", dict(count=10)),
                          ("sine rols", dict(count=10, lam=0.5)),
                          ("sine goal", dict(count=40, stop="goal", goal=0.02)),
                          ("sine gcv", dict(count=60, stop="gcv")),
                          ("sine loo", dict(count=60, stop="loo")),
                          ("sine rols gcv", dict(count=60, stop="gcv", lam=0.1)),
                          ("sine reestimate", dict(count=12, lam="reestimate")),
                          ("sine reestimate gcv", dict(count=60, stop="gcv", lam="reestimate"))]:
        r = ols(P, D, **kwargs)
        if kwargs.get("lam", 0.0) == 0.0:
            check = explicit_loo(P, D, r["selected"])
            assert abs(check - r["loo"][-1]) <= 1e-8 * check, (label, check, r["loo"][-1])
        cases.append(dict(name=label, data="sine.train.csv", width=0.1, **kwargs, **r))
    x, cls = load("iris.csv")
    D = np.eye(3)[cls.astype(int)]            # 1-of-K targets
    P = gaussian_design(x, x, 1.0)
    for label, kwargs in [("iris count", dict(count=8)), ("iris rols", dict(count=8, lam=1.0)),
                          ("iris reestimate", dict(count=8, lam="reestimate"))]:
        r = ols(P, D, **kwargs)
        if kwargs.get("lam", 0.0) == 0.0:
            check = explicit_loo(P, D, r["selected"])
            assert abs(check - r["loo"][-1]) <= 1e-8 * check, (label, check, r["loo"][-1])
        cases.append(dict(name=label, data="iris.csv", width=1.0, **kwargs, **r))
    print(json.dumps({"cases": cases}, indent=1))


if __name__ == "__main__":
    main()
