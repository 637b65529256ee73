"""An independent interpreter of a written pytorch-ir export, used to prove it is complete.

It reads only the files (model.json, weights.safetensors, inputs.safetensors,
expected.safetensors), resolves every `aten.<op>.<overload>` (aten_compat covers ops newer
than the installed PyTorch), rebuilds each call from its schema, the flat `inputs`, `attrs`,
`_tensor_list_sizes` and `_tensor_list_none_masks`, runs it on the real weights and compares
with the eager outputs. Optional per-tensor reference values pinpoint the first divergence.

Optional tensor arguments passed as None leave no trace in `inputs`; which ones were None is
resolved from the schema: a unique placement is taken as is, batch-norm style ops use their
`training` flag (eval-mode batch norm always has running stats), anything else is rejected.
"""

import itertools
import json
import math
import os
from typing import Dict, List, Optional

import torch

from . import safetensors_io
from .aten_compat import lookup_op
from .aten_schema import (Schema, is_tensor_list_type, is_tensor_type, list_element,
                          strip_optional)
from .ir_graph import DTYPE_NAMES, GETITEM

_DTYPE_BY_NAME = {name: dtype for dtype, name in DTYPE_NAMES.items()}
# c10::ScalarType numbering, for files that store dtypes as integers.
_SCALAR_TYPE_ENUM = {0: torch.uint8, 1: torch.int8, 2: torch.int16, 3: torch.int32,
                     4: torch.int64, 5: torch.float16, 6: torch.float32, 7: torch.float64,
                     9: torch.complex64, 10: torch.complex128, 11: torch.bool,
                     15: torch.bfloat16}
_MEMORY_FORMATS = {"torch.contiguous_format": torch.contiguous_format,
                   "torch.channels_last": torch.channels_last,
                   "torch.preserve_format": torch.preserve_format,
                   "torch.channels_last_3d": torch.channels_last_3d}
_BATCH_NORM_LIKE = {"batch_norm", "native_batch_norm", "instance_norm"}


class CheckFailure(Exception):
    pass


def _dtype_from_attr(value):
    if isinstance(value, int):
        return _SCALAR_TYPE_ENUM[value]
    return getattr(torch, value.replace("torch.", ""))


def _attr_to_python(value, type_text: str):
    base, _ = strip_optional(type_text)
    if value is None:
        return None
    element = list_element(base)
    if element is not None:
        return [_attr_to_python(v, element[0]) for v in value]
    if base == "ScalarType":
        return _dtype_from_attr(value)
    if base == "Device":
        return torch.device("cpu" if value == "meta" else value)
    if base == "Layout":
        return torch.strided if value in ("torch.strided", 0) else getattr(torch, str(value))
    if base == "MemoryFormat":
        return _MEMORY_FORMATS[value] if isinstance(value, str) else value
    return value


def _none_placement(schema: Schema, op_name: str, optional_slots: List[int], missing: int,
                    attrs: dict, node_name: str) -> set:
    """Which optional single-tensor slots (indices into schema.arguments) were None."""
    if missing == 0:
        return set()
    if missing == len(optional_slots):
        return set(optional_slots)
    if op_name in _BATCH_NORM_LIKE and missing == 2:
        names = {schema.arguments[i].name: i for i in optional_slots}
        training = attrs.get("training", attrs.get("use_input_stats"))
        if training is False and {"weight", "bias"} <= set(names):
            return {names["weight"], names["bias"]}
        if training is True and {"running_mean", "running_var"} <= set(names):
            return {names["running_mean"], names["running_var"]}
    choices = list(itertools.combinations(optional_slots, missing))
    if len(choices) == 1:
        return set(choices[0])
    raise CheckFailure(f"node {node_name}: cannot tell which of the optional tensor arguments "
                       f"{[schema.arguments[i].name for i in optional_slots]} are None")


