#!/usr/bin/python3
"""Reference Gaussian log-densities for tests/numerics/test_gaussian.cpp, from
scipy.stats.multivariate_normal (an implementation independent of Radial's).

Run:  /usr/bin/python3 tests/reference/reference_gaussian.py \
        > tests/reference/reference_gaussian.json
"""
import json

import numpy as np
from scipy.stats import multivariate_normal

# Three centres in 3 dimensions and four query points, all written out so the C++ test can
# rebuild the same problem.
means = np.array([[0.0, 0.0, 0.0], [1.0, -2.0, 0.5], [-1.5, 0.25, 2.0]])
points = np.array([[0.0, 0.0, 0.0], [0.3, -0.7, 1.1], [2.0, 1.0, -1.0], [-1.5, 0.25, 2.0]])
spherical = np.array([1.0, 0.25, 4.0])                       # sigma_j^2
diagonal = np.array([[1.0, 2.0, 0.5], [0.1, 0.3, 3.0], [2.5, 1.5, 0.75]])
full = np.array([
    [[2.0, 0.3, -0.2], [0.3, 1.0, 0.1], [-0.2, 0.1, 0.5]],
    [[1.0, 0.9, 0.0], [0.9, 1.0, 0.0], [0.0, 0.0, 0.2]],
    [[4.0, -1.0, 0.5], [-1.0, 3.0, 0.25], [0.5, 0.25, 1.5]],
])


def table(covariance_of):
    return [[float(multivariate_normal(mean=means[j], cov=covariance_of(j)).logpdf(x))
             for j in range(len(means))] for x in points]


out = {
    "means": means.tolist(),
    "points": points.tolist(),
    "spherical_variances": spherical.tolist(),
    "diagonal_variances": diagonal.tolist(),
    "full_covariances": full.tolist(),
    "logpdf_spherical": table(lambda j: spherical[j] * np.eye(3)),
    "logpdf_diagonal": table(lambda j: np.diag(diagonal[j])),
    "logpdf_full": table(lambda j: full[j]),
}
print(json.dumps(out, indent=1))
