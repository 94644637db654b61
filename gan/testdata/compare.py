#!/usr/bin/python3
"""The README's comparison of gpump gan's variants, seed after seed.

    /usr/bin/python3 gan/testdata/compare.py GPUMP DATA SEEDS [EXTRA...]
    VARIANTS=bd /usr/bin/python3 gan/testdata/compare.py ...   (some only)
    SEEDS=3,4,5 ROWS=rows.jsonl /usr/bin/python3 gan/testdata/compare.py ...
    /usr/bin/python3 gan/testdata/compare.py --table rows.jsonl [more.jsonl...]

runs, for each seed 1..SEEDS (or the seeds listed in $SEEDS), on the
built-in data set DATA (ring8 or grid25), with the defaults and any EXTRA
flags shared by all:
  (a) pure: the pure-strategy GAN, -K 1 -J 1 (its steps alternate);
  (b) GA-UMP: the mixed game, solved by the default method;
  (c) uniform: the same particles with uniform weights, no game solved;
  (d) rm+: the mixed game solved by --algo rm+.
Each variant takes the same gradient steps per particle per round. The
variants of one seed run one after the other (a, b, c, d), so that load
from other work on a shared machine falls on all of them alike. It prints
one line per run and then the table: mean ± half the range (min-max) of
modes covered, high-quality fraction, MMD² and wall seconds. With $ROWS
each run is also appended to that file as a JSON line, and --table prints
the table of the runs in such files (several processes can then share the
seeds of one table).
"""
import json
import os
import subprocess
import sys
import tempfile

VARIANTS = [
    ("(a) pure GAN, K = J = 1", ["-K", "1", "-J", "1"]),
    ("(b) mixed game, GA-UMP", []),
    ("(c) same particles, uniform weights", ["--uniform"]),
    ("(d) mixed game, rm+", ["--algo", "rm+"]),
]


def table(data, rows):
    seeds = sorted({r["seed"] for r in rows})
    print(f"| {data}, seeds {','.join(map(str, seeds))} | modes | high quality | MMD² | seconds |")
    print("|---|---|---|---|---|")
    for name, _ in VARIANTS:
        mine = [r for r in rows if r["variant"] == name]
        if not mine:
            continue
        cell = []
        for key, fmt in [("modes", "{:.1f}"), ("hq", "{:.3f}"), ("mmd2", "{:.1e}"), ("seconds", "{:.0f}")]:
            v = [r[key] for r in mine]
            m, h = sum(v) / len(v), (max(v) - min(v)) / 2
            cell.append(f"{fmt.format(m)} ± {fmt.format(h)} ({fmt.format(min(v))}–{fmt.format(max(v))})")
        print(f"| {name} | " + " | ".join(cell) + " |")


def main():
    if sys.argv[1] == "--table":
        rows = []
        for path in sys.argv[2:]:
            with open(path) as f:
                rows += [json.loads(line) for line in f if line.strip()]
        for data in sorted({r["data"] for r in rows}):
            table(data, [r for r in rows if r["data"] == data])
            print()
        return
    gpump, data, seeds, extra = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
    pick = os.environ.get("VARIANTS", "abcd")
    variants = [v for v in VARIANTS if v[0][1] in pick]
    seed_list = [int(s) for s in os.environ["SEEDS"].split(",")] if os.environ.get("SEEDS") else range(1, seeds + 1)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for seed in seed_list:
            for name, flags in variants:
                out = f"{tmp}/r.json"
                cmd = [gpump, "gan", "--data", data, "--seed", str(seed), "--quiet", "-o", out] + flags + extra
                subprocess.run(cmd, check=True)
                with open(out) as f:
                    r = json.load(f)
                row = {"data": data, "seed": seed, "variant": name, "modes": r["modes_covered"],
                       "hq": r["high_quality_fraction"], "mmd2": r["mmd2"], "seconds": r["seconds"]}
                rows.append(row)
                if os.environ.get("ROWS"):
                    with open(os.environ["ROWS"], "a") as f:
                        f.write(json.dumps(row) + "\n")
                print(f"{data} seed {seed} {name}: modes {r['modes_covered']}/{r['modes_total']}, "
                      f"high quality {r['high_quality_fraction']:.3f}, MMD² {r['mmd2']:.2e}, {r['seconds']:.0f} s", flush=True)
    print()
    table(data, rows)


if __name__ == "__main__":
    main()
