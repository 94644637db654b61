"""The metrics' floor on a data file: MMD² and energy distance, as gpump gan
computes them (Gaussian kernel of the median distance between the data
points; unbiased within-sample means), between two random halves of the
data. A model no better than a fresh draw of the data scores about this.

    /usr/bin/python3 gan/testdata/halves.py digits.npy [seeds]
"""
import sys

import numpy as np


def sqd(a, b):
    return np.maximum((a * a).sum(1)[:, None] + (b * b).sum(1)[None, :] - 2 * a @ b.T, 0)


def within(a, f):
    k = f(sqd(a, a))
    n = len(a)
    return (k.sum() - np.trace(k)) / (n * (n - 1))


x = np.load(sys.argv[1])
d = np.sqrt(sqd(x, x))
h = np.median(d[np.triu_indices(len(x), 1)])
gauss = lambda s: np.exp(-s / (2 * h * h))
dist = lambda s: np.sqrt(s)
for seed in range(int(sys.argv[2]) if len(sys.argv) > 2 else 5):
    p = np.random.default_rng(seed).permutation(len(x))
    a, b = x[p[: len(x) // 2]], x[p[len(x) // 2 :]]
    mmd = within(a, gauss) + within(b, gauss) - 2 * gauss(sqd(a, b)).mean()
    en = 2 * dist(sqd(a, b)).mean() - within(a, dist) - within(b, dist)
    print(f"halves {seed}: bandwidth {h:.3f} MMD² {mmd:.5f} energy distance {en:.5f}")
