"""The `export` flavour: the pre-dispatch ATen graph current torch.export writes.

torch 1.13 has no torch.export, so the model is run eagerly under a TorchFunctionMode. 1.13
disables the mode while its handler runs, so only the outermost torch-level call is seen (F.linear,
not what it calls). Each call is lowered to the ATen overload torch.export would record:
 1. torch.nn.functional wrappers written in Python are mapped to the op they call
    (F.batch_norm -> aten.batch_norm with cudnn_enabled, F.relu(inplace=True) -> aten.relu_).
 2. Tensor dunders map to their op (`__mul__` -> mul, `__iadd__` -> add_), `x[...]` becomes the
    slice/select/unsqueeze/index sequence PyTorch's indexing code dispatches.
 3. Everything else is looked up by name in torch.ops.aten and matched against each overload's
    schema (aten_schema.resolve_overload). Calls returning no tensor (x.size(0)) run as they are.
The op then runs eagerly and the node is recorded with its eager result as reference.
"""

import inspect
import math
from typing import Callable, Dict, List

import torch
import torch.nn.functional as F
from torch.overrides import TorchFunctionMode

from .aten_schema import (BoundArgument, INT64_MAX, call_op, recorded_arguments,
                          resolve_overload, returns_tensors, is_multi_output)
from .ir_graph import Graph, Value


class UnsupportedCall(Exception):
    pass


def _contains_tensor(obj) -> bool:
    if isinstance(obj, torch.Tensor):
        return True
    if isinstance(obj, (list, tuple)):
        return any(_contains_tensor(o) for o in obj)
    if isinstance(obj, dict):
        return any(_contains_tensor(o) for o in obj.values())
    return False


class Recorder:
    """Maps live tensors to graph Values and records lowered ATen calls as nodes."""

    def __init__(self, graph: Graph, model: torch.nn.Module):
        self.graph = graph
        self._by_id: Dict[int, tuple] = {}
        self._attribute_paths = {}
        for module_path, module in model.named_modules():
            for attr, obj in vars(module).items():
                if isinstance(obj, torch.Tensor) and not isinstance(obj, torch.nn.Parameter):
                    self._attribute_paths.setdefault(
                        id(obj), f"{module_path}.{attr}" if module_path else attr)
        self._lifted = 0
        self._constant_sources = {}  # id -> tensor created by torch.tensor(...) in forward

    def allow_constant(self, tensor: torch.Tensor):
        """Marks a tensor made inside forward from Python data; it becomes a lifted constant."""
        self._constant_sources[id(tensor)] = tensor

    def bind(self, tensor: torch.Tensor, value: Value):
        self._by_id[id(tensor)] = (tensor, value)

    def value_of(self, tensor: torch.Tensor) -> Value:
        entry = self._by_id.get(id(tensor))
        if entry is not None and entry[0] is tensor:
            return entry[1]
        # A tensor the graph has not seen: a lifted constant (torch.tensor(...) in forward, or
        # a plain tensor attribute of a module).
        path = self._attribute_paths.get(id(tensor))
        if path is None and self._constant_sources.get(id(tensor)) is not tensor:
            raise UnsupportedCall(
                f"a tensor of shape {list(tensor.shape)} reached an op without being produced by "
                "a traced call, a graph input, a weight or torch.tensor(...)")
        if path is None:
            path = f"lifted_tensor_{self._lifted}"
            self._lifted += 1
        value = self.graph.add_constant("c_" + path.replace(".", "_"), path, tensor)
        self.bind(tensor, value)
        return value

    def _to_values(self, obj):
        if isinstance(obj, torch.Tensor):
            return self.value_of(obj)
        if isinstance(obj, list):
            return [self._to_values(o) for o in obj]
        return obj

    def call(self, packet: str, args=(), kwargs=None, original: Callable = None):
        """Resolves `aten.<packet>` for these arguments, runs it and records a node."""
        kwargs = kwargs or {}
        try:
            op, schema, bound = resolve_overload(packet, args, kwargs)
        except LookupError:
            if original is not None:
                out = original(*args, **kwargs)
                if not _contains_tensor(out):
                    return out
            raise
        if not returns_tensors(schema):
            return original(*args, **kwargs) if original is not None else call_op(op, bound)
        result = call_op(op, bound)
        recorded = [BoundArgument(b.argument, self._to_values(b.value), b.given)
                    for b in recorded_arguments(bound)]
        multi = is_multi_output(schema)
        node = self.graph.add_node(schema, schema.op_type, recorded, result, multi)
        for tensor, value in zip(list(result) if multi else [result], node.outputs):
            self.bind(tensor, value)
        return result


