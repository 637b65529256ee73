"""Writes what torchir's peers load, beside a zoo network's pytorch_ir export, and checks each.

  export.py MODEL_DIR MODEL [--seed N] [--force]

MODEL_DIR already holds `tools/export_ir.py MODEL --flavour pytorch_ir` (model.json and the
.safetensors files); this adds, each made the way the peer's documentation tells a user to:

  executorch_xnnpack.pte  torch.export.export -> to_edge_transform_and_lower(partitioner=
                          [XnnpackPartitioner()]) -> to_executorch()
  model.onnx              torch.onnx.export(dynamo=True); the TorchScript-based exporter
                          (dynamo=False) only when the dynamo one fails or computes wrong outputs
  torchscript_frozen.pt   torch.jit.freeze(torch.jit.trace(model)); the worker applies
                          torch.jit.optimize_for_inference after loading (as the C++ suite does)

Each file is loaded back by its runtime and run on inputs.safetensors; a file whose outputs
differ from expected.safetensors (eager PyTorch) is not written, and peers_export.json says why,
so the benchmark shows that peer as refused instead of timing a wrong program. peers_export.json
also records which ONNX exporter was used and which ops ExecuTorch left outside its delegates.
Nothing is redone while peers_export.json is newer than model.json and this file (--force).
Run with the venv interpreter (scripts/python_env.sh): torch 2.14, executorch, onnx, onnxruntime.
"""

import argparse
import io
import json
import os
import sys
import time
import traceback
import warnings
from contextlib import redirect_stderr, redirect_stdout
from typing import Callable, Dict, List

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import common  # noqa: E402


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0] if text else ''}"[:300]


def _quietly(fn: Callable):
    """Runs an exporter with its warnings and progress printing swallowed (the export log would
    otherwise be pages of torch.export chatter); returns fn's result, re-raises its error."""
    sink = io.StringIO()
    with warnings.catch_warnings(), redirect_stdout(sink), redirect_stderr(sink):
        warnings.simplefilter("ignore")
        return fn()


def _export_executorch(model, inputs, path: str) -> Dict:
    import torch
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import to_edge_transform_and_lower

    def lower():
        program = torch.export.export(model, tuple(inputs))
        edge = to_edge_transform_and_lower(program, partitioner=[XnnpackPartitioner()])
        # Ops outside the delegates run on ExecuTorch's portable kernels: say which.
        outside: Dict[str, int] = {}
        delegates = 0
        for node in edge.exported_program().graph.nodes:
            if node.op != "call_function":
                continue
            name = getattr(node.target, "__name__", str(node.target))
            if "executorch_call_delegate" in name:
                delegates += 1
            elif name != "getitem":
                outside[name] = outside.get(name, 0) + 1
        return edge.to_executorch().buffer, delegates, outside

    buffer, delegates, outside = _quietly(lower)
    with open(path, "wb") as f:
        f.write(buffer)
    return {"delegates": delegates, "not_delegated": outside}


def _run_executorch(path: str, inputs) -> List:
    from executorch.extension.pybindings.portable_lib import _load_for_executorch

    return [t.numpy() for t in _load_for_executorch(path).forward(tuple(inputs))]


def _export_onnx(model, inputs, input_names, output_names, path: str, dynamo: bool) -> None:
    import torch

    def export():
        kwargs = {"external_data": False} if dynamo else {}
        torch.onnx.export(model, tuple(inputs), path, input_names=list(input_names),
                          output_names=list(output_names), dynamo=dynamo, **kwargs)

    _quietly(export)


def _run_onnx(path: str, input_names, arrays) -> List:
    import onnxruntime as ort

    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    return session.run(None, dict(zip(input_names, arrays)))


def _export_torchscript(model, inputs, path: str) -> None:
    import torch

    def export():
        with torch.no_grad():
            torch.jit.save(torch.jit.freeze(torch.jit.trace(model, tuple(inputs))), path)

    _quietly(export)


def _run_torchscript(path: str, inputs) -> List:
    import torch

    module = torch.jit.optimize_for_inference(torch.jit.load(path))
    with torch.no_grad():
        outputs = module(*inputs)
    if isinstance(outputs, torch.Tensor):
        outputs = (outputs,)
    return [t.numpy() for t in outputs]


def _fresh(model_dir: str) -> bool:
    info = os.path.join(model_dir, common.EXPORT_INFO)
    if not os.path.exists(info):
        return False
    sources = [os.path.join(model_dir, "model.json"), os.path.abspath(__file__)]
    return all(os.path.getmtime(info) > os.path.getmtime(s) for s in sources)


