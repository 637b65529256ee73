#!/usr/bin/env python3
"""Prints the per-model memory-planning table of docs/memory-planning.md.

    scripts/memory_table.py [BUILD_DIR] [--all]

Runs `torchir-compile --weights W --memory-report` (which plans the optimised
Edge graph) on every zoo export in BUILD_DIR/zoo
(written by the zoo_generate CTest test) and prints one markdown row per model
and flavour: lower bound, naive total, chosen plan, ratio and planning time.
Without --all only the networks (not the op-level graphs) are listed.
"""
import os
import re
import subprocess
import sys

NETWORKS = {"resnet18", "mobilenet_v2", "mobilenet_v3_large", "tiny_vit", "tiny_gpt", "text_cnn"}


def mib(value):
    return f"{int(value) / (1 << 20):.2f}"


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    build = args[0] if args else "build"
    everything = "--all" in sys.argv
    zoo = os.path.join(build, "zoo")
    if not os.path.isdir(zoo):
        sys.exit(f"error: {zoo} not found: run `ctest --test-dir {build} -R zoo_generate` first")
    print("| model | flavour | buffers | lower bound MiB | naive MiB | chosen MiB | chosen/lower "
          "| algorithm | planning ms |")
    print("|---|---|---:|---:|---:|---:|---:|---|---:|")
    worst = 0.0
    for model in sorted(os.listdir(zoo)):
        if not everything and model not in NETWORKS:
            continue
        for flavour in ("export", "core"):
            path = os.path.join(zoo, model, flavour, "model.json")
            if not os.path.exists(path):
                continue
            weights = os.path.join(zoo, model, flavour, "weights.safetensors")
            out = subprocess.run([os.path.join(build, "bin", "torchir-compile"), path,
                                  "--weights", weights, "--memory-report", "--quiet"],
                                 capture_output=True, text=True, check=True).stdout
            row = re.search(r"^activations\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+([\d.]+)\s+(\S+)",
                            out, re.M)
            ms = re.search(r"planning time: ([\d.e+-]+) ms", out).group(1)
            buffers, planned, lower, naive, ratio, algorithm = row.groups()
            worst = max(worst, float(ratio))
            print(f"| {model} | {flavour} | {buffers} | {mib(lower)} | {mib(naive)} | "
                  f"{mib(planned)} | {ratio} | {algorithm} | {float(ms):.2f} |")
    print(f"\nworst chosen/lower: {worst:.3f}", file=sys.stderr)


if __name__ == "__main__":
    main()