# ---- lowering rules for Python-level functions -----------------------------------------------

# Functions whose own signature is (*args, **kwargs) are bound with an equivalent one.
_SIGNATURE_SOURCES = {F.max_pool1d: F._max_pool1d, F.max_pool2d: F._max_pool2d,
                      F.max_pool3d: F._max_pool3d,
                      F.adaptive_max_pool2d: F.adaptive_max_pool2d_with_indices}


def _params(function, args, kwargs):
    source = _SIGNATURE_SOURCES.get(function, function)
    bound = inspect.signature(source).bind(*args, **kwargs)
    bound.apply_defaults()
    return bound.arguments


def _inplace_name(name, inplace):
    return name + "_" if inplace else name


def _activation(name):
    def rule(rec, p):
        return rec.call(_inplace_name(name, p.get("inplace", False)), (p["input"],))
    return rule


def _relu6(rec, p):
    return rec.call(_inplace_name("hardtanh", p["inplace"]), (p["input"], 0.0, 6.0))


def _hardtanh(rec, p):
    return rec.call(_inplace_name("hardtanh", p["inplace"]),
                    (p["input"], float(p["min_val"]), float(p["max_val"])))


def _leaky_relu(rec, p):
    return rec.call(_inplace_name("leaky_relu", p["inplace"]), (p["input"], p["negative_slope"]))


def _softmax_like(name):
    def rule(rec, p):
        if p["dim"] is None:
            raise UnsupportedCall(f"F.{name} without an explicit dim")
        args = (p["input"], p["dim"]) + ((p["dtype"],) if p["dtype"] is not None else ())
        return rec.call(name, args)
    return rule


def _dropout(rec, p):
    return rec.call(_inplace_name("dropout", p["inplace"]), (p["input"], p["p"], p["training"]))


def _batch_norm(rec, p):
    return rec.call("batch_norm", (p["input"], p["weight"], p["bias"], p["running_mean"],
                                   p["running_var"], p["training"], p["momentum"], p["eps"],
                                   torch.backends.cudnn.enabled))


def _layer_norm(rec, p):
    return rec.call("layer_norm", (p["input"], list(p["normalized_shape"]), p["weight"],
                                   p["bias"], p["eps"], torch.backends.cudnn.enabled))


def _group_norm(rec, p):
    return rec.call("group_norm", (p["input"], p["num_groups"], p["weight"], p["bias"], p["eps"],
                                   torch.backends.cudnn.enabled))


def _max_pool(dims):
    def rule(rec, p):
        stride = p["stride"] if p["stride"] is not None else []
        name = f"max_pool{dims}d" + ("_with_indices" if p["return_indices"] else "")
        return rec.call(name, (p["input"], p["kernel_size"], stride, p["padding"],
                               p["dilation"], p["ceil_mode"]))
    return rule


def _adaptive_avg_pool2d(rec, p):
    size = p["output_size"]
    size = [size, size] if isinstance(size, int) else list(size)
    spatial = p["input"].shape[-2:]
    size = [spatial[i] if s is None else s for i, s in enumerate(size)]
    return rec.call("adaptive_avg_pool2d", (p["input"], size))


def _adaptive_avg_pool3d(rec, p):
    size = p["output_size"]
    size = [size] * 3 if isinstance(size, int) else list(size)
    spatial = p["input"].shape[-3:]
    size = [spatial[i] if s is None else s for i, s in enumerate(size)]
    return rec.call("adaptive_avg_pool3d", (p["input"], size))


_GRID_SAMPLE_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
_GRID_SAMPLE_PADDING = {"zeros": 0, "border": 1, "reflection": 2}


