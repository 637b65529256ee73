"""Looks up `aten.<op>.<overload>` strings, including ops newer than the installed PyTorch.

Files written for current PyTorch name ops the installed 1.13 does not have; each such op gets
its schema (copied from the op's declaration, which is the interface, not an implementation)
and an equivalent composition of ops 1.13 does have.
"""

from typing import Callable, Tuple

import torch

from .aten_schema import Schema, schema_from_function_schema, schema_of

_aten = torch.ops.aten


def _bn_legit_no_training(input, weight, bias, running_mean, running_var, momentum, eps):
    return _aten.native_batch_norm.default(input, weight, bias, running_mean, running_var, False,
                                           momentum, eps)


_NEWER_OPS = {
    "aten._native_batch_norm_legit_no_training.default": (
        "aten::_native_batch_norm_legit_no_training(Tensor input, Tensor? weight, Tensor? bias, "
        "Tensor running_mean, Tensor running_var, float momentum, float eps) "
        "-> (Tensor, Tensor, Tensor)",
        _bn_legit_no_training),
}

_compat_cache = {}


def compat_schema(op_type: str) -> Schema:
    """Schema of an op listed in _NEWER_OPS (used by the core exporter when renaming)."""
    return lookup_op(op_type)[0]


def lookup_op(op_type: str) -> Tuple[Schema, Callable]:
    """Resolves "aten.conv2d.default" to (Schema, callable). Raises LookupError."""
    parts = op_type.split(".")
    if len(parts) != 3 or parts[0] != "aten":
        raise LookupError(f"not an ATen op type: {op_type!r}")
    packet = getattr(_aten, parts[1], None)
    if packet is not None and parts[2] in packet.overloads():
        op = getattr(packet, parts[2])
        return schema_of(op), op
    if op_type in _NEWER_OPS:
        if op_type not in _compat_cache:
            text, impl = _NEWER_OPS[op_type]
            schema = schema_from_function_schema(torch._C.parse_schema(text))
            _compat_cache[op_type] = (schema, impl)
        return _compat_cache[op_type]
    raise LookupError(f"unknown op {op_type} (not in torch {torch.__version__})")
