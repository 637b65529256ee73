#!/usr/bin/env python3
"""Every layer of the per-layer suite matching a pattern, native against oneDNN call by call.

For each layer, build/bin/torchir_ab_layer times TorchScript + oneDNN's convolution (A: the
module libtorchir_ab_layer_onednn.so) and the native kernels (B: libtorchir_ab_layer_module.so)
alternately in one process, and, for 3x3 stride-1 layers, Winograd (F(4x4), or F(2x2) where the
output has fewer than 8 tiles of 4x4, as the compiler picks) in a second process the same way.
Prints a Markdown table: each side's median, and native / oneDNN as the ratio of the medians, of
the minima (oneDNN's own time swings between modes from call to call on some layers: the minima
compare the fast ones) and as the median [quartiles] of the adjacent pairs' ratios; the best
native path per layer, and how many layers native runs slower than oneDNN by the pairs' median
and by the minima.

  python3 scripts/ab_layer_table.py --build build --filter '^resnet' --pairs 200 [--evict 32]

The environment of docs/benchmarks.md's layer tables is set here (one OpenMP and OpenBLAS thread,
OpenBLAS first on the library path).
"""

import argparse
import os
import re
import subprocess
import sys

LINE_SIDE = re.compile(r"^([AB]) .*: median ([0-9.]+) us \[([0-9.]+)-([0-9.]+)\], min ([0-9.]+) us")
LINE_RATIO = re.compile(
    r"^B / A: medians ([0-9.]+), minima ([0-9.]+), adjacent pairs ([0-9.]+) \[([0-9.]+)-([0-9.]+)\]"
)


def run(driver, a, b, layer, pairs, extra):
    command = [driver, a, b, f"--layer={layer}", f"--pairs={pairs}"] + extra
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"ab_layer_table: {' '.join(command)} failed:\n{result.stderr.strip()}")
    sides, ratio = {}, None
    for line in result.stdout.splitlines():
        m = LINE_SIDE.match(line)
        if m:
            sides[m.group(1)] = float(m.group(2))
        m = LINE_RATIO.match(line)
        if m:
            ratio = [float(x) for x in m.groups()]
    if len(sides) != 2 or ratio is None:
        sys.exit(f"ab_layer_table: unexpected output of {' '.join(command)}:\n{result.stdout}")
    return sides["A"], sides["B"], ratio


def winograd_tile(size, cin, cout):
    """The tile the compiler picks for an ungrouped 3x3 stride-1 layer (0: none)."""
    tiles4 = ((size + 3) // 4) ** 2
    tiles2 = ((size + 1) // 2) ** 2
    channels = min(cin, cout)
    if channels >= 16 and tiles4 >= 8:
        return 4
    if channels >= 64 and tiles2 >= 8:
        return 2
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default="build", help="the build directory (default build)")
    parser.add_argument("--filter", default="^resnet", help="layers whose name matches (regex)")
    parser.add_argument("--pairs", type=int, default=200, help="A-B pairs per layer (default 200)")
    parser.add_argument("--evict", type=int, default=0, metavar="MIB",
                        help="torchir_ab_layer's --evict: MIB MiB of other memory touched before "
                             "every call, so each layer's data come from L3 or memory as in a "
                             "network (default 0: each side's data stay where its last call left "
                             "them)")
    args = parser.parse_args()

    driver = os.path.join(args.build, "bin", "torchir_ab_layer")
    native = os.path.join(args.build, "lib", "libtorchir_ab_layer_module.so")
    onednn = os.path.join(args.build, "lib", "libtorchir_ab_layer_onednn.so")
    for path in (driver, native, onednn):
        if not os.path.exists(path):
            sys.exit(f"ab_layer_table: no {path}: build the targets torchir_ab_layer and "
                     "torchir_ab_layer_onednn first")
    os.environ["OMP_NUM_THREADS"] = "1"
    os.environ["OPENBLAS_NUM_THREADS"] = "1"
    openblas = "/usr/lib/x86_64-linux-gnu/openblas-pthread"
    os.environ["LD_LIBRARY_PATH"] = openblas + ":" + os.environ.get("LD_LIBRARY_PATH", "")

    listing = subprocess.run([driver, "--list-layers"], capture_output=True, text=True, check=True)
    layers = []
    for line in listing.stdout.splitlines():
        name, *numbers = line.split()
        if re.search(args.filter, name):
            layers.append((name, *map(int, numbers)))
    if not layers:
        sys.exit(f"ab_layer_table: no layer matches '{args.filter}'")

    print("| layer | oneDNN us | native us (path) | native / oneDNN: medians | minima | "
          "pairs median [quartiles] |")
    print("|---|---|---|---|---|---|")
    behind, behind_minima = [], []
    for name, size, cin, cout, kernel, stride, pad, groups in layers:
        extra = [f"--evict={args.evict}"] if args.evict else []
        runs = [("direct/GEMM", run(driver, onednn, native, name, args.pairs, extra))]
        tile = winograd_tile(size, cin, cout) if (kernel, stride, groups) == (3, 1, 1) else 0
        if tile:
            runs.append((f"F({tile}x{tile})", run(driver, onednn, native, name, args.pairs,
                                                  [f"--winograd={tile}"] + extra)))
        for path, (a, b, ratio) in runs:
            print(f"| {name} | {a:.1f} | {b:.1f} ({path}) | {ratio[0]:.3f} | {ratio[1]:.3f} | "
                  f"{ratio[2]:.3f} [{ratio[3]:.3f}-{ratio[4]:.3f}] |", flush=True)
        best = min(runs, key=lambda r: r[1][2][2])
        if best[1][2][2] > 1:
            behind.append(f"{name} {best[1][2][2]:.3f}")
        fastest = min(runs, key=lambda r: r[1][2][1])
        if fastest[1][2][1] > 1:
            behind_minima.append(f"{name} {fastest[1][2][1]:.3f}")
    print(f"\n{len(behind)} of {len(layers)} layers slower on native's best path than oneDNN "
          f"by the pairs' median: {', '.join(behind) if behind else 'none'}")
    print(f"{len(behind_minima)} of {len(layers)} by the minima: "
          f"{', '.join(behind_minima) if behind_minima else 'none'}")


if __name__ == "__main__":
    main()
