#!/usr/bin/env python3
"""The model suite's multi-threaded rows, split by where the host had put the two vCPUs.

On a shared VM the host moves the two vCPUs between cores that share an L3 (a cache line's round
trip between them takes 50-90 ns here) and cores that do not (290-350 ns), for seconds to
minutes at a time. Every 2-thread row runs 1.1-1.6 times slower in the second placement,
PyTorch's too, so a median over repetitions that fell in both compares
different machines. torchir_model_benchmark records the round trip before and after each
multi-threaded repetition (counters round_trip_start_ns, round_trip_end_ns); this prints, per
model and placement, each torchir variant's median against the fastest PyTorch path's median of
the same placement. A repetition whose two round trips straddle the threshold is left out.

    scripts/bench_modes.py [build/bench/results.json] [--threshold-ns 200]
"""

import argparse
import collections
import json
import statistics
import sys

TORCHIR_VARIANTS = ("torchir_native", "torchir_xnnpack")
UNIT_TO_MS = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}


def placement(entry, threshold_ns):
    """'near', 'far', or None (not measured, or the placement changed during the repetition)."""
    start = entry.get("round_trip_start_ns")
    end = entry.get("round_trip_end_ns")
    if not start or not end:
        return None
    if start < threshold_ns and end < threshold_ns:
        return "near"
    if start >= threshold_ns and end >= threshold_ns:
        return "far"
    return None


def collect(benchmarks, threshold_ns):
    """{(model, threads): {placement: {variant: [ms, ...]}}} and per-placement round trips."""
    times = collections.defaultdict(lambda: collections.defaultdict(lambda: collections.defaultdict(list)))
    round_trips = collections.defaultdict(list)
    unclassified = 0
    for entry in benchmarks:
        if entry.get("run_type") != "iteration" or entry.get("error_occurred"):
            continue
        parts = entry["name"].split("/")
        if len(parts) < 3 or not parts[2].startswith("threads:"):
            continue
        model, variant, threads = parts[0], parts[1], int(parts[2].split(":")[1])
        if threads < 2:
            continue
        where = placement(entry, threshold_ns)
        if where is None:
            unclassified += 1
            continue
        times[(model, threads)][where][variant].append(entry["real_time"] * UNIT_TO_MS[entry["time_unit"]])
        round_trips[where] += [entry["round_trip_start_ns"], entry["round_trip_end_ns"]]
    return times, round_trips, unclassified


def fastest_pytorch(variants):
    best = None
    for variant, samples in variants.items():
        if variant.startswith("torchir_"):
            continue
        median = statistics.median(samples)
        if best is None or median < best[1]:
            best = (variant, median, len(samples))
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", nargs="?", default="build/bench/results.json",
                        help="torchir_model_benchmark's --benchmark_out JSON (default: %(default)s)")
    parser.add_argument("--threshold-ns", type=float, default=200.0,
                        help="round trips below this are 'near' (cores sharing an L3), at or above 'far' "
                             "(default: %(default)s)")
    args = parser.parse_args()
    try:
        with open(args.results) as f:
            benchmarks = json.load(f)["benchmarks"]
    except (OSError, ValueError, KeyError) as error:
        sys.exit(f"bench_modes: {args.results}: {error}")

    times, round_trips, unclassified = collect(benchmarks, args.threshold_ns)
    if not times:
        print("bench_modes: no multi-threaded repetition with its round trips recorded in "
              f"{args.results} ({unclassified} straddled the threshold or were not measured)")
        return
    print("### Multi-threaded rows by the vCPUs' placement (scripts/bench_modes.py)\n")
    for where in ("near", "far"):
        if round_trips[where]:
            print(f"- {where}: round trips {min(round_trips[where]):.0f}-{max(round_trips[where]):.0f} ns")
    print(f"- repetitions left out (placement changed during them, or not measured): {unclassified}\n")
    header = "| model | threads | placement | fastest PyTorch (reps) |"
    rule = "|---|---:|---|---|"
    for variant in TORCHIR_VARIANTS:
        header += f" {variant} (reps) | ratio |"
        rule += "---|---:|"
    print(header)
    print(rule)
    for (model, threads) in sorted(times):
        for where in ("near", "far"):
            variants = times[(model, threads)].get(where)
            if not variants:
                continue
            best = fastest_pytorch(variants)
            row = f"| {model} | {threads} | {where} | "
            row += f"{best[0]} {best[1]:.2f} ms ({best[2]}) |" if best else "- |"
            for variant in TORCHIR_VARIANTS:
                samples = variants.get(variant)
                if not samples:
                    row += " - | - |"
                    continue
                median = statistics.median(samples)
                ratio = f"{median / best[1]:.2f}x" if best else "-"
                row += f" {median:.2f} ms ({len(samples)}) | {ratio} |"
            print(row)


if __name__ == "__main__":
    main()