def build_call(schema: Schema, node: dict, env: Dict[str, torch.Tensor]):
    """Rebuilds (args, kwargs) of one node from its schema, flat inputs and attrs."""
    attrs = node.get("attrs", {})
    flat = [env[meta["name"]] for meta in node["inputs"]]
    list_sizes = list(attrs.get("_tensor_list_sizes", []))
    none_masks = list(attrs.get("_tensor_list_none_masks", []))
    arguments = schema.arguments

    # Count how many flat inputs belong to tensor lists, and which single slots are open.
    list_masks, consumed_by_lists = {}, 0
    single_required, single_optional = [], []
    for i, arg in enumerate(arguments):
        if is_tensor_list_type(arg.type):
            if not list_sizes:
                if arg.name in attrs or not arg.has_default:
                    raise CheckFailure(f"node {node['name']}: no _tensor_list_sizes entry for "
                                       f"{arg.name}")
                continue
            size = list_sizes.pop(0)
            mask = [False] * size
            if "?" in arg.type and none_masks and none_masks[0].count(False) == size:
                mask = none_masks.pop(0)
            list_masks[i] = mask
            consumed_by_lists += mask.count(False)
        elif is_tensor_type(arg.type) and arg.name not in attrs:
            (single_optional if arg.type.endswith("?") else single_required).append(i)
    available = len(flat) - consumed_by_lists
    missing = len(single_required) + len(single_optional) - available
    if missing < 0 or missing > len(single_optional):
        raise CheckFailure(f"node {node['name']}: {len(flat)} tensor inputs do not fit "
                           f"{schema.op_type}")
    none_slots = _none_placement(schema, schema.name, single_optional, missing, attrs,
                                 node["name"])

    args, kwargs, cursor = [], {}, 0
    for i, arg in enumerate(arguments):
        if i in list_masks:
            value = []
            for is_none in list_masks[i]:
                if is_none:
                    value.append(None)
                else:
                    value.append(flat[cursor])
                    cursor += 1
        elif is_tensor_type(arg.type) and arg.name not in attrs:
            if i in none_slots:
                value = None
            else:
                value = flat[cursor]
                cursor += 1
        elif arg.name in attrs:
            value = _attr_to_python(attrs[arg.name], arg.type)
        elif arg.has_default:
            value = arg.default
        elif is_tensor_list_type(arg.type):
            value = []
        else:
            raise CheckFailure(f"node {node['name']}: attribute {arg.name!r} of "
                               f"{schema.op_type} missing")
        if arg.kwarg_only:
            kwargs[arg.name] = value
        else:
            args.append(value)
    return args, kwargs


def _close(actual: torch.Tensor, expected: torch.Tensor) -> bool:
    if actual.shape != expected.shape or actual.dtype != expected.dtype:
        return False
    if not actual.is_floating_point():
        return torch.equal(actual, expected)
    finite = expected[torch.isfinite(expected)]
    scale = float(finite.abs().max()) if finite.numel() else 1.0
    return torch.allclose(actual, expected, rtol=1e-4, atol=1e-5 * max(1.0, scale),
                          equal_nan=True)


def _check_meta(meta: dict, tensor: torch.Tensor, where: str):
    if list(tensor.shape) != meta["shape"] or DTYPE_NAMES.get(tensor.dtype) != meta["dtype"]:
        raise CheckFailure(f"{where}: {meta['name']} is declared {meta['dtype']}{meta['shape']} "
                           f"but is {DTYPE_NAMES.get(tensor.dtype)}{list(tensor.shape)}")


def _constant_tensor(entry: dict) -> torch.Tensor:
    return torch.tensor(entry["data"], dtype=_DTYPE_BY_NAME[entry["dtype"]])


