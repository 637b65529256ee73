"""Writes core_aten_ops.txt: every ATen op overload PyTorch tags as Core ATen IR.

The Core ATen opset is what the "IRs" page of the PyTorch docs (torch.compiler_ir) lists; the
machine-readable form is the `core` tag on each OpOverload. Run with torch >= 2.1 (the Python
environment of scripts/python_env.sh):

    $(scripts/python_env.sh) tools/coverage/core_aten_ops.py > tools/coverage/core_aten_ops.txt

torchir-op-coverage reads the file to write docs/op-coverage.md.
"""
import sys

import torch


def core_ops():
    ops = []
    for name in dir(torch.ops.aten):
        try:
            packet = getattr(torch.ops.aten, name)
        except (AttributeError, RuntimeError):
            continue
        if not hasattr(packet, "overloads"):
            continue
        for overload in packet.overloads():
            if torch.Tag.core in getattr(packet, overload).tags:
                ops.append(f"aten.{name}.{overload}")
    return sorted(ops)


def main():
    ops = core_ops()
    out = sys.stdout
    out.write(f"# the ATen op overloads tagged torch.Tag.core in torch "
              f"{torch.__version__.split('+')[0]}\n")
    out.write("# Written by tools/coverage/core_aten_ops.py; read by torchir-op-coverage.\n")
    for op in ops:
        out.write(op + "\n")


if __name__ == "__main__":
    main()
