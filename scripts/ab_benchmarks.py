#!/usr/bin/env python3
"""Compares two builds of a Google Benchmark suite the way the shared host needs.

Rounds of A then B, alternated, each a fresh process running every benchmark the filter
selects, so drift and other processes' load fall on both alike. Prints, per benchmark, the
median real time of A and of B over the rounds and the B / A ratio of each round: its median
and range, and the ratio of the fastest rounds (B's minimum over A's: other tenants only ever
add time, so on a host whose memory is shared the minima are the steadier estimate when the
rounds' ratios spread wide). Standard library only.

  scripts/ab_benchmarks.py OLD_BINARY NEW_BINARY --filter REGEX [--rounds 5] [--min-time 0.1]

Example (a kernel change, old build copied aside first):
  scripts/ab_benchmarks.py /tmp/conv_old build/bin/torchir_native_convolution_benchmark \\
      --filter 'Native/regnet_x_400mf_1x1_7_400to400(/cold)?$'
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

from ab_rounds import alternate


def run(binary, pattern, min_time):
    """Real time (ns) per benchmark name of one process of `binary`."""
    with tempfile.TemporaryDirectory() as directory:
        out = os.path.join(directory, "out.json")
        result = subprocess.run(
            [binary, f"--benchmark_filter={pattern}", f"--benchmark_min_time={min_time}",
             f"--benchmark_out={out}", "--benchmark_out_format=json"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if result.returncode != 0 or not os.path.exists(out):
            sys.exit(f"ab_benchmarks: {binary} failed (exit {result.returncode}): "
                     f"{result.stderr.strip().splitlines()[-1:] or ''}")
        with open(out) as f:
            benchmarks = json.load(f)["benchmarks"]
    return {b["name"]: b["real_time"] for b in benchmarks if "error_occurred" not in b}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old", help="the A binary")
    parser.add_argument("new", help="the B binary")
    parser.add_argument("--filter", required=True, help="--benchmark_filter for both")
    parser.add_argument("--rounds", type=int, default=5, help="A-B rounds (default 5)")
    parser.add_argument("--min-time", type=float, default=0.1,
                        help="--benchmark_min_time per benchmark (default 0.1 s)")
    args = parser.parse_args()
    runs = alternate("ab_benchmarks", args.old, args.new, args.rounds,
                     lambda binary: run(binary, args.filter, args.min_time))
    times = {}
    for tag in "AB":
        for one_run in runs[tag]:
            for name, time in one_run.items():
                times.setdefault(name, {"A": [], "B": []})[tag].append(time)
    if not times:
        sys.exit(f"ab_benchmarks: no benchmark matches {args.filter!r}")
    width = max(len(name) for name in times)
    for name, t in times.items():
        if len(t["A"]) != len(t["B"]):
            print(f"{name:{width}}  (ran in only one of the builds)")
            continue
        ratios = [b / a for a, b in zip(t["A"], t["B"])]
        print(f"{name:{width}}  A {statistics.median(t['A']):11.0f} ns  "
              f"B {statistics.median(t['B']):11.0f} ns  B / A {statistics.median(ratios):.3f} "
              f"[{min(ratios):.3f}-{max(ratios):.3f}], fastest {min(t['B']) / min(t['A']):.3f}")


if __name__ == "__main__":
    main()
