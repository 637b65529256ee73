#!/usr/bin/env python3
"""Writes a synthetic pytorch-ir JSON of a chosen size, to measure the reader.

    scripts/make_large_ir.py OUT.json [--megabytes 100]

The graph is a long residual chain of linear/add/relu/getitem-of-split nodes with
realistic metas and attrs, written by json.dump like pytorch-ir does (indent=2).
Needs only the standard library.
"""
import argparse
import json


def meta(name, shape, producer=None, index=0):
    m = {"name": name, "shape": shape, "dtype": "float32"}
    if producer is not None:
        m["producer_node"] = producer
        m["producer_output_idx"] = index
    return m


def build(target_bytes):
    shape = [1, 64]
    graph = {"model_name": "LargeChain", "pytorch_version": "2.8.0",
             "graph_inputs": [meta("x", shape)], "graph_outputs": [], "weights": [],
             "weight_name_mapping": {}, "nodes": []}
    nodes = graph["nodes"]
    last, last_producer = "x", "x"
    size, block = 0, 0
    while size < target_bytes:
        w, b = f"p_layers_{block}_weight", f"p_layers_{block}_bias"
        graph["weights"] += [meta(f"layers.{block}.weight", [64, 64]),
                             meta(f"layers.{block}.bias", [64])]
        graph["weight_name_mapping"][w] = f"layers.{block}.weight"
        graph["weight_name_mapping"][b] = f"layers.{block}.bias"
        lin, add, relu = f"linear_{block}", f"add_{block}", f"relu_{block}"
        split, get = f"split_{block}", f"getitem_{block}"
        nodes.append({"name": lin, "op_type": "aten.linear.default",
                      "inputs": [meta(last, shape, last_producer), meta(w, [64, 64]),
                                 meta(b, [64])],
                      "outputs": [meta(lin, shape)], "attrs": {}})
        nodes.append({"name": add, "op_type": "aten.add.Tensor",
                      "inputs": [meta(lin, shape, lin), meta(last, shape, last_producer)],
                      "outputs": [meta(add, shape)], "attrs": {"alpha": 1}})
        nodes.append({"name": relu, "op_type": "aten.relu.default",
                      "inputs": [meta(add, shape, add)], "outputs": [meta(relu, shape)],
                      "attrs": {}})
        nodes.append({"name": split, "op_type": "aten.split.Tensor",
                      "inputs": [meta(relu, shape, relu)],
                      "outputs": [meta(f"{split}_0", shape)],
                      "attrs": {"split_size": 64, "dim": 1}})
        nodes.append({"name": get, "op_type": "<built-in function getitem>",
                      "inputs": [meta(f"{split}_0", shape, split, 0)],
                      "outputs": [meta(get, shape)], "attrs": {"index": 0}})
        last, last_producer = get, get
        block += 1
        size += sum(len(json.dumps(n, indent=2)) for n in nodes[-5:]) + 400
    graph["graph_outputs"] = [meta(last, shape)]
    return graph


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--megabytes", type=float, default=100.0)
    args = parser.parse_args()
    graph = build(int(args.megabytes * 1e6))
    with open(args.out, "w") as f:
        json.dump(graph, f, indent=2)
    print(f"{args.out}: {len(graph['nodes'])} nodes")


if __name__ == "__main__":
    main()
