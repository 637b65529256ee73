"""The `core` flavour: core ATen, as `ExportedProgram.run_decompositions()` writes it.

torch 1.13 traces with make_fx (below autograd, so CompositeImplicit ops such as linear and
batch_norm decompose) over a functionalized function (in-place ops become out-of-place),
taking parameters and buffers as arguments via functional_call so they are placeholders.
A few 1.13 spellings are rewritten to what current PyTorch writes:
 - `aten._reshape_alias(x, size, stride)` and `aten._unsafe_view(x, size)` -> `aten.view(x, size)`;
 - `aten.native_batch_norm(..., training=False, ...)` ->
   `aten._native_batch_norm_legit_no_training(input, weight, bias, mean, var, momentum, eps)`;
 - `aten.lift_fresh_copy` and `aten.detach` are dropped (identity for inference).
"""

from typing import List

import torch
from torch.fx.experimental.proxy_tensor import make_fx
from torch.nn.utils.stateless import functional_call

from .aten_compat import compat_schema
from .aten_schema import schema_of
from .export_tracer import flatten_outputs, register_state
from .fx_import import import_fx
from .ir_graph import Graph

_aten = torch.ops.aten


def _core_rewrite(op, args, kwargs):
    if op in (_aten.lift_fresh_copy.default, _aten.detach.default):
        return "identity"
    if op is _aten._reshape_alias.default:
        return schema_of(_aten.view.default), None, (args[0], args[1]), {}
    if op is _aten._unsafe_view.default:
        return schema_of(_aten.view.default), None, (args[0], args[1]), {}
    if op is _aten.native_batch_norm.default:
        input, weight, bias, mean, var, training, momentum, eps = args
        if not training and mean is not None and var is not None:
            op_type = "aten._native_batch_norm_legit_no_training.default"
            return compat_schema(op_type), op_type, (input, weight, bias, mean, var, momentum,
                                                     eps), {}
    return None


def _functionalize(fn):
    try:
        from torch.func import functionalize  # torch >= 2.0
    except ImportError:
        from functorch.experimental import functionalize
    return functionalize(fn)


def trace_core(model: torch.nn.Module, model_name: str, input_names: List[str],
               inputs: List[torch.Tensor]) -> Graph:
    graph = Graph(model_name)
    state = register_state(graph, model)
    names = [n for n, _ in model.named_parameters()] + [n for n, _ in model.named_buffers()]
    state_tensors = [t for t, _ in state]

    def run(state_list, *xs):
        return tuple(flatten_outputs(functional_call(model, dict(zip(names, state_list)), xs)))

    with torch.no_grad():
        gm = make_fx(_functionalize(run))(state_tensors, *[t.clone() for t in inputs])
    gm.graph.eliminate_dead_code()
    gm.recompile()
    input_values = [graph.add_input(name, t) for name, t in zip(input_names, inputs)]
    placeholder_values = [v for _, v in state] + input_values
    import_fx(graph, gm, placeholder_values, state_tensors + [t.clone() for t in inputs],
              _core_rewrite)
    return graph
