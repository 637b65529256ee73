"""Exports one model to a pytorch-ir directory and verifies it.

Steps: build (seeded) -> eager run for the expected outputs -> trace in the chosen flavour ->
finalize the graph -> write model.json and the three .safetensors files into a temporary
directory -> interpret the written files with ir_checker -> (with `torchscript`) write the
TorchScript files of torchscript_export and check each -> move the files into place.
Nothing is left in the output directory when any step fails.
"""

import os
import shutil
import sys
import time
from dataclasses import dataclass
from typing import Dict, List

import torch

from . import safetensors_io
from .core_tracer import trace_core
from .export_tracer import flatten_outputs, trace_export
from .ir_checker import check_export
from .ir_graph import Graph
from .models import ZOO, build
from .pytorch_ir_export import export_pytorch_ir, pytorch_ir_available
from .torch_export_tracer import torch_export_available, trace_torch_export
from .torchscript_export import TORCHSCRIPT_FILES, TorchScriptError, write_torchscript_files

# export, core: emulated on torch 1.13 (or torch.export on >= 2.1); pytorch_ir: the real tool.
FLAVOURS = ("export", "core", "pytorch_ir")
FILES = ("model.json", "weights.safetensors", "inputs.safetensors", "expected.safetensors")


class ExportError(Exception):
    pass


@dataclass
class ExportResult:
    name: str
    flavour: str
    nodes: int
    histogram: Dict[str, int]
    seconds: float


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def trace(model, name: str, input_names: List[str], inputs: List[torch.Tensor],
          flavour: str) -> Graph:
    if flavour not in FLAVOURS:
        raise ExportError(f"unknown flavour {flavour!r} (expected one of {', '.join(FLAVOURS)})")
    if torch_export_available():
        return trace_torch_export(model, name, input_names, inputs, flavour)
    if flavour == "export":
        return trace_export(model, name, input_names, inputs)
    return trace_core(model, name, input_names, inputs)


def _same(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.shape == b.shape and a.dtype == b.dtype and torch.allclose(
        a.double(), b.double(), rtol=1e-4, atol=1e-5, equal_nan=True)


def build_graph(model, name, input_names, inputs, flavour):
    """Traces `model` and returns (finalized graph, eager outputs)."""
    with torch.no_grad():
        expected = [t.detach().clone() for t in
                    flatten_outputs(model(*[t.clone() for t in inputs]))]
    graph = trace(model, name, input_names, inputs, flavour)
    graph.expected = expected
    graph.finalize()
    if len(graph.outputs) != len(expected):
        raise ExportError(f"{name}: traced {len(graph.outputs)} outputs, eager has {len(expected)}")
    for value, eager in zip(graph.outputs, expected):
        traced = value.node.references[value.index]
        if not _same(traced, eager):
            raise ExportError(f"{name}: traced output {value.name} differs from eager PyTorch")
    return graph


_UNINITIALISED_FACTORIES = ("empty", "empty_like", "empty_strided", "new_empty",
                            "new_empty_strided")


def write_graph(graph: Graph, directory: str) -> Dict[str, torch.Tensor]:
    """Writes the four files; returns every node output's eager value by tensor name."""
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, "model.json"), "w") as f:
        f.write(graph.to_json())
    safetensors_io.write_file(os.path.join(directory, "weights.safetensors"),
                              {p.key: p.tensor for p in graph.weights})
    safetensors_io.write_file(os.path.join(directory, "inputs.safetensors"),
                              {v.name: t for v, t in zip(graph.inputs, graph.input_tensors)})
    safetensors_io.write_file(os.path.join(directory, "expected.safetensors"),
                              {v.name: t for v, t in zip(graph.outputs, graph.expected)})
    references = {}
    for node in graph.nodes:
        # An uninitialised factory's eager result is whatever memory held: nothing to compare.
        if node.op_type.split(".")[1:2] in [[f] for f in _UNINITIALISED_FACTORIES]:
            continue
        for value, tensor in zip(node.outputs, node.references):
            references[value.name] = tensor
    return references


