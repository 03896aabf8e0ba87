"""Whole-network training on the accuracy benchmark's sets (apps/radial-bench/accuracy): the
default two-stage network (k-means centres, Gaussian widths and ridge penalty chosen in closed
form, least-squares outputs) against the same network refined by [refine] lbfgs (centres, one
width per centre and input, weights), on the same 5 folds as the benchmark.

  PYTHONPATH=build/python OPENBLAS_NUM_THREADS=1 /usr/bin/python3 \\
      apps/radial-bench/refine/refine_sets.py [--iterations 50] [--validation 0.2] [--sets wine,iris]

Prints error rate (classification) or MSE of z-scored targets (regression) per set, fit
seconds, and the ratio refined / two-stage with its median."""
import argparse
import pathlib
import sys
import time

import numpy as np
import radial
from sklearn.datasets import load_diabetes, make_friedman1, make_friedman2, make_friedman3
from sklearn.model_selection import KFold, StratifiedKFold

DATA = pathlib.Path(__file__).resolve().parents[3].parent / "shared" / "data"
CLASSIFICATION = ["digits", "breast_cancer", "ionosphere", "waveform", "wine", "iris",
                  "phoneme", "pb_vowels"]


def regression_sets():
    yield "diabetes", load_diabetes(return_X_y=True)
    yield "friedman1", make_friedman1(n_samples=1000, noise=1.0, random_state=0)
    yield "friedman2", make_friedman2(n_samples=1000, noise=0.0, random_state=0)
    yield "friedman3", make_friedman3(n_samples=1000, noise=0.0, random_state=0)


COUNT = None


def spec(task, refine, iterations, validation=0.0):
    s = {"name": "refine-sets", "seed": 0, "threads": 0,
         "data": {"standardize": True, "task": task},
         "basis": {"plugin": "gaussian"},
         "centres": {"plugin": "kmeans", **({"count": COUNT} if COUNT else {})},
         "output": {"plugin": "least-squares"}}
    if refine:
        s["refine"] = {"plugin": "lbfgs", "iterations": iterations, "validation": validation}
    return s


def score(task, x, y, iterations, validation):
    folds = (StratifiedKFold if task == "classification" else KFold)(5, shuffle=True,
                                                                     random_state=0)
    out = {}
    for refine in (False, True):
        err, secs = 0.0, 0.0
        for tr, te in folds.split(x, y):
            yt = y[tr]
            if task == "regression":
                mu, sd = yt.mean(), yt.std()
                yt = (yt - mu) / sd
            t = time.perf_counter()
            model = radial.Pipeline(spec(task, refine, iterations, validation)).fit(x[tr], yt, seed=0)
            secs += time.perf_counter() - t
            p = model.predict(x[te]).ravel()
            if task == "classification":
                err += (p != y[te]).sum()
            else:
                err += (((p * sd + mu) - y[te]) / sd).__pow__(2).sum()
        out[refine] = (err / len(y), secs / 5)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--iterations", type=int, default=50)
    ap.add_argument("--sets", default="")
    ap.add_argument("--validation", type=float, default=0.0,
                    help="[refine] validation: the early-stopping fraction")
    ap.add_argument("--count", type=int, default=0, help="centres (default: Radial's auto)")
    args = ap.parse_args()
    global COUNT
    COUNT = args.count or None
    wanted = set(filter(None, args.sets.split(",")))
    ratios = {"classification": [], "regression": []}
    print(f"{'set':15s} {'two-stage':>10s} {'refined':>10s} {'ratio':>7s} {'s/fit':>7s} {'s/fit':>7s}")
    jobs = [(n, "classification") for n in CLASSIFICATION] + \
           [(n, "regression") for n, _ in regression_sets()]
    regs = dict(regression_sets())
    for name, task in jobs:
        if wanted and name not in wanted:
            continue
        if task == "classification":
            d = np.loadtxt(DATA / f"{name}.csv", delimiter=",", skiprows=1)
            x, y = d[:, :-1], d[:, -1]
        else:
            x, y = regs[name]
        r = score(task, x, y, args.iterations, args.validation)
        (e0, s0), (e1, s1) = r[False], r[True]
        ratio = e1 / e0 if e0 > 0 else (1.0 if e1 == 0 else float("inf"))
        ratios[task].append(ratio)
        print(f"{name:15s} {e0:10.4f} {e1:10.4f} {ratio:7.3f} {s0:7.2f} {s1:7.2f}", flush=True)
    for task, v in ratios.items():
        if v:
            print(f"{task}: refined / two-stage, median {np.median(v):.3f}, "
                  f"worst {max(v):.3f}, best {min(v):.3f}")


if __name__ == "__main__":
    sys.exit(main())
