#!/usr/bin/python3
"""Reference numbers for plugins/centres-prbf/tests/test_prbf.cpp, computed independently of Radial.

  plain-*     PRBF EM (Constantinopoulos, Titsias & Likas 2001, eqs 4, 6-8, 20) in NumPy, with
              log-densities evaluated directly (no GEMM identity) and covariances about the new
              means computed from the data (no scatter identity).
  map-*       MAP EM of eqs 27-30 with the Bhattacharyya prior (Sigma_jk = Sigma_j, so
              beta_jk = delta_jk / 8), in this order at iteration t+1: E-step at theta_t; mu_jk by
              eq 11; P(C_k|j) by eq 15 from pi_t; means by eq 27; covariances by eq 28; delta by
              eq 30 from the new means and covariances and mu_jk; pi by eq 29, negative values
              set to 0 and each class renormalised (section 3.1). L(theta_t) by eq 22.
  separate-*  the separate-mixtures special case: kernels owned by one class each (pi_jk = 0
              for the other classes) reduce PRBF EM to one Gaussian mixture per class, here
              scikit-learn's GaussianMixture on each class's rows from the same start.

Data: docs/examples/data/iris.csv.
Run:  /usr/bin/python3 tests/reference/reference_prbf.py > tests/reference/reference_prbf.json
"""
import json
import os
import sys
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.mixture import GaussianMixture

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "docs", "examples", "data", "iris.csv")

raw = np.loadtxt(DATA, delimiter=",", skiprows=1)
X, y = raw[:, :-1], raw[:, -1].astype(int)
N, D = X.shape
K = int(y.max()) + 1
priors = np.bincount(y, minlength=K) / N  # eq 20


def full_cov(cov, shape):
    return np.array([np.diag(c) for c in cov]) if shape == "diagonal" else cov


def log_densities(means, covs):
    """N x M log N(x | mu_j, Sigma_j), directly from the Cholesky factor."""
    out = np.empty((N, len(means)))
    for j, (m, s) in enumerate(zip(means, covs)):
        L = np.linalg.cholesky(s)
        z = np.linalg.solve(L, (X - m).T)
        out[:, j] = -0.5 * (np.sum(z * z, axis=0) + D * np.log(2 * np.pi)) - np.sum(np.log(np.diag(L)))
    return out


def prbf_em(means, covs, pi, shape, alpha, iterations):
    means, covs, pi = means.copy(), full_cov(covs, shape), pi.copy()
    M = len(means)
    trace, clamps = [], 0
    for t in range(iterations + 1):
        logp = log_densities(means, covs)
        with np.errstate(divide="ignore"):
            a = logp + np.log(pi[:, y]).T                # eq 4, N x M
        top = a.max(axis=1, keepdims=True)
        lse = top[:, 0] + np.log(np.exp(a - top).sum(axis=1))
        resp = np.exp(a - lse[:, None])
        onehot = np.eye(K)[y]                            # N x K
        R = resp.T @ onehot                              # M x K
        S = np.einsum("nj,nk,nd->jkd", resp, onehot, X)  # M x K x D
        with np.errstate(invalid="ignore", divide="ignore"):
            mu_jk = np.where(R[:, :, None] > 0, S / R[:, :, None], means[:, None, :])  # eq 11
        pck = pi * priors
        pck = pck / pck.sum(axis=1, keepdims=True)       # eq 15

        def delta(mu, cov):                              # eq 30
            out = np.zeros((M, K))
            for j in range(M):
                inv = np.linalg.inv(cov[j])
                for k in range(K):
                    e = mu[j] - mu_jk[j, k]
                    out[j, k] = e @ inv @ e
            return out

        log_prior = -alpha * np.sum(pck * delta(means, covs) / 8.0)  # eqs 16, 17, 23
        trace.append(float(lse.sum() + log_prior))       # eq 22
        if t == iterations:
            break
        Rj = R.sum(axis=1)
        w = alpha / 4.0
        means = (S.sum(axis=1) + w * np.einsum("jk,jkd->jd", pck, mu_jk)) / (Rj + w)[:, None]  # eq 27
        new_covs = np.empty_like(covs)
        for j in range(M):
            e = X - means[j]
            new_covs[j] = (resp[:, j, None] * e).T @ e / Rj[j]   # eq 28
        if shape == "diagonal":
            new_covs = np.array([np.diag(np.diag(c)) for c in new_covs])
        covs = new_covs
        dl = delta(means, covs)
        terms = alpha / 8.0 * pck * ((pck * dl).sum(axis=1, keepdims=True) - dl)  # eq 29
        num = R + terms
        clamps += int((num < 0).sum())
        num = np.maximum(num, 0.0)
        pi = num / num.sum(axis=0, keepdims=True)
    cov_out = np.array([np.diag(c) for c in covs]) if shape == "diagonal" else covs
    return means, cov_out, pi, trace, clamps


