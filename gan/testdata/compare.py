#!/usr/bin/python3
"""The README's comparison of gpump gan's variants, seed after seed.

    /usr/bin/python3 gan/testdata/compare.py GPUMP DATA SEEDS [EXTRA...]
    VARIANTS=bd /usr/bin/python3 gan/testdata/compare.py ...   (some only)

runs, for each seed 1..SEEDS, on the built-in data set DATA (ring8 or
grid25), with the defaults and any EXTRA flags shared by all:
  (a) pure: the pure-strategy GAN, -K 1 -J 1 (its steps alternate);
  (b) GA-UMP: the mixed game, solved by the default method;
  (c) uniform: the same particles with uniform weights, no game solved;
  (d) rm+: the mixed game solved by --algo rm+.
Each variant takes the same gradient steps per particle per round. The
variants of one seed run one after the other (a, b, c, d), so that load
from other work on a shared machine falls on all of them alike. It prints
one line per run and then the table: mean ± half the range (min-max) of
modes covered, high-quality fraction, MMD² and wall seconds.
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


def main():
    gpump, data, seeds, extra = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
    pick = os.environ.get("VARIANTS", "abcd")
    variants = [v for v in VARIANTS if v[0][1] in pick]
    rows = {name: [] for name, _ in variants}
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(1, seeds + 1):
            for name, flags in variants:
                out = f"{tmp}/r.json"
                cmd = [gpump, "gan", "--data", data, "--seed", str(seed), "--quiet", "-o", out] + flags + extra
                subprocess.run(cmd, check=True)
                with open(out) as f:
                    r = json.load(f)
                rows[name].append((r["modes_covered"], r["high_quality_fraction"], r["mmd2"], r["seconds"]))
                print(f"{data} seed {seed} {name}: modes {r['modes_covered']}/{r['modes_total']}, "
                      f"high quality {r['high_quality_fraction']:.3f}, MMD² {r['mmd2']:.2e}, {r['seconds']:.0f} s", flush=True)
    print()
    print(f"| {data}, {seeds} seeds | modes | high quality | MMD² | seconds |")
    print("|---|---|---|---|---|")
    for name, _ in variants:
        cols = list(zip(*rows[name]))
        cell = []
        for i, fmt in enumerate(["{:.1f}", "{:.3f}", "{:.1e}", "{:.0f}"]):
            v = cols[i]
            m, h = sum(v) / len(v), (max(v) - min(v)) / 2
            cell.append(f"{fmt.format(m)} ± {fmt.format(h)} ({fmt.format(min(v))}–{fmt.format(max(v))})")
        print(f"| {name} | " + " | ".join(cell) + " |")


if __name__ == "__main__":
    main()
