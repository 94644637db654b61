#!/bin/sh
# The sweep of docs/sweep.md: gpump's default route against scipy's HiGHS
# (interior point and dual simplex) at relative gap 1e-9, and the default
# against --algo rm+ at 1e-4, on the repository's families and on games
# it was not tuned on (low-rank plus noise of several shapes, numpy-made
# skew-symmetric and ternary games), 600 to 2000 a side, each matrix
# solved by every method in the same run.
#
#   scripts/sweep_highs.sh [games...]     (default: the list below)
#
# A game is a generator spec (see gpump gen --help) or one of the numpy
# games np-lowrank:M,N,RANK,NOISE,SEED (U Vᵀ + noise·G, U, V, G standard
# normal from numpy's default_rng(SEED), the construction the issue's
# first table used), np-skew:N,SEED (B − Bᵀ, B standard normal; value 0),
# np-ternary:M,N,SEED (entries uniform in {−1, 0, 1}), and the families of
# the second table, none of which any rule was fitted on:
# np-sparse:M,N,DENSITY,SEED (±1 at the given share of entries, 0 elsewhere),
# np-cauchy:M,N,SEED (standard Cauchy entries clipped to ±50),
# np-dice:M,N,K,SEED (integers uniform in −K…K), np-expdiff:N,SEED (the
# difference of two standard exponentials), np-toeplitz:N,FREQ,NOISE,SEED
# (cos(FREQ·(i − j)) plus noise·G: rank two plus noise),
# np-dup:M,N,SEED (a standard normal game with half its rows and a third of
# its columns repeated: degenerate), np-block:N1,N2,SEED (two standard
# normal blocks on the diagonal, −1 off it) and np-blotto:S,T,F (Colonel
# Blotto: S against T soldiers on F fields, each field won 1, lost −1:
# highly degenerate).
#
# Needs Go, and /usr/bin/python3 with numpy and scipy (Debian:
# apt-get install python3-numpy python3-scipy). Prints a markdown table:
# per method the seconds, then (passes over A; subgame solves) for gpump,
# "—" and the status where a method did not reach the target. Every gap is
# the returned strategies' own, recomputed from A (gpump: its final pass;
# HiGHS: scripts/peers.py). The speed-up is the faster HiGHS method's time
# over gpump's. gpump runs with --threads ${THREADS:-2} and its default
# --max-iter (100000): no limit is raised for it.
set -e
py=${PYTHON:-/usr/bin/python3}
threads=${THREADS:-2}
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/gpump" ./cmd/gpump
games=${*:-"uniform:m=1000,n=1000,seed=101 gaussian:m=1000,n=1000,seed=102 police:n=1000,layout=line,seed=103 police:n=1024,layout=grid,seed=104 rankone:m=1000,n=1000,seed=105 cyclic:n=1001 saddle:m=1000,n=800,seed=107 rankone:m=700,n=1100,sigma=0.01,seed=108 lowrank:m=900,n=600,rank=3,noise=0.05,seed=109 lowrank:m=900,n=600,rank=3,noise=0.03,seed=5 lowrank:m=1000,n=1000,rank=3,noise=0.05,seed=110 lowrank:m=600,n=1500,rank=2,noise=0.02,seed=111 lowrank:m=2000,n=1500,rank=5,noise=0.05,seed=112 np-lowrank:900,600,3,0.05,1 np-skew:1000,113 np-ternary:1500,700,114"}
field() { "$py" -c "import json,sys; o=json.load(sys.stdin); print($1)"; }
make_game() { # $1: game, $2: output .npy
	case $1 in
	np-*)
		"$py" - "$1" "$2" <<'EOF'
import sys
import numpy as np
kind, args = sys.argv[1].split(":")
a = args.split(",")
if kind == "np-lowrank":
    m, n, r, noise, seed = int(a[0]), int(a[1]), int(a[2]), float(a[3]), int(a[4])
    rng = np.random.default_rng(seed)
    u, v = rng.standard_normal((m, r)), rng.standard_normal((n, r))
    A = u @ v.T + noise * rng.standard_normal((m, n))
elif kind == "np-skew":
    n, seed = int(a[0]), int(a[1])
    b = np.random.default_rng(seed).standard_normal((n, n))
    A = b - b.T
elif kind == "np-ternary":
    m, n, seed = int(a[0]), int(a[1]), int(a[2])
    A = np.random.default_rng(seed).integers(-1, 2, (m, n)).astype(float)
elif kind == "np-sparse":
    m, n, d, seed = int(a[0]), int(a[1]), float(a[2]), int(a[3])
    rng = np.random.default_rng(seed)
    A = (rng.random((m, n)) < d) * rng.choice([-1.0, 1.0], (m, n))