def export_peers(model_dir: str, model_name: str, seed: int) -> Dict:
    """Writes the peers' files into model_dir; returns what peers_export.json holds."""
    import torch
    from zoo.models import ZOO, build

    torch.set_num_threads(min(2, os.cpu_count() or 1))
    input_names, output_names = common.graph_names(model_dir)
    arrays = common.load_arrays(model_dir, "inputs.safetensors", input_names)
    expected = common.load_arrays(model_dir, "expected.safetensors", output_names)
    model, _, built_inputs = build(ZOO[model_name], seed)
    inputs = [torch.from_numpy(a.copy()) for a in arrays]
    if len(built_inputs) != len(inputs) or not all(
            torch.equal(a, b) for a, b in zip(built_inputs, inputs)):
        raise ValueError(f"inputs.safetensors is not {model_name}'s seed-{seed} input "
                         "(export the pytorch_ir flavour again with the same --seed)")
    with torch.no_grad():
        eager = model(*inputs)
    eager = [eager] if isinstance(eager, torch.Tensor) else list(eager)
    difference = common.compare_outputs([t.numpy() for t in eager], expected, output_names)
    if difference:
        raise ValueError(f"this torch's eager outputs differ from expected.safetensors: "
                         f"{difference}")

    info: Dict = {"model": model_name, "seed": seed, "torch": torch.__version__, "peers": {}}

    def attempt(key: str, file_name: str, export: Callable[[str], Dict],
                run: Callable[[str], List]) -> bool:
        path = os.path.join(model_dir, file_name)
        staging = path + ".tmp"
        start = time.perf_counter()
        entry: Dict = {"file": file_name}
        try:
            entry.update(export(staging) or {})
            difference = common.compare_outputs(run(staging), expected, output_names)
        except Exception as e:  # noqa: BLE001 - any exporter failure refuses this peer
            difference = f"export failed: {_first_line(e)}"
            if os.environ.get("TORCHIR_PEERS_TRACEBACK"):
                traceback.print_exc()
        entry["seconds"] = round(time.perf_counter() - start, 2)
        if difference:
            entry["refused"] = difference
            for stale in (staging, path):
                if os.path.exists(stale):
                    os.remove(stale)
        else:
            os.replace(staging, path)
        info["peers"][key] = entry
        return not difference

    attempt("executorch_xnnpack", common.EXECUTORCH_PTE,
            lambda p: _export_executorch(model, inputs, p),
            lambda p: _run_executorch(p, inputs))
    for dynamo in (True, False):
        exporter = "torch.onnx.export(dynamo=True)" if dynamo else \
            "torch.onnx.export(dynamo=False) (TorchScript-based)"
        ok = attempt("onnxruntime", common.ONNX_FILE,
                     lambda p: _export_onnx(model, inputs, input_names, output_names, p,
                                            dynamo) or {"exporter": exporter},
                     lambda p: _run_onnx(p, input_names, arrays))
        if ok:
            break
        info.setdefault("onnx_failures", []).append(
            f"{exporter}: {info['peers']['onnxruntime']['refused']}")
    attempt("torchscript_onednn", common.TORCHSCRIPT_FILE,
            lambda p: _export_torchscript(model, inputs, p),
            lambda p: _run_torchscript(p, inputs))
    info["peers"]["pytorch_eager"] = {"file": "", "seconds": 0.0}
    return info


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model_dir")
    parser.add_argument("model", help="the zoo network exported into MODEL_DIR")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--force", action="store_true", help="export even when up to date")
    args = parser.parse_args(argv)
    sys.path.insert(0, os.path.join(common.REPO, "tools"))
    try:
        if not args.force and _fresh(args.model_dir):
            print(f"   {args.model}: peers up to date", file=sys.stderr)
            return 0
        info = export_peers(args.model_dir, args.model, args.seed)
    except Exception as e:  # noqa: BLE001 - one clear line, not a traceback
        print(f"export: {args.model}: {_first_line(e)}", file=sys.stderr)
        return 1
    with open(os.path.join(args.model_dir, common.EXPORT_INFO), "w") as f:
        json.dump(info, f, indent=2)
    for key, entry in info["peers"].items():
        if key == "pytorch_eager":
            continue
        state = f"refused: {entry['refused']}" if "refused" in entry else "checked"
        extra = f", {entry['exporter']}" if "exporter" in entry else ""
        if "not_delegated" in entry:
            outside = entry["not_delegated"] or "none"
            extra += f", {entry['delegates']} delegate(s), outside: {outside}"
        print(f"   {args.model}: {key} {entry['seconds']} s, {state}{extra}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
