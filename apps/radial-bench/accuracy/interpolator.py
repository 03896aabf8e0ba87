#!/usr/bin/python3
"""The polynomial term (basis.polynomial with its side conditions) against SciPy's
RBFInterpolator on the accuracy benchmark's regression sets: the same thin-plate spline with
its degree-1 polynomial and smoothing, fitted on the same folds, must give the same
predictions; the table gives both errors, the largest difference of their predictions and
their fit seconds.

    PYTHONPATH=build/python OPENBLAS_NUM_THREADS=1 /usr/bin/python3 \\
        apps/radial-bench/accuracy/interpolator.py [--markdown OUT.md]

Data and folds as accuracy.py's regression part (load_diabetes, make_friedman1/2/3 with
n = 1000, targets z-scored, KFold(5, shuffle=True, random_state=0)); the inputs are
standardised on each training fold for both (Radial with standardize = False, so both see the
same points). Radial: RBFRegressor(basis="thin-plate", basis_params={"polynomial": 1},
centres="subset", centres_params={"all": True}, output="least-squares", weight_penalty="rkhs",
weight_penalty_params={"alpha": s}); SciPy: RBFInterpolator(kernel="thin_plate_spline",
degree=1, smoothing=s).
"""

import argparse
import os
import sys
import time

import numpy as np
from scipy.interpolate import RBFInterpolator
from sklearn.model_selection import KFold
from sklearn.preprocessing import StandardScaler

sys.path.insert(0, os.path.dirname(__file__))
from accuracy import regression_sets  # noqa: E402
from radial.sklearn import RBFRegressor  # noqa: E402

SMOOTHING = [0.0, 1.0, 10.0]


def radial_model(s):
    return RBFRegressor(basis="thin-plate", basis_params={"polynomial": 1}, centres="subset",
                        centres_params={"all": True}, output="least-squares",
                        weight_penalty="rkhs" if s > 0 else None,
                        weight_penalty_params={"alpha": s} if s > 0 else None,
                        standardize=False, random_state=0, threads=1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--markdown", help="also write the table to this file")
    args = parser.parse_args()
    rows = ["| data set | d | N | smoothing | SciPy MSE | Radial MSE | max abs difference of "
            "predictions | SciPy fit s | Radial fit s |", "|---|---|---|---|---|---|---|---|---|"]
    for name, (X, y) in regression_sets(quick=False).items():
        for s in SMOOTHING:
            err = {"scipy": [], "radial": []}
            secs = {"scipy": [], "radial": []}
            diff = 0.0
            for train, test in KFold(5, shuffle=True, random_state=0).split(X):
                scaler = StandardScaler().fit(X[train])
                xt, xs = scaler.transform(X[train]), scaler.transform(X[test])
                start = time.perf_counter()
                f = RBFInterpolator(xt, y[train], kernel="thin_plate_spline", degree=1,
                                    smoothing=s)
                secs["scipy"].append(time.perf_counter() - start)
                p_scipy = f(xs)
                start = time.perf_counter()
                est = radial_model(s).fit(xt, y[train])
                secs["radial"].append(time.perf_counter() - start)
                p_radial = est.predict(xs)
                err["scipy"].append(np.mean((p_scipy - y[test]) ** 2))
                err["radial"].append(np.mean((p_radial - y[test]) ** 2))
                diff = max(diff, float(np.max(np.abs(p_scipy - p_radial))))
            row = (f"| {name} | {X.shape[1]} | {X.shape[0]} | {s:g} | "
                   f"{np.mean(err['scipy']):.4f} | {np.mean(err['radial']):.4f} | {diff:.1e} | "
                   f"{np.mean(secs['scipy']):.3f} | {np.mean(secs['radial']):.3f} |")
            print(row, flush=True)
            rows.append(row)
    if args.markdown:
        with open(args.markdown, "w") as out:
            out.write("\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
