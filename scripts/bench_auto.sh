#!/bin/sh
# The fast-solve table of docs/auto.md: gpump's default route (auto), --algo
# rm+, numpy RM+ and scipy's HiGHS (interior point and dual simplex) on the
# same matrices, in one run, for each family and tolerance.
#
#   scripts/bench_auto.sh [size, default 1000] [tolerances, default "1e-4 1e-6 1e-9"]
#
# Needs Go, and /usr/bin/python3 with numpy and scipy (Debian:
# apt-get install python3-numpy python3-scipy). Prints a markdown table:
# seconds (passes over A; subgame solves) per cell, "—" where a method did
# not reach the tolerance within its limit (RM+: 200 000 iterations). HiGHS
# solves each matrix once, exactly; its time is given in every row. The
# games use seeds the tests do not.
set -e
n=${1:-1000}
tols=${2:-1e-4 1e-6 1e-9}
py=${PYTHON:-/usr/bin/python3}
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/gpump" ./cmd/gpump
side=$(awk "BEGIN{s=int(sqrt($n)); print s}")
grid=$((side * side))
families="uniform:m=$n,n=$n,seed=101 gaussian:m=$n,n=$n,seed=102 police:n=$n,layout=line,seed=103 police:n=$grid,layout=grid,seed=104 rankone:m=$n,n=$n,seed=105 cyclic:n=$((n / 2 * 2 + 1))"
field() { "$py" -c "import json,sys; o=json.load(sys.stdin); print($1)"; }
echo "| game | tolerance | gpump default (auto) | gpump rm+ | numpy RM+ | HiGHS ipm | HiGHS dual simplex |"
echo "|---|---|---|---|---|---|---|"
for f in $families; do
	"$work/gpump" gen "$f" -o "$work/a.npy" -q
	ipm=$("$py" scripts/peers.py "$work/a.npy" --highs-ipm | field '"%.2f s" % o["seconds"] if o["relative_gap"] < 1e-9 else "%.2f s (rel. gap %.1e)" % (o["seconds"], o["relative_gap"])')
	ds=$("$py" scripts/peers.py "$work/a.npy" --highs-ds | field '"%.2f s" % o["seconds"] if o["relative_gap"] < 1e-9 else "%.2f s (rel. gap %.1e)" % (o["seconds"], o["relative_gap"])')
	for e in $tols; do
		auto=$("$work/gpump" solve "$work/a.npy" --eps "$e" --max-iter 200000 --json -q |
			field '("%.2f s (%d; %d)" % (o["seconds"], o["matrix_passes"], o.get("subgame_solves", 0))) if o["status"] == "converged" else "— (%s at %.1e)" % (o["status"], o["relative_gap"])')
		rm=$("$work/gpump" solve "$work/a.npy" --algo rm+ --eps "$e" --max-iter 200000 --json -q |
			field '("%.2f s (%d)" % (o["seconds"], o["matrix_passes"])) if o["status"] == "converged" else "— (%.1e)" % o["relative_gap"]')
		np="—"
		if [ "$e" = "1e-4" ]; then
			np=$("$py" scripts/peers.py "$work/a.npy" --rmplus --eps "$e" --max-iter 200000 |
				field '"%.2f s (%d)" % (o["seconds"], o["passes"]) if o["relative_gap"] <= '"$e"' else "— (%.1e)" % o["relative_gap"]')
		fi
		echo "| $f | $e | $auto | $rm | $np | $ipm | $ds |"
	done
done
