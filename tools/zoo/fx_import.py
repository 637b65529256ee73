"""Turns an ATen-level FX graph (make_fx or torch.export) into the exporters' Graph.

Placeholders are bound by the caller (graph input, weight, or constant). get_attr tensors become
lifted constants. `getitem` nodes are folded into the multi-output node they read (Graph
re-creates them, FX-style, when writing). Each node's eager value comes from running the FX
graph once with torch.fx.Interpreter.
"""

import operator
from typing import Callable, Dict, List, Optional, Tuple

import torch
import torch.fx

from .aten_schema import (BoundArgument, bind, is_multi_output, recorded_arguments,
                          schema_of, SchemaMismatch)
from .ir_graph import Graph, Value

# A rewrite takes (op, args, kwargs) and returns (schema, op_type, args, kwargs), or None to
# keep the node, or the string "identity" to forward its first argument.
Rewrite = Callable[[object, tuple, dict], Optional[object]]


class _RecordingInterpreter(torch.fx.Interpreter):
    def __init__(self, module):
        super().__init__(module)
        self.values: Dict[torch.fx.Node, object] = {}

    def run_node(self, n):
        result = super().run_node(n)
        self.values[n] = result
        return result


def _clone_tree(obj):
    if isinstance(obj, torch.Tensor):
        return obj.detach().clone()
    if isinstance(obj, (list, tuple)):
        return type(obj)(_clone_tree(o) for o in obj)
    return obj


def import_fx(graph: Graph, gm: torch.fx.GraphModule, placeholder_values: List[Value],
              placeholder_tensors: List[torch.Tensor], rewrite: Optional[Rewrite] = None,
              constant_name: Callable[[str, torch.Tensor], Tuple[str, str]] = None):
    """Appends the nodes of `gm` to `graph`; sets graph.outputs."""
    interpreter = _RecordingInterpreter(gm)
    with torch.no_grad():
        interpreter.run(*placeholder_tensors)
    eager = {n: _clone_tree(v) for n, v in interpreter.values.items()}

    env: Dict[torch.fx.Node, object] = {}
    placeholders = iter(placeholder_values)
    lifted = 0
    for n in gm.graph.nodes:
        if n.op == "placeholder":
            env[n] = next(placeholders)
        elif n.op == "get_attr":
            tensor = getattr(gm, n.target)
            if constant_name is not None:
                placeholder, key = constant_name(n.target, tensor)
            else:
                key = f"lifted_tensor_{lifted}"
                placeholder = "c_" + key
                lifted += 1
            env[n] = graph.add_constant(placeholder, key, tensor)
        elif n.op == "call_function" and n.target is operator.getitem:
            producer, index = n.args
            env[n] = env[producer][index]
        elif n.op == "call_function":
            args = torch.fx.node.map_arg(n.args, lambda a: env[a])
            kwargs = torch.fx.node.map_arg(n.kwargs, lambda a: env[a])
            op_type, schema = None, schema_of(n.target)
            if rewrite is not None:
                rewritten = rewrite(n.target, args, kwargs)
                if rewritten == "identity":
                    env[n] = args[0]
                    continue
                if rewritten is not None:
                    schema, op_type, args, kwargs = rewritten
            try:
                bound = bind(schema, args, kwargs, number_for_tensor="*")
            except SchemaMismatch:
                raise ValueError(f"FX node {n.name}: arguments do not fit {schema.op_type}")
            recorded = [BoundArgument(b.argument, b.value, b.given)
                        for b in recorded_arguments(bound)]
            multi = is_multi_output(schema)
            node = graph.add_node(schema, op_type or schema.op_type, recorded, eager[n], multi)
            env[n] = node.outputs if multi else node.outputs[0]
        elif n.op == "output":
            outputs = n.args[0]
            flat = outputs if isinstance(outputs, (list, tuple)) else [outputs]
            graph.outputs = [env[o] for o in flat]
        else:
            raise ValueError(f"unsupported FX node {n.op} {n.target}")
