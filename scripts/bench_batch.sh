#!/bin/sh
# The batch table of docs/batch.md: gpump batch on a 3-D array of B games
# against scipy's HiGHS (dual simplex, one game after another), numpy
# batched RM+ (every game in one np.matmul, converged games leaving the
# batch) and gpump's one-file-per-game path, in one run, per shape.
#
#   scripts/bench_batch.sh [rows, default "64:4000:1e-6 512:100:1e-4 16:10000:1e-9"]
#
# Each row is SIZE:GAMES:TOLERANCE: GAMES uniform SIZE×SIZE games (entries
# in [-1, 1), seeds 1001...), solved to that relative gap. Every figure is
# wall time over the whole batch (gpump's includes reading the file and
# writing the results), and every peer's strategies are certified the same
# way (scripts/batch_peers.py). The same games are then written a file per
# game, and gpump batch DIR is timed as it runs by default (small
# same-shape files read and solved as batches) and with --batch-size 1
# --jobs 2 (a solve per file, as before batches). numpy RM+ stops at 20 000 iterations
# (games it leaves above the tolerance are counted) and is not run below
# 1e-6, where it would run for hours. Needs Go, and /usr/bin/python3 with
# numpy and scipy.
set -e
rows=${1:-64:4000:1e-6 512:100:1e-4 16:10000:1e-9}
py=${PYTHON:-/usr/bin/python3}
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/gpump" ./cmd/gpump
now() { date +%s.%N; }
field() { "$py" -c "import json,sys; o=json.loads(sys.stdin.readline()); print($1)"; }
echo "| games | tolerance | gpump batch, a 3-D array | HiGHS dual simplex, one by one | numpy batched RM+ | gpump batch DIR, a file per game | the same, --batch-size 1 |"
echo "|---|---|---|---|---|---|---|"
for row in $rows; do
	n=${row%%:*}; rest=${row#*:}; b=${rest%%:*}; e=${rest#*:}
	"$work/gpump" gen uniform --m "$n" --n "$n" --seed 1001 --count "$b" -o "$work/g.npy" -q
	t0=$(now)
	"$work/gpump" batch "$work/g.npy" --eps "$e" -o "$work/r.jsonl" --strategies "$work/s.npz" -q || true
	t1=$(now)
	worst=$("$py" scripts/batch_peers.py "$work/g.npy" --certify "$work/s.npz" | field '"%.1e" % o["worst_relative_gap"]')
	gp=$(awk "BEGIN{t=$t1-$t0; printf \"%.2f s, %.0f games/s (worst %s)\", t, $b/t, \"$worst\"}")
	hi=$("$py" scripts/batch_peers.py "$work/g.npy" --eps "$e" --highs |
		field '"%.2f s, %.0f games/s (worst %.1e)" % (o["seconds"], o["games_per_second"], o["worst_relative_gap"])')
	rm="not run"
	if awk "BEGIN{exit !($e >= 1e-6)}"; then
		rm=$("$py" scripts/batch_peers.py "$work/g.npy" --eps "$e" --rmplus --max-iter 20000 |
			field '"%.2f s, %.0f games/s (%d above tolerance)" % (o["seconds"], o["games_per_second"], o["unconverged"])')
	fi
	mkdir -p "$work/files"
	rm -f "$work/files"/*
	"$py" scripts/batch_peers.py "$work/g.npy" --split "$work/files"
	t0=$(now)
	"$work/gpump" batch "$work/files" --eps "$e" -o "$work/f.jsonl" -q || true
	t1=$(now)
	gf=$(awk "BEGIN{t=$t1-$t0; printf \"%.2f s, %.0f games/s\", t, $b/t}")
	t0=$(now)
	"$work/gpump" batch "$work/files" --eps "$e" --batch-size 1 --jobs 2 -o "$work/f.jsonl" -q || true
	t1=$(now)
	pf=$(awk "BEGIN{t=$t1-$t0; printf \"%.2f s, %.0f games/s\", t, $b/t}")
	echo "| $b × ${n}² | $e | $gp | $hi | $rm | $gf | $pf |"
done
