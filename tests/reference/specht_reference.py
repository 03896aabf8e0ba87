#!/usr/bin/python3
"""GRNN (Specht 1991, eq 3) and PNN (Specht 1990) outputs by their direct formulas in NumPy,
independent of Radial: one Gaussian per training row, the spread sigma.

    GRNN  y(x) = sum_n y_n exp(-D_n^2 / 2 sigma^2) / sum_n exp(-D_n^2 / 2 sigma^2)
    PNN   p(k|x) = h_k f_k(x) / sum_k' h_k' f_k'(x),  f_k = (1/n_k) sum_{n in k} exp(-D_n^2 / 2 sigma^2)

Also the nearest-neighbour limit: scikit-learn's 1-nearest-neighbour predictions (the limit
sigma -> 0 of both). Raw inputs (no standardising): sine.train/test.csv (GRNN), iris.csv (PNN:
every fifth row held out as the test rows).

    /usr/bin/python3 tests/reference/specht_reference.py > tests/reference/specht/specht_reference.json
"""

import json
import os

import numpy as np
from sklearn.neighbors import KNeighborsClassifier, KNeighborsRegressor

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "docs", "examples", "data")


def load(name):
    data = np.loadtxt(os.path.join(DATA, name), delimiter=",", skiprows=1)
    return data[:, :-1], data[:, -1]


def kernels(x, train, sigma):
    d2 = ((x[:, None, :] - train[None, :, :]) ** 2).sum(axis=2)
    return np.exp(-d2 / (2.0 * sigma ** 2))


def grnn(x, train, y, sigma):
    k = kernels(x, train, sigma)
    return (k @ y) / k.sum(axis=1)


def pnn(x, train, cls, sigma, priors):
    k = kernels(x, train, sigma)
    classes = np.unique(cls)
    f = np.column_stack([k[:, cls == c].mean(axis=1) for c in classes])
    n = np.array([(cls == c).sum() for c in classes], dtype=float)
    h = n / n.sum() if priors == "data" else np.full(len(classes), 1.0 / len(classes))
    p = f * h
    return p / p.sum(axis=1, keepdims=True)


def main():
    out = {}
    xtr, ytr = load("sine.train.csv")
    xte, _ = load("sine.test.csv")
    out["grnn"] = [{"sigma": s, "predictions": grnn(xte, xtr, ytr, s).tolist()}
                   for s in (0.02, 0.05, 0.2)]
    out["grnn_nearest"] = KNeighborsRegressor(n_neighbors=1).fit(xtr, ytr).predict(xte).tolist()
    # D_2^2 - D_1^2 of each test row (its two nearest training rows): at spread sigma the
    # second neighbour's kernel is exp(-(D_2^2 - D_1^2) / 2 sigma^2) of the first's.
    d2 = np.sort(((xte[:, None, :] - xtr[None, :, :]) ** 2).sum(axis=2), axis=1)
    out["grnn_nearest_margin"] = (d2[:, 1] - d2[:, 0]).tolist()
    x, cls = load("iris.csv")
    test = np.arange(len(cls)) % 5 == 0
    out["iris_test_rows"] = np.flatnonzero(test).tolist()
    out["pnn"] = [{"sigma": s, "priors": pr,
                   "posterior": pnn(x[test], x[~test], cls[~test], s, pr).tolist()}
                  for s in (0.3, 1.0) for pr in ("data", "equal")]
    out["pnn_nearest"] = KNeighborsClassifier(n_neighbors=1).fit(
        x[~test], cls[~test]).predict(x[test]).astype(int).tolist()
    # Test rows whose two nearest training rows are equally near and of different classes: the
    # limit there is a tie (both kernels count), not the one neighbour scikit-learn picks.
    d2 = ((x[test][:, None, :] - x[~test][None, :, :]) ** 2).sum(axis=2)
    ties = []
    for i, row in enumerate(d2):
        near = np.flatnonzero(row <= row.min() * (1 + 1e-12) + 1e-300)
        if len(set(cls[~test][near])) > 1:
            ties.append(i)
    out["pnn_nearest_ties"] = ties
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
