"""Shared fixtures: the CLI built beside the module, the source tree, data sets as arrays."""

import csv
import os
import pathlib
import subprocess

import numpy as np
import pytest

SOURCE = pathlib.Path(os.environ.get("RADIAL_SOURCE_DIR",
                                     pathlib.Path(__file__).resolve().parents[2]))
EXAMPLES = SOURCE / "docs" / "examples"


@pytest.fixture
def cli():
    """Runs the `radial` CLI; returns the CompletedProcess (text mode)."""
    program = os.environ.get("RADIAL_CLI")
    if not program:
        pytest.skip("RADIAL_CLI is not set (run through CTest)")

    def run(*args, check=True):
        done = subprocess.run([program, *map(str, args)], capture_output=True, text=True)
        if check and done.returncode != 0:
            raise AssertionError(f"radial {' '.join(map(str, args))}: {done.stderr}")
        return done
    return run


def read_csv(path, target=None):
    """(X, y, feature names, target name) as the CLI reads a data file: the target by name,
    else the last column; every other column a feature, in file order."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], np.array(rows[1:], dtype=np.float64)
    t = header.index(target) if target else len(header) - 1
    features = [j for j in range(len(header)) if j != t]
    return body[:, features], body[:, t], [header[j] for j in features], header[t]


def two_class(n=200, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    return X, (X[:, 0] * X[:, 1] > 0).astype(np.float64)
