#!/usr/bin/python3
"""Reference solutions for tests/learning-numerics/test_least_squares.cpp, by NumPy.

Cases (inputs and outputs written as CSV beside this script):
  full_rank:  A 40 x 6, B 40 x 2 random;  x = numpy.linalg.lstsq(A, B), rank 6.
  deficient:  A 30 x 5 whose last column = column 0 + column 1 (rank 4); minimum-norm x from
              numpy.linalg.lstsq (dgelsd, as Radial) and numpy.linalg.pinv(A) @ B.
  ridge:      S = A^T A + 0.3 I for the full-rank A, rhs A^T B;  x = numpy.linalg.solve(S, rhs).
  psd_deficient: S = D^T D for the deficient A (rank 4), rhs D^T B;  x = pinv(S) @ rhs, which
              equals the minimum-norm least-squares solution of the deficient case.

Run from anywhere:  /usr/bin/python3 tests/reference/least_squares_reference.py
(writes into tests/reference/learning-numerics/)
"""
import pathlib

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent / "learning-numerics"


def write(name, array):
    np.savetxt(HERE / name, np.atleast_2d(array), delimiter=",", fmt="%.17g")


rng = np.random.default_rng(20261121)
a = rng.normal(size=(40, 6))
b = rng.normal(size=(40, 2))
x, _, rank, sv = np.linalg.lstsq(a, b, rcond=None)
write("ls_full_a.csv", a)
write("ls_full_b.csv", b)
write("ls_full_x.csv", x)
write("ls_full_singular_values.csv", sv.reshape(1, -1))
print("full_rank rank", rank)

d = rng.normal(size=(30, 5))
d[:, 4] = d[:, 0] + d[:, 1]
e = rng.normal(size=(30, 2))
xd, _, rank_d, _ = np.linalg.lstsq(d, e, rcond=None)
assert np.allclose(xd, np.linalg.pinv(d) @ e)
write("ls_deficient_a.csv", d)
write("ls_deficient_b.csv", e)
write("ls_deficient_x.csv", xd)
print("deficient rank", rank_d)

s = a.T @ a + 0.3 * np.eye(6)
rhs = a.T @ b
write("psd_ridge_x.csv", np.linalg.solve(s, rhs))

sd = d.T @ d
write("psd_deficient_x.csv", np.linalg.pinv(sd, rcond=1e-10) @ (d.T @ e))
print("psd_deficient eigenvalues", np.linalg.eigvalsh(sd))
