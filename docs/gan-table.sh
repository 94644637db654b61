#!/bin/sh
# The comparison table of docs/gan-results.md: every method on every data
# set, seed after seed, under the published protocol (2,500 generated
# samples; a sample is of high quality within 3 standard deviations of its
# nearest mode; a mode is hit by one high-quality sample, covered by a
# quarter of its share).
#
#   go build -o gpump ./cmd/gpump
#   docs/gan-table.sh ./gpump                  # everything: 4 sets × 4 methods × 10 seeds
#   SETS="ring8u" SEEDS="1 2 3" docs/gan-table.sh ./gpump
#   METHODS=ga-ump EXTRA="--split-every 100" docs/gan-table.sh ./gpump
#   ROWS=rows.jsonl docs/gan-table.sh ./gpump  # keep (and append to) the runs' rows
#   docs/gan-table.sh --table rows.jsonl       # the table of rows already run
#
# Methods, each with the defaults otherwise: the pure GAN (-K 1 -J 1), the
# mixed game solved by GA-UMP (the default), by rm+ (--algo rm+), and the
# same particles with uniform weights (--uniform). The methods of one seed
# run one after the other, so that load from other work on a shared machine
# falls on all of them alike. EXTRA holds flags for every run, METHODS the
# methods to run (default: all four).
set -eu

if [ "${1:-}" != "--table" ]; then
	gpump=${1:?usage: docs/gan-table.sh GPUMP | --table ROWS...}
	rows=${ROWS:-$(mktemp)}
	out=$(mktemp)
	for set in ${SETS:-ring8 ring8u grid25 grid25u}; do
		for seed in ${SEEDS:-1 2 3 4 5 6 7 8 9 10}; do
			for method in ${METHODS:-pure ga-ump rm+ uniform}; do
				case $method in
				pure) flags="-K 1 -J 1" ;;
				ga-ump) flags="" ;;
				rm+) flags="--algo rm+" ;;
				uniform) flags="--uniform" ;;
				esac
				# shellcheck disable=SC2086 # flags are words
				"$gpump" gan --data "$set" --seed "$seed" --num-samples 2500 --quiet -o "$out" $flags ${EXTRA:-}
				/usr/bin/python3 - "$out" "$set" "$seed" "$method" >>"$rows" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
nan = float("nan")
print(json.dumps({"data": sys.argv[2], "seed": int(sys.argv[3]), "method": sys.argv[4],
    "hit": r["modes_hit"], "covered": r["modes_covered"], "modes": r["modes_total"],
    "hq": r["high_quality_fraction"], "tv": r.get("mode_tv", nan), "rkl": r.get("mode_reverse_kl", nan),
    "seconds": r["seconds"]}))
EOF
				tail -n 1 "$rows" >&2
			done
		done
	done
	set -- --table "$rows"
fi
shift
exec /usr/bin/python3 - "$@" <<'EOF'
import json, math, sys

rows = [json.loads(l) for p in sys.argv[1:] for l in open(p) if l.strip()]
# The published rows (theirs, not run here): PacGAN (Lin et al. 2018) and
# the papers it compares, under the same protocol, 10 trials.
theirs = {
    "ring8": [("PacGAN3 (theirs)", "7.8", "0.977", ""), ("PacGAN4 (theirs)", "7.8", "0.959", ""), ("VEEGAN (theirs)", "8.0", "0.529", "")],
    "grid25": [("PacGAN4 (theirs)", "24.8", "0.936", "0.04"), ("ALI (theirs)", "24.1", "0.957", ""), ("GDPP (theirs)", "24.8", "0.685", "")],
}
names = {"pure": "pure GAN, K = J = 1", "ga-ump": "mixed game, GA-UMP", "rm+": "mixed game, rm+", "uniform": "same particles, uniform weights"}


def cell(v, fmt):
    v = [x for x in v if not math.isnan(x)]
    if not v:
        return "–"
    return f"{fmt.format(sum(v) / len(v))} ({fmt.format(min(v))}–{fmt.format(max(v))})"


for data in dict.fromkeys(r["data"] for r in rows):
    mine = [r for r in rows if r["data"] == data]
    seeds = sorted({r["seed"] for r in mine})
    print(f"| {data}, seeds {','.join(map(str, seeds))}: mean (min–max) | modes hit | modes covered | high quality | mode TV | reverse KL | seconds |")
    print("|---|---|---|---|---|---|---|")
    for m, name in names.items():
        rs = [r for r in mine if r["method"] == m]
        if not rs:
            continue
        print(f"| {name} ({len(rs)} seeds) | " + " | ".join([
            cell([r["hit"] for r in rs], "{:.1f}"), cell([r["covered"] for r in rs], "{:.1f}"),
            cell([r["hq"] for r in rs], "{:.3f}"), cell([r["tv"] for r in rs], "{:.3f}"),
            cell([r["rkl"] for r in rs], "{:.3f}"), cell([r["seconds"] for r in rs], "{:.0f}")]) + " |")
    for name, hit, hq, rkl in theirs.get(data, []):
        print(f"| {name} | {hit} | | {hq} | | {rkl} | |")
    print()
EOF
