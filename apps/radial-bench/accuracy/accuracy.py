#!/usr/bin/python3
"""Accuracy benchmark: Radial's defaults and its own selection against scikit-learn's default
and tuned models, on the same folds, as a user would measure them.

    PYTHONPATH=build/python /usr/bin/python3 apps/radial-bench/accuracy/accuracy.py [--quick]
        [--data ../shared/data] [--markdown OUT.md]

Classification: the shared data sets, StratifiedKFold(5, shuffle=True, random_state=0), error
rate. Regression: load_diabetes and make_friedman1/2/3 (n = 1000, noise 1, 0, 0,
random_state = 0), KFold(5, shuffle=True, random_state=0), the targets z-scored once so that
every model (and SVR's epsilon) sees the same scale; mean squared error = 1 - R^2 per fold.
scikit-learn models see StandardScaler inputs (Radial standardises its own). The classic RBF
algorithms have columns of their own: OLS centres (Chen, Cowan & Grant 1991) against k-means at
the same M = 64 (each with the width scale and penalty chosen by the trainer), OLS stopped by
its leave-one-out error (Orr 1995; at most the automatic count), OLS stopped by GCV with the
regularisation parameter re-estimated after every step (Orr 1995's regularised forward
selection), and GRNN (Specht
1991) / PNN (Specht 1990) with the spread chosen by GridSearchCV(cv=3) over 0.1 ... 3 (standardised
inputs; one Gaussian per training row); the thin-plate spline with its degree-1 polynomial term
interpolating every training row (SciPy's RBFInterpolator, see interpolator.py), its smoothing
(the rkhs alpha) chosen by GridSearchCV(cv=3) over 0, 0.01, 0.1, ..., 1000 (regression only: at
M = N its fit costs about 12 N^3). `--sets a,b` runs only the named data sets, `--models a,b`
only the named columns (then without the ratio columns and the selection's cost). Prints one table
of errors and one of fit seconds (mean over folds), the ratio of Radial's default to the best
default peer per data set and its median, what the closed-form selection costs against a
plain fit with the chosen values given, and the median of the default fit's seconds over SVC's
(SVR's) across the sets (also with `--models` when both columns are run).
"""

import argparse
import os
import statistics
import sys
import time
import warnings

import numpy as np
from sklearn.datasets import load_diabetes, make_friedman1, make_friedman2, make_friedman3
from sklearn.linear_model import LogisticRegression, RidgeCV
from sklearn.model_selection import GridSearchCV, KFold, StratifiedKFold
from sklearn.neighbors import KNeighborsClassifier, KNeighborsRegressor
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC, SVR

import radial
from radial.sklearn import RBFClassifier, RBFRegressor

CLASSIFICATION = ["digits", "breast_cancer", "ionosphere", "waveform", "wine", "iris", "phoneme",
                  "pb_vowels"]
QUICK_CLASSIFICATION = ["wine", "iris", "ionosphere"]


def scaled(model):
    return make_pipeline(StandardScaler(), model)


def tuned_svm(kind):
    grid = {"svc__C" if kind == "c" else "svr__C": [0.1, 1, 10, 100, 1000],
            "svc__gamma" if kind == "c" else "svr__gamma": ["scale", 0.001, 0.01, 0.1, 1]}
    base = scaled(SVC()) if kind == "c" else scaled(SVR())
    return GridSearchCV(base, grid, cv=3)


# The classics' M and the spreads their grid search tries (standardised inputs); the
# smoothings the thin-plate interpolant's grid search tries.
CLASSIC_M = 64
SPREADS = [0.1, 0.2, 0.5, 1.0, 2.0, 3.0]
SMOOTHINGS = [0.0, 0.01, 0.1, 1.0, 10.0, 100.0, 1000.0]


def tuned_specht(kind):
    cls = RBFClassifier if kind == "c" else RBFRegressor
    base = cls(centres="subset", centres_params={"all": True},
               output="pnn" if kind == "c" else "grnn", random_state=0)
    return GridSearchCV(base, {"basis_params": [{"width": s} for s in SPREADS]}, cv=3)


def tuned_thin_plate():
    """Every training row a centre of the thin-plate spline with its degree-1 polynomial and
    side conditions, smoothing = the rkhs alpha (0: no penalty): SciPy's RBFInterpolator."""
    base = RBFRegressor(basis="thin-plate", basis_params={"polynomial": 1}, centres="subset",
                        centres_params={"all": True}, output="least-squares", random_state=0)
    grid = [{"weight_penalty": [None]}] + [
        {"weight_penalty": ["rkhs"], "weight_penalty_params": [{"alpha": s}]}
        for s in SMOOTHINGS if s > 0]
    return GridSearchCV(base, grid, cv=3)