def _grid_sample(rec, p):
    """F.grid_sample of a 4-d input as torch.export records it: grid_sampler_2d with ATen's
    mode integers (align_corners None means False)."""
    if p["input"].dim() != 4:
        raise UnsupportedCall(f"F.grid_sample of a {p['input'].dim()}-d input")
    return rec.call("grid_sampler_2d", (p["input"], p["grid"], _GRID_SAMPLE_MODES[p["mode"]],
                                        _GRID_SAMPLE_PADDING[p["padding_mode"]],
                                        bool(p["align_corners"])))


def _pair(value):
    return list(value) if isinstance(value, (list, tuple)) else [value, value]


def _unfold(rec, p):
    return rec.call("im2col", (p["input"], _pair(p["kernel_size"]), _pair(p["dilation"]),
                               _pair(p["padding"]), _pair(p["stride"])))


def _fold(rec, p):
    return rec.call("col2im", (p["input"], _pair(p["output_size"]), _pair(p["kernel_size"]),
                               _pair(p["dilation"]), _pair(p["padding"]), _pair(p["stride"])))


_INTERPOLATE_OPS = {"nearest": "upsample_nearest2d", "nearest-exact": "_upsample_nearest_exact2d",
                    "bilinear": "upsample_bilinear2d"}


def _interpolate(rec, p):
    """F.interpolate on [N, C, H, W] as torch.export records it: the .vec overload with either
    output_size or scale_factors (sizes computed first under recompute_scale_factor)."""
    x, mode = p["input"], p["mode"]
    if x.dim() != 4 or mode not in _INTERPOLATE_OPS or p["antialias"]:
        raise UnsupportedCall(f"F.interpolate of a {x.dim()}-d input in mode {mode!r}")
    size, scale = p["size"], p["scale_factor"]
    pair = (lambda v: list(v) if isinstance(v, (list, tuple)) else [v, v])
    output_size = pair(size) if size is not None else None
    scales = [float(s) for s in pair(scale)] if scale is not None else None
    if scales is not None and p["recompute_scale_factor"]:
        output_size = [int(math.floor(x.shape[2 + i] * scales[i])) for i in range(2)]
        scales = None
    kwargs = {"input": x, "output_size": output_size}
    if mode == "bilinear":
        kwargs["align_corners"] = bool(p["align_corners"])
    kwargs["scale_factors"] = scales
    return rec.call(_INTERPOLATE_OPS[mode], (), kwargs)


def _adaptive_max_pool2d(rec, p):
    size = p["output_size"]
    size = [size, size] if isinstance(size, int) else list(size)
    spatial = p["input"].shape[-2:]
    size = [spatial[i] if s is None else s for i, s in enumerate(size)]
    result = rec.call("adaptive_max_pool2d", (p["input"], size))
    return result if p["return_indices"] else result[0]


def _embedding(rec, p):
    if p["max_norm"] is not None:
        raise UnsupportedCall("F.embedding with max_norm (it renormalises the weight in place)")
    padding_idx = p["padding_idx"]
    if padding_idx is None:
        padding_idx = -1
    elif padding_idx < 0:
        padding_idx += p["weight"].shape[0]
    return rec.call("embedding", (p["weight"], p["input"], padding_idx,
                                  p["scale_grad_by_freq"], p["sparse"]))


def _split(rec, tensor, split_size, dim):
    if isinstance(split_size, int):
        return rec.call("split", (tensor, split_size, dim))
    return rec.call("split_with_sizes", (tensor, list(split_size), dim))


def _tensor_split_method(rec, p):
    return _split(rec, p["self"], p["split_size"], p["dim"])


def _torch_split(rec, p):
    return _split(rec, p["tensor"], p["split_size_or_sections"], p["dim"])


