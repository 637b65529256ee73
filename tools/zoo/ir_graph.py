"""The exporters' in-memory graph and its conversion to the pytorch-ir JSON document.

Both flavours build a `Graph`: values (graph inputs, weights, node outputs) and nodes holding
their recorded schema arguments. `Graph.to_document()` then does what torch.export plus
pytorch-ir's writer do: drop dead nodes, add a `getitem` node for each used result of a
multi-output node, name everything FX-style, and lay the nodes out as JSON.
"""

import json
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

import torch
from torch.fx.graph import _Namespace

from .aten_schema import BoundArgument, Schema, is_tensor_list_type, is_tensor_type

GETITEM = "<built-in function getitem>"

DTYPE_NAMES = {
    torch.float32: "float32", torch.float64: "float64", torch.float16: "float16",
    torch.bfloat16: "bfloat16", torch.int8: "int8", torch.int16: "int16", torch.int32: "int32",
    torch.int64: "int64", torch.uint8: "uint8", torch.bool: "bool",
    torch.complex64: "complex64", torch.complex128: "complex128",
}


def dtype_name(dtype: torch.dtype) -> str:
    if dtype not in DTYPE_NAMES:
        raise ValueError(f"dtype {dtype} has no pytorch-ir name")
    return DTYPE_NAMES[dtype]


class Value:
    """A tensor of the graph: a graph input, a weight/constant placeholder or a node result."""

    is_ir_value = True  # lets aten_schema.bind accept it where a Tensor is expected

    def __init__(self, kind: str, name: str, shape, dtype: torch.dtype, node=None, index=0):
        assert kind in ("input", "weight", "node")
        self.kind = kind
        self.name = name
        self.shape = [int(s) for s in shape]
        self.dtype = dtype
        self.node = node
        self.index = index

    @staticmethod
    def of_tensor(kind, name, tensor, node=None, index=0) -> "Value":
        return Value(kind, name, tensor.shape, tensor.dtype, node, index)

    def short_meta(self) -> Dict[str, Any]:
        """name/shape/dtype: how graph inputs/outputs and node outputs are described."""
        return {"name": self.name, "shape": self.shape, "dtype": dtype_name(self.dtype)}

    def meta(self) -> Dict[str, Any]:
        """The meta of a node input: weights carry no producer, everything else does."""
        meta = self.short_meta()
        if self.kind == "input":
            meta.update(producer_node=self.name, producer_output_idx=0)
        elif self.kind == "node":
            meta.update(producer_node=self.node.name, producer_output_idx=self.index)
        return meta

    def __repr__(self):
        return f"Value({self.kind}, {self.name})"


@dataclass
class Node:
    op_type: str
    schema: Optional[Schema]
    args: List[BoundArgument]  # recorded arguments; tensors replaced by Values
    outputs: List[Value] = field(default_factory=list)
    references: List[Optional[torch.Tensor]] = field(default_factory=list)  # eager results
    multi_output: bool = False
    mutating: bool = False
    getitem_index: int = -1
    name: str = ""

    @property
    def base_name(self) -> str:
        return "getitem" if self.op_type == GETITEM else self.schema.name

    def input_values(self) -> List[Value]:
        found = []
        for bound in self.args:
            _collect_values(bound.value, found)
        return found


def _collect_values(obj, out):
    if isinstance(obj, Value):
        out.append(obj)
    elif isinstance(obj, (list, tuple)):
        for item in obj:
            _collect_values(item, out)


def _substitute(obj, mapping):
    if isinstance(obj, Value):
        return mapping.get(id(obj), obj)
    if isinstance(obj, list):
        return [_substitute(o, mapping) for o in obj]
    if isinstance(obj, tuple):
        return tuple(_substitute(o, mapping) for o in obj)
    return obj


@dataclass
class Placeholder:
    """A weight, buffer or lifted constant: placeholder name, state_dict key, value."""
    value: Value
    key: str
    tensor: torch.Tensor
    is_constant: bool = False


def attr_json(value):
    """An attribute value as JSON: dtype/device/layout/memory_format become strings."""
    if isinstance(value, (list, tuple, torch.Size)):
        return [attr_json(v) for v in value]
    if isinstance(value, torch.device):
        return value.type
    if isinstance(value, (torch.dtype, torch.layout, torch.memory_format)):
        return str(value)
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError(f"cannot write attribute value {value!r} of type {type(value).__name__}")


def tensor_to_nested(tensor: torch.Tensor):
    if tensor.dtype == torch.bfloat16:
        tensor = tensor.float()
    return tensor.tolist()


