#!/usr/bin/python3
"""Reference k-means runs for tests/learning-numerics/test_kmeans.cpp, by scikit-learn.

Lloyd's algorithm from given initial centres: KMeans(init=<centres>, n_init=1,
algorithm="lloyd", tol=0) runs until the labels stop changing. Writes, for each case,
<case>_centres.csv (final centres), <case>_labels.csv (final assignment) and
<case>_summary.csv (inertia, iterations). The generated case also writes its data.

Run from anywhere:  /usr/bin/python3 tests/reference/kmeans_reference.py
(writes into tests/reference/learning-numerics/)
"""
import pathlib

import numpy as np
import sklearn
from sklearn.cluster import KMeans
from sklearn.datasets import make_blobs

HERE = pathlib.Path(__file__).resolve().parent / "learning-numerics"
ROOT = HERE.parents[2]


def write(name, array, fmt="%.17g"):
    np.savetxt(HERE / name, np.atleast_2d(array) if np.ndim(array) == 2 else array,
               delimiter=",", fmt=fmt)


def run(case, x, init_rows):
    init = x[init_rows].copy()
    km = KMeans(n_clusters=len(init_rows), init=init, n_init=1, algorithm="lloyd", tol=0.0,
                max_iter=300).fit(x)
    write(f"{case}_centres.csv", km.cluster_centers_)
    write(f"{case}_labels.csv", km.labels_, fmt="%d")
    with open(HERE / f"{case}_summary.csv", "w") as f:
        f.write("inertia,iterations,init_rows\n")
        f.write("%.17g,%d,%s\n" % (km.inertia_, km.n_iter_, " ".join(map(str, init_rows))))
    print(case, "sklearn", sklearn.__version__, "inertia", km.inertia_, "iterations", km.n_iter_)


# Iris (the four measurements), 3 centres started from rows 0, 1 and 2: all three starts in
# the setosa cluster, so Lloyd has to move them across the data.
iris = np.loadtxt(ROOT / "docs/examples/data/iris.csv", delimiter=",", skiprows=1)[:, :4]
run("iris", iris, [0, 1, 2])

# Generated: 600 points in 3-D from 6 blobs, 6 centres started from the first 6 rows.
blobs, _ = make_blobs(n_samples=600, n_features=3, centers=6, cluster_std=1.5, random_state=7)
write("blobs_data.csv", blobs)
run("blobs", blobs, [0, 1, 2, 3, 4, 5])
