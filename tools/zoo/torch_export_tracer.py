"""Both flavours through torch.export itself, for PyTorch >= 2.1 (not the 1.13 used here).

`export` keeps the graph torch.export returns; `core` applies run_decompositions(). Placeholder
names (p_/b_/c_ and user input names) come from the exported program's signature.
"""

from typing import List

import torch

from .export_tracer import register_state
from .fx_import import import_fx
from .ir_graph import Graph


def torch_export_available() -> bool:
    return hasattr(torch, "export") and hasattr(torch.export, "export")


def trace_torch_export(model: torch.nn.Module, model_name: str, input_names: List[str],
                       inputs: List[torch.Tensor], flavour: str) -> Graph:
    from torch.export.graph_signature import InputKind

    with torch.no_grad():
        program = torch.export.export(model, tuple(t.clone() for t in inputs))
        if flavour == "core":
            program = program.run_decompositions()
    graph = Graph(model_name)
    register_state(graph, model)  # all parameters and buffers, in torch.export's order
    by_key = {p.key: p.value for p in graph.weights}
    state = {p.key: p.tensor for p in graph.weights}
    user_inputs = iter(zip(input_names, inputs))
    values, tensors = [], []
    for spec in program.graph_signature.input_specs:
        if spec.kind == InputKind.USER_INPUT:
            _, tensor = next(user_inputs)
            values.append(graph.add_input(spec.arg.name, tensor))
            tensors.append(tensor.clone())
        elif spec.kind in (InputKind.PARAMETER, InputKind.BUFFER):
            values.append(by_key[spec.target])
            tensors.append(state[spec.target])
        elif spec.kind == InputKind.CONSTANT_TENSOR:
            tensor = program.constants[spec.target]
            values.append(graph.add_constant(spec.arg.name, spec.target, tensor))
            tensors.append(tensor)
        else:
            raise ValueError(f"unsupported exported input kind {spec.kind}")
    import_fx(graph, program.graph_module, values, tensors)
    return graph
