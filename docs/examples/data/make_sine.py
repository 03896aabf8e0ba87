#!/usr/bin/python3
"""Generates sine.train.csv and sine.test.csv: a 1-D regression problem, y = sin(2 pi x) + noise.

The classic curve-fitting example for RBF networks (Bishop 1995, ch. 5). Deterministic: run it
again and the files come out byte-identical. Run with /usr/bin/python3 (needs NumPy).
"""
import pathlib

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent


def write(name, n, rng):
    x = np.sort(rng.uniform(0.0, 1.0, n))
    y = np.sin(2.0 * np.pi * x) + rng.normal(0.0, 0.1, n)
    with open(HERE / name, "w") as f:
        f.write("x,y\n")
        for a, b in zip(x, y):
            f.write(f"{a:.10f},{b:.10f}\n")


rng = np.random.default_rng(20261121)
write("sine.train.csv", 100, rng)
write("sine.test.csv", 400, rng)
