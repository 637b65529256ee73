"""The `pytorch_ir` flavour: the real pytorch-ir tool (PyPI `pytorch-ir`, torch >= 2.1).

Done the way its documentation tells a user to: the model is moved to the meta device, its
example inputs too, and `torch_ir.extract_ir` writes the graph; the weights are the real
model's `state_dict()` saved with `safetensors.torch.save_file`. Nothing of ours touches the
graph, so these files are exactly what torchir's users hand it.

One exception, kept as small as possible: pytorch-ir 0.2.3's `IR.save` passes `torch.dtype`
attributes (`aten.to.dtype`, `aten.arange.start(..., dtype=...)`) straight to `json.dump`,
which raises TypeError, so a user of the tool cannot write such a model at all. The JSON is
then written from the same `IR.to_dict()` with those values as `str()` gives them
(`"torch.float16"`), which the format allows; every other model's bytes are `IR.save`'s own.

Each export is checked by `ir_checker` (our independent interpreter of the written files, the
gate for every flavour) before the files are moved into place. pytorch-ir's own verifier runs
too, as a second opinion: where it fails on an IR that interprets correctly (0.2.3 cannot place
the absent optional tensors of a batch norm without affine parameters), the export says so and
goes on.
"""

import copy
import json
import os
import warnings
from typing import Dict, List, Tuple

import torch

_FILES = ("model.json", "weights.safetensors", "inputs.safetensors", "expected.safetensors")


def pytorch_ir_available() -> Tuple[bool, str]:
    """(True, version) when torch_ir and safetensors import, else (False, reason)."""
    try:
        import safetensors.torch  # noqa: F401
        import torch_ir
    except ImportError as e:
        return False, str(e)
    return True, getattr(torch_ir, "__version__", "?")


def _json_value(value):
    # Only reached for values json cannot write (see the module comment).
    if isinstance(value, (torch.dtype, torch.device, torch.layout, torch.memory_format)):
        return str(value)
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def _write_ir(ir, path: str) -> bool:
    """Writes `ir` as IR.save does; returns True when the dtype workaround was needed."""
    try:
        ir.save(path)
        return False
    except TypeError:
        with open(path, "w") as f:
            json.dump(ir.to_dict(), f, indent=2, default=_json_value)
        return True


def _contiguous_state(model: torch.nn.Module) -> Dict[str, torch.Tensor]:
    # save_file refuses views of one storage (tied weights): each key gets its own copy,
    # as a user following safetensors' own advice would do.
    return {k: v.detach().clone().contiguous() for k, v in model.state_dict().items()}


def export_pytorch_ir(model: torch.nn.Module, name: str, inputs: List[torch.Tensor],
                      expected: List[torch.Tensor], staging: str, check: bool) -> Dict:
    """Writes _FILES into `staging`; returns {"nodes", "histogram", "workaround",
    "verifier_note"} (the note is empty when pytorch-ir's verifier accepted the IR)."""
    from safetensors.torch import save_file
    from torch_ir import extract_ir, verify_ir_with_state_dict

    meta_model = copy.deepcopy(model).to("meta")
    meta_inputs = tuple(t.to("meta") for t in inputs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ir = extract_ir(meta_model, meta_inputs, model_name=name)
    if len(ir.graph_inputs) != len(inputs):
        raise ValueError(f"pytorch-ir wrote {len(ir.graph_inputs)} graph inputs, "
                         f"the model takes {len(inputs)}")
    if len(ir.graph_outputs) != len(expected):
        raise ValueError(f"pytorch-ir wrote {len(ir.graph_outputs)} graph outputs, "
                         f"eager returns {len(expected)}")
    state = _contiguous_state(model)
    verifier_note = ""
    if check:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            valid, report = verify_ir_with_state_dict(
                ir, state, model, tuple(t.clone() for t in inputs), rtol=1e-4, atol=1e-5,
                constants=ir.constants or None)
        if not valid:
            verifier_note = str(report.error_message or report).strip().splitlines()[0]
    os.makedirs(staging, exist_ok=True)
    workaround = _write_ir(ir, os.path.join(staging, "model.json"))
    save_file(state, os.path.join(staging, "weights.safetensors"))
    save_file({m.name: t.contiguous() for m, t in zip(ir.graph_inputs, inputs)},
              os.path.join(staging, "inputs.safetensors"))
    save_file({m.name: t.detach().contiguous() for m, t in zip(ir.graph_outputs, expected)},
              os.path.join(staging, "expected.safetensors"))
    histogram: Dict[str, int] = {}
    for node in ir.nodes:
        histogram[node.op_type] = histogram.get(node.op_type, 0) + 1
    return {"nodes": len(ir.nodes), "histogram": histogram, "workaround": workaround,
            "verifier_note": verifier_note}
