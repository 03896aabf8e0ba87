#!/usr/bin/python3
"""The shared classification sets the accuracy benchmark leaves out (more rows, more classes):
Radial's default classifier against scikit-learn's SVC, as a user would try them.

    PYTHONPATH=build/python OPENBLAS_NUM_THREADS=1 /usr/bin/python3 \
        apps/radial-bench/accuracy/larger_sets.py [--data ../shared/data] [--threads 1]

One split per set: satimage's own train / test files; the others a stratified 80 / 20 split
(train_test_split(test_size=0.2, stratify=y, random_state=0)). RBFClassifier(random_state=0)
with `--threads` threads against make_pipeline(StandardScaler(), SVC()), which runs on one.
Prints each set's test errors, fit seconds, their ratios, and the centres Radial chose.
Skin (245,057 rows) is left out: SVC needs many minutes on it (apps/radial-bench/pipeline/skin.py
compares the logistic pipeline there).
"""

import argparse
import os
import time

import numpy as np
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from radial.sklearn import RBFClassifier

SPLIT = ["letter", "shuttle", "waveform_noise"]


def load(path):
    data = np.loadtxt(path, delimiter=",", skiprows=1)
    return data[:, :-1], data[:, -1]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default=os.path.join(os.path.dirname(__file__), "..", "..", "..",
                                                        "..", "shared", "data"))
    parser.add_argument("--threads", type=int, default=1, help="Radial's threads (SVC has one)")
    args = parser.parse_args()
    sets = {}
    for name in SPLIT:
        X, y = load(os.path.join(args.data, name + ".csv"))
        sets[name] = train_test_split(X, y, test_size=0.2, stratify=y, random_state=0)
    Xtr, ytr = load(os.path.join(args.data, "satimage.tr.csv"))
    Xte, yte = load(os.path.join(args.data, "satimage.te.csv"))
    sets["satimage"] = (Xtr, Xte, ytr, yte)
    print("| data set | d | K | N train | centres | width scale | Radial error | SVC error | error ratio "
          "| Radial s | SVC s | time ratio |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name, (Xtr, Xte, ytr, yte) in sets.items():
        start = time.perf_counter()
        radial = RBFClassifier(random_state=0, threads=args.threads).fit(Xtr, ytr)
        radial_s = time.perf_counter() - start
        radial_err = float(np.mean(radial.predict(Xte) != yte))
        start = time.perf_counter()
        svc = make_pipeline(StandardScaler(), SVC()).fit(Xtr, ytr)
        svc_s = time.perf_counter() - start
        svc_err = float(np.mean(svc.predict(Xte) != yte))
        report = radial.report_
        scale = report["selection"]["chosen"].get("basis.width_scale", float("nan"))
        print(f"| {name} | {Xtr.shape[1]} | {len(np.unique(ytr))} | {len(ytr)} | "
              f"{report['centres']['count']} | {scale:g} | {radial_err:.4f} | {svc_err:.4f} | "
              f"{radial_err / svc_err if svc_err else float('nan'):.2f} | {radial_s:.2f} | "
              f"{svc_s:.2f} | {radial_s / svc_s:.1f} |", flush=True)


if __name__ == "__main__":
    main()
