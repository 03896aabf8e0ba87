#!/usr/bin/python3
"""Training at scale (issue 45): Radial's default classifier against SVC(), a Nystroem +
RidgeClassifier pipeline and the FALKON reference, fit seconds, test error and peak memory
measured in the same run.

    PYTHONPATH=build/python /usr/bin/python3 apps/radial-bench/scale/scale.py generator \
        [--sizes 2000,5000,10000,20000,50000] [--svc-limit 600]
    PYTHONPATH=build/python /usr/bin/python3 apps/radial-bench/scale/scale.py sets [--data DIR]
    PYTHONPATH=build/python /usr/bin/python3 apps/radial-bench/scale/scale.py falkon \
        --preset susy --n-train 1000000 --M 10000 [--data-dir DIR] [--only radial,falkon]

(`radial-bench --tasks scale` runs the first two.)

generator: make_classification(n_samples=N+10000, n_features=20, n_informative=10,
  n_redundant=4, n_classes=3, n_clusters_per_class=3, flip_y=0.03, random_state=0), the first
  N rows to train and the last 10,000 to test. RBFClassifier(random_state=0) on every core;
  make_pipeline(StandardScaler(), SVC()) (one core; left out once its time, extrapolated as
  N^2 from the last size, would pass --svc-limit seconds); make_pipeline(StandardScaler(),
  Nystroem(n_components=M, random_state=0), RidgeClassifier()) with Radial's own M.
sets: letter and shuttle as larger_sets.py splits them (stratified 80 / 20, random_state=0).
falkon: the FALKON reference's data (../shared/reference/falkon/make_data.py, written once
  into --data-dir) and its README's setting (sigma 3, lambda 1e-6, 20 iterations, 2 threads)
  against RBFClassifier(random_state=0, centres_params={"count": M}) with everything else
  default (Radial chooses its own width and penalty); each in a process of its own, whose peak
  resident memory (getrusage of that child) is printed beside the data files' size. Both print
  their fit's CPU seconds too (a shared machine's wall seconds are an upper bound).
Every mode prints the CPU model, the BLAS core in use, a Markdown table and one JSON line per
measurement.
"""

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.path.normpath(os.path.join(HERE, "..", "..", "..", "..", "shared"))
FALKON = os.path.join(SHARED, "reference", "falkon")


def machine():
    model = "?"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    core = os.environ.get("OPENBLAS_CORETYPE", "")
    try:
        from threadpoolctl import threadpool_info
        for info in threadpool_info():
            if info.get("internal_api") == "openblas":
                core = core or info.get("architecture", "")
    except ImportError:
        pass
    return f"CPU: {model}; OpenBLAS core: {core or '?'}; cores: {os.cpu_count()}"


def emit(record):
    print("JSON " + json.dumps(record), flush=True)


def fit_radial(Xtr, ytr, Xte, yte, **params):
    from radial.sklearn import RBFClassifier
    start = time.perf_counter()
    model = RBFClassifier(random_state=0, **params).fit(Xtr, ytr)
    seconds = time.perf_counter() - start
    error = float(np.mean(model.predict(Xte) != yte))
    report = model.report_
    selection = report.get("selection") or {}
    output = report["output"]
    return {"method": "radial", "error": error, "seconds": seconds,
            "centres": int(report["centres"]["count"]) if "count" in report["centres"] else None,
            "chosen": selection.get("chosen"), "selection_seconds": selection.get("seconds"),
            "selection_rows": selection.get("rows"), "selection_centres": selection.get("centres"),
            "centre_seconds": report["centres"].get("seconds"),
            "output_seconds": output.get("seconds"), "output": output.get("termination_message"),
            "cg_iterations": output.get("figures", {}).get("cg_iterations")}


def fit_sklearn(kind, Xtr, ytr, Xte, yte, m=None):
    from sklearn.kernel_approximation import Nystroem
    from sklearn.linear_model import RidgeClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC
    model = (make_pipeline(StandardScaler(), SVC()) if kind == "svc" else
             make_pipeline(StandardScaler(), Nystroem(n_components=m, random_state=0),
                           RidgeClassifier()))
    start = time.perf_counter()
    model.fit(Xtr, ytr)
    seconds = time.perf_counter() - start
    return {"method": kind, "error": float(np.mean(model.predict(Xte) != yte)),
            "seconds": seconds, "centres": m}


