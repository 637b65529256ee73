"""Prints the markdown tables of docs/benchmarks.md from driver.py's results.

  report.py results.json

Tables: latency (median of round medians, its ratio to the fastest runtime at the same thread
count, and the spread of the round medians), torchir against each peer and against the fastest
of all, load + init, peak memory, then what each export did and every refusal with its reason.
"""

import json
import sys
from typing import Dict, List, Optional

from common import PEER_RUNTIMES as PEERS
from common import RUNTIMES, TORCHIR_RUNTIMES


def number(value: Optional[float]) -> str:
    """Three significant digits, no exponent: 0.00604, 18.3, 110."""
    if value is None:
        return ""
    if value >= 100:
        return f"{value:.0f}"
    return f"{value:.3g}" if value >= 0.001 else f"{value:.2e}"


def _timed(entry: Dict) -> bool:
    return bool(entry) and not entry.get("refused") and "median_ms" in entry


def _fastest(per_runtime: Dict[str, Dict]):
    timed = {r: e["median_ms"] for r, e in per_runtime.items() if _timed(e)}
    if not timed:
        return None, None
    best = min(timed, key=timed.get)
    return best, timed[best]


def latency_table(results: Dict, threads: List[str]) -> List[str]:
    head = "| model | runtime | " + " | ".join(
        f"{t} thread{'s' if t != '1' else ''} | spread" for t in threads) + " |"
    lines = [head, "|---|---|" + "---:|---|" * len(threads)]
    for model, by_threads in results.items():
        for runtime in RUNTIMES:
            cells = []
            for t in threads:
                entry = by_threads.get(t, {}).get(runtime, {})
                _, best = _fastest(by_threads.get(t, {}))
                if _timed(entry):
                    cells += [f"{number(entry['median_ms'])} ({entry['median_ms'] / best:.2f}x)",
                              f"{number(entry['min_ms'])}-{number(entry['max_ms'])}"]
                else:
                    cells += ["refused" if entry else "", ""]
            lines.append(f"| {model} | {runtime} | " + " | ".join(cells) + " |")
    return lines


def ratio_table(results: Dict, threads: List[str], subject_name: str) -> List[str]:
    lines = ["| model | threads | " + " | ".join(f"vs {p}" for p in PEERS) +
             " | fastest of all | vs fastest |",
             "|---|---:|" + "---:|" * len(PEERS) + "---|---:|"]
    for model, by_threads in results.items():
        for t in threads:
            per_runtime = by_threads.get(t, {})
            subject = per_runtime.get(subject_name, {})
            if not _timed(subject):
                lines.append(f"| {model} | {t} | {subject_name} refused |" +
                             " |" * (len(PEERS) + 1))
                continue
            mine = subject["median_ms"]
            cells = [f"{mine / per_runtime[p]['median_ms']:.2f}x"
                     if _timed(per_runtime.get(p, {})) else "refused" for p in PEERS]
            best, best_ms = _fastest(per_runtime)
            cells += [f"{best} {number(best_ms)} ms", f"{mine / best_ms:.2f}x"]
            lines.append(f"| {model} | {t} | " + " | ".join(cells) + " |")
    return lines


def load_table(results: Dict, threads: str) -> List[str]:
    loaded = [r for r in RUNTIMES if r != "pytorch_eager"]
    lines = ["| model | " + " | ".join(loaded) + " |", "|---|" + "---:|" * len(loaded)]
    for model, by_threads in results.items():
        cells = []
        for runtime in loaded:
            entry = by_threads.get(threads, {}).get(runtime, {})
            if entry.get("refused") or "load_ms" not in entry:
                cells.append("refused" if entry else "")
                continue
            cell = number(entry["load_ms"])
            if entry.get("init_ms") is not None:
                cell = (f"{number(entry['load_ms'] + entry['init_ms'])} "
                        f"({number(entry['load_ms'])} + {number(entry['init_ms'])})")
            if entry.get("first_call_ms") is not None:
                cell += f"; 1st call {number(entry['first_call_ms'])}"
            cells.append(cell)
        lines.append(f"| {model} | " + " | ".join(cells) + " |")
    return lines


def memory_table(results: Dict, threads: List[str]) -> List[str]:
    lines = ["| model | " + " | ".join(RUNTIMES) + " |", "|---|" + "---:|" * len(RUNTIMES)]
    for model, by_threads in results.items():
        cells = []
        for runtime in RUNTIMES:
            values = []
            for t in threads:
                entry = by_threads.get(t, {}).get(runtime, {})
                values.append(f"{entry['peak_increase_mib']:.1f}"
                              if "peak_increase_mib" in entry and not entry.get("refused")
                              else "-")
            cells.append(" / ".join(values))
        lines.append(f"| {model} | " + " | ".join(cells) + " |")
    return lines


def notes(data: Dict, threads: List[str]) -> List[str]:
    lines = []
    for model, info in data.get("exports", {}).items():
        peers = info.get("peers", {})
        onnx = peers.get("onnxruntime", {})
        et = peers.get("executorch_xnnpack", {})
        parts = []
        if "exporter" in onnx:
            parts.append(f"ONNX by {onnx['exporter']}")
        for failure in info.get("onnx_failures", []):
            parts.append(f"ONNX: {failure}")
        if "delegates" in et:
            outside = ", ".join(f"`{k}` {v}" for k, v in et["not_delegated"].items()) or "none"
            parts.append(f"ExecuTorch: {et['delegates']} XNNPACK delegate(s), ops outside: "
                         f"{outside}")
        if parts:
            lines.append(f"- {model}: " + "; ".join(parts))
    for model, by_threads in data["results"].items():
        for t in threads:
            for runtime, entry in by_threads.get(t, {}).items():
                if entry.get("refused"):
                    lines.append(f"- refused: {model} {runtime} at {t} thread(s): "
                                 f"{entry['refused']}")
    return lines


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: report.py results.json", file=sys.stderr)
        return 2
    with open(argv[0]) as f:
        data = json.load(f)
    results = data["results"]
    threads = sorted({t for by_threads in results.values() for t in by_threads}, key=int)
    context = data["context"]
    out = [f"Run {context['date']}, {context['cpus']} CPUs ({context['cpu']}), "
           f"{context['rounds']} rounds of ~{context['round_seconds']} s per runtime, "
           f"{context['seconds']} s in all; the machine was "
           f"{context['machine_busy_percent']}% busy, other processes "
           f"{context['others_busy_percent']}%. Versions: " +
           ", ".join(f"{k} {v}" for k, v in context["versions"].items()) + ".", ""]
    out += ["### Latency: ms per call (median of the round medians); in brackets, the ratio to "
            "the fastest runtime at the same thread count; spread: min-max of the round medians",
            ""] + latency_table(results, threads)
    for subject in TORCHIR_RUNTIMES:
        out += ["", f"### {subject} / each peer (below 1: torchir is faster)", ""]
        out += ratio_table(results, threads, subject)
    out += ["", f"### Load + init: ms from the file to ready to run ({threads[0]} "
            f"thread{'s' if threads[0] != '1' else ''}; "
            "load + init in brackets where the runtime separates them; then the first call, which "
            "is not included)", ""] + load_table(results, threads[0])
    out += ["", "### Peak memory: MiB of resident memory the model added to its process (" +
            " / ".join(f"{t} thread{'s' if t != '1' else ''}" for t in threads) + ")", ""]
    out += memory_table(results, threads)
    extra = notes(data, threads)
    if extra:
        out += ["", "### Exports and refusals", ""] + extra
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
