#!/usr/bin/python3
"""Data sets with rare categories, for the nominal coding measurement (nominal_coding.py).

    /usr/bin/python3 apps/radial-bench/accuracy/rare_categories.py OUT_FOLDER

Writes three CSV files (text categories, header row, target last), each from
numpy.random.default_rng(seed) so that a run makes the same bytes:

  rare-shops.csv     2,000 rows, classification (2 classes). Four numeric inputs x1..x4 ~ N(0, 1),
                     "region" (5 categories, 10-30% each) and "shop" (80 categories with Zipf
                     frequencies 1/k^1.1: the 60 rarest below 1% each). The class is
                     x1 + 0.8 x2 - 0.5 x3 + effect(region) + N(0, 0.5^2) > 0; shop carries no
                     signal, as a customer or store id often does not.
  rare-brands.csv    1,500 rows, regression. x1..x3 ~ N(0, 1), "brand" (40 Zipf categories,
                     effects N(0, 0.3^2)) and "colour" (3 categories, effects -0.5, 0, 0.5):
                     y = sin(2 x1) + x2^2 / 2 + effect(brand) + effect(colour) + N(0, 0.3^2).
  rare-codes.csv     1,200 rows, classification (3 classes). x1, x2 ~ N(0, 1) and three nominal
                     inputs of 30, 50 and 120 Zipf categories; the class is the larger-than-
                     threshold bin of x1 + x2 + effect(code_a), effect(code_a) in {-1, 0, 1} by
                     category, so code_a's common categories matter and its rare ones are noise.
"""

import os
import sys

import numpy as np


def zipf(rng, n, count, power=1.1):
    weights = 1.0 / np.arange(1, count + 1) ** power
    return rng.choice(count, size=n, p=weights / weights.sum())


def names(prefix, codes):
    return np.array([f"{prefix}{c:03d}" for c in codes], dtype=object)


def write(path, columns, header):
    with open(path, "w") as out:
        out.write(",".join(header) + "\n")
        for row in zip(*columns):
            out.write(",".join(v if isinstance(v, str) else repr(float(v)) for v in row) + "\n")


def rare_shops(path):
    rng = np.random.default_rng(47)
    n = 2000
    x = rng.standard_normal((n, 4))
    region = rng.choice(5, size=n, p=[0.3, 0.25, 0.2, 0.15, 0.1])
    region_effect = np.array([-0.8, -0.3, 0.0, 0.4, 0.9])
    shop = zipf(rng, n, 80)
    score = x[:, 0] + 0.8 * x[:, 1] - 0.5 * x[:, 2] + region_effect[region] + \
        0.5 * rng.standard_normal(n)
    label = np.where(score > 0, "yes", "no").astype(object)
    write(path, [*x.T, names("r", region), names("s", shop), label],
          ["x1", "x2", "x3", "x4", "region", "shop", "class"])


def rare_brands(path):
    rng = np.random.default_rng(4747)
    n = 1500
    x = rng.standard_normal((n, 3))
    brand = zipf(rng, n, 40)
    brand_effect = 0.3 * rng.standard_normal(40)
    colour = rng.choice(3, size=n)
    y = np.sin(2 * x[:, 0]) + x[:, 1] ** 2 / 2 + brand_effect[brand] + \
        np.array([-0.5, 0.0, 0.5])[colour] + 0.3 * rng.standard_normal(n)
    write(path, [*x.T, names("b", brand), names("c", colour), y],
          ["x1", "x2", "x3", "brand", "colour", "y"])


def rare_codes(path):
    rng = np.random.default_rng(474747)
    n = 1200
    x = rng.standard_normal((n, 2))
    a, b, c = zipf(rng, n, 30), zipf(rng, n, 50), zipf(rng, n, 120)
    effect = rng.choice([-1.0, 0.0, 1.0], size=30)
    score = x[:, 0] + x[:, 1] + effect[a] + 0.4 * rng.standard_normal(n)
    label = np.digitize(score, [-0.7, 0.7]).astype(int)
    write(path, [*x.T, names("a", a), names("b", b), names("c", c), label.astype(float)],
          ["x1", "x2", "code_a", "code_b", "code_c", "class"])


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    folder = sys.argv[1]
    os.makedirs(folder, exist_ok=True)
    rare_shops(os.path.join(folder, "rare-shops.csv"))
    rare_brands(os.path.join(folder, "rare-brands.csv"))
    rare_codes(os.path.join(folder, "rare-codes.csv"))


if __name__ == "__main__":
    main()