def _staging_dir(out_dir: str) -> str:
    parent = os.path.dirname(os.path.abspath(out_dir))
    os.makedirs(parent, exist_ok=True)
    staging = os.path.join(parent, f".{os.path.basename(os.path.abspath(out_dir))}.tmp{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    return staging


def _move_into_place(staging: str, out_dir: str, file_names) -> None:
    os.makedirs(out_dir, exist_ok=True)
    for file_name in file_names:
        os.replace(os.path.join(staging, file_name), os.path.join(out_dir, file_name))


def _export_with_pytorch_ir(model, name: str, inputs: List[torch.Tensor], out_dir: str,
                            check: bool) -> ExportResult:
    available, why = pytorch_ir_available()
    if not available:
        raise ExportError(f"flavour pytorch_ir needs the pytorch-ir package ({why}); run this "
                          "tool with the python of the virtual environment scripts/setup.sh "
                          "makes (TORCHIR_VENV_PYTHON in build/CMakeCache.txt)")
    start = time.perf_counter()
    with torch.no_grad():
        expected = [t.detach().clone() for t in
                    flatten_outputs(model(*[t.clone() for t in inputs]))]
    staging = _staging_dir(out_dir)
    try:
        try:
            info = export_pytorch_ir(model, name, inputs, expected, staging, check)
        except Exception as e:  # noqa: BLE001 - the tool's errors carry the model
            raise ExportError(f"{name} (pytorch_ir): {type(e).__name__}: {e}") from e
        if check:
            try:
                check_export(staging)
            except Exception as e:  # noqa: BLE001
                raise ExportError(f"{name} (pytorch_ir): check failed: {e}") from e
        if info["workaround"]:
            log(f"{name} (pytorch_ir): IR.save cannot write torch.dtype attributes; "
                "wrote IR.to_dict() with them as strings")
        if info["verifier_note"]:
            log(f"{name} (pytorch_ir): pytorch-ir's own verifier fails, ir_checker passes: "
                f"{info['verifier_note']}")
        _move_into_place(staging, out_dir, FILES)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return ExportResult(name, "pytorch_ir", info["nodes"], info["histogram"],
                        time.perf_counter() - start)


def export_module(model, name: str, input_names: List[str], inputs: List[torch.Tensor],
                  flavour: str, out_dir: str, check: bool = True,
                  torchscript: bool = False) -> ExportResult:
    """Writes FILES (plus TORCHSCRIPT_FILES when `torchscript`) into `out_dir`."""
    if flavour == "pytorch_ir":
        if torchscript:
            raise ExportError("--torchscript goes with the export/core flavours (torch 1.13)")
        return _export_with_pytorch_ir(model, name, inputs, out_dir, check)
    start = time.perf_counter()
    try:
        graph = build_graph(model, name, input_names, inputs, flavour)
    except ExportError:
        raise
    except Exception as e:  # noqa: BLE001 - tracing errors carry the model and flavour
        raise ExportError(f"{name} ({flavour}): tracing failed: {type(e).__name__}: {e}") from e
    staging = _staging_dir(out_dir)
    try:
        references = write_graph(graph, staging)
        if check:
            try:
                check_export(staging, references)
            except Exception as e:  # noqa: BLE001
                raise ExportError(f"{name} ({flavour}): check failed: {e}") from e
        file_names = FILES
        if torchscript:
            try:
                write_torchscript_files(model, inputs, graph.expected, staging)
            except TorchScriptError as e:
                raise ExportError(f"{name}: TorchScript export refused: {e}") from e
            except Exception as e:  # noqa: BLE001 - tracing/optimising errors name the model
                raise ExportError(f"{name}: TorchScript export failed: "
                                  f"{type(e).__name__}: {e}") from e
            file_names = FILES + TORCHSCRIPT_FILES
        _move_into_place(staging, out_dir, file_names)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return ExportResult(name, flavour, len(graph.nodes), graph.op_histogram(),
                        time.perf_counter() - start)


def export_zoo_model(name: str, flavour: str, out_dir: str, seed: int = 0,
                     check: bool = True, torchscript: bool = False) -> ExportResult:
    if name not in ZOO:
        raise ExportError(f"unknown model {name!r}; --list shows the zoo")
    if not ZOO[name].has_flavour(flavour):
        raise ExportError(f"model {name!r} exists only in the {', '.join(ZOO[name].only)} "
                          f"flavour(s), not in {flavour!r}")
    model, input_names, inputs = build(ZOO[name], seed)
    return export_module(model, name, input_names, inputs, flavour, out_dir, check, torchscript)


def zoo_histogram(name: str, flavour: str, seed: int = 0) -> Dict[str, int]:
    model, input_names, inputs = build(ZOO[name], seed)
    if flavour == "pytorch_ir":
        import tempfile
        with tempfile.TemporaryDirectory() as scratch:
            return export_module(model, name, input_names, inputs, flavour,
                                 os.path.join(scratch, "out"), check=False).histogram
    return build_graph(model, name, input_names, inputs, flavour).op_histogram()
