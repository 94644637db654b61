#!/usr/bin/env bash
# The sharded solve against one process, side by side in one run: a 6000²
# float64 uniform game to a relative gap of 1e-4 (Auto), `mpirun -np 2`
# with one thread per rank against one process with two threads, each
# three times, interleaved so that both see the same machine. Each line
# gives the time per iteration and per pass, the certificate, and per rank
# the peak memory (VmHWM) against its block of rows and the time spent
# communicating. Needs Open MPI (apt-get install openmpi-bin
# libopenmpi-dev).
#
#   scripts/bench_mpi.sh [extra shardbench flags]
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
CC=mpicc go build -tags mpi -o "$work/shardbench" ./internal/shardbench
for rep in 1 2 3; do
	echo "--- run $rep"
	GOMAXPROCS=1 mpirun --allow-run-as-root -np 2 -x GOMAXPROCS \
		"$work/shardbench" -threads 1 "$@"
	GOMAXPROCS=2 "$work/shardbench" -whole -threads 2 "$@"
done