def classifiers():
    return {
        "Radial default": lambda: RBFClassifier(random_state=0),
        "Radial select": lambda: RBFClassifier(centres_params={"count": "choose"}, random_state=0),
        "SVC": lambda: scaled(SVC()),
        "LogReg": lambda: scaled(LogisticRegression(max_iter=2000)),
        "KNN": lambda: scaled(KNeighborsClassifier()),
        "SVC tuned": lambda: tuned_svm("c"),
        f"k-means M={CLASSIC_M}": lambda: RBFClassifier(centres_params={"count": CLASSIC_M},
                                                        random_state=0),
        f"OLS M={CLASSIC_M}": lambda: RBFClassifier(centres="ols",
                                                    centres_params={"count": CLASSIC_M},
                                                    random_state=0),
        "OLS loo": lambda: RBFClassifier(centres="ols", centres_params={"stop": "loo"},
                                 random_state=0),
        "OLS gcv reest": lambda: RBFClassifier(centres="ols",
                                       centres_params={"stop": "gcv", "lambda": "reestimate"},
                                       random_state=0),
        "PNN tuned": lambda: tuned_specht("c"),
    }


def regressors():
    return {
        "Radial default": lambda: RBFRegressor(random_state=0),
        "Radial select": lambda: RBFRegressor(centres_params={"count": "choose"}, random_state=0),
        "SVR": lambda: scaled(SVR()),
        "RidgeCV": lambda: scaled(RidgeCV()),
        "KNN": lambda: scaled(KNeighborsRegressor()),
        "SVR tuned": lambda: tuned_svm("r"),
        f"k-means M={CLASSIC_M}": lambda: RBFRegressor(centres_params={"count": CLASSIC_M},
                                                       random_state=0),
        f"OLS M={CLASSIC_M}": lambda: RBFRegressor(centres="ols",
                                                   centres_params={"count": CLASSIC_M},
                                                   random_state=0),
        "OLS loo": lambda: RBFRegressor(centres="ols", centres_params={"stop": "loo"},
                                 random_state=0),
        "OLS gcv reest": lambda: RBFRegressor(centres="ols",
                                       centres_params={"stop": "gcv", "lambda": "reestimate"},
                                       random_state=0),
        "GRNN tuned": lambda: tuned_specht("r"),
        "TPS+poly tuned": tuned_thin_plate,
    }


DEFAULT_PEERS = {"classification": ["SVC", "LogReg", "KNN"],
                 "regression": ["SVR", "RidgeCV", "KNN"]}


def load_csv(path):
    data = np.loadtxt(path, delimiter=",", skiprows=1)
    return data[:, :-1], data[:, -1].astype(int)


def regression_sets(quick):
    sets = {}
    d = load_diabetes()
    sets["diabetes"] = (d.data, d.target)
    n = 300 if quick else 1000
    sets["friedman1"] = make_friedman1(n_samples=n, noise=1.0, random_state=0)
    if not quick:
        sets["friedman2"] = make_friedman2(n_samples=n, noise=0.0, random_state=0)
        sets["friedman3"] = make_friedman3(n_samples=n, noise=0.0, random_state=0)
    return {k: (x, (y - y.mean()) / y.std()) for k, (x, y) in sets.items()}


def run(task, name, X, y, models):
    folds = (StratifiedKFold(5, shuffle=True, random_state=0) if task == "classification"
             else KFold(5, shuffle=True, random_state=0))
    errors = {m: [] for m in models}
    seconds = {m: [] for m in models}
    chosen = []
    for train, test in folds.split(X, y):
        for m, make in models.items():
            est = make()
            start = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                est.fit(X[train], y[train])
            seconds[m].append(time.perf_counter() - start)
            pred = est.predict(X[test])
            if task == "classification":
                errors[m].append(float(np.mean(pred != y[test])))
            else:
                errors[m].append(float(np.mean((pred - y[test]) ** 2)))
            if m == "Radial default":
                chosen.append((est, train))
    return ({m: float(np.mean(v)) for m, v in errors.items()},
            {m: float(np.mean(v)) for m, v in seconds.items()}, chosen)


def selection_cost(task, X, y, fitted):
    """Seconds of the default fit (selection included) against a plain fit given the chosen
    width scale, penalty and centres, on the first fold."""
    est, train = fitted[0]
    selection = est.report_["selection"]
    chosen = selection["chosen"]
    cls = RBFClassifier if task == "classification" else RBFRegressor
    plain = cls(basis_params={"width_scale": chosen["basis.width_scale"]},
                centres_params={"count": est.report_["centres"]["count"]},
                weight_penalty="weight-decay",
                weight_penalty_params={"alpha": chosen["weight-penalty.alpha"]}, random_state=0)
    times = {"default": [], "plain": []}
    for _ in range(3):
        for key, model in (("default", cls(random_state=0)), ("plain", plain)):
            start = time.perf_counter()
            model.fit(X[train], y[train])
            times[key].append(time.perf_counter() - start)
    d, p = min(times["default"]), min(times["plain"])
    return d, p, selection["seconds"]


