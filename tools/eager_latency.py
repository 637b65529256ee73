#!/usr/bin/python3
"""Times a zoo model in PyTorch eager mode, for a side-by-side with torchir-run.

  eager_latency.py MODEL [--seed N] [--iterations N] [--warmup N] [--threads N]

Builds the model exactly as `export_ir.py MODEL --seed N` does (same weights, same inputs),
runs it under torch.no_grad() and prints one line: `eager MODEL: median X ms, min Y ms
(N runs, T thread(s))`. Run with an interpreter that has torch (/usr/bin/python3 here).
"""

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

from zoo.models import ZOO, build  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model", metavar="MODEL", help="zoo model name (export_ir.py --list)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1,
                        help="torch.set_num_threads (default 1, like torchir-run)")
    args = parser.parse_args(argv)
    if args.model not in ZOO:
        print(f"error: unknown model {args.model!r}; export_ir.py --list shows the zoo",
              file=sys.stderr)
        return 2
    if args.iterations < 1 or args.warmup < 0 or args.threads < 1:
        print("error: --iterations and --threads must be >= 1, --warmup >= 0", file=sys.stderr)
        return 2
    torch.set_num_threads(args.threads)
    model, _, inputs = build(ZOO[args.model], args.seed)
    times = []
    with torch.no_grad():
        for i in range(args.warmup + args.iterations):
            start = time.perf_counter()
            model(*inputs)
            if i >= args.warmup:
                times.append(time.perf_counter() - start)
    print(f"eager {args.model}: median {statistics.median(times) * 1e3:.3f} ms, "
          f"min {min(times) * 1e3:.3f} ms ({args.iterations} runs, {args.threads} thread(s))")
    return 0


if __name__ == "__main__":
    sys.exit(main())
