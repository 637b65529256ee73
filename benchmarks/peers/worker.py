"""One Python-driven runtime, one model, one thread count, in a process of its own.

  worker.py RUNTIME MODEL_DIR MODEL --threads N      (started by driver.py)

A process per runtime keeps the runtimes from sharing thread pools, allocators or OpenMP state,
and lets its peak memory be its own. The worker loads the model (timed: what a deployment pays
before its first call), runs it 3 times and compares the outputs with expected.safetensors, then
answers the driver's requests on stdin, one JSON object a line:

  {"cmd": "run", "warmup": W, "iterations": K} -> {"median_ms": ..., "iterations": K}
  {"cmd": "done"}                              -> {"peak_increase_mib": ...}, then exits

Its first line on the protocol is {"refused", "load_ms", ["init_ms",] "first_call_ms",
"estimate_ms"} (init_ms where the runtime's API separates it: ExecuTorch); a refused runtime
(failed to load or run, or wrong outputs) says why and exits. The protocol has a file descriptor
of its own: the runtimes' native code prints to stdout, which goes to stderr here.

Timing is per call with time.perf_counter around the runtime's Python entry point, so the
Python call overhead (and converting outputs to numpy for ExecuTorch and torch) is included.
Memory: just before the model is loaded the worker resets the kernel's peak-RSS counter
(writing 5 to /proc/self/clear_refs) and notes VmRSS; it reads VmHWM after loading and
checking and after each round's timed calls (resetting the counter before each round, so that
its own replies do not count). The largest reading minus that VmRSS is the peak resident memory
the model's load, init and runs added to the process.
"""

import argparse
import json
import os
import sys
import time
from typing import Callable, List, Sequence, Tuple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import common  # noqa: E402

Runner = Callable[[], Sequence]


def _status_kib(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"/proc/self/status has no {field}")


def _reset_peak_rss() -> int:
    """Resets VmHWM to the current RSS; returns that RSS in KiB."""
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    return _status_kib("VmRSS")


def _load_executorch(model_dir: str, arrays, threads: int, times: dict) -> Runner:
    import torch
    from executorch.extension.pybindings import portable_lib

    # The XNNPACK delegate takes ExecuTorch's global pthreadpool at init (the default size is
    # the number of cores), so the pool is resized before the program is loaded.
    portable_lib._unsafe_reset_threadpool(threads)
    if portable_lib._threadpool_get_thread_count() != threads:
        raise RuntimeError(f"ExecuTorch's threadpool has "
                           f"{portable_lib._threadpool_get_thread_count()} threads, not {threads}")
    inputs = tuple(torch.from_numpy(a.copy()) for a in arrays)
    # _load_for_executorch would defer the method's init (XNNPACK delegate init, weight
    # packing) to the first forward call; loading the program and then the method times the
    # two apart, as torchir-run does. Verification as _load_for_executorch's default.
    start = time.perf_counter()
    program = portable_lib._load_program(
        os.path.join(model_dir, common.EXECUTORCH_PTE),
        program_verification=portable_lib.Verification.InternalConsistency)
    times["load_ms"] = (time.perf_counter() - start) * 1e3
    start = time.perf_counter()
    method = program.load_method("forward")
    times["init_ms"] = (time.perf_counter() - start) * 1e3
    return lambda: [t.numpy() for t in method.call(inputs)]


def _load_onnxruntime(model_dir: str, arrays, threads: int) -> Runner:
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.intra_op_num_threads = threads  # the calling thread counts as one
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(os.path.join(model_dir, common.ONNX_FILE), options,
                                   providers=["CPUExecutionProvider"])
    feeds = {i.name: a for i, a in zip(session.get_inputs(), arrays)}
    return lambda: session.run(None, feeds)


def _torch_threads(threads: int):
    import torch

    torch.set_num_threads(threads)
    torch.set_num_interop_threads(1)
    return torch


def _load_torchscript(model_dir: str, arrays, threads: int) -> Runner:
    torch = _torch_threads(threads)
    inputs = tuple(torch.from_numpy(a.copy()) for a in arrays)
    module = torch.jit.optimize_for_inference(
        torch.jit.load(os.path.join(model_dir, common.TORCHSCRIPT_FILE)))

    def run():
        with torch.inference_mode():
            outputs = module(*inputs)
        return [outputs.numpy()] if isinstance(outputs, torch.Tensor) else \
            [t.numpy() for t in outputs]

    return run


def _load_eager(model_dir: str, arrays, threads: int, model_name: str) -> Runner:
    torch = _torch_threads(threads)
    sys.path.insert(0, os.path.join(common.REPO, "tools"))
    from zoo.models import ZOO, build

    model, _, _ = build(ZOO[model_name], int(os.environ.get("TORCHIR_PEERS_SEED", "0")))
    inputs = tuple(torch.from_numpy(a.copy()) for a in arrays)

    def run():
        with torch.inference_mode():
            outputs = model(*inputs)
        return [outputs.numpy()] if isinstance(outputs, torch.Tensor) else \
            [t.numpy() for t in outputs]

    return run


