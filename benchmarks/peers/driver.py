"""Runs torchir and its peers side by side on the same inputs, in interleaved rounds.

  driver.py --bench-dir DIR --torchir-run BIN [--models M,...] [--threads 1,2] [--rounds 5]
            [--round-seconds 0.5] [--min-iterations 3] [--runtimes R,...] -o results.json

Per model and thread count, every runtime is started (loaded, then checked: 3 calls whose
outputs must match expected.safetensors within atol = rtol = 1e-4), then timed in rounds
A-B-C-...-A-B-C-..., so that a slow minute of a shared machine lands on every runtime rather than
on one. A round is W untimed calls then K timed ones, K chosen per runtime so that a round lasts
about --round-seconds (at least --min-iterations, at most --max-iterations), W = max(2, K / 10).
A runtime's latency is the median of its round medians; the spread is their min and max.

- torchir_native and torchir_xnnpack run as `torchir-run PTE --inputs --expected --threads N --warmup W
  --iterations K --json FILE`, a new process per round, timed by torchir-run itself around
  Method::Execute (the input copy before each call is outside its timed region); every round
  checks the outputs again. Its load and init are the ones torchir-run reports (median over
  rounds). Peak memory: torchir-run's VmHWM after the runs minus its VmRSS before loading
  (both from /proc/self/status, in its --json), the largest over the rounds.
- every other runtime runs in a worker process of its own (worker.py), kept for all rounds.

A runtime that fails or computes wrong outputs is recorded as refused with the reason and not
timed. The results (and the machine's and other processes' CPU use during the run) are written
as JSON; report.py turns them into the tables of docs/benchmarks.md.
"""

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from typing import Dict, List, Optional

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import common  # noqa: E402

WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "worker.py")


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _cpu_times():
    """(busy, total) jiffies of the whole machine, from /proc/stat."""
    with open("/proc/stat") as f:
        fields = [int(v) for v in f.readline().split()[1:9]]
    user, nice, system, idle, iowait, irq, softirq, steal = fields
    return user + nice + system + irq + softirq + steal, sum(fields)


def _own_cpu_seconds() -> float:
    """CPU time of this process and of its children that have been waited for."""
    import resource

    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


