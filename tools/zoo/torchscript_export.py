"""TorchScript files of a zoo model, for benchmarking torchir against the PyTorch paths.

What a PyTorch user would ship, each written next to the pytorch-ir files:

  traced.pt         torch.jit.trace(model): the plain traced module, unoptimised (eager-like)
  traced_frozen.pt  torch.jit.freeze(traced), for torch.jit.optimize_for_inference to be
                    applied after loading (C++: torch::jit::optimize_for_inference): server
                    inference with conv-bn folding and oneDNN (MKLDNN) convolutions. The
                    optimised module itself cannot be stored: torch 1.13 saves its
                    prim::ConstantMKLDNNTensor weights but cannot load them back ("required
                    keyword attribute 'value' is undefined").
  mobile.pt         optimize_for_mobile(torch.jit.freeze(traced)) saved with
                    _save_for_lite_interpreter: PyTorch Mobile (XNNPACK prepacked conv/linear).
                    The file holds bytecode for the lite interpreter
                    (torch::jit::_load_for_mobile) and the TorchScript code (torch::jit::load).

The mobile path freezes first: torch 1.13's optimize_for_mobile folds conv + batch norm wrongly
on a traced module that is not frozen (resnet18 then differs from eager by 1.8, mobilenet_v2 by
0.4; the traced module's batch norms carry no `eps` attribute, the likely cause). Freezing folds
them correctly first.

Every file is reloaded from disk and run on the example inputs before the export is moved into
place; a file whose outputs differ from eager PyTorch by more than the tolerance is refused.
"""

import os
import warnings
from typing import Callable, Dict, List

import torch
from torch.utils.mobile_optimizer import optimize_for_mobile

TORCHSCRIPT_FILES = ("traced.pt", "traced_frozen.pt", "mobile.pt")
ATOL = 1e-4
RTOL = 1e-4


class TorchScriptError(Exception):
    pass


def _flatten(out) -> List[torch.Tensor]:
    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, (list, tuple)):
        return [t for o in out for t in _flatten(o)]
    if isinstance(out, dict):
        return [t for k in out for t in _flatten(out[k])]
    raise TorchScriptError(f"model output of type {type(out).__name__}")


def _trace(model: torch.nn.Module, inputs: List[torch.Tensor]) -> torch.jit.ScriptModule:
    with warnings.catch_warnings():
        # Shapes are static in the zoo; the tracer's "converting a tensor to a Python
        # number" warnings say exactly that.
        warnings.simplefilter("ignore", torch.jit.TracerWarning)
        traced = torch.jit.trace(model, tuple(t.clone() for t in inputs), check_trace=False)
    return traced.eval()


def _save(module: torch.jit.ScriptModule, path: str) -> None:
    torch.jit.save(module, path)


def _save_lite(module: torch.jit.ScriptModule, path: str) -> None:
    module._save_for_lite_interpreter(path)  # takes a file name only


def _load_optimized(path: str):
    return torch.jit.optimize_for_inference(torch.jit.load(path))


def _load_lite(path: str):
    from torch.jit.mobile import _load_for_lite_interpreter
    return _load_for_lite_interpreter(path)


def check_outputs(name: str, outputs, expected: List[torch.Tensor]) -> None:
    """Raises TorchScriptError naming `name` unless `outputs` match `expected`."""
    outputs = _flatten(outputs)
    if len(outputs) != len(expected):
        raise TorchScriptError(f"{name}: {len(outputs)} outputs, eager has {len(expected)}")
    for index, (got, want) in enumerate(zip(outputs, expected)):
        if got.shape != want.shape or got.dtype != want.dtype:
            raise TorchScriptError(f"{name}: output {index} is {got.dtype}{list(got.shape)}, "
                                   f"eager gives {want.dtype}{list(want.shape)}")
        if not torch.allclose(got, want, rtol=RTOL, atol=ATOL, equal_nan=True):
            error = (got.double() - want.double()).abs().max().item()
            raise TorchScriptError(f"{name}: output {index} differs from eager PyTorch by "
                                   f"{error:.3g} (atol {ATOL}, rtol {RTOL})")


def write_torchscript_files(model: torch.nn.Module, inputs: List[torch.Tensor],
                            expected: List[torch.Tensor], directory: str) -> None:
    """Writes TORCHSCRIPT_FILES into `directory`, each reloaded and checked against `expected`.

    Raises TorchScriptError for a file whose outputs differ; the caller discards the directory.
    """
    builders: Dict[str, Callable[[torch.jit.ScriptModule, str], None]] = {
        "traced.pt": _save,
        "traced_frozen.pt": lambda traced, path: _save(torch.jit.freeze(traced), path),
        "mobile.pt": lambda traced, path: _save_lite(
            optimize_for_mobile(torch.jit.freeze(traced)), path),
    }
    loaders = {"traced.pt": torch.jit.load, "traced_frozen.pt": _load_optimized,
               "mobile.pt": _load_lite}
    with torch.no_grad():
        for file_name in TORCHSCRIPT_FILES:
            path = os.path.join(directory, file_name)
            # Freezing and the optimisers rewrite the module they get: trace afresh each time.
            builders[file_name](_trace(model, inputs), path)
            reloaded = loaders[file_name](path)
            check_outputs(file_name, reloaded(*[t.clone() for t in inputs]), expected)
