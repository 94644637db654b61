#!/bin/sh
# Polish (from an RM+ point at relative gap 1e-3) against scipy's HiGHS
# (interior point and dual simplex) on the same seeded uniform games, in one
# run. Needs Go and a python with numpy and scipy ($PYTHON, default
# /usr/bin/python3). Usage:
#   scripts/polish_vs_highs.sh [sizes, default 1000,2000]
set -e
sizes=${1:-1000,2000}
cd "$(dirname "$0")/.."
POLISH_MEASURE=$sizes go test ./solver/polish/ -run '^TestMeasure$' -count=1 -v | grep -v '^[=-]\{3\}'
"${PYTHON:-/usr/bin/python3}" - "$sizes" <<'PY'
import sys, time
import numpy as np
from scipy.optimize import linprog
for n in map(int, sys.argv[1].split(',')):
    A = np.fromfile(f"/tmp/polish_uniform_{n}.f64", dtype="<f8").reshape(n, n)
    # Column player: min v s.t. A y <= v, sum y = 1, y >= 0.
    c = np.zeros(n + 1); c[-1] = 1
    A_ub = np.hstack([A, -np.ones((n, 1))]); b_ub = np.zeros(n)
    A_eq = np.hstack([np.ones((1, n)), np.zeros((1, 1))]); b_eq = [1.0]
    bounds = [(0, None)] * n + [(None, None)]
    for method in ("highs-ipm", "highs-ds"):
        t = time.perf_counter()
        r = linprog(c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq, bounds=bounds, method=method)
        dt = time.perf_counter() - t
        y = np.maximum(r.x[:n], 0); y /= y.sum()
        x = np.maximum(-r.ineqlin.marginals, 0); x /= x.sum()
        gap = (A @ y).max() - (A.T @ x).min()
        print(f"scipy {method} uniform {n}x{n}: {dt:.3f}s, value {r.fun:.15f}, relative gap {gap / np.abs(A).max():.2e}")
PY
