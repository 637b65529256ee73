#!/usr/bin/env python3
"""Compares two torchir-run builds on the instructions a change touches, against the rest.

On a host whose caches and memory other tenants share, whole-model times move by 10-30 % from
one minute to the next, more than most kernel changes. But within one run every instruction
sees the same neighbours: the time of the instructions a change touches (the target) over the
time of the ones it does not (the control) stays put while the host drifts. This alternates
old and new `torchir-run --profile` processes on one program and compares that ratio's
distributions. Standard library only.

  scripts/ab_profile.py OLD_RUN NEW_RUN PROGRAM.pte (--nodes N | --match REGEX)
      [--threads T] [--rounds R] [--iterations I]

The target: instructions whose profile row says "(N nodes)" (--nodes 3: resnet50's fused
1x1 + residual add + relu delegates) or whose name matches REGEX (--match 'native_delegate_(2|6)$').
Prints each build's target / control per round, the medians' B / A and the per-round B / A.

Example (old build copied aside first):
  scripts/ab_profile.py /tmp/torchir-run-old build/bin/torchir-run \\
      build/bench/resnet50/torchir_native.pte --nodes 3 --rounds 8 --iterations 6
"""
import argparse
import re
import statistics
import subprocess
import sys

from ab_rounds import alternate

ROW = re.compile(r"\d+\s+\S+\s+(\S+)\s+(?:\((\d+) nodes\)\s+)?([\d.]+) ms")


def target_over_control(binary, args):
    """One fresh process's profile: target time / control time."""
    result = subprocess.run(
        [binary, args.program, "--threads", str(args.threads), "--iterations",
         str(args.iterations), "--warmup", "2", "--profile"],
        capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"ab_profile: {binary} failed (exit {result.returncode}): "
                 f"{result.stderr.strip().splitlines()[-1:] or ''}")
    target = control = 0.0
    for line in result.stdout.splitlines():
        row = ROW.match(line)
        if not row:
            continue
        name, nodes, ms = row.group(1), row.group(2), float(row.group(3))
        hit = (args.nodes is not None and nodes == str(args.nodes)) or (
            args.match is not None and re.search(args.match, name))
        if hit:
            target += ms
        else:
            control += ms
    if target == 0.0 or control == 0.0:
        sys.exit(f"ab_profile: no {'target' if target == 0.0 else 'control'} instructions in "
                 f"{binary}'s profile of {args.program}")
    return target / control


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old", help="the A torchir-run")
    parser.add_argument("new", help="the B torchir-run")
    parser.add_argument("program", help="the .pte both run")
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--nodes", type=int, help="target: instructions of this many nodes")
    which.add_argument("--match", help="target: instructions whose name matches this regex")
    parser.add_argument("--threads", type=int, default=1, help="--threads (default 1)")
    parser.add_argument("--rounds", type=int, default=8, help="A-B rounds (default 8)")
    parser.add_argument("--iterations", type=int, default=10,
                        help="torchir-run --iterations per process (default 10)")
    args = parser.parse_args()
    ratios = alternate("ab_profile", args.old, args.new, args.rounds,
                       lambda binary: target_over_control(binary, args))
    for tag in "AB":
        print(f"{tag} target / control: " + " ".join(f"{r:.3f}" for r in ratios[tag]))
    per_round = sorted(b / a for a, b in zip(ratios["A"], ratios["B"]))
    a, b = statistics.median(ratios["A"]), statistics.median(ratios["B"])
    print(f"target / control: A {a:.4f}, B {b:.4f}; B / A {b / a:.3f}, per round "
          f"{statistics.median(per_round):.3f} [{per_round[0]:.3f}-{per_round[-1]:.3f}]")


if __name__ == "__main__":
    main()
