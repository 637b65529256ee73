"""What the peer benchmark's export, workers and driver share: the files of a model directory,
its graph's input and output order, and the output check every runtime passes before it is timed.

A model directory (build/bench_peers/MODEL/) holds the pytorch_ir export that torchir compiles
(model.json, weights.safetensors, inputs.safetensors, expected.safetensors) and, beside it, what
each peer loads. Inputs and expected outputs are keyed by the names pytorch-ir gave the graph's
inputs and outputs; model.json lists them in call order, so every runtime is fed and checked in
that order, from the same files.
"""

import json
import os
from typing import Dict, List, Sequence, Tuple

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# The C++ suite's tolerance (docs/benchmarks.md): |actual - expected| <= ATOL + RTOL * |expected|.
ATOL = 1e-4
RTOL = 1e-4

# File names inside a model directory.
# torchir's variants and their programs: its own kernels first (with XNNPACK taking what they
# leave), then XNNPACK alone.
TORCHIR_PTES = {"torchir_native": "torchir_native.pte", "torchir_xnnpack": "torchir_xnnpack.pte"}
EXECUTORCH_PTE = "executorch_xnnpack.pte"
ONNX_FILE = "model.onnx"
TORCHSCRIPT_FILE = "torchscript_frozen.pt"
EXPORT_INFO = "peers_export.json"

# Runtimes in the order of the tables; torchir's variants are the subjects, the rest its peers.
TORCHIR_RUNTIMES = tuple(TORCHIR_PTES)
PEER_RUNTIMES = ("executorch_xnnpack", "onnxruntime", "torchscript_onednn", "pytorch_eager")
RUNTIMES = TORCHIR_RUNTIMES + PEER_RUNTIMES


def graph_names(model_dir: str) -> Tuple[List[str], List[str]]:
    """(input names, output names) in call order, from the pytorch-ir export's model.json."""
    with open(os.path.join(model_dir, "model.json")) as f:
        graph = json.load(f)
    return ([i["name"] for i in graph["graph_inputs"]],
            [o["name"] for o in graph["graph_outputs"]])


def load_arrays(model_dir: str, file_name: str, names: Sequence[str]) -> List[np.ndarray]:
    """The tensors of one .safetensors file of the export, as numpy arrays in `names` order."""
    from safetensors.numpy import load_file

    tensors = load_file(os.path.join(model_dir, file_name))
    missing = [n for n in names if n not in tensors]
    if missing:
        raise ValueError(f"{file_name} has no tensor {', '.join(missing)}")
    return [tensors[n] for n in names]


def compare_outputs(actual: Sequence[np.ndarray], expected: Sequence[np.ndarray],
                    names: Sequence[str]) -> str:
    """An empty string when every output matches within ATOL/RTOL, else the first difference."""
    if len(actual) != len(expected):
        return f"{len(actual)} outputs, expected {len(expected)}"
    for name, a, e in zip(names, actual, expected):
        a = np.asarray(a)
        if a.shape != e.shape:
            return f"output {name}: shape {list(a.shape)}, expected {list(e.shape)}"
        if a.dtype != e.dtype:
            return f"output {name}: dtype {a.dtype}, expected {e.dtype}"
        if not np.allclose(a, e, atol=ATOL, rtol=RTOL, equal_nan=True):
            finite = np.isfinite(e) & np.isfinite(a)
            worst = float(np.max(np.abs(a[finite] - e[finite]), initial=0.0))
            return f"output {name}: max abs difference {worst:.3g} (atol = rtol = {ATOL:g})"
    return ""


def read_json(path: str) -> Dict:
    with open(path) as f:
        return json.load(f)
