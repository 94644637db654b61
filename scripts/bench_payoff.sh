#!/usr/bin/env bash
# The payoff table of docs/gan.md: gan's payoff evaluation (BenchmarkPayoff) and
# NumPy's float32 products of the same shapes (gan/testdata/payoff_numpy.py),
# alternating, ROUNDS rounds, with two threads on both sides and then one.
#
#   scripts/bench_payoff.sh [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
bin=$(mktemp)
trap 'rm -f "$bin"' EXIT
go test -c -o "$bin" ./gan
numpy() { /usr/bin/python3 gan/testdata/payoff_numpy.py 8 8 256 32; /usr/bin/python3 gan/testdata/payoff_numpy.py 16 16 512 128; }
for r in $(seq "$rounds"); do
	echo "== round $r: $(uptime)"
	"$bin" -test.run XXX -test.bench Payoff -test.benchtime 2s -test.cpu 2 | grep Bench
	numpy
	"$bin" -test.run XXX -test.bench Payoff -test.benchtime 2s -test.cpu 1 | grep Bench
	OPENBLAS_NUM_THREADS=1 numpy
done
echo "== end: $(uptime)"