class TorchirRunner:
    """A torchir program through torchir-run, one process per round."""

    def __init__(self, binary: str, model_dir: str, pte: str, threads: int, scratch: str):
        self.binary = binary
        self.pte = os.path.join(model_dir, pte)
        self.inputs = os.path.join(model_dir, "inputs.safetensors")
        self.expected = os.path.join(model_dir, "expected.safetensors")
        self.summary = scratch
        self.threads = threads
        self.loads: List[float] = []
        self.inits: List[float] = []
        self.peaks_mib: List[float] = []
        self.refused = ""
        self.estimate_ms = 0.0
        self.first_call_ms: Optional[float] = None

    def _timed(self, warmup: int, iterations: int) -> Optional[List[float]]:
        """Every timed call's latency in ms, or None (and self.refused) when the run failed
        or its outputs differ from expected.safetensors."""
        if os.path.exists(self.summary):
            os.remove(self.summary)
        run = subprocess.run(
            [self.binary, self.pte, "--inputs", self.inputs, "--expected", self.expected,
             "--threads", str(self.threads), "--warmup", str(warmup),
             "--iterations", str(iterations), "--quiet", "--json", self.summary],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        summary = common.read_json(self.summary) if os.path.exists(self.summary) else {}
        if run.returncode != 0 or summary.get("expected") != "pass":
            lines = [l for l in run.stdout.splitlines() if l.strip()]
            self.refused = (lines or [f"torchir-run exited with {run.returncode}"])[0][:200]
            return None
        self.loads.append(summary["load_ms"])
        self.inits.append(summary["init_ms"])
        if summary.get("peak_rss_kib") is not None:
            self.peaks_mib.append((summary["peak_rss_kib"] - summary["rss_before_load_kib"]) /
                                  1024)
        return summary["latencies_ms"]

    def start(self) -> Dict:
        if not os.path.exists(self.pte):
            self.refused = f"{os.path.basename(self.pte)} missing (torchir-compile failed?)"
        else:
            latencies = self._timed(0, 3)
            self.estimate_ms = min(latencies) if latencies else 0.0
            self.first_call_ms = latencies[0] if latencies else None
        return {"refused": self.refused, "estimate_ms": self.estimate_ms}

    def round(self, warmup: int, iterations: int) -> Optional[float]:
        latencies = self._timed(warmup, iterations)
        return statistics.median(latencies) if latencies else None

    def finish(self) -> Dict:
        if not self.loads:
            return {}
        result = {"load_ms": statistics.median(self.loads),
                  "init_ms": statistics.median(self.inits), "first_call_ms": self.first_call_ms}
        if self.peaks_mib:
            result["peak_increase_mib"] = max(self.peaks_mib)
        return result


class WorkerRunner:
    """A Python-driven runtime in its own worker.py process."""

    def __init__(self, runtime: str, model_dir: str, model: str, threads: int, python: str):
        env = dict(os.environ, OMP_NUM_THREADS=str(threads))
        self.process = subprocess.Popen(
            [python, WORKER, runtime, model_dir, model, "--threads", str(threads)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            text=True, env=env)
        self.refused = ""
        self.estimate_ms = 0.0
        self.started: Dict = {}

    def _receive(self) -> Dict:
        line = self.process.stdout.readline()
        if not line:
            self.process.wait()
            raise RuntimeError(f"the worker exited with {self.process.returncode} "
                               "(run worker.py by hand to see why)")
        return json.loads(line)

    def _send(self, message: Dict) -> Dict:
        self.process.stdin.write(json.dumps(message) + "\n")
        self.process.stdin.flush()
        return self._receive()

    def start(self) -> Dict:
        try:
            self.started = self._receive()
        except RuntimeError as e:
            self.started = {"refused": str(e)}
        self.refused = self.started.get("refused", "")
        self.estimate_ms = self.started.get("estimate_ms", 0.0)
        if self.refused:
            self.process.wait()
        return self.started

    def round(self, warmup: int, iterations: int) -> Optional[float]:
        return self._send({"cmd": "run", "warmup": warmup,
                           "iterations": iterations})["median_ms"]

    def finish(self) -> Dict:
        if self.refused:
            return {}
        memory = self._send({"cmd": "done"})
        self.process.wait()
        return {"load_ms": self.started["load_ms"], "init_ms": self.started.get("init_ms"),
                "first_call_ms": self.started["first_call_ms"],
                "peak_increase_mib": memory["peak_increase_mib"],
                "baseline_mib": memory["baseline_mib"]}


def bench_model(model: str, model_dir: str, threads: int, args) -> Dict[str, Dict]:
    """Starts every runtime, times them in interleaved rounds, returns their results."""
    runners = {}
    for runtime in args.runtimes:
        if runtime in common.TORCHIR_PTES:
            runners[runtime] = TorchirRunner(args.torchir_run, model_dir,
                                             common.TORCHIR_PTES[runtime], threads,
                                             f"{args.out}.{runtime}.json")
        else:
            runners[runtime] = WorkerRunner(runtime, model_dir, model, threads, sys.executable)
        # Started one at a time, so no load competes with another.
        started = runners[runtime].start()
        state = f"refused: {started['refused']}" if started["refused"] else \
            f"checked, ~{started['estimate_ms']:.3g} ms a call"
        log(f"   {model} {threads}t {runtime}: {state}")
    plan = {}
    for runtime, runner in runners.items():
        if not runner.refused:
            estimate = max(runner.estimate_ms, 1e-3)
            iterations = max(args.min_iterations, round(args.round_seconds * 1e3 / estimate))
            iterations = min(iterations, args.max_iterations)
            plan[runtime] = (max(2, iterations // 10), iterations)
    medians: Dict[str, List[float]] = {r: [] for r in plan}
    for _ in range(args.rounds):
        for runtime, (warmup, iterations) in plan.items():
            runner = runners[runtime]
            if runner.refused:
                continue
            time.sleep(args.pause)  # let the previous runtime's spinning workers go to sleep
            median = runner.round(warmup, iterations)
            if median is not None:
                medians[runtime].append(median)
    results = {}
    for runtime, runner in runners.items():
        entry: Dict = {"refused": runner.refused}
        entry.update(runner.finish())
        if not runner.refused:
            rounds = medians[runtime]
            entry.update({"rounds_ms": rounds, "median_ms": statistics.median(rounds),
                          "min_ms": min(rounds), "max_ms": max(rounds),
                          "warmup": plan[runtime][0], "iterations": plan[runtime][1]})
        results[runtime] = entry
    return results


def _versions() -> Dict[str, str]:
    versions = {"python": platform.python_version()}
    for module in ("torch", "executorch", "onnxruntime", "onnx", "onnxscript", "numpy"):
        try:
            from importlib.metadata import version
            versions[module] = version(module)
        except Exception:  # noqa: BLE001 - a missing package is reported as such
            versions[module] = "missing"
    return versions


def _cpu_model() -> str:
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bench-dir", required=True, help="holds MODEL/ exports")
    parser.add_argument("--torchir-run", required=True, help="the torchir-run binary")
    parser.add_argument("--models", default="resnet18,mobilenet_v2,mobilenet_v3_large,"
                        "tiny_vit,tiny_gpt,text_cnn")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--runtimes", default=",".join(common.RUNTIMES))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--round-seconds", type=float, default=0.5)
    parser.add_argument("--min-iterations", type=int, default=3)
    parser.add_argument("--max-iterations", type=int, default=20000,
                        help="at most this many timed calls a round (a microsecond model "
                        "would otherwise make hundreds of thousands)")
    parser.add_argument("--pause", type=float, default=0.1,
                        help="seconds of sleep before each runtime's round")
    parser.add_argument("--require-all", action="store_true",
                        help="exit 1 when any runtime was refused (the smoke test)")
    parser.add_argument("-o", "--out", required=True, help="results .json")
    args = parser.parse_args(argv)
    args.runtimes = [r for r in args.runtimes.split(",") if r]
    unknown = [r for r in args.runtimes if r not in common.RUNTIMES]
    if unknown:
        parser.error(f"unknown runtime(s) {', '.join(unknown)}")
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")

    busy0, total0 = _cpu_times()
    own0, wall0 = _own_cpu_seconds(), time.perf_counter()
    results: Dict = {}
    for model in [m for m in args.models.split(",") if m]:
        model_dir = os.path.join(args.bench_dir, model)
        if not os.path.exists(os.path.join(model_dir, "model.json")):
            log(f"driver: {model_dir}/model.json missing (export it first)")
            return 1
        results[model] = {}
        for threads in [int(t) for t in args.threads.split(",")]:
            results[model][str(threads)] = bench_model(model, model_dir, threads, args)
    busy1, total1 = _cpu_times()
    own = _own_cpu_seconds() - own0
    wall = time.perf_counter() - wall0
    cpus = os.cpu_count() or 1
    machine_busy = (busy1 - busy0) / max(1, total1 - total0)
    context = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "cpu": _cpu_model(), "cpus": cpus, "versions": _versions(),
        "seconds": round(wall, 1), "rounds": args.rounds, "round_seconds": args.round_seconds,
        "machine_busy_percent": round(100 * machine_busy, 1),
        "others_busy_percent": round(100 * max(0.0, machine_busy - own / (wall * cpus)), 1),
        "load_average": os.getloadavg(),
        "environment": {k: os.environ.get(k, "") for k in
                        ("OMP_NUM_THREADS", "OMP_WAIT_POLICY", "MKL_NUM_THREADS",
                         "OPENBLAS_NUM_THREADS")},
    }
    exports = {}
    for model in results:
        try:
            exports[model] = common.read_json(os.path.join(args.bench_dir, model,
                                                           common.EXPORT_INFO))
        except (OSError, ValueError):
            exports[model] = {}
    with open(args.out, "w") as f:
        json.dump({"context": context, "results": results, "exports": exports}, f, indent=2)
    log(f"driver: {wall:.0f} s; the machine was {context['machine_busy_percent']}% busy, "
        f"other processes {context['others_busy_percent']}%; results in {args.out}")
    refusals = [f"{model} {runtime} at {threads} thread(s): {entry['refused']}"
                for model, by_threads in results.items()
                for threads, per_runtime in by_threads.items()
                for runtime, entry in per_runtime.items() if entry.get("refused")]
    for refusal in refusals:
        log(f"driver: refused: {refusal}")
    return 1 if refusals and args.require_all else 0


if __name__ == "__main__":
    sys.exit(main())
