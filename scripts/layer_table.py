#!/usr/bin/env python3
"""Markdown tables from a per-layer suite's Google Benchmark JSON.

Reads what `torchir_native_convolution_benchmark` or `torchir_native_gemm_benchmark` wrote with
`--benchmark_out=FILE --benchmark_out_format=json` (repetitions kept: the file holds every run,
whatever `--benchmark_display_aggregates_only` showed), and prints one row per layer: GFLOP/s as
the median [min-max] of the runs of each column, the median's fraction of the FMA peak measured
in the same run (the `Peak/...` rows, median of all of them), and the ratios of native to the
other columns. `Native/<layer>` and `Native/<layer>/again` are pooled as the native column;
`Winograd/<layer>` (and `/again`) is its own column where the suite has it, and so are
`Winograd2x2/<layer>` (F(2x2, 3x3), which the compiler picks for small images: resnet's 7 x 7
layers) and `OneDnn/<layer>` (the convolution as TorchScript + oneDNN runs it inside a network).
"best native" is the fastest of the native, Winograd and F(2x2) columns; with oneDNN's column
the last ratio is that against the faster of LibTorch's two columns.

    scripts/layer_table.py conv.json            # the table, then a summary of the ratios
    scripts/layer_table.py conv.json --filter resnet50
"""
import argparse
import json
import re
import statistics
import sys

COLUMNS = ("Native", "Winograd", "Winograd2x2", "Xnnpack", "LibTorch", "OneDnn")
# The native paths besides the implicit GEMM, each a column (with its title) where the suite has
# it; "best native" is the fastest of these and "Native".
WINOGRAD_COLUMNS = (("Winograd", "Winograd"), ("Winograd2x2", "F(2x2)"))


def load(path):
    try:
        with open(path) as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"layer_table: cannot read {path}: {e}")
    if "benchmarks" not in data:
        sys.exit(f"layer_table: {path} is not Google Benchmark JSON (no 'benchmarks')")
    return data


def collect(data, pattern):
    """{layer: {column: [GFLOP/s, ...]}}, labels {layer: LibTorch label}, peaks [GFLOP/s]."""
    runs, labels, peaks, first = {}, {}, [], {}
    for row in data["benchmarks"]:
        if row.get("run_type") != "iteration" or "GFLOPS" not in row:
            continue
        name = row.get("run_name", row["name"])
        if name.startswith("Peak/"):
            if "/avx2/" not in name:  # the GEMM suite's AVX2 peak goes with its AVX2 rows
                peaks.append(row["GFLOPS"])
            continue
        # Convolution suite: Column/layer[/again]; GEMM suite: Column[/best]/layer/M/N/K[/again]
        # [/threads:2/real_time]. Variants (/residual, /direct, Native/avx2) are not columns.
        match = re.fullmatch(
            r"([A-Za-z][A-Za-z0-9]*)(?:/best)?/([^/]+(?:/[0-9]+/[0-9]+/[0-9]+)?)(/again)?"
            r"(/threads:[0-9]+)?(?:/real_time)?", name)
        if not match or match.group(1) not in COLUMNS:
            continue
        column, layer = match.group(1), match.group(2) + (match.group(4) or "")
        if pattern and not re.search(pattern, layer):
            continue
        runs.setdefault(layer, {})
        # In the suite's order (random interleaving shuffles the file): the lowest family index.
        family = row.get("family_index", len(first))
        first[layer] = min(first.get(layer, family), family)
        runs[layer].setdefault(column, []).append(row["GFLOPS"])
        if column == "LibTorch" and row.get("label"):
            labels[layer] = row["label"]
    order = sorted(runs, key=lambda layer: first[layer])
    return order, runs, labels, peaks


def cell(values):
    if not values:
        return "-"
    return f"{statistics.median(values):.0f} [{min(values):.0f}-{max(values):.0f}]"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("json", help="Google Benchmark JSON of a per-layer suite")
    parser.add_argument("--filter", help="only layers whose name matches this regex")
    args = parser.parse_args()
    order, runs, labels, peaks = collect(load(args.json), args.filter)
    if not order:
        sys.exit(f"layer_table: no per-layer runs in {args.json}")
    peak = statistics.median(peaks) if peaks else None
    winograd = [(column, title) for column, title in WINOGRAD_COLUMNS
                if any(column in runs[layer] for layer in order)]
    has_onednn = any("OneDnn" in runs[layer] for layer in order)
    # The PyTorch columns the last ratio takes the faster of.
    torch_columns = ("LibTorch", "OneDnn") if has_onednn else ("LibTorch",)
    best_title = "best native / best PyTorch" if has_onednn else "best native / LibTorch"
    header = ["layer", "native", "of peak"]
    for _, title in winograd:
        header += [title, "of peak"]
    header += ["XNNPACK", "LibTorch", "ATen's backend"]
    if has_onednn:
        header += ["oneDNN prepacked"]
    header += ["native / XNNPACK", "native / LibTorch"]
    if has_onednn:
        header += ["native / oneDNN"]
    has_best = bool(winograd) or has_onednn
    if has_best:
        header += [best_title]
    ratio_count = 2 + has_onednn + has_best
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---:" if i >= len(header) - ratio_count else "---"
                         for i in range(len(header))) + "|")
    ratios = {"xnnpack": [], "libtorch": [], "onednn": [], "best": []}
    for layer in order:
        columns = runs[layer]
        med = {c: statistics.median(v) for c, v in columns.items() if v}
        row = [layer]
        for column in ["Native"] + [column for column, _ in winograd]:
            row += [cell(columns.get(column)),
                    f"{med[column] / peak:.0%}" if peak and column in med else "-"]
        row += [cell(columns.get("Xnnpack")), cell(columns.get("LibTorch")),
                labels.get(layer, "-")]
        if has_onednn:
            row.append(cell(columns.get("OneDnn")))
        pairs = [("xnnpack", "Xnnpack"), ("libtorch", "LibTorch")]
        if has_onednn:
            pairs.append(("onednn", "OneDnn"))
        for key, other in pairs:
            if "Native" in med and other in med:
                ratios[key].append((med["Native"] / med[other], layer))
                row.append(f"{med['Native'] / med[other]:.2f}")
            else:
                row.append("-")
        if has_best:
            best = max(med.get(c, 0) for c in ("Native",) + tuple(c for c, _ in WINOGRAD_COLUMNS))
            torch_best = max((med[c] for c in torch_columns if c in med), default=0)
            if best and torch_best:
                ratios["best"].append((best / torch_best, layer))
                row.append(f"{best / torch_best:.2f}")
            else:
                row.append("-")
        print("| " + " | ".join(row) + " |")
    print()
    if peak:
        print(f"FMA peak (median of {len(peaks)} Peak runs): {peak:.0f} GFLOP/s "
              f"[{min(peaks):.0f}-{max(peaks):.0f}]")
    for key, title in (("xnnpack", "native / XNNPACK"), ("libtorch", "native / LibTorch"),
                       ("onednn", "native / oneDNN prepacked"), ("best", best_title)):
        if ratios[key]:
            low = min(ratios[key])
            below = sorted((r, layer) for r, layer in ratios[key] if r < 1)
            # The two-decimal cells round 0.995 up to 1.00: the rows below 1 to three decimals.
            listed = ": " + ", ".join(f"{layer} {r:.3f}" for r, layer in below) if below else ""
            print(f"{title}: lowest {low[0]:.2f} ({low[1]}), "
                  f"median {statistics.median(r for r, _ in ratios[key]):.2f}, "
                  f"{len(below)} of {len(ratios[key])} below 1{listed}")


if __name__ == "__main__":
    main()
