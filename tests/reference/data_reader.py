"""Reference numbers and NumPy-written files for tests/data-reader (run with /usr/bin/python3).

Writes tests/data/random-regression.{csv,npy}, tests/data/small-classes.npy and the bad .npy
files under tests/data/bad/, then prints the NumPy / scikit-learn numbers that
tests/data-reader/test_data_reader.cpp and test_standardiser.cpp paste as constants.
"""
import json
import pathlib

import numpy as np
from sklearn.preprocessing import StandardScaler

data = pathlib.Path(__file__).resolve().parent.parent / "data"
bad = data / "bad"
bad.mkdir(parents=True, exist_ok=True)

rng = np.random.default_rng(7)
n = 60
X = rng.normal(size=(n, 4)) * np.array([1.0, 10.0, 0.01, 1.0]) + np.array([0.0, 5.0, -3.0, 0.0])
X[:, 3] = 2.5  # a constant column: the standardiser must give it scale 1
y = 2.0 * rng.normal(size=n)
table = np.column_stack([X, y])

with open(data / "random-regression.csv", "w") as f:
    f.write("a,b,c,constant,y\n")
    for row in table:
        f.write(",".join("%.17g" % v for v in row) + "\n")
np.save(data / "random-regression.npy", table)

# Labels 3, 1, 3, 2 -> class indices 2, 0, 2, 1 (increasing label order).
small = np.array([[0.5, 1.0, 3.0], [1.5, -2.0, 1.0], [2.5, 0.25, 3.0], [-1.0, 4.0, 2.0]])
np.save(data / "small-classes.npy", small)

np.save(bad / "float32.npy", small.astype(np.float32))
np.save(bad / "fortran-order.npy", np.asfortranarray(small))
np.save(bad / "big-endian.npy", small.astype(">f8"))
np.save(bad / "one-dimensional.npy", small[:, 0].copy())
good = (data / "small-classes.npy").read_bytes()
(bad / "truncated.npy").write_bytes(good[:-20])
(bad / "not-numpy.npy").write_bytes(b"a,b,class\n1,2,0\n")

loaded = np.loadtxt(data / "random-regression.csv", delimiter=",", skiprows=1)
assert np.array_equal(loaded, table)  # %.17g round-trips exactly
scaler = StandardScaler().fit(loaded[:, :4])
z = scaler.transform(loaded[:, :4])
print(json.dumps({
    "rows": int(loaded.shape[0]),
    "input_column_sums": [repr(float(v)) for v in loaded[:, :4].sum(axis=0)],
    "target_sum": repr(float(loaded[:, 4].sum())),
    "first_row": [repr(float(v)) for v in loaded[0]],
    "last_row": [repr(float(v)) for v in loaded[-1]],
    "scaler_mean": [repr(float(v)) for v in scaler.mean_],
    "scaler_scale": [repr(float(v)) for v in scaler.scale_],
    "standardised_first_row": [repr(float(v)) for v in z[0]],
    "standardised_last_row": [repr(float(v)) for v in z[-1]],
}, indent=1))
