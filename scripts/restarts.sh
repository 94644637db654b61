#!/bin/sh
# The restart table of docs/auto.md: passes over A to relative gap 1e-4 of
# each method with and without gap-based restarts (at most 30 000
# iterations), on seeded games the tests do not use. Passes do not depend
# on the machine's load.
#
#   scripts/restarts.sh [size, default 2000]
set -e
n=${1:-2000}
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/gpump" ./cmd/gpump
side=$(awk "BEGIN{s=int(sqrt($n)); print s}")
games="uniform:m=$n,n=$n,seed=1 gaussian:m=$n,n=$n,seed=102 police:n=$n,layout=line,seed=103 police:n=$((side * side)),layout=grid,seed=104"
methods="rm+|rm+ --restart-factor 0.5|rm+ --averaging quadratic|auto --polish off|prm+|ga-stochastic|ga-stochastic --restart-factor 0.2|ga-stochastic --setup euclidean|ga-stochastic --setup euclidean --restart-factor 0.2|ga-smooth --setup euclidean --restart-factor 0.2"
printf "| method |"
for g in $games; do printf " %s |" "$g"; done
printf "\n|---|"
for g in $games; do printf -- "---|"; done
echo
echo "$methods" | tr '|' '\n' | while read -r m; do
	printf "| \`%s\` |" "$m"
	for g in $games; do
		# shellcheck disable=SC2086
		c=$("$work/gpump" solve --gen "$g" --eps 1e-4 --max-iter 30000 --algo $m --json -q |
			/usr/bin/python3 -c 'import json,sys; o=json.load(sys.stdin); print(o["matrix_passes"] if o["status"] == "converged" else "— (%.1e)" % o["relative_gap"])')
		printf " %s |" "$c"
	done
	echo
done