_FUNCTION_RULES = {
    F.relu: _activation("relu"),
    F.hardswish: _activation("hardswish"),
    F.hardsigmoid: _activation("hardsigmoid"),
    F.silu: _activation("silu"),
    F.sigmoid: _activation("sigmoid"),
    F.tanh: _activation("tanh"),
    F.relu6: _relu6,
    F.hardtanh: _hardtanh,
    F.leaky_relu: _leaky_relu,
    F.softmax: _softmax_like("softmax"),
    F.log_softmax: _softmax_like("log_softmax"),
    F.dropout: _dropout,
    F.batch_norm: _batch_norm,
    F.layer_norm: _layer_norm,
    F.group_norm: _group_norm,
    F.max_pool1d: _max_pool(1),
    F.max_pool2d: _max_pool(2),
    F.adaptive_avg_pool2d: _adaptive_avg_pool2d,
    F.max_pool3d: _max_pool(3),
    # F.max_pool3d(..., return_indices=True) reaches the tracer as this function.
    F.max_pool3d_with_indices: lambda rec, p: _max_pool(3)(rec, {**p, "return_indices": True}),
    F.adaptive_avg_pool3d: _adaptive_avg_pool3d,
    F.grid_sample: _grid_sample,
    F.unfold: _unfold,
    F.fold: _fold,
    F.embedding: _embedding,
    F.interpolate: _interpolate,
    F.adaptive_max_pool2d: _adaptive_max_pool2d,
    torch.Tensor.split: _tensor_split_method,
    torch.functional.split: _torch_split,
}

_DUNDERS = {
    "__add__": "add", "__radd__": "add", "__iadd__": "add_",
    "__sub__": "sub", "__rsub__": "rsub", "__isub__": "sub_",
    "__mul__": "mul", "__rmul__": "mul", "__imul__": "mul_",
    "__truediv__": "div", "__div__": "div", "__itruediv__": "div_",
    "__matmul__": "matmul", "__neg__": "neg", "__pow__": "pow", "__abs__": "abs",
    "__eq__": "eq", "__ne__": "ne", "__lt__": "lt", "__le__": "le", "__gt__": "gt",
    "__ge__": "ge", "__and__": "bitwise_and", "__or__": "bitwise_or",
    "__invert__": "bitwise_not", "__floordiv__": "floor_divide", "__mod__": "remainder",
}

_CONVERSIONS = {
    "float": torch.float32, "double": torch.float64, "half": torch.float16,
    "bfloat16": torch.bfloat16, "long": torch.int64, "int": torch.int32, "short": torch.int16,
    "char": torch.int8, "byte": torch.uint8, "bool": torch.bool,
}

_TENSOR_FACTORIES_AS_CONSTANTS = {torch.tensor, torch.as_tensor}


def lower_indexing(rec: Recorder, tensor: torch.Tensor, index):
    """`tensor[index]` as PyTorch's indexing code dispatches it: select for ints, slice for
    slices (also full ones), unsqueeze for None, then one aten.index for all tensor indices."""
    items = index if isinstance(index, tuple) else (index,)
    consumed = 0
    for item in items:
        if item is None or item is Ellipsis:
            continue
        if isinstance(item, torch.Tensor) and item.dtype == torch.bool:
            consumed += item.dim()
        else:
            consumed += 1
    result, dim, tensor_indices = tensor, 0, {}
    for item in items:
        if item is Ellipsis:
            dim += tensor.dim() - consumed
        elif item is None:
            result = rec.call("unsqueeze", (result, dim))
            dim += 1
        elif isinstance(item, bool):
            raise UnsupportedCall("indexing with a Python bool")
        elif isinstance(item, int):
            result = rec.call("select", (result, dim, item))
        elif isinstance(item, slice):
            start = 0 if item.start is None else item.start
            stop = INT64_MAX if item.stop is None else item.stop
            step = 1 if item.step is None else item.step
            result = rec.call("slice", (result, dim, start, stop, step))
            dim += 1
        elif isinstance(item, (torch.Tensor, list)):
            if isinstance(item, list):
                item = torch.tensor(item)
                rec.allow_constant(item)
            tensor_indices[dim] = item
            dim += item.dim() if item.dtype == torch.bool else 1
        else:
            raise UnsupportedCall(f"indexing with {type(item).__name__}")
    if tensor_indices:
        indices = [tensor_indices.get(d) for d in range(max(tensor_indices) + 1)]
        result = rec.call("index", (result, indices))
    return result


