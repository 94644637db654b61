#!/usr/bin/python3
"""The peers gpump's batches are compared with, on a 3-D payoff array (B, m, n).

    /usr/bin/python3 scripts/batch_peers.py games.npy --eps 1e-6 --rmplus --highs

prints one JSON line per peer with the wall time over the whole batch, games
per second and the worst relative gap of the returned pairs:
  rmplus: numpy batched alternating RM+ (linear averaging, the free gap of
          the averaged products, as scripts/peers.py), every game of the
          batch advanced by one np.matmul per half step; games that reached
          eps leave the batch, so they stop costing work;
  highs-ds: scipy's HiGHS dual simplex on each game's row LP, one game after
          another on one core (the column strategy is the LP's dual).
The gap of every returned pair is recomputed here, so each peer is judged by
the same certificate, relative to the game's own max |A_ij|.

Needs python3-numpy and python3-scipy (Debian), run with /usr/bin/python3.
"""
import argparse, json, time

import numpy as np


def gaps(A, p, q, scale):
    u = np.einsum('bij,bj->bi', A, q)
    v = np.einsum('bij,bi->bj', A, p)
    return (u.max(axis=1) - v.min(axis=1)) / scale


def rmplus(A, eps, max_iter):
    B, m, n = A.shape
    scale = np.abs(A).reshape(B, -1).max(axis=1)
    P, Q = np.empty((B, m)), np.empty((B, n))
    t0 = time.time()
    act = np.arange(B)
    a = A
    p, q = np.full((B, m), 1 / m), np.full((B, n), 1 / n)
    rp, rq = np.zeros((B, m)), np.zeros((B, n))
    u = np.matmul(a, q[:, :, None])[:, :, 0]
    v = np.matmul(p[:, None, :], a)[:, 0, :]
    pbar, qbar, ubar, vbar = p.copy(), q.copy(), u.copy(), v.copy()
    W, it, sc = 1.0, 0, scale
    iters = np.zeros(B, dtype=int)
    while act.size and it < max_iter:
        done = (ubar.max(axis=1) - vbar.min(axis=1)) / sc <= eps
        if done.any():
            P[act[done]], Q[act[done]] = pbar[done], qbar[done]
            iters[act[done]] = it
            keep = ~done
            act, a, sc = act[keep], a[keep], sc[keep]
            p, q, rp, rq, u, v = p[keep], q[keep], rp[keep], rq[keep], u[keep], v[keep]
            pbar, qbar, ubar, vbar = pbar[keep], qbar[keep], ubar[keep], vbar[keep]
            if not act.size:
                break
        it += 1
        rp = np.maximum(rp + u - (p * u).sum(axis=1, keepdims=True), 0)
        s = rp.sum(axis=1, keepdims=True)
        p = np.where(s > 0, rp / np.where(s > 0, s, 1), p)
        v = np.matmul(p[:, None, :], a)[:, 0, :]
        rq = np.maximum(rq - v + (q * v).sum(axis=1, keepdims=True), 0)
        s = rq.sum(axis=1, keepdims=True)
        q = np.where(s > 0, rq / np.where(s > 0, s, 1), q)
        u = np.matmul(a, q[:, :, None])[:, :, 0]
        W += it + 1
        f = (it + 1) / W
        pbar += f * (p - pbar); qbar += f * (q - qbar)
        ubar += f * (u - ubar); vbar += f * (v - vbar)
    if act.size:
        P[act], Q[act] = pbar, qbar
        iters[act] = it
    secs = time.time() - t0
    g = gaps(A, P, Q, scale)
    return dict(peer="rmplus", games=B, seconds=secs, games_per_second=B / secs,
                worst_relative_gap=float(g.max()), unconverged=int((g > eps).sum()),
                max_iterations=int(iters.max()), mean_iterations=float(iters.mean()))


def highs(A, eps):
    from scipy.optimize import linprog
    B, m, n = A.shape
    scale = np.abs(A).reshape(B, -1).max(axis=1)
    P, Q = np.empty((B, m)), np.empty((B, n))
    c = np.zeros(m + 1); c[-1] = -1
    a_eq = np.zeros((1, m + 1)); a_eq[0, :m] = 1
    bounds = [(0, None)] * m + [(None, None)]
    failed = 0
    t0 = time.time()
    for b in range(B):
        a_ub = np.hstack([-A[b].T, np.ones((n, 1))])
        res = linprog(c, A_ub=a_ub, b_ub=np.zeros(n), A_eq=a_eq, b_eq=[1],
                      bounds=bounds, method="highs-ds")
        if res.status != 0:
            failed += 1
            P[b], Q[b] = 1 / m, 1 / n
            continue
        p = np.maximum(res.x[:m], 0); P[b] = p / p.sum()
        q = np.maximum(-res.ineqlin.marginals, 0); Q[b] = q / q.sum()
    secs = time.time() - t0
    g = gaps(A, P, Q, scale)
    return dict(peer="highs-ds", games=B, seconds=secs, games_per_second=B / secs,
                worst_relative_gap=float(g.max()), unconverged=int((g > eps).sum()), failed=failed)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("games")
    ap.add_argument("--eps", type=float, default=1e-6)
    ap.add_argument("--rmplus", action="store_true")
    ap.add_argument("--highs", action="store_true")
    ap.add_argument("--max-iter", type=int, default=10**6)
    ap.add_argument("--certify", metavar="NPZ", help="print the worst relative gap of the strategies (members row, column) gpump batch wrote")
    ap.add_argument("--split", metavar="DIR", help="write each game to DIR/gNNNNN.npy (the one-file-per-game path)")
    a = ap.parse_args()
    A = np.load(a.games).astype(np.float64)
    if A.ndim != 3:
        raise SystemExit("batch_peers: want a 3-D array (B, m, n), got shape %s" % (A.shape,))
    if a.certify:
        z = np.load(a.certify)
        P, Q = z["row"], z["column"]
        g = gaps(A, P, Q, np.abs(A).reshape(len(A), -1).max(axis=1))
        print(json.dumps(dict(peer="certify", games=len(A), worst_relative_gap=float(np.nanmax(g)), missing=int(np.isnan(g).sum()))))
    if a.split:
        for b in range(len(A)):
            np.save("%s/g%05d.npy" % (a.split, b), A[b])
    if a.rmplus:
        print(json.dumps(rmplus(A, a.eps, a.max_iter)), flush=True)
    if a.highs:
        print(json.dumps(highs(A, a.eps)), flush=True)


if __name__ == "__main__":
    main()
