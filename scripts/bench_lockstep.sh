#!/bin/sh
# The lockstep table of docs/batch.md: for each shape, gpump bench --games on
# this machine's CPU with the per-core workers and in lockstep (the path a
# GPU runs: one batched call per operation for the running games), in one
# run, and from the lockstep run the counts a GPU prediction needs: the
# batched calls (each one launch on a device, plus a copy of its per-game
# scalars), the bytes the passes read (every pass of every game reads its
# matrix once; finished games read nothing), and the host's share (the
# games' step logic, the exact polish and the dispatch, which a GPU does
# not take over).
#
#   scripts/bench_lockstep.sh [rows, default "64:4000:1e-6 512:100:1e-4 16:10000:1e-9"]
#
# The prediction for an H100 SXM (on paper: no GPU has run this) is
#   host share + calls × 10 µs + bytes / 3.35 TB/s
# with 10 µs for a launch and the copy of its scalars (about 3 µs of launch
# and a few of copy latency, as if nothing overlapped), and the bytes read once from HBM
# at its peak (the vectors' traffic left out, as is the L2's help on
# batches that fit it). Needs Go.
set -e
rows=${1:-64:4000:1e-6 512:100:1e-4 16:10000:1e-9}
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/gpump" ./cmd/gpump
echo "| games | tolerance | workers (measured) | lockstep on the CPU (measured) | batched calls (passes), rounds | bytes of the passes | host share in lockstep: games' code (core-s), dispatch (s) | predicted on an H100 |"
echo "|---|---|---|---|---|---|---|---|"
for row in $rows; do
	n=${row%%:*}; rest=${row#*:}; b=${rest%%:*}; e=${rest#*:}
	# One line per JSON object, for awk.
	"$work/gpump" bench --games "$b" --m "$n" --n "$n" --eps "$e" --seed 1001 --json | tr -d '\n ' >"$work/w.json"
	echo >>"$work/w.json"
	"$work/gpump" bench --games "$b" --m "$n" --n "$n" --eps "$e" --seed 1001 --json --lockstep | tr -d '\n ' >"$work/l.json"
	echo >>"$work/l.json"
	awk -v b="$b" -v n="$n" -v e="$e" '
		function get(s, k,   r) { r = s; sub(".*\"" k "\":", "", r); sub("[,}].*", "", r); return r + 0 }
		FNR == 1 && NR == 1 { w = $0; next }
		{ l = $0 }
		END {
			ws = get(w, "seconds"); ls = get(l, "seconds")
			calls = get(l, "batched_calls"); passes = get(l, "batched_passes"); host = get(l, "host_seconds")
			rounds = get(l, "rounds"); game = get(l, "game_core_seconds"); disp = get(l, "dispatch_seconds")
			bytes = get(l, "mean_matrix_passes") * b * n * n * 8
			pred = host + calls * 10e-6 + bytes / 3.35e12
			printf "| %d × %d² | %s | %.2f s, %.0f games/s | %.2f s, %.0f games/s | %d (%d), %d | %.1f GB | %.2f s: %.2f, %.2f | %.2f s (%.2f s + %.2f s + %.3f s), %.0f games/s |\n",
				b, n, e, ws, b / ws, ls, b / ls, calls, passes, rounds, bytes / 1e9, host, game, disp, pred, host, calls * 10e-6, bytes / 3.35e12, b / pred
		}' "$work/w.json" "$work/l.json"
done