def initial_state(shape, M):
    rows = np.linspace(10, N - 20, M).astype(int)
    means = X[rows].copy()
    if shape == "diagonal":
        covs = np.tile(X.var(axis=0), (M, 1))
    else:
        covs = np.tile(np.cov(X.T, bias=True), (M, 1, 1))
    return means, covs, np.full((M, K), 1.0 / M)


def tolist(a):
    return np.asarray(a).tolist()


cases = []
ITER = 25
# Full covariances on iris start to collapse onto a few rows after ~20 iterations (the
# likelihood is unbounded), so those cases stop at 10 iterations.
for name, shape, alpha_units, iterations in [
    ("plain-diagonal", "diagonal", 0.0, ITER),
    ("plain-full", "full", 0.0, 10),
    ("map-diagonal", "diagonal", 2.0, ITER),
    ("map-full", "full", 2.0, 10),
    ("map-diagonal-strong", "diagonal", 20.0, ITER),
]:
    M = 5
    alpha = alpha_units * N / (K * M)
    m0, c0, p0 = initial_state(shape, M)
    m, c, p, trace, clamps = prbf_em(m0, c0, p0, shape, alpha, iterations)
    cases.append(dict(name=name, shape=shape, alpha=alpha, iterations=iterations,
                      init=dict(means=tolist(m0), cov=tolist(c0), mixing=tolist(p0)),
                      expected=dict(means=tolist(m), cov=tolist(c), mixing=tolist(p),
                                    class_priors=tolist(priors), log_posterior=trace,
                                    clamps=clamps)))

# Separate mixtures: two kernels per class, pi_jk = 1/2 for the owner class and 0 elsewhere.
for shape in ["diagonal", "full"]:
    per = 2
    means0, covs0, means1, covs1 = [], [], [], []
    for k in range(K):
        Xk = X[y == k]
        rows = [5, len(Xk) - 10]
        m0 = Xk[rows].copy()
        c0 = np.tile(Xk.var(axis=0), (per, 1)) if shape == "diagonal" else np.tile(np.cov(Xk.T, bias=True), (per, 1, 1))
        prec = 1.0 / c0 if shape == "diagonal" else np.array([np.linalg.inv(s) for s in c0])
        gm = GaussianMixture(n_components=per, covariance_type="diag" if shape == "diagonal" else "full", weights_init=[0.5, 0.5],
                             means_init=m0, precisions_init=prec, reg_covar=0.0, tol=0.0,
                             max_iter=ITER, init_params="random", random_state=0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            gm.fit(Xk)
        means0.append(m0); covs0.append(c0)
        means1.append((gm.means_, gm.covariances_, gm.weights_))
    M = per * K
    mixing0 = np.zeros((M, K))
    mixing1 = np.zeros((M, K))
    for k in range(K):
        mixing0[per * k:per * (k + 1), k] = 0.5
        mixing1[per * k:per * (k + 1), k] = means1[k][2]
    cases.append(dict(name="separate-" + shape, shape=shape, alpha=0.0, iterations=ITER,
                      init=dict(means=tolist(np.vstack(means0)), cov=tolist(np.concatenate(covs0)),
                                mixing=tolist(mixing0)),
                      expected=dict(means=tolist(np.vstack([m[0] for m in means1])),
                                    cov=tolist(np.concatenate([m[1] for m in means1])),
                                    mixing=tolist(mixing1), class_priors=tolist(priors),
                                    log_posterior=[], clamps=0)))

json.dump(dict(source="tests/reference/reference_prbf.py on docs/examples/data/iris.csv",
               x=tolist(X), y=tolist(y), classes=K, cases=cases), sys.stdout, indent=1)
sys.stdout.write("\n")