def _import_runtime(runtime: str) -> None:
    """Imports the runtime's modules before the memory baseline: the baseline is a process
    ready to load a model, and the increase is what the model costs."""
    if runtime == "executorch_xnnpack":
        from executorch.extension.pybindings import portable_lib  # noqa: F401
    elif runtime == "onnxruntime":
        import onnxruntime  # noqa: F401
    else:
        import torch  # noqa: F401


def _load(runtime: str, model_dir: str, model_name: str, arrays, threads: int,
          times: dict) -> Runner:
    if runtime == "executorch_xnnpack":
        return _load_executorch(model_dir, arrays, threads, times)
    if runtime == "onnxruntime":
        return _load_onnxruntime(model_dir, arrays, threads)
    if runtime == "torchscript_onednn":
        return _load_torchscript(model_dir, arrays, threads)
    if runtime == "pytorch_eager":
        return _load_eager(model_dir, arrays, threads, model_name)
    raise ValueError(f"unknown runtime {runtime!r}")


def _time_calls(run: Runner, warmup: int, iterations: int):
    """Every timed call's latency in seconds, in an array allocated before the calls: 8 bytes a
    call, where a list of Python floats would add 32 to the peak memory being measured."""
    import numpy as np

    for _ in range(warmup):
        run()
    latencies = np.zeros(iterations)
    clock = time.perf_counter
    for i in range(iterations):
        start = clock()
        run()
        latencies[i] = clock() - start
    return latencies


def _refusal(model_dir: str, runtime: str) -> str:
    """The export's reason for not writing this runtime's file, if it gave one."""
    try:
        entry = common.read_json(os.path.join(model_dir, common.EXPORT_INFO))["peers"][runtime]
    except (OSError, KeyError, ValueError):
        return ""
    return entry.get("refused", "")


def serve(runtime: str, model_dir: str, model_name: str, threads: int, send) -> int:
    """Loads and checks, then answers the driver until "done"; returns the exit status."""
    refused = _refusal(model_dir, runtime)
    if refused:
        send({"refused": refused})
        return 0
    import numpy as np

    input_names, output_names = common.graph_names(model_dir)
    arrays = common.load_arrays(model_dir, "inputs.safetensors", input_names)
    expected = common.load_arrays(model_dir, "expected.safetensors", output_names)
    _import_runtime(runtime)
    baseline_kib = _reset_peak_rss()
    try:
        times: dict = {}
        start = time.perf_counter()
        run = _load(runtime, model_dir, model_name, arrays, threads, times)
        times.setdefault("load_ms", (time.perf_counter() - start) * 1e3)
        first = time.perf_counter()
        outputs = run()
        first_call_ms = (time.perf_counter() - first) * 1e3
        checks = [outputs] + [run() for _ in range(2)]
    except Exception as e:  # noqa: BLE001 - a runtime that fails is refused with the reason
        send({"refused": f"{type(e).__name__}: {str(e).strip().splitlines()[0][:200]}"})
        return 0
    for i, outputs in enumerate(checks):
        difference = common.compare_outputs(outputs, expected, output_names)
        if difference:
            send({"refused": f"call {i + 1}: {difference}"})
            return 0
    estimate = float(_time_calls(run, 0, 3).min()) * 1e3
    # The peak is read right after loading and checking, and after each round's timed calls;
    # the counter is reset before each round, so that the worker's own replies between rounds
    # do not count.
    peak_kib = _status_kib("VmHWM")
    send({"refused": "", **times, "first_call_ms": first_call_ms, "estimate_ms": estimate})
    for line in sys.stdin:
        request = json.loads(line)
        if request["cmd"] == "run":
            _reset_peak_rss()
            latencies = _time_calls(run, request["warmup"], request["iterations"])
            peak_kib = max(peak_kib, _status_kib("VmHWM"))
            send({"median_ms": float(np.median(latencies)) * 1e3,
                  "iterations": len(latencies)})
        elif request["cmd"] == "done":
            send({"peak_increase_mib": (peak_kib - baseline_kib) / 1024,
                  "baseline_mib": baseline_kib / 1024})
            return 0
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runtime", choices=common.PEER_RUNTIMES)
    parser.add_argument("model_dir")
    parser.add_argument("model")
    parser.add_argument("--threads", type=int, required=True)
    args = parser.parse_args(argv)
    # The protocol keeps the real stdout; everything else printing to fd 1 goes to stderr.
    protocol = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)

    def send(message) -> None:
        protocol.write(json.dumps(message) + "\n")
        protocol.flush()

    return serve(args.runtime, args.model_dir, args.model, args.threads, send)


if __name__ == "__main__":
    sys.exit(main())