def check_export(out_dir: str, references: Optional[Dict[str, torch.Tensor]] = None) -> int:
    """Interprets the export in `out_dir`; raises CheckFailure on the first problem.

    Returns the number of nodes executed.
    """
    with open(os.path.join(out_dir, "model.json")) as f:
        doc = json.load(f)
    weights = safetensors_io.read_file(os.path.join(out_dir, "weights.safetensors"))
    inputs = safetensors_io.read_file(os.path.join(out_dir, "inputs.safetensors"))
    expected = safetensors_io.read_file(os.path.join(out_dir, "expected.safetensors"))

    env: Dict[str, torch.Tensor] = {}
    producers: Dict[str, tuple] = {}
    for meta in doc["graph_inputs"]:
        if meta["name"] not in inputs:
            raise CheckFailure(f"graph input {meta['name']} missing from inputs.safetensors")
        env[meta["name"]] = inputs[meta["name"]].clone()
        _check_meta(meta, env[meta["name"]], "graph_inputs")
        producers[meta["name"]] = (meta["name"], 0)
    declared_weights = {w["name"]: w for w in doc["weights"]}
    constants = doc.get("constants", {})
    for placeholder, key in doc["weight_name_mapping"].items():
        if key not in declared_weights:
            raise CheckFailure(f"weight_name_mapping {placeholder} -> {key}: not in weights")
        if key in weights:
            env[placeholder] = weights[key].clone()
        elif placeholder in constants:
            env[placeholder] = _constant_tensor(constants[placeholder])
        elif key in constants:  # the real pytorch-ir keys constants by target, not placeholder
            env[placeholder] = _constant_tensor(constants[key])
        else:
            raise CheckFailure(f"{placeholder} ({key}) is neither in the weights file nor in "
                               "constants")
        w = declared_weights[key]
        _check_meta({"name": placeholder, "shape": w["shape"], "dtype": w["dtype"]},
                    env[placeholder], "weights")

    for node in doc["nodes"]:
        where = f"node {node['name']} ({node['op_type']})"
        for meta in node["inputs"]:
            name = meta["name"]
            if name not in env:
                raise CheckFailure(f"{where}: input {name} is not defined before use")
            if "producer_node" in meta:
                if producers.get(name) != (meta["producer_node"], meta["producer_output_idx"]):
                    raise CheckFailure(f"{where}: input {name} names producer "
                                       f"{meta['producer_node']}[{meta['producer_output_idx']}]"
                                       f" but is {producers.get(name)}")
            elif name not in doc["weight_name_mapping"]:
                raise CheckFailure(f"{where}: input {name} has no producer and is no weight")
            _check_meta(meta, env[name], where)
        if node["op_type"] == GETITEM:
            results = [env[node["inputs"][node["attrs"]["index"]]["name"]]]
        else:
            try:
                schema, op = lookup_op(node["op_type"])
            except LookupError as e:
                raise CheckFailure(f"{where}: {e}")
            args, kwargs = build_call(schema, node, env)
            try:
                out = op(*args, **kwargs)
            except Exception as e:  # noqa: BLE001 - report which node failed and why
                raise CheckFailure(f"{where}: execution failed: {e}")
            if out is None:  # ops returning `()`, e.g. torch 2.x's _assert_tensor_metadata
                results = []
            else:
                results = list(out) if isinstance(out, (list, tuple)) else [out]
        if len(results) != len(node["outputs"]):
            raise CheckFailure(f"{where}: produced {len(results)} results, declares "
                               f"{len(node['outputs'])}")
        for i, (meta, tensor) in enumerate(zip(node["outputs"], results)):
            if meta["name"] in producers:
                raise CheckFailure(f"{where}: tensor name {meta['name']} defined twice")
            _check_meta(meta, tensor, where)
            if references is not None and meta["name"] in references:
                if not _close(tensor, references[meta["name"]]):
                    diff = (tensor.double() - references[meta["name"]].double()).abs().max()
                    raise CheckFailure(f"{where}: output {meta['name']} diverges from eager "
                                       f"PyTorch (max abs diff {float(diff):.3g})")
            env[meta["name"]] = tensor
            producers[meta["name"]] = (node["name"], i)

    for meta in doc["graph_outputs"]:
        name = meta["name"]
        if name not in env:
            raise CheckFailure(f"graph output {name} is never computed")
        _check_meta(meta, env[name], "graph_outputs")
        if name not in expected:
            raise CheckFailure(f"graph output {name} missing from expected.safetensors")
        if not _close(env[name], expected[name]):
            diff = (env[name].double() - expected[name].double()).abs().max()
            raise CheckFailure(f"graph output {name} differs from the eager result "
                               f"(max abs diff {float(diff):.3g})")
        if (env[name].is_floating_point() and env[name].numel() > 0 and
                not math.isfinite(float(env[name].abs().max()))):
            raise CheckFailure(f"graph output {name} holds non-finite values")
    return len(doc["nodes"])
