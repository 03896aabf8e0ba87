#!/usr/bin/python3
"""Whole pipeline on Skin (issue 24): Radial's `radial train` against the same model built from
scikit-learn parts, one thread each, on the same 80/20 split.

    OPENBLAS_NUM_THREADS=1 /usr/bin/python3 apps/radial-bench/pipeline/skin.py \\
        --radial build/bin/radial [--data ../shared/data] [--repeats 3]

The model: inputs standardised, k-means with M = 64 centres (k-means++ start), Gaussian basis
exp(-|x - c|^2 / (2 * 3)) (width sqrt(3)), logistic output with weight decay alpha = 1e-3
(scikit-learn: LogisticRegression(C = 1 / alpha), lbfgs, on the same features). Radial runs
twice: k-means with its default tolerance (no centre moves more than 1e-4 x the data scale),
and with 1e-2, about scikit-learn's KMeans rule (the sum of squared centre moves at most
1e-4 x the mean variance). Prints seconds (the median of the repeats), test error and the
ratio Radial / scikit-learn, with the CPU and BLAS core.

scikit-learn's lbfgs runs up to 1000 iterations (the issue's measurement: it stops at the cap,
about 27 s); the script also times it at the fewest iterations of 100, 150, 200, 300 whose test
error is at most Radial's, the fairer figure "at equal error".
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import warnings

import numpy as np
from sklearn.cluster import KMeans
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

PIPELINE = """name = "skin"
seed = 0
[data]
train = "{train}"
test = "{test}"
standardize = true
[basis]
plugin = "gaussian"
width_rule = "fixed"
width = 1.7320508075688772
[centres]
plugin = "kmeans"
count = 64
tolerance = {tolerance}
[output]
plugin = "irls"
link = "logistic"
[weight-penalty]
plugin = "weight-decay"
alpha = 0.001
"""


def cpu_model():
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return "unknown"


def sklearn_fit(xtr, ytr, xte, yte, max_iter=1000):
    start = time.perf_counter()
    scaler = StandardScaler().fit(xtr)
    ztr = scaler.transform(xtr)
    centres = KMeans(64, n_init=1, random_state=0).fit(ztr).cluster_centers_

    def features(z):
        r2 = (z * z).sum(1)[:, None] - 2 * z @ centres.T + (centres * centres).sum(1)[None, :]
        return np.exp(-np.maximum(r2, 0) / 6.0)

    model = LogisticRegression(C=1000.0, max_iter=max_iter).fit(features(ztr), ytr)
    seconds = time.perf_counter() - start
    error = float(np.mean(model.predict(features(scaler.transform(xte))) != yte))
    return seconds, error


def radial_fit(radial, folder, tolerance):
    path = os.path.join(folder, f"skin-{tolerance}.toml")
    with open(path, "w") as f:
        f.write(PIPELINE.format(train=os.path.join(folder, "train.csv"),
                                test=os.path.join(folder, "test.csv"), tolerance=tolerance))
    report = os.path.join(folder, "report.json")
    start = time.perf_counter()
    subprocess.run([radial, "train", path, "--threads", "1", "--quiet", "--report", report,
                    "--model", os.path.join(folder, "skin.model")], check=True)
    seconds = time.perf_counter() - start
    with open(report) as f:
        r = json.load(f)
    return seconds, r["test"]["error_rate"], r["centres"]["iterations"], r["output"]["iterations"]


def main():
    warnings.simplefilter("ignore")  # lbfgs stopping at max_iter warns every time
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--radial", default="build/bin/radial")
    ap.add_argument("--data", default=os.path.join(os.path.dirname(__file__), "../../../../shared/data"))
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    data = np.loadtxt(os.path.join(args.data, "skin.csv"), delimiter=",", skiprows=1)
    order = np.random.default_rng(0).permutation(len(data))
    cut = int(0.8 * len(data))
    train, test = data[order[:cut]], data[order[cut:]]
    print(f"CPU: {cpu_model()}; OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', '(auto)')}"
          f", OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', '(unset)')}")
    print(f"Skin: {len(train)} training rows, {len(test)} test rows, 3 inputs, M = 64")
    with tempfile.TemporaryDirectory() as folder:
        header = "B,G,R,class"
        np.savetxt(os.path.join(folder, "train.csv"), train, delimiter=",", header=header,
                   comments="", fmt="%g")
        np.savetxt(os.path.join(folder, "test.csv"), test, delimiter=",", header=header,
                   comments="", fmt="%g")
        sk = [sklearn_fit(train[:, :3], train[:, 3], test[:, :3], test[:, 3])
              for _ in range(args.repeats)]
        sk_seconds = statistics.median(s for s, _ in sk)
        print(f"scikit-learn: {sk_seconds:.2f} s, test error {sk[0][1]:.4f}")
        worst = 0.0
        for tolerance in (1e-4, 1e-2):
            runs = [radial_fit(args.radial, folder, tolerance) for _ in range(args.repeats)]
            seconds = statistics.median(r[0] for r in runs)
            _, error, kmeans_iterations, irls_iterations = runs[0]
            worst = max(worst, error)
            print(f"radial, k-means tolerance {tolerance:g}: {seconds:.2f} s ({kmeans_iterations} "
                  f"Lloyd iterations, {irls_iterations} IRLS), test error {error:.4f}; "
                  f"radial / scikit-learn {seconds / sk_seconds:.3f} (goal <= 0.05)")
        for max_iter in (100, 150, 200, 300):
            seconds, error = sklearn_fit(train[:, :3], train[:, 3], test[:, :3], test[:, 3],
                                         max_iter)
            if error <= worst:
                print(f"scikit-learn at equal error: lbfgs max_iter = {max_iter}, {seconds:.2f} s, "
                      f"test error {error:.4f}")
                break
    return 0


if __name__ == "__main__":
    sys.exit(main())
