#!/usr/bin/python3
"""Reference EM runs for test_mixture_em.cpp: scikit-learn's GaussianMixture from fixed initial
parameters, on standardised iris (docs/examples/data/iris.csv, features only).

Run from anywhere with /usr/bin/python3 (scikit-learn 1.2.1, NumPy 1.24); writes
reference_gmm.json beside this script. Initial parameters (the test builds the same):
  means    rows 0, 50, 100 of the standardised data (components 0..2)
  weights  1/3 each
  shapes   spherical: variance 1; diagonal: variances 1; full: identity
reg_covar = 0 (Radial's floor does not fire on these data), tol = 0 so exactly ITERATIONS
EM iterations run.
"""
import json
import os
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.mixture import GaussianMixture

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
ITERATIONS = 15
ROWS = [0, 50, 100]

data = np.loadtxt(os.path.join(ROOT, "docs/examples/data/iris.csv"), delimiter=",", skiprows=1)
x = data[:, :-1]
x = (x - x.mean(axis=0)) / x.std(axis=0)  # population standard deviation
m, d = len(ROWS), x.shape[1]
means0 = x[ROWS]
weights0 = np.full(m, 1.0 / m)

out = {"iterations": ITERATIONS, "rows": ROWS, "sklearn": __import__("sklearn").__version__}
for kind in ("spherical", "diag", "full"):
    if kind == "spherical":
        precisions0 = np.ones(m)
    elif kind == "diag":
        precisions0 = np.ones((m, d))
    else:
        precisions0 = np.array([np.eye(d)] * m)
    gm = GaussianMixture(n_components=m, covariance_type=kind, tol=0.0, reg_covar=0.0,
                         max_iter=ITERATIONS, n_init=1, weights_init=weights0,
                         means_init=means0, precisions_init=precisions0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        gm.fit(x)
    out[kind] = {
        "weights": gm.weights_.tolist(),
        "means": gm.means_.tolist(),
        "covariances": np.asarray(gm.covariances_).tolist(),
        "log_likelihood": float(gm.score(x) * x.shape[0]),
        "n_iter": int(gm.n_iter_),
    }

with open(os.path.join(HERE, "reference_gmm.json"), "w") as f:
    json.dump(out, f, indent=1)
print("wrote", os.path.join(HERE, "reference_gmm.json"))
