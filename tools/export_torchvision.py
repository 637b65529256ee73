#!/usr/bin/python3
"""Exports a torchvision classification model (outside the zoo) to the pytorch-ir format.

  export_torchvision.py NAME -o OUT_DIR [--flavour export|core] [--seed N] [--size N]
                        [--torchscript]

NAME is a torchvision.models constructor (squeezenet1_1, shufflenet_v2_x0_5, efficientnet_b0,
mnasnet0_5, regnet_x_400mf, ...). Weights are seeded random (nothing can be downloaded here),
batch norms get non-trivial statistics, the input is one seeded random image. Writes the same
files as export_ir.py (model.json, weights/inputs/expected .safetensors), self-checked the same
way. Used to try torchir on models it was not developed against (docs/zoo.md), and, with
--torchscript (the TorchScript files export_ir.py --torchscript writes), to benchmark the
torchvision networks of the model suite (scripts/bench.sh, docs/benchmarks.md).
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
import torchvision  # noqa: E402

from zoo.exporter import FLAVOURS, ExportError, export_module  # noqa: E402
from zoo.models import randomize_normalization  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("name", metavar="NAME", help="torchvision.models constructor")
    parser.add_argument("-o", "--out", required=True, help="output directory")
    parser.add_argument("--flavour", default="export", choices=FLAVOURS)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--size", type=int, default=224, help="input height and width")
    parser.add_argument("--torchscript", action="store_true",
                        help="also write traced.pt, traced_frozen.pt and mobile.pt (the PyTorch "
                             "paths the model benchmark runs), each checked against eager")
    args = parser.parse_args(argv)
    constructor = getattr(torchvision.models, args.name, None)
    if constructor is None or not callable(constructor):
        print(f"error: torchvision.models has no model {args.name!r}", file=sys.stderr)
        return 2
    torch.manual_seed(args.seed)
    kwargs = {"aux_logits": False, "init_weights": True} if args.name in (
        "googlenet", "inception_v3") else {}
    model = constructor(**kwargs)
    randomize_normalization(model)
    model.eval()
    image = torch.randn(1, 3, args.size, args.size)
    try:
        result = export_module(model, args.name, ["x"], [image], args.flavour, args.out, True,
                               args.torchscript)
    except ExportError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(f"{args.name} ({args.flavour}): {result.nodes} nodes -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
