#!/usr/bin/python3
"""Reference weights for plugins/output-*/tests/test_*_references.cpp: scikit-learn's
LogisticRegression with a matched L2 penalty on standardised features.

scikit-learn minimises  1/2 ||w||^2 + C * sum_n CE_n  (intercept not penalised), which is
Radial's  sum_n CE_n + alpha/2 ||w||^2  with alpha = 1/C and the bias excluded (weight-decay's
default). Features are standardised with the population standard deviation (ddof = 0), as the
test does. Two classes use the logistic link (one output); three classes the multinomial
(softmax) model, whose weights are defined only up to a common shift per basis function: the
test compares outputs and the penalised error, and the weights after removing the class mean.

The newton-cg solver is used because it converges to a gradient below 1e-7 here (lbfgs stops
with gradients near 3e-4, which leaves 1e-4 differences in the weights along flat directions of
these correlated features); the largest gradient entry at the reference weights is recorded.

Run:  /usr/bin/python3 tests/reference/sklearn_logistic.py > tests/reference/sklearn_logistic.json
"""
import json
import os
import sys
import warnings

import numpy as np
import sklearn
from sklearn.linear_model import LogisticRegression

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "docs", "examples", "data")
C = 1.0


def load(name):
    raw = np.loadtxt(os.path.join(DATA, name), delimiter=",", skiprows=1)
    x, y = raw[:, :-1], raw[:, -1].astype(int)
    x = (x - x.mean(axis=0)) / x.std(axis=0)
    return x, y


def cross_entropy(model, x, y):
    p = model.predict_proba(x)
    return float(-np.sum(np.log(p[np.arange(len(y)), y])))


out = {"sklearn": sklearn.__version__, "C": C, "alpha": 1.0 / C, "cases": {}}
for name in ["breast_cancer.csv", "wine.csv"]:
    x, y = load(name)
    model = LogisticRegression(C=C, tol=1e-12, max_iter=1000, solver="newton-cg")
    with warnings.catch_warnings():
        # newton-cg reports a failed line search once the gradient is at rounding level.
        warnings.simplefilter("ignore")
        model.fit(x, y)
    coef = model.coef_  # (1 or K) x d
    p = model.predict_proba(x)
    t = np.eye(p.shape[1])[y]
    if p.shape[1] == 2:
        gradient = np.r_[x.T @ (p[:, 1] - y) + coef[0] / C, np.sum(p[:, 1] - y)]
    else:
        gradient = np.r_[(x.T @ (p - t) + coef.T / C).ravel(), np.sum(p - t, axis=0)]
    penalty = 0.5 / C * float(np.sum(coef ** 2))
    out["cases"][name] = {
        "classes": int(len(model.classes_)),
        "coef": coef.tolist(),
        "intercept": model.intercept_.tolist(),
        "cross_entropy": cross_entropy(model, x, y),
        "objective": cross_entropy(model, x, y) + penalty,
        "probabilities_first_rows": model.predict_proba(x[:5]).tolist(),
        "solver": "newton-cg",
        "max_abs_gradient": float(np.max(np.abs(gradient))),
    }
json.dump(out, sys.stdout, indent=1)
sys.stdout.write("\n")
