#!/usr/bin/python3
"""The scikit-learn side of radial-bench: one task per call, data and initial values from the
.npy files radial-bench wrote, timings (seconds, one per repeat) and results as JSON on stdout.

Threads are set by the caller through OMP_NUM_THREADS / OPENBLAS_NUM_THREADS and confirmed here
with threadpoolctl, so both sides run with the same thread count."""
import argparse
import json
import sys
import time
import warnings

import numpy as np
from threadpoolctl import threadpool_limits


def kmeans(a):
    from sklearn.cluster import KMeans
    x = np.load(a.x, mmap_mode=None)
    init = np.load(a.init)
    times, n_iter, inertia = [], 0, 0.0
    for _ in range(a.repeats):
        km = KMeans(n_clusters=init.shape[0], init=init, n_init=1, max_iter=a.iterations,
                    tol=0.0, algorithm="lloyd")
        t = time.perf_counter()
        km.fit(x)
        times.append(time.perf_counter() - t)
        n_iter, inertia = int(km.n_iter_), float(km.inertia_)
    return {"times": times, "iterations": n_iter, "inertia": inertia}


def gmm(a):
    from sklearn.mixture import GaussianMixture
    x = np.load(a.x)
    means = np.load(a.means)
    weights = np.load(a.weights)
    cov = np.load(a.covariances)  # M x d variances (diag) or M x d x d covariances (full)
    if a.covariance == "diag":
        precisions = 1.0 / cov
    else:
        precisions = np.array([np.linalg.inv(c) for c in cov])
    times, n_iter, lower_bound = [], 0, 0.0
    for _ in range(a.repeats):
        g = GaussianMixture(n_components=means.shape[0], covariance_type=a.covariance,
                            max_iter=a.iterations, tol=0.0, reg_covar=1e-6,
                            weights_init=weights, means_init=means, precisions_init=precisions,
                            init_params="random_from_data", random_state=0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # ConvergenceWarning: max_iter reached on purpose
            t = time.perf_counter()
            g.fit(x)
            times.append(time.perf_counter() - t)
        n_iter, lower_bound = int(g.n_iter_), float(g.lower_bound_)
    return {"times": times, "iterations": n_iter, "mean_log_likelihood": lower_bound}


def penalised_loss(p, y, coef, intercept, C):
    """sum_n CE + 1/(2C) ||coef||^2: LogisticRegression's objective divided by C, the
    weight-decay error with alpha = 1/C and the bias unpenalised."""
    a = p @ coef.T + intercept
    if coef.shape[0] == 1:  # binary: logistic on class 1
        t = (y == 1).astype(float)
        a = a[:, 0]
        ce = np.sum(np.logaddexp(0.0, a) - t * a)
    else:
        amax = a.max(axis=1, keepdims=True)
        lse = (amax[:, 0] + np.log(np.exp(a - amax).sum(axis=1)))
        ce = np.sum(lse - a[np.arange(len(y)), y])
    return float(ce + 0.5 / C * np.sum(coef * coef))


def logistic(a):
    from sklearn.linear_model import LogisticRegression
    p = np.load(a.phi)
    y = np.load(a.y).astype(np.int64)
    times, loss, n_iter = [], 0.0, 0
    for _ in range(a.repeats):
        lr = LogisticRegression(C=a.C, solver=a.solver, tol=a.tol, max_iter=2000)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t = time.perf_counter()
            lr.fit(p, y)
            times.append(time.perf_counter() - t)
        loss = penalised_loss(p, y, lr.coef_, lr.intercept_, a.C)
        n_iter = int(np.max(lr.n_iter_))
    return {"times": times, "loss": loss, "iterations": n_iter}


def pipeline(a):
    """StandardScaler -> KMeans (M centres) -> Gaussian features exp(-r^2 / (2 width^2)) (Radial's
    gaussian basis with the same width) -> LogisticRegression (lbfgs). Wall time of the whole
    fit, and the test error."""
    from sklearn.cluster import KMeans
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics.pairwise import euclidean_distances
    from sklearn.preprocessing import StandardScaler
    train = np.load(a.train)
    test = np.load(a.test)
    t = time.perf_counter()
    x, y = train[:, :-1], train[:, -1].astype(np.int64)
    scaler = StandardScaler().fit(x)
    xs = scaler.transform(x)
    km = KMeans(n_clusters=a.centres, init="k-means++", n_init=1, max_iter=100, tol=1e-4,
                algorithm="lloyd", random_state=1).fit(xs)
    c = km.cluster_centers_
    variance = a.width ** 2

    def features(z):
        return np.exp(-euclidean_distances(z, c, squared=True) / (2.0 * variance))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lr = LogisticRegression(C=a.C, solver="lbfgs", max_iter=1000).fit(features(xs), y)
    seconds = time.perf_counter() - t
    xt, yt = test[:, :-1], test[:, -1].astype(np.int64)
    error = float(np.mean(lr.predict(features(scaler.transform(xt))) != yt))
    return {"times": [seconds], "test_error": error}


def refine(a):
    """Seconds per value-and-gradient evaluation of the NumPy reference of the whole-network
    objective (refine/reference.py) at the network radial-bench wrote, and its value there."""
    from refine.reference import Reference
    x, t = np.load(a.x), np.load(a.y)
    means, w = np.load(a.means), np.load(a.weights)
    ref = Reference(x, t, means, np.load(a.covariances), w, a.alpha)
    times, cpu, value = [], [], 0.0
    for _ in range(a.repeats):
        t0, c0 = time.perf_counter(), time.process_time()
        for _ in range(a.iterations):
            value, _ = ref(ref.theta0)
        cpu.append((time.process_time() - c0) / a.iterations)
        times.append((time.perf_counter() - t0) / a.iterations)
    return {"times": times, "cpu_times": cpu, "value": float(value)}


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("task", choices=["kmeans", "gmm", "logistic", "pipeline", "refine"])
    ap.add_argument("--x")
    ap.add_argument("--init")
    ap.add_argument("--means")
    ap.add_argument("--weights")
    ap.add_argument("--covariances")
    ap.add_argument("--covariance", choices=["diag", "full"], default="diag")
    ap.add_argument("--phi")
    ap.add_argument("--y")
    ap.add_argument("--C", type=float, default=1.0)
    ap.add_argument("--alpha", type=float, default=0.0)
    ap.add_argument("--solver", default="lbfgs")
    ap.add_argument("--tol", type=float, default=1e-8)
    ap.add_argument("--train")
    ap.add_argument("--test")
    ap.add_argument("--centres", type=int, default=64)
    ap.add_argument("--width", type=float, default=1.0)
    ap.add_argument("--iterations", type=int, default=10)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1)
    a = ap.parse_args()
    with threadpool_limits(limits=a.threads):
        result = {"kmeans": kmeans, "gmm": gmm, "logistic": logistic, "pipeline": pipeline,
                  "refine": refine}[a.task](a)
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main()
