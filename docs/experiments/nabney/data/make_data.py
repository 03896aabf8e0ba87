#!/usr/bin/python3
"""Generates two-class.csv and three-class.csv: Nabney's synthetic problems (papers 000/003,
section 4.1), 5000 rows each, from which the experiments draw a 250-row training set per seed
(the rest is the test set), so that each seed is a replicated data set as in tables 2 and 4.

- two-class.csv: NETLAB's demglm2 mixture (the synth3 recipe): priors 0.4/0.3/0.3, centres
  (2,2), (0,0), (1,-1), variances 0.5/1.0/0.6; the components at (2,2) and (1,-1) are class 1.
- three-class.csv: five spherical Gaussians, classes 0 and 2 owning two components each, so the
  decision boundaries are non-linear (the paper does not list its parameters; these are ours).

Deterministic: run it again and the files come out byte-identical. Run with /usr/bin/python3
(needs NumPy).
"""
import pathlib

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
ROWS = 5000

# (prior, x, y, variance, label)
TWO_CLASS = [(0.4, 2.0, 2.0, 0.5, 1), (0.3, 0.0, 0.0, 1.0, 0), (0.3, 1.0, -1.0, 0.6, 1)]
THREE_CLASS = [(0.2, 0.0, 0.0, 1.0, 0), (0.2, 2.0, 2.0, 1.0, 1), (0.2, 2.0, -1.0, 0.8, 2),
               (0.2, -1.0, 2.0, 0.8, 2), (0.2, 3.5, 0.5, 0.8, 0)]


def write(name, mixture, rng):
    priors = np.array([c[0] for c in mixture])
    pick = rng.choice(len(mixture), size=ROWS, p=priors / priors.sum())
    noise = rng.standard_normal((ROWS, 2))
    with open(HERE / name, "w") as f:
        f.write("x1,x2,label\n")
        for j, (e1, e2) in zip(pick, noise):
            _, cx, cy, var, label = mixture[j]
            sd = np.sqrt(var)
            f.write(f"{cx + sd * e1:.4f},{cy + sd * e2:.4f},{label}\n")


rng = np.random.default_rng(20261123)
write("two-class.csv", TWO_CLASS, rng)
write("three-class.csv", THREE_CLASS, rng)
