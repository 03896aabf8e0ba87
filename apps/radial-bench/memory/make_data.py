#!/usr/bin/python3
"""Writes the issue-6 memory data: N rows of 16 features + a class column (4 Gaussian classes),
float64, C order, as .npy, in chunks so that this script itself stays small in memory.

usage: make_data.py OUT.npy ROWS SEED
"""
import sys

import numpy as np

out, rows, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
d, k = 16, 4
rng = np.random.default_rng(seed)
means = np.random.default_rng(12345).normal(scale=1.5, size=(k, d))  # same classes for every file
a = np.lib.format.open_memmap(out, mode="w+", dtype="<f8", shape=(rows, d + 1))
chunk = 1 << 20
for first in range(0, rows, chunk):
    n = min(chunk, rows - first)
    y = rng.integers(0, k, size=n)
    a[first:first + n, :d] = means[y] + rng.normal(size=(n, d))
    a[first:first + n, d] = y
a.flush()
del a
