#!/usr/bin/env python3
"""Checks a torchir-bench --trace file against the Chrome trace-event format.

  validate_trace.py TRACE.json [--model MODEL.json] [--min-named N] [--delegate]
                    [--min-delegate-nodes N]

The JSON object format: an object whose "traceEvents" is a list of events. Every
event has a string "name" and "ph", integer "pid" and "tid"; complete events
("ph": "X") also a string "cat", numeric "ts" and "dur" >= 0 (microseconds) and
an "args" object; within one (pid, tid) the ts never go back. torchir's
instruction events (cat "kernel" / "delegate") carry args instruction (int), op
(str) and nodes (list of str). With --model (the pytorch-ir JSON the program was
compiled from) at least --min-named (default 1) distinct node names in the
trace must be node names of the model; --delegate requires a delegate event
whose node list has more than one node. --min-delegate-nodes N requires N or
more events a backend reported for the nodes inside a delegate call (cat
"delegate_node"), each inside its call's event (same instruction and iteration)
and, with --model, named after a node of the model. Standard library only.
Exit 0 when valid, 1 with one line per problem otherwise.
"""
import argparse
import json
import numbers
import sys

PHASES = set("BEXIiCbnesftPOND") | {"M"}


def check(trace, model_nodes, min_named, need_delegate, min_delegate_nodes=0):
    problems = []
    calls = {}  # (instruction, iteration) of a delegate event: (ts, end)
    node_events = []
    if not isinstance(trace, dict) or not isinstance(trace.get("traceEvents"), list):
        return ['the trace is not an object with a "traceEvents" list']
    last_ts = {}
    named = set()
    instruction_events = 0
    delegate_lists = 0
    for i, event in enumerate(trace["traceEvents"]):
        where = f"event {i}"
        if not isinstance(event, dict):
            problems.append(f"{where}: not an object")
            continue
        for key, kind in (("name", str), ("ph", str), ("pid", int), ("tid", int)):
            if not isinstance(event.get(key), kind) or isinstance(event.get(key), bool):
                problems.append(f"{where}: '{key}' missing or not {kind.__name__}")
        if event.get("ph") not in PHASES:
            problems.append(f"{where}: unknown ph {event.get('ph')!r}")
        if event.get("ph") != "X":
            continue
        for key in ("ts", "dur"):
            value = event.get(key)
            if not isinstance(value, numbers.Real) or isinstance(value, bool):
                problems.append(f"{where}: '{key}' missing or not a number")
        if not isinstance(event.get("cat"), str):
            problems.append(f"{where}: 'cat' missing or not a string")
        if not isinstance(event.get("args"), dict):
            problems.append(f"{where}: 'args' missing or not an object")
            continue
        ts, dur = event.get("ts"), event.get("dur")
        if isinstance(dur, numbers.Real) and dur < 0:
            problems.append(f"{where}: negative dur {dur}")
        thread = (event.get("pid"), event.get("tid"))
        if isinstance(ts, numbers.Real):
            if ts < 0:
                problems.append(f"{where}: negative ts {ts}")
            if thread in last_ts and ts < last_ts[thread]:
                problems.append(f"{where}: ts {ts} goes back (previous {last_ts[thread]})")
            last_ts[thread] = ts
        args = event["args"]
        if event.get("cat") == "delegate_node":
            node_events.append((where, event))
        if event.get("cat") == "delegate" and isinstance(ts, numbers.Real) and isinstance(
                dur, numbers.Real):
            calls[(args.get("instruction"), args.get("iteration"))] = (ts, ts + dur)
        if event.get("cat") in ("kernel", "delegate"):
            instruction_events += 1
            if not isinstance(args.get("instruction"), int):
                problems.append(f"{where}: args.instruction missing or not an integer")
            if not isinstance(args.get("op"), str):
                problems.append(f"{where}: args.op missing or not a string")
            nodes = args.get("nodes")
            if not isinstance(nodes, list) or not nodes or not all(
                    isinstance(n, str) for n in nodes):
                problems.append(f"{where}: args.nodes is not a non-empty list of strings")
                continue
            named.update(nodes)
            named.add(event["name"])
            if event["cat"] == "delegate" and len(nodes) > 1:
                delegate_lists += 1
    if instruction_events == 0:
        problems.append("no instruction events (cat kernel or delegate)")
    if model_nodes is not None:
        found = named & model_nodes
        if len(found) < min_named:
            problems.append(f"{len(found)} node names of the model in the trace, "
                            f"{min_named} needed (trace names: {sorted(named)[:10]})")
    if need_delegate and delegate_lists == 0:
        problems.append("no delegate event lists the nodes it took")
    if len(node_events) < min_delegate_nodes:
        problems.append(f"{len(node_events)} delegate node events, {min_delegate_nodes} needed")
    for where, event in node_events:
        args = event["args"]
        call = calls.get((args.get("instruction"), args.get("iteration")))
        ts, end = event.get("ts"), event.get("ts", 0) + event.get("dur", 0)
        # ts and dur are printed to the nanosecond (3 decimals of a microsecond).
        if call is None or ts < call[0] - 0.002 or end > call[1] + 0.002:
            problems.append(f"{where}: delegate node '{event['name']}' outside its call {call}")
        if model_nodes is not None and event["name"] not in model_nodes:
            problems.append(f"{where}: delegate node '{event['name']}' is not a node of the model")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trace")
    parser.add_argument("--model", help="the pytorch-ir model.json the program came from")
    parser.add_argument("--min-named", type=int, default=1)
    parser.add_argument("--delegate", action="store_true")
    parser.add_argument("--min-delegate-nodes", type=int, default=0)
    options = parser.parse_args()
    try:
        with open(options.trace, encoding="utf-8") as f:
            trace = json.load(f)
    except (OSError, ValueError) as error:
        print(f"error: {options.trace}: {error}")
        return 1
    model_nodes = None
    if options.model:
        with open(options.model, encoding="utf-8") as f:
            model_nodes = {node["name"] for node in json.load(f)["nodes"]}
    problems = check(trace, model_nodes, options.min_named, options.delegate,
                     options.min_delegate_nodes)
    for problem in problems:
        print(f"error: {options.trace}: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