def table(title, rows, columns, fmt):
    out = [f"### {title}", "", "| data set | d | N | " + " | ".join(columns) + " |",
           "|---|---|---|" + "---|" * len(columns)]
    for name, d, n, values in rows:
        out.append(f"| {name} | {d} | {n} | " + " | ".join(fmt(values[c]) for c in columns) + " |")
    return "\n".join(out) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="three small sets of each task")
    parser.add_argument("--data", default=os.path.join(os.path.dirname(__file__), "..", "..", "..",
                                                      "..", "shared", "data"))
    parser.add_argument("--markdown", help="also write the tables to this file")
    parser.add_argument("--sets", help="only these data sets (comma-separated names)")
    parser.add_argument("--models", help="only these columns (comma-separated names)")
    args = parser.parse_args()
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
                if l.startswith("model name")), "unknown")
    report = [f"CPU: {cpu}; OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', '(unset)')}; "
              f"radial {radial.__version__ if hasattr(radial, '__version__') else ''}".strip(), ""]
    worst_ratio = 0.0
    verdicts = []
    for task in ("classification", "regression"):
        models = classifiers() if task == "classification" else regressors()
        if args.models:
            models = {k: v for k, v in models.items() if k in args.models.split(",")}
            if not models:
                continue
        if task == "classification":
            names = QUICK_CLASSIFICATION if args.quick else CLASSIFICATION
            sets = {n: load_csv(os.path.join(args.data, n + ".csv")) for n in names}
        else:
            sets = regression_sets(args.quick)
        if args.sets:
            sets = {k: v for k, v in sets.items() if k in args.sets.split(",")}
            if not sets:
                continue
        err_rows, sec_rows, ratios, select_ratios, costs = [], [], [], [], []
        time_ratios = []  # the default fit's seconds / SVC's (SVR's), per set
        svm = "SVC" if task == "classification" else "SVR"
        for name, (X, y) in sets.items():
            errors, seconds, fitted = run(task, name, X, y, models)
            if "Radial default" in seconds and svm in seconds:
                time_ratios.append(seconds["Radial default"] / seconds[svm])
            if args.models:  # some columns only: no ratios, no selection cost
                err_rows.append((name, X.shape[1], X.shape[0], errors))
                sec_rows.append((name, X.shape[1], X.shape[0], seconds))
                print(f"{task} {name}: " + ", ".join(f"{k} {v:.4f}" for k, v in errors.items()),
                      flush=True)
                continue
            best_peer = min(errors[m] for m in DEFAULT_PEERS[task])
            ratio = errors["Radial default"] / best_peer if best_peer > 0 else float("inf")
            tuned = errors["SVC tuned" if task == "classification" else "SVR tuned"]
            errors["default / best peer"] = ratio
            errors["select / tuned"] = errors["Radial select"] / tuned if tuned > 0 else float("inf")
            ratios.append(ratio)
            select_ratios.append(errors["select / tuned"])
            default_s, plain_s, select_s = selection_cost(task, X, y, fitted)
            seconds["selection / plain fit"] = (default_s - plain_s) / plain_s
            costs.append(seconds["selection / plain fit"])
            err_rows.append((name, X.shape[1], X.shape[0], errors))
            sec_rows.append((name, X.shape[1], X.shape[0], seconds))
            print(f"{task} {name}: " + ", ".join(f"{k} {v:.4f}" for k, v in errors.items()),
                  flush=True)
        extra = [] if args.models else ["default / best peer", "select / tuned"]
        metric = "error rate" if task == "classification" else "MSE of z-scored targets (1 - R^2)"
        report.append(table(f"{task}: {metric}, 5-fold CV", err_rows, list(models) + extra,
                            lambda v: f"{v:.3f}"))
        report.append(table(f"{task}: fit seconds (mean over folds)", sec_rows,
                            list(models) + ([] if args.models else ["selection / plain fit"]),
                            lambda v: f"{v:.3f}"))
        if time_ratios:
            verdicts.append(f"{task}: Radial default fit / {svm} fit: median "
                            f"{statistics.median(time_ratios):.2f}x (issue 45's target <= 2), "
                            f"from {min(time_ratios):.2f}x to {max(time_ratios):.2f}x")
        if args.models:
            continue
        med, worst = statistics.median(ratios), max(ratios)
        worst_ratio = max(worst_ratio, worst)
        verdicts.append(
            f"{task}: Radial default / best default peer: median {med:.2f}x (target <= 1.1), "
            f"worst {worst:.2f}x (target <= 1.5); Radial select / tuned SVM: median "
            f"{statistics.median(select_ratios):.2f}x (target <= 1); closed-form selection "
            f"costs {statistics.median(costs):.2f} plain fits (median; target < 3)")
    report.extend(verdicts)
    text = "\n".join(report) + "\n"
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text)


if __name__ == "__main__":
    sys.exit(main())
