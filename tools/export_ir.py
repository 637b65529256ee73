#!/usr/bin/python3
"""Exports zoo models to the pytorch-ir format (model.json + .safetensors files).

  export_ir.py MODEL -o OUT_DIR [--flavour export|core] [--seed N] [--no-check] [--torchscript]
  export_ir.py --zoo OUT_ROOT [--flavours export,core] [--seed N] [--no-check] [--torchscript]
  export_ir.py --list
  export_ir.py --histogram [--flavours export,core] [MODEL ...]   (markdown on stdout)

Each export is verified before it is written: an independent interpreter runs the written
JSON on the written weights and compares with eager PyTorch (disable with --no-check).
--torchscript also writes the PyTorch paths torchir is benchmarked against: traced.pt (traced,
unoptimised), traced_frozen.pt (traced + frozen; apply optimize_for_inference after loading) and
mobile.pt (optimize_for_mobile, for the lite interpreter); each is reloaded and checked against
eager PyTorch first, whatever --no-check says.
Run with an interpreter that has torch (here /usr/bin/python3, torch 1.13).
"""

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from zoo.exporter import FLAVOURS, ExportError, export_zoo_model, log, zoo_histogram  # noqa: E402
from zoo.models import ZOO  # noqa: E402


def _parse_flavours(text: str):
    flavours = [f.strip() for f in text.split(",") if f.strip()]
    for f in flavours:
        if f not in FLAVOURS:
            raise ExportError(f"unknown flavour {f!r} (expected {', '.join(FLAVOURS)})")
    return flavours


def _list() -> int:
    for entry in ZOO.values():
        shapes = ", ".join(f"{s.name}{list(s.shape)}" for s in entry.inputs)
        # tests/e2e/CMakeLists.txt reads the name and the "(only ...)" suffix.
        only = f" (only {','.join(entry.only)})" if entry.only else ""
        print(f"{entry.name:32} {entry.group:8} {shapes:28} {entry.description}{only}")
    return 0


def _zoo(root: str, flavours, seed: int, check: bool, torchscript: bool, models) -> int:
    start = time.perf_counter()
    names = models or list(ZOO)
    for name in names:
        for flavour in filter(ZOO[name].has_flavour, flavours):
            out_dir = os.path.join(root, name, flavour)
            result = export_zoo_model(name, flavour, out_dir, seed, check, torchscript)
            log(f"{name:32} {flavour:7} {result.nodes:4} nodes  {result.seconds:6.2f} s")
    log(f"exported {len(names)} models x {len(flavours)} flavours in "
        f"{time.perf_counter() - start:.1f} s")
    return 0


def _histogram(flavours, seed: int, models) -> int:
    names = models or list(ZOO)
    print("| model | flavour | nodes | ops |")
    print("|---|---|---:|---|")
    for name in names:
        for flavour in filter(ZOO[name].has_flavour, flavours):
            log(f"tracing {name} ({flavour})")
            histogram = zoo_histogram(name, flavour, seed)
            ops = ", ".join(f"`{op.replace('aten.', '')}` {count}"
                            for op, count in sorted(histogram.items(), key=lambda i: (-i[1], i[0])))
            print(f"| {name} | {flavour} | {sum(histogram.values())} | {ops} |")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("models", nargs="*", metavar="MODEL", help="zoo model name(s)")
    parser.add_argument("-o", "--out", help="output directory for a single model")
    parser.add_argument("--flavour", default="export", choices=FLAVOURS)
    parser.add_argument("--flavours", default=",".join(FLAVOURS),
                        help="comma-separated flavours for --zoo / --histogram")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-check", dest="check", action="store_false",
                        help="skip interpreting the written files against eager PyTorch")
    parser.add_argument("--torchscript", action="store_true",
                        help="also write traced.pt, traced_frozen.pt and mobile.pt (the PyTorch "
                        "paths of the benchmarks)")
    parser.add_argument("--zoo", metavar="OUT_ROOT",
                        help="export every zoo model (or the given MODELs) to "
                        "OUT_ROOT/<model>/<flavour>/")
    parser.add_argument("--list", action="store_true", help="list the zoo")
    parser.add_argument("--histogram", action="store_true",
                        help="print per-model op histograms as a markdown table")
    args = parser.parse_args(argv)
    modes = sum(bool(m) for m in (args.list, args.histogram, args.zoo))
    if modes > 1:
        parser.error("--list, --histogram and --zoo are exclusive")
    try:
        unknown = [m for m in args.models if m not in ZOO]
        if unknown:
            raise ExportError(f"unknown model(s) {', '.join(unknown)}; --list shows the zoo")
        if args.list:
            return _list()
        if args.histogram:
            return _histogram(_parse_flavours(args.flavours), args.seed, args.models)
        if args.zoo:
            return _zoo(args.zoo, _parse_flavours(args.flavours), args.seed, args.check,
                        args.torchscript, args.models)
        if len(args.models) != 1 or not args.out:
            parser.error("give exactly one MODEL and -o OUT_DIR (or --zoo / --list / --histogram)")
        result = export_zoo_model(args.models[0], args.flavour, args.out, args.seed, args.check,
                                  args.torchscript)
        log(f"{result.name} ({result.flavour}): {result.nodes} nodes -> {args.out} "
            f"({result.seconds:.2f} s{', checked' if args.check else ''}"
            f"{', with TorchScript' if args.torchscript else ''})")
        return 0
    except ExportError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except (OSError, ValueError, RuntimeError) as e:
        print(f"error: {type(e).__name__}: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