elif kind == "np-cauchy":
    m, n, seed = int(a[0]), int(a[1]), int(a[2])
    A = np.clip(np.random.default_rng(seed).standard_cauchy((m, n)), -50, 50)
elif kind == "np-dice":
    m, n, k, seed = int(a[0]), int(a[1]), int(a[2]), int(a[3])
    A = np.random.default_rng(seed).integers(-k, k + 1, (m, n)).astype(float)
elif kind == "np-expdiff":
    n, seed = int(a[0]), int(a[1])
    rng = np.random.default_rng(seed)
    A = rng.exponential(1, (n, n)) - rng.exponential(1, (n, n))
elif kind == "np-toeplitz":
    n, f, noise, seed = int(a[0]), float(a[1]), float(a[2]), int(a[3])
    i = np.arange(n)
    A = np.cos(f * (i[:, None] - i[None, :])) + noise * np.random.default_rng(seed).standard_normal((n, n))
elif kind == "np-dup":
    m, n, seed = int(a[0]), int(a[1]), int(a[2])
    B = np.random.default_rng(seed).standard_normal((m, n))
    B = np.vstack([B, B[: m // 2]])
    A = np.hstack([B, B[:, : n // 3]])
elif kind == "np-block":
    n1, n2, seed = int(a[0]), int(a[1]), int(a[2])
    rng = np.random.default_rng(seed)
    A = np.block([[rng.standard_normal((n1, n1)), -np.ones((n1, n2))], [-np.ones((n2, n1)), rng.standard_normal((n2, n2))]])
elif kind == "np-blotto":
    s, t, f = int(a[0]), int(a[1]), int(a[2])
    def comps(n, k):  # the ways of writing n as k nonnegative parts
        return [[n]] if k == 1 else [[x] + c for x in range(n, -1, -1) for c in comps(n - x, k - 1)]
    X, Y = np.array(comps(s, f)), np.array(comps(t, f))
    A = np.sign(X[:, None, :] - Y[None, :, :]).sum(axis=2).astype(float)
else:
    sys.exit("unknown numpy game " + kind)
np.save(sys.argv[2], A)
EOF
		;;
	*) "$work/gpump" gen "$1" -o "$2" -q ;;
	esac
}
echo "| game | gpump default, 1e-9 | HiGHS ipm | HiGHS dual simplex | speed-up | gpump default, 1e-4 | gpump rm+, 1e-4 |"
echo "|---|---|---|---|---|---|---|"
for f in $games; do
	make_game "$f" "$work/a.npy"
	highs='"%.2f" % o["seconds"] if o.get("relative_gap", 1) <= 1e-9 else "— (%s)" % o.get("error", "rel. gap %.1e" % o.get("relative_gap", 1))'
	ipm=$("$py" scripts/peers.py "$work/a.npy" --highs-ipm | field "$highs")
	ds=$("$py" scripts/peers.py "$work/a.npy" --highs-ds | field "$highs")
	solve() { # $1: eps, then flags
		e=$1
		shift
		"$work/gpump" solve "$work/a.npy" --eps "$e" --threads "$threads" --json -q "$@" || true
	}
	solve 1e-9 >"$work/r9.json"
	auto9=$(field '("%.3f (%d; %d)" % (o["seconds"], o["matrix_passes"], o.get("subgame_solves", 0))) if o["status"] == "converged" else "— (%s at %.1e)" % (o["status"], o["relative_gap"])' <"$work/r9.json")
	speed=$("$py" - "$work/r9.json" "$ipm" "$ds" <<'EOF'
import json, sys
o = json.load(open(sys.argv[1]))
def s(x):
    try:
        return float(x.split()[0])
    except ValueError:
        return float("inf")
h = min(s(sys.argv[2]), s(sys.argv[3]))
ok = o["status"] == "converged" and h < float("inf")
print("%.1f×" % (h / max(o["seconds"], 1e-3)) if ok else "—")
EOF
)
	auto4=$(solve 1e-4 | field '("%.3f (%d; %d)" % (o["seconds"], o["matrix_passes"], o.get("subgame_solves", 0))) if o["status"] == "converged" else "— (%s at %.1e)" % (o["status"], o["relative_gap"])')
	rm4=$(solve 1e-4 --algo rm+ | field '("%.3f (%d)" % (o["seconds"], o["matrix_passes"])) if o["status"] == "converged" else "— (%s at %.1e)" % (o["status"], o["relative_gap"])')
	shape=$("$py" -c "import numpy as np; a=np.load('$work/a.npy', mmap_mode='r'); print('%d×%d' % a.shape)")
	echo "| $f ($shape) | $auto9 | $ipm | $ds | $speed | $auto4 | $rm4 |"
done
