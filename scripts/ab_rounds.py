"""What the A-B scripts share (ab_benchmarks.py, ab_profile.py): old and new builds alternated.

Rounds of A then B, each a fresh process, so drift and other tenants' load fall on both alike.
Standard library only.
"""
import os
import sys


def alternate(tool, old, new, rounds, measure):
    """measure(binary) for A = old and B = new, alternated `rounds` times; {"A": [...], "B": [...]}.

    Exits with a message naming `tool` when either binary is not executable."""
    for binary in (old, new):
        if not os.access(binary, os.X_OK):
            sys.exit(f"{tool}: not an executable: {binary}")
    results = {"A": [], "B": []}
    for round_index in range(rounds):
        for tag, binary in (("A", old), ("B", new)):
            results[tag].append(measure(binary))
        print(f"round {round_index + 1} of {rounds} done", file=sys.stderr)
    return results
