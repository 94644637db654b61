"""The matrix products of gan's batched payoff evaluation, in NumPy float32.

Usage: python3 payoff_numpy.py K J B H
Prints the GFLOP/s of the products alone (no tanh, no loss), timed over
repeated evaluations of K generators and J discriminators with two hidden
layers of H units on 2-D data, noise of dimension 2, minibatch B: the same
shapes and flop count as BenchmarkPayoff.
"""
import sys
import time

import numpy as np

k, j, b, h = (int(a) for a in sys.argv[1:5])
rng = np.random.default_rng(1)
f32 = np.float32
z = rng.standard_normal((b, 2)).astype(f32)
gw1 = rng.standard_normal((2, k * h)).astype(f32)
gw2 = [rng.standard_normal((h, h)).astype(f32) for _ in range(k)]
gw3 = [rng.standard_normal((h, 2)).astype(f32) for _ in range(k)]
x = rng.standard_normal(((k + 1) * b, 2)).astype(f32)
dw1 = rng.standard_normal((2, j * h)).astype(f32)
dw2 = [rng.standard_normal((h, h)).astype(f32) for _ in range(j)]
dw3 = [rng.standard_normal((h, 1)).astype(f32) for _ in range(j)]


def once():
    h1 = z @ gw1
    for i in range(k):
        h2 = h1[:, i * h:(i + 1) * h] @ gw2[i]
        h2 @ gw3[i]
    d1 = x @ dw1
    for i in range(j):
        d2 = d1[:, i * h:(i + 1) * h] @ dw2[i]
        d2 @ dw3[i]


flops = 2 * b * k * (2 * h + h * h + h * 2) + 2 * (k + 1) * b * j * (2 * h + h * h + h)
once()
n, start = 0, time.perf_counter()
while time.perf_counter() - start < 2:
    once()
    n += 1
secs = (time.perf_counter() - start) / n
print(f"numpy float32 K={k},J={j},B={b},H={h}: {secs * 1e3:.3f} ms/op {flops / secs / 1e9:.3f} GFLOP/s")