class ExportTracer(TorchFunctionMode):
    def __init__(self, recorder: Recorder):
        super().__init__()
        self.recorder = recorder
        self.depth = 0  # > 0 while a call is being lowered: nested calls run untraced

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if self.depth:
            return func(*args, **kwargs)
        self.depth += 1
        try:
            return self._lower(func, args, kwargs)
        finally:
            self.depth -= 1

    def _lower(self, func, args, kwargs):
        rec = self.recorder
        if func in _FUNCTION_RULES:
            return _FUNCTION_RULES[func](rec, _params(func, args, kwargs))
        if func in _TENSOR_FACTORIES_AS_CONSTANTS:
            out = func(*args, **kwargs)  # becomes a lifted constant where it is used
            rec.allow_constant(out)
            return out
        name = getattr(func, "__name__", "")
        if name == "__get__":  # properties: shape, dtype, device, ...
            out = func(*args, **kwargs)
            if _contains_tensor(out):
                raise UnsupportedCall(f"tensor-valued property {func.__self__.__name__}")
            return out
        if name == "__getitem__":
            return lower_indexing(rec, *args)
        if name in _DUNDERS:
            return rec.call(_DUNDERS[name], args, kwargs, func)
        if name in _CONVERSIONS and len(args) == 1 and not kwargs:
            return rec.call("to", (args[0], _CONVERSIONS[name]))
        if hasattr(torch.ops.aten, name):
            return rec.call(name, args, kwargs, func)
        out = func(*args, **kwargs)
        if _contains_tensor(out):
            raise UnsupportedCall(f"no ATen lowering for {getattr(func, '__qualname__', func)}")
        return out


class _IntegerIndexingHook:
    """torch 1.13 answers `x[1]` (a plain int index) without consulting torch-function modes;
    while tracing, Tensor.__getitem__ is routed through the tracer explicitly."""

    def __init__(self, tracer: ExportTracer):
        self.tracer = tracer
        self.original = torch.Tensor.__getitem__
        self.own = "__getitem__" in torch.Tensor.__dict__

    def __enter__(self):
        tracer, original = self.tracer, self.original

        def getitem(tensor, index):
            if tracer.depth:
                return original(tensor, index)
            return tracer.__torch_function__(original, (type(tensor),), (tensor, index))

        torch.Tensor.__getitem__ = getitem
        return self

    def __exit__(self, *exc):
        if self.own:
            torch.Tensor.__getitem__ = self.original
        else:
            del torch.Tensor.__getitem__  # the slot inherited from torch._C._TensorBase returns


def flatten_outputs(out) -> List[torch.Tensor]:
    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, (list, tuple)):
        return [t for o in out for t in flatten_outputs(o)]
    if isinstance(out, dict):
        return [t for k in out for t in flatten_outputs(out[k])]
    raise UnsupportedCall(f"model output of type {type(out).__name__}")


def register_state(graph: Graph, model: torch.nn.Module):
    """Adds parameters then buffers as placeholders p_<path> / b_<path>, as torch.export does."""
    values = []
    for path, p in model.named_parameters():
        values.append((p, graph.add_weight("p_" + path.replace(".", "_"), path, p)))
    for path, b in model.named_buffers():
        values.append((b, graph.add_weight("b_" + path.replace(".", "_"), path, b)))
    return values


def trace_export(model: torch.nn.Module, model_name: str, input_names: List[str],
                 inputs: List[torch.Tensor]) -> Graph:
    graph = Graph(model_name)
    recorder = Recorder(graph, model)
    for tensor, value in register_state(graph, model):
        recorder.bind(tensor, value)
    run_inputs = [t.clone() for t in inputs]
    for name, original, tensor in zip(input_names, inputs, run_inputs):
        graph.add_input(name, original)
        recorder.bind(tensor, graph.inputs[-1])
    tracer = ExportTracer(recorder)
    with torch.no_grad(), tracer, _IntegerIndexingHook(tracer):
        out = model(*run_inputs)
    for tensor in flatten_outputs(out):
        graph.outputs.append(recorder.value_of(tensor))
        graph.expected.append(tensor.detach().clone())
    return graph