def centres_of(record):
    return record.get("centres") or 0


def table(rows):
    print("| data | N train | Radial centres | Radial error | Radial s | SVC error | SVC s | "
          "SVC s / Radial s | Nystroem error | Nystroem s |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, n, r, svc, nys in rows:
        svc_e = f"{svc['error']:.4f}" if svc else "—"
        svc_s = f"{svc['seconds']:.2f}" if svc else "(not run)"
        ratio = f"{svc['seconds'] / r['seconds']:.1f}x" if svc else "—"
        print(f"| {name} | {n} | {centres_of(r)} | {r['error']:.4f} | {r['seconds']:.2f} | {svc_e} "
              f"| {svc_s} | {ratio} | {nys['error']:.4f} | {nys['seconds']:.2f} |", flush=True)


def compare(name, Xtr, ytr, Xte, yte, run_svc):
    r = fit_radial(Xtr, ytr, Xte, yte)
    r.update(data=name, rows=len(ytr))
    emit(r)
    svc = None
    if run_svc:
        svc = fit_sklearn("svc", Xtr, ytr, Xte, yte)
        svc.update(data=name, rows=len(ytr))
        emit(svc)
    nys = fit_sklearn("nystroem", Xtr, ytr, Xte, yte, m=centres_of(r) or 500)
    nys.update(data=name, rows=len(ytr))
    emit(nys)
    return (name, len(ytr), r, svc, nys)


def generator(args):
    from sklearn.datasets import make_classification
    rows, last = [], None
    for n in [int(s) for s in args.sizes.split(",")]:
        X, y = make_classification(n_samples=n + 10000, n_features=20, n_informative=10,
                                   n_redundant=4, n_classes=3, n_clusters_per_class=3,
                                   flip_y=0.03, random_state=0)
        run_svc = last is None or last[1] * (n / last[0]) ** 2 <= args.svc_limit
        row = compare("generator", X[:n], y[:n], X[n:], y[n:], run_svc)
        if row[3]:
            last = (n, row[3]["seconds"])
        rows.append(row)
    table(rows)


def sets(args):
    from sklearn.model_selection import train_test_split
    rows = []
    for name in ["letter", "shuttle"]:
        data = np.loadtxt(os.path.join(args.data, name + ".csv"), delimiter=",", skiprows=1)
        Xtr, Xte, ytr, yte = train_test_split(data[:, :-1], data[:, -1], test_size=0.2,
                                              stratify=data[:, -1], random_state=0)
        rows.append(compare(name, Xtr, ytr, Xte, yte, True))
    table(rows)


RADIAL_CHILD = """
import json, sys, time, numpy as np
from radial.sklearn import RBFClassifier
train, test, m, limit = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
tr = np.load(train, mmap_mode="r"); te = np.load(test, mmap_mode="r")
if limit: tr = tr[:limit]
Xtr = np.ascontiguousarray(tr[:, 1:]); ytr = np.asarray(tr[:, 0])
start = time.perf_counter(); cpu = time.process_time()
model = RBFClassifier(random_state=0, centres_params={"count": m}).fit(Xtr, ytr)
fit = time.perf_counter() - start; cpu = time.process_time() - cpu
Xte = np.ascontiguousarray(te[:, 1:]); yte = np.asarray(te[:, 0])
scores = model.model_.outputs(Xte)  # 1-of-K least-squares outputs: the score is y_1 - y_0
positive = list(model.classes_).index(1.0)
p = scores[:, positive] - scores[:, 1 - positive]
error = float(np.mean(model.predict(Xte) != yte))
from sklearn.metrics import roc_auc_score
r = model.report_; s = r.get("selection") or {}
print(json.dumps({"fit_seconds": fit, "fit_cpu_seconds": cpu, "test_error": error,
                  "test_auc": float(roc_auc_score(yte == 1, p)), "chosen": s.get("chosen"),
                  "selection_seconds": s.get("seconds"), "selection_rows": s.get("rows"),
                  "selection_centres": s.get("centres"),
                  "centre_seconds": r["centres"].get("seconds"),
                  "output_seconds": r["output"].get("seconds"),
                  "cg_preconditioner_seconds":
                      r["output"].get("figures", {}).get("cg_preconditioner_seconds"),
                  "cg_residual": r["output"].get("series", {}).get("cg_residual"),
                  "output": r["output"].get("termination_message")}))
"""


def child(command, env=None):
    """Runs command; returns (its stdout's last line as JSON, wall seconds, peak RSS in MiB)."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, env=env, text=True)
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f"scale.py: {' '.join(command[:3])} ... failed (status {status})")
    return json.loads(out[out.index("{"):]), wall, usage.ru_maxrss / 1024.0


def falkon(args):
    prefix = os.path.join(args.data_dir, f"{args.preset}_{args.n_train}")
    train, test = prefix + "_train.npy", prefix + "_test.npy"
    if not (os.path.exists(train) and os.path.exists(test)):
        subprocess.run(["/usr/bin/python3", os.path.join(FALKON, "make_data.py"), "--preset",
                        args.preset, "--n-train", str(args.n_train), "--n-test",
                        str(args.n_test), "--seed", "1", "--out-prefix", prefix], check=True)
    data_mib = (os.path.getsize(train) + os.path.getsize(test)) / 2**20
    only = set(args.only.split(","))
    results = {}
    if "falkon" in only:
        out, wall, rss = child(["/usr/bin/python3", os.path.join(FALKON, "falkon_ref.py"), train,
                                test, "--M", str(args.M), "--sigma", str(args.sigma), "--lam",
                                str(args.lam), "--iters", "20", "--seed", "0", "--threads",
                                str(args.threads)])
        results["falkon"] = {"wall": wall, "rss_mib": rss, **out}
        emit({"method": "falkon", **results["falkon"]})
    if "radial" in only:
        env = dict(os.environ)
        out, wall, rss = child(["/usr/bin/python3", "-c", RADIAL_CHILD, train, test,
                                str(args.M), "0"], env=env)
        results["radial"] = {"wall": wall, "rss_mib": rss, **out}
        emit({"method": "radial", **results["radial"]})
    print(f"data files: {data_mib:.0f} MiB")
    print("| method | N train | M | fit s | fit CPU s | wall s (process) | test error | AUC | peak RSS MiB |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, r in results.items():
        fit = r.get("fit_seconds", r.get("time_fit_s", float("nan")))
        cpu = r.get("fit_cpu_seconds", r.get("cpu_fit_s", float("nan")))
        print(f"| {name} | {args.n_train} | {args.M} | {fit:.1f} | {cpu:.1f} | {r['wall']:.1f} "
              f"| {r.get('test_error', float('nan')):.4f} | {r.get('test_auc', float('nan')):.4f} "
              f"| {r['rss_mib']:.0f} |", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="mode", required=True)
    g = sub.add_parser("generator")
    g.add_argument("--sizes", default="2000,5000,10000,20000,50000")
    g.add_argument("--svc-limit", type=float, default=600.0)
    s = sub.add_parser("sets")
    s.add_argument("--data", default=os.path.join(SHARED, "data"))
    f = sub.add_parser("falkon")
    f.add_argument("--preset", default="susy", choices=["susy", "higgs"])
    f.add_argument("--n-train", type=int, default=1000000)
    f.add_argument("--n-test", type=int, default=100000)
    f.add_argument("--M", type=int, default=10000)
    f.add_argument("--sigma", type=float, default=3.0)
    f.add_argument("--lam", type=float, default=1e-6)
    f.add_argument("--threads", type=int, default=2)
    f.add_argument("--data-dir", default="/tmp/radial-scale")
    f.add_argument("--only", default="falkon,radial")
    args = parser.parse_args()
    print(machine(), flush=True)
    if args.mode == "falkon":
        os.makedirs(args.data_dir, exist_ok=True)
    {"generator": generator, "sets": sets, "falkon": falkon}[args.mode](args)


if __name__ == "__main__":
    main()
