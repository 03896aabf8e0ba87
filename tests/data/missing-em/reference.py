#!/usr/bin/python3
"""NumPy reference for the missing-data mixture EM (tests/missing/test_missing_em.cpp).

    /usr/bin/python3 tests/data/missing-em/reference.py [--data /work/shared/data]

Removes 20% of the input cells of iris and (z-scored) wine at random, then runs EM for Gaussian
mixtures over the observed coordinates of each row (Ghahramani & Jordan 1994, "Supervised
learning from incomplete data via an EM approach", NIPS 6, section 3), written independently of
Radial with one dense covariance per component:

  E-step  log p(x_o | j) = log N(x_o | mu_jo, S_joo) (the marginal of the observed coordinates o),
          r_nj = w_j p(x_o | j) / sum_i w_i p(x_o | i), L = sum_n log sum_j w_j p(x_no | j);
          E[x_m | x_o, j] = mu_jm + S_jmo S_joo^-1 (x_o - mu_jo),
          Cov[x_m | x_o, j] = S_jmm - S_jmo S_joo^-1 S_jom.
  M-step  w_j = sum_n r_nj / N, mu_j = sum_n r_nj xhat_nj / sum_n r_nj,
          S_j = sum_n r_nj [(xhat_nj - mu_j)(xhat_nj - mu_j)^T + C_nj] / sum_n r_nj,
          with xhat_nj x_n completed by E[x_m | x_o, j] and C_nj the conditional covariance in
          the missing block; diagonal keeps diag(S_j), spherical mean(diag(S_j)) I.

Writes <set>.json beside this script: the inputs (null = missing) and classes, and per shape the initial
parameters, the log-likelihood of the observed values before each M-step and after the last
(iterations + 1 values) and the final parameters.
"""

import argparse
import json
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ITERATIONS = 40
COMPONENTS = 3


def marginal(x, mu, s):
    """log N(x_o | mu_o, S_oo), conditional mean of the missing coordinates, their covariance."""
    o = ~np.isnan(x)
    m = ~o
    d = x.size
    xhat = x.copy()
    cond = np.zeros((d, d))
    if o.sum() == 0:
        xhat[m] = mu[m]
        cond[np.ix_(m, m)] = s[np.ix_(m, m)]
        return 0.0, xhat, cond
    soo = s[np.ix_(o, o)]
    e = x[o] - mu[o]
    sign, logdet = np.linalg.slogdet(soo)
    assert sign > 0
    sol = np.linalg.solve(soo, e)
    logp = -0.5 * (o.sum() * np.log(2 * np.pi) + logdet + e @ sol)
    if m.any():
        smo = s[np.ix_(m, o)]
        xhat[m] = mu[m] + smo @ sol
        cond[np.ix_(m, m)] = s[np.ix_(m, m)] - smo @ np.linalg.solve(soo, smo.T)
    return logp, xhat, cond


def em(x, w, mu, cov, shape, iterations):
    n, d = x.shape
    k = len(w)
    w, mu, cov = w.copy(), mu.copy(), cov.copy()
    trace = []
    for it in range(iterations + 1):
        logp = np.zeros((n, k))
        xhat = np.zeros((n, k, d))
        cond = np.zeros((n, k, d, d))  # small sets only
        for i in range(n):
            for j in range(k):
                logp[i, j], xhat[i, j], cond[i, j] = marginal(x[i], mu[j], cov[j])
        a = logp + np.log(w)
        top = a.max(axis=1, keepdims=True)
        ll_rows = top[:, 0] + np.log(np.exp(a - top).sum(axis=1))
        trace.append(float(ll_rows.sum()))
        if it == iterations:
            break
        r = np.exp(a - ll_rows[:, None])
        nk = r.sum(axis=0)
        w = nk / n
        for j in range(k):
            mu[j] = (r[:, j, None] * xhat[:, j]).sum(axis=0) / nk[j]
            e = xhat[:, j] - mu[j]
            s = (r[:, j, None, None] * (e[:, :, None] * e[:, None, :] + cond[:, j])).sum(axis=0)
            s /= nk[j]
            if shape == "diagonal":
                s = np.diag(np.diag(s))
            elif shape == "spherical":
                s = np.eye(d) * np.diag(s).mean()
            assert np.diag(s).min() > 1e-6, "the covariance floor would fire"
            cov[j] = s
    return trace, w, mu, cov


def shape_params(cov, shape):
    if shape == "spherical":
        return [float(c[0, 0]) for c in cov]
    if shape == "diagonal":
        return [list(map(float, np.diag(c))) for c in cov]
    return [[list(map(float, row)) for row in c] for c in cov]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default="/work/shared/data")
    args = parser.parse_args()
    cases = {"iris": ["spherical", "diagonal", "full"], "wine": ["diagonal", "full"]}
    for seed, (name, shapes) in enumerate(cases.items()):
        raw = np.loadtxt(os.path.join(args.data, name + ".csv"), delimiter=",", skiprows=1)
        x = raw[:, :-1]
        rng = np.random.default_rng(28 + seed)
        x = np.where(rng.random(x.shape) < 0.2, np.nan, x)
        if name == "wine":  # z-scored over the observed values, so one scale for every input
            x = (x - np.nanmean(x, axis=0)) / np.nanstd(x, axis=0)
        complete = np.flatnonzero(~np.isnan(x).any(axis=1))
        start = rng.choice(complete, COMPONENTS, replace=False)
        out = {"inputs": [[None if np.isnan(v) else float(v) for v in row] for row in x],
               "classes": [int(c) for c in raw[:, -1]],
               "missing_fraction": float(np.isnan(x).mean()), "iterations": ITERATIONS,
               "cases": {}}
        variance = np.nanvar(x, axis=0)
        for shape in shapes:
            w0 = np.full(COMPONENTS, 1.0 / COMPONENTS)
            mu0 = x[start].copy()
            base = np.eye(x.shape[1]) * (variance.mean() if shape == "spherical" else variance)
            cov0 = np.array([base.copy() for _ in range(COMPONENTS)])
            trace, w, mu, cov = em(x, w0, mu0, cov0, shape, ITERATIONS)
            out["cases"][shape] = {
                "initial": {"weights": list(map(float, w0)),
                            "means": [list(map(float, m)) for m in mu0],
                            "shape": shape_params(cov0, shape)},
                "log_likelihood": trace,
                "final": {"weights": list(map(float, w)),
                          "means": [list(map(float, m)) for m in mu],
                          "shape": shape_params(cov, shape)}}
            print(f"{name} {shape}: L {trace[0]:.6f} -> {trace[-1]:.10f}")
        with open(os.path.join(HERE, name + ".json"), "w") as f:
            json.dump(out, f, indent=None)
            f.write("\n")


if __name__ == "__main__":
    main()