class Graph:
    def __init__(self, model_name: str):
        self.model_name = model_name
        self.inputs: List[Value] = []
        self.input_tensors: List[torch.Tensor] = []
        self.weights: List[Placeholder] = []
        self.constants: List[Placeholder] = []
        self.nodes: List[Node] = []
        self.outputs: List[Value] = []
        self.expected: List[torch.Tensor] = []

    # ---- construction helpers ---------------------------------------------------------------
    def add_input(self, name: str, tensor: torch.Tensor) -> Value:
        value = Value.of_tensor("input", name, tensor)
        self.inputs.append(value)
        self.input_tensors.append(tensor)
        return value

    def add_weight(self, placeholder: str, key: str, tensor: torch.Tensor) -> Value:
        value = Value.of_tensor("weight", placeholder, tensor)
        self.weights.append(Placeholder(value, key, tensor))
        return value

    def add_constant(self, placeholder: str, key: str, tensor: torch.Tensor) -> Value:
        value = Value.of_tensor("weight", placeholder, tensor)
        self.constants.append(Placeholder(value, key, tensor.detach().clone(), True))
        return value

    def add_node(self, schema: Schema, op_type: str, args: List[BoundArgument], results,
                 multi_output: bool) -> Node:
        node = Node(op_type, schema, args, multi_output=multi_output, mutating=schema.is_mutating)
        tensors = list(results) if multi_output else [results]
        for i, t in enumerate(tensors):
            if not isinstance(t, torch.Tensor):
                raise TypeError(f"{op_type} returned a non-tensor result {type(t).__name__}")
            node.outputs.append(Value.of_tensor("node", "", t, node, i))
            node.references.append(t.detach().clone())
        self.nodes.append(node)
        return node

    # ---- finalisation -----------------------------------------------------------------------
    def _eliminate_dead_nodes(self):
        needed = {id(v) for v in self.outputs}
        live = []
        for node in reversed(self.nodes):
            if node.mutating or any(id(o) in needed for o in node.outputs):
                live.append(node)
                needed.update(id(v) for v in node.input_values())
        self.nodes = list(reversed(live))
        self.constants = [c for c in self.constants if id(c.value) in needed]

    def _insert_getitems(self):
        used = {id(v) for v in self.outputs}
        for node in self.nodes:
            used.update(id(v) for v in node.input_values())
        result, mapping = [], {}
        for node in self.nodes:
            if mapping:
                for bound in node.args:
                    bound.value = _substitute(bound.value, mapping)
            result.append(node)
            if not node.multi_output:
                continue
            for i, out in enumerate(node.outputs):
                if id(out) not in used:
                    continue
                getitem = Node(GETITEM, None, [], getitem_index=i)
                getitem.outputs = [Value("node", "", out.shape, out.dtype, getitem, 0)]
                getitem.references = [node.references[i]]
                getitem.producer = node
                mapping[id(out)] = getitem.outputs[0]
                result.append(getitem)
        self.outputs = [_substitute(v, mapping) for v in self.outputs]
        self.nodes = result

    def _assign_names(self):
        namespace = _Namespace()
        for value in self.inputs:
            value.name = namespace.create_name(value.name, None)
        for placeholder in self.weights + self.constants:
            placeholder.value.name = namespace.create_name(placeholder.value.name, None)
        for node in self.nodes:
            node.name = namespace.create_name(node.base_name, None)
            if len(node.outputs) == 1 and not node.multi_output:
                node.outputs[0].name = node.name
            else:
                for i, out in enumerate(node.outputs):
                    out.name = f"{node.name}_{i}"

    def finalize(self):
        """Dead-code elimination, getitem insertion and naming; call once before writing."""
        self._eliminate_dead_nodes()
        self._insert_getitems()
        self._assign_names()
        for value in self.outputs:
            if value.kind != "node":
                raise ValueError(f"graph output {value.name} is not computed by a node")

    def node_document(self, node: Node) -> Dict[str, Any]:
        if node.op_type == GETITEM:
            return {"name": node.name, "op_type": GETITEM,
                    "inputs": [o.meta() for o in node.producer.outputs],
                    "outputs": [o.short_meta() for o in node.outputs],
                    "attrs": {"index": node.getitem_index}}
        inputs, attrs, list_sizes, none_masks = [], {}, [], []
        for bound in node.args:
            arg, value = bound.argument, bound.value
            if is_tensor_type(arg.type):
                if isinstance(value, Value):
                    inputs.append(value.meta())
                elif value is not None:  # a Python number standing for a tensor
                    attrs[arg.name] = attr_json(value)
            elif is_tensor_list_type(arg.type):
                # pytorch-ir counts only the tensors present; None positions are in the mask.
                list_sizes.append(sum(1 for v in value if v is not None))
                if any(v is None for v in value):
                    none_masks.append([v is None for v in value])
                inputs.extend(v.meta() for v in value if v is not None)
            else:
                attrs[arg.name] = attr_json(value)
        if list_sizes:
            attrs["_tensor_list_sizes"] = list_sizes
        if none_masks:
            attrs["_tensor_list_none_masks"] = none_masks
        return {"name": node.name, "op_type": node.op_type, "inputs": inputs,
                "outputs": [o.short_meta() for o in node.outputs], "attrs": attrs}

    def to_document(self) -> Dict[str, Any]:
        document = {
            "model_name": self.model_name,
            "pytorch_version": torch.__version__,
            "graph_inputs": [v.short_meta() for v in self.inputs],
            "graph_outputs": [v.short_meta() for v in self.outputs],
            "weights": [{"name": p.key, "shape": p.value.shape, "dtype": dtype_name(p.value.dtype)}
                        for p in self.weights + self.constants],
            "weight_name_mapping": {p.value.name: p.key for p in self.weights + self.constants},
        }
        if self.constants:
            document["constants"] = {
                c.value.name: {"data": tensor_to_nested(c.tensor),
                               "dtype": dtype_name(c.tensor.dtype)}
                for c in self.constants}
        document["nodes"] = [self.node_document(n) for n in self.nodes]
        return document

    def to_json(self) -> str:
        """The document as JSON text, one node per line (Python's json: NaN/Infinity allowed)."""
        document = self.to_document()
        lines = ["{"]
        items = list(document.items())
        for i, (key, value) in enumerate(items):
            comma = "," if i + 1 < len(items) else ""
            if isinstance(value, list) and value:
                lines.append(f"{json.dumps(key)}: [")
                lines.extend(json.dumps(v) + ("," if j + 1 < len(value) else "")
                             for j, v in enumerate(value))
                lines.append("]" + comma)
            else:
                lines.append(f"{json.dumps(key)}: {json.dumps(value)}{comma}")
        lines.append("}")
        return "\n".join(lines) + "\n"

    def op_histogram(self) -> Dict[str, int]:
        counts: Dict[str, int] = {}
        for node in self.nodes:
            counts[node.op_type] = counts.get(node.op_type, 0) + 1
        return counts
