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
from .torch_export_tracer import torch_export_available, trace_torch_export
from .torchscript_export import TORCHSCRIPT_FILES, TorchScriptError, write_torchscript_files

FLAVOURS = ("export", "core")
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
        for value, tensor in zip(node.outputs, node.references):
            references[value.name] = tensor
    return references


def export_module(model, name: str, input_names: List[str], inputs: List[torch.Tensor],
                  flavour: str, out_dir: str, check: bool = True,
                  torchscript: bool = False) -> ExportResult:
    """Writes FILES (plus TORCHSCRIPT_FILES when `torchscript`) into `out_dir`."""
    start = time.perf_counter()
    try:
        graph = build_graph(model, name, input_names, inputs, flavour)
    except ExportError:
        raise
    except Exception as e:  # noqa: BLE001 - tracing errors carry the model and flavour
        raise ExportError(f"{name} ({flavour}): tracing failed: {type(e).__name__}: {e}") from e
    parent = os.path.dirname(os.path.abspath(out_dir))
    os.makedirs(parent, exist_ok=True)
    base_name = os.path.basename(os.path.abspath(out_dir))
    staging = os.path.join(parent, f".{base_name}.tmp{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
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
        os.makedirs(out_dir, exist_ok=True)
        for file_name in file_names:
            os.replace(os.path.join(staging, file_name), os.path.join(out_dir, file_name))
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return ExportResult(name, flavour, len(graph.nodes), graph.op_histogram(),
                        time.perf_counter() - start)


def export_zoo_model(name: str, flavour: str, out_dir: str, seed: int = 0,
                     check: bool = True, torchscript: bool = False) -> ExportResult:
    if name not in ZOO:
        raise ExportError(f"unknown model {name!r}; --list shows the zoo")
    model, input_names, inputs = build(ZOO[name], seed)
    return export_module(model, name, input_names, inputs, flavour, out_dir, check, torchscript)


def zoo_histogram(name: str, flavour: str, seed: int = 0) -> Dict[str, int]:
    model, input_names, inputs = build(ZOO[name], seed)
    return build_graph(model, name, input_names, inputs, flavour).op_histogram()
