#!/usr/bin/python3
"""Nominal inputs: 5-fold error of [data] nominal_scale = "input" (one weight per nominal input,
the default since issue 47) against "category" (each indicator standardised, as before), on
every set at hand with nominal inputs.

    PYTHONPATH=build/python /usr/bin/python3 apps/radial-bench/accuracy/nominal_coding.py
        [--data ../shared/data] [--weka FOLDER] [--seeds 3] [--markdown OUT.md]

Sets:
  pb_vowels+meta  the shared pb_vowels.csv (f0, F1-F3) with the speaker's type (man, woman,
                  child) and sex from pb_vowels_meta.csv as text columns: 10 vowel classes
  Weka's examples (Debian package weka, /usr/share/doc/weka/examples; without it installed,
                  `apt-get download weka && dpkg -x weka_*.deb DIR` and --weka
                  DIR/usr/share/doc/weka/examples): credit-g (credit scoring, 13 nominal
                  inputs), breast-cancer, vote, soybean and labor (nominal inputs with missing
                  cells: missing = "mean"), contact-lenses, and cpu.with.vendor (regression,
                  vendor: 30 categories, most in a few rows)
  rare-*          made by rare_categories.py (beside this file) with rare categories
Every set runs the pipeline that names only the plugins (gaussian basis, kmeans centres,
least-squares output: RBFClassifier's and RBFRegressor's defaults) with [evaluate] folds = 5
(stratified for classes), once per seed 0..seeds-1 (the folds and the fit follow the seed);
the error is the error rate, or for regression the MSE over the target's variance (1 - R^2),
averaged over the seeds. Prints old, new, new/old per set and the medians.
"""

import argparse
import csv
import os
import statistics
import subprocess
import sys
import tempfile

import numpy as np

import radial

HERE = os.path.dirname(os.path.abspath(__file__))

WEKA = [  # file, task, missing policy
    ("credit-g", "classification", "error"),
    ("breast-cancer", "classification", "mean"),
    ("vote", "classification", "mean"),
    ("soybean", "classification", "mean"),
    ("labor", "classification", "mean"),
    ("contact-lenses", "classification", "error"),
    ("cpu.with.vendor", "regression", "error"),
]
RARE = [("rare-shops", "classification"), ("rare-brands", "regression"),
        ("rare-codes", "classification")]


def vowels_with_speakers(data, folder):
    path = os.path.join(folder, "pb_vowels_meta_joined.csv")
    with open(os.path.join(data, "pb_vowels.csv")) as f:
        rows = list(csv.reader(f))
    with open(os.path.join(data, "pb_vowels_meta.csv")) as f:
        meta = list(csv.DictReader(f))
    with open(path, "w", newline="") as out:
        w = csv.writer(out)
        w.writerow(rows[0][:-1] + ["type", "sex", "vowel"])
        for row, m in zip(rows[1:], meta):
            w.writerow(row[:-1] + [m["type"], m["sex"], row[-1]])
    return path


def target_variance(path, task):
    if task != "regression":
        return None
    if path.endswith(".arff"):
        values = []
        with open(path) as f:
            data = False
            for line in f:
                line = line.strip()
                if data and line and not line.startswith("%"):
                    values.append(float(line.split(",")[-1]))
                elif line.lower().startswith("@data"):
                    data = True
    else:
        with open(path) as f:
            values = [float(r[-1]) for r in list(csv.reader(f))[1:]]
    return float(np.var(values))


def cv_error(path, task, missing, scale, seed):
    spec = {"name": "nominal coding", "seed": seed, "threads": 0,
            "data": {"train": path, "task": task, "missing": missing,
                     "nominal_scale": scale},
            "basis": {"plugin": "gaussian"}, "centres": {"plugin": "kmeans"},
            "output": {"plugin": "least-squares"}, "evaluate": {"folds": 5}}
    cv = radial.Pipeline(spec).fit().report["cv"]
    return cv["error_rate"] if task == "classification" else cv["mse"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default=os.path.join(HERE, "../../../../shared/data"))
    parser.add_argument("--weka", default="/usr/share/doc/weka/examples")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--markdown")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        subprocess.run([sys.executable, os.path.join(HERE, "rare_categories.py"), folder],
                       check=True)
        sets = [("pb_vowels+meta", vowels_with_speakers(args.data, folder), "classification",
                 "error")]
        for name, task, missing in WEKA:
            path = os.path.join(args.weka, name + ".arff")
            if os.path.exists(path):
                sets.append((name, path, task, missing))
            else:
                print(f"skipped {name}: {path} not found", file=sys.stderr)
        sets += [(name, os.path.join(folder, name + ".csv"), task, "error")
                 for name, task in RARE]
        lines = ["| set | task | old (category) | new (input) | new / old |",
                 "|---|---|---|---|---|"]
        ratios, olds, news = [], [], []
        for name, path, task, missing in sets:
            variance = target_variance(path, task)
            result = {}
            for scale in ("category", "input"):
                errors = [cv_error(path, task, missing, scale, s) for s in range(args.seeds)]
                e = float(np.mean(errors))
                result[scale] = e / variance if variance else e
            old, new = result["category"], result["input"]
            ratios.append(new / old if old > 0 else 1.0)
            olds.append(old)
            news.append(new)
            lines.append(f"| {name} | {task} | {old:.4f} | {new:.4f} | {ratios[-1]:.3f} |")
            print(lines[-1], flush=True)
        lines.append(f"| median | | {statistics.median(olds):.4f} | "
                     f"{statistics.median(news):.4f} | {statistics.median(ratios):.3f} |")
        print(lines[-1])
        if args.markdown:
            with open(args.markdown, "w") as out:
                out.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
