#!/usr/bin/python3
"""The peers gpump is compared with, on one payoff matrix (.npy).

    /usr/bin/python3 scripts/peers.py A.npy --eps 1e-4 --rmplus --highs

prints one JSON line per peer:
  rmplus: alternating RM+ with linear averaging and the same free gap as
          gpump (numpy/OpenBLAS), stopped at relative gap eps (max |A_ij|);
  highs-ipm, highs-ds: scipy's HiGHS (interior point, dual simplex) on the
          row player's LP  max v  s.t. Aᵀp ≥ v·1, Σp = 1, p ≥ 0; the column
          strategy is the LP's dual. The gap of the returned pair is
          recomputed here, so every peer is judged by the same certificate.

Needs python3-numpy and python3-scipy (Debian), run with /usr/bin/python3.
"""
import argparse, json, sys, time

import numpy as np


def gap(A, p, q):
    u, v = A @ q, A.T @ p
    return float(u.max() - v.min()), float(v.min()), float(u.max())


def rmplus(A, eps, max_iter):
    m, n = A.shape
    scale = np.abs(A).max()
    t0 = time.time()
    p, q = np.full(m, 1 / m), np.full(n, 1 / n)
    rp, rq = np.zeros(m), np.zeros(n)
    u, v = A @ q, A.T @ p
    pbar, qbar, ubar, vbar, W, it = p.copy(), q.copy(), u.copy(), v.copy(), 1.0, 0
    while (ubar.max() - vbar.min()) / scale > eps and it < max_iter:
        it += 1
        rp = np.maximum(rp + u - p @ u, 0)
        p = rp / rp.sum() if rp.sum() > 0 else p
        v = A.T @ p
        rq = np.maximum(rq - v + q @ v, 0)
        q = rq / rq.sum() if rq.sum() > 0 else q
        u = A @ q
        W += it + 1
        f = (it + 1) / W
        pbar += f * (p - pbar); qbar += f * (q - qbar)
        ubar += f * (u - ubar); vbar += f * (v - vbar)
    secs = time.time() - t0
    g, lo, hi = gap(A, pbar, qbar)
    return dict(peer="rmplus", seconds=secs, iterations=it, passes=2 * it + 2,
                gap=g, relative_gap=g / scale, value_lower=lo, value_upper=hi)


def highs(A, method):
    from scipy.optimize import linprog
    m, n = A.shape
    scale = np.abs(A).max()
    t0 = time.time()
    c = np.zeros(m + 1); c[-1] = -1
    a_ub = np.hstack([-A.T, np.ones((n, 1))])
    a_eq = np.zeros((1, m + 1)); a_eq[0, :m] = 1
    res = linprog(c, A_ub=a_ub, b_ub=np.zeros(n), A_eq=a_eq, b_eq=[1],
                  bounds=[(0, None)] * m + [(None, None)], method=method)
    secs = time.time() - t0
    if res.status != 0:
        return dict(peer=method, seconds=secs, error=res.message)
    p = np.maximum(res.x[:m], 0); p /= p.sum()
    q = np.maximum(-res.ineqlin.marginals, 0); q /= q.sum()
    g, lo, hi = gap(A, p, q)
    return dict(peer=method, seconds=secs, gap=g, relative_gap=g / scale,
                value_lower=lo, value_upper=hi, value=float(-res.fun))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("matrix")
    ap.add_argument("--eps", type=float, default=1e-4)
    ap.add_argument("--max-iter", type=int, default=10**6)
    ap.add_argument("--rmplus", action="store_true")
    ap.add_argument("--highs", action="store_true", help="both HiGHS methods")
    ap.add_argument("--highs-ipm", action="store_true")
    ap.add_argument("--highs-ds", action="store_true")
    a = ap.parse_args()
    A = np.load(a.matrix).astype(np.float64, copy=False)
    if a.rmplus:
        print(json.dumps(rmplus(A, a.eps, a.max_iter)), flush=True)
    if a.highs or a.highs_ipm:
        print(json.dumps(highs(A, "highs-ipm")), flush=True)
    if a.highs or a.highs_ds:
        print(json.dumps(highs(A, "highs-ds")), flush=True)


if __name__ == "__main__":
    sys.exit(main())
