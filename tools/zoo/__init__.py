"""pytorch-ir exporters (torch.export-style and core ATen flavours) and the model zoo.

Entry point: tools/export_ir.py. Modules:
  models               the zoo entries (networks and op-level graphs)
  export_tracer        `export` flavour on torch 1.13 (TorchFunctionMode -> pre-dispatch ATen)
  core_tracer          `core` flavour on torch 1.13 (make_fx + functionalize)
  torch_export_tracer  both flavours via torch.export when PyTorch >= 2.1
  fx_import            ATen FX graph -> Graph
  aten_schema          schemas, binding, overload resolution, default stripping
  aten_compat          op lookup incl. ops newer than the installed PyTorch
  ir_graph             the in-memory graph and its JSON document
  ir_checker           independent interpreter of a written export
  safetensors_io       .safetensors reader/writer
  exporter             build -> trace -> write -> check
  torchscript_export   --torchscript: traced.pt, traced_frozen.pt, mobile.pt (benchmarks)
"""
