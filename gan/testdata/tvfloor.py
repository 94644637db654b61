"""The mode TV a perfect model scores under the published protocol.

A model whose samples fall on the modes exactly in the data's proportions
still shows a mode TV above zero: its N high-quality samples are a
multinomial draw. This prints, for ring8u and grid25u (the weights of
gan.Ring8U and gan.Grid25U), the mean and the 50/90/99th percentiles of
that TV over 20,000 draws, and the share of draws above the issue's 0.03,
for N = 2,500 (every sample of high quality) and 2,375 (95 %).

    /usr/bin/python3 gan/testdata/tvfloor.py
"""
import numpy as np

rng = np.random.default_rng(0)
ring8u = np.array([0.30, 0.01, 0.15, 0.07, 0.20, 0.05, 0.12, 0.10])
i = np.arange(25)
grid25u = 0.01 + 0.75 / ((i / 24) ** 2).sum() * (i / 24) ** 2
for name, w in [("ring8u", ring8u), ("grid25u", grid25u)]:
    assert abs(w.sum() - 1) < 1e-12
    for n in (2500, 2375):
        tv = 0.5 * np.abs(rng.multinomial(n, w, size=20000) / n - w).sum(axis=1)
        p50, p90, p99 = np.percentile(tv, [50, 90, 99])
        print(f"{name} N={n}: mean {tv.mean():.4f}, median {p50:.4f}, 90% {p90:.4f}, 99% {p99:.4f}, above 0.03 in {100 * (tv > 0.03).mean():.1f}% of draws")
