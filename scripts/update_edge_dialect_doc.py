#!/usr/bin/env python3
"""Regenerates the generated parts of docs/edge-dialect.md in place.

- "The ops": the Edge op table, as `torchir-compile --list-edge-ops` prints it (the
  `edge_ops_test` drift test fails when the page and the code differ);
- "ATen ops accepted": every accepted ATen op the page does not list yet is added, in sorted
  order, to its family's list. The family comes from the lowering test's report of undocumented
  ops, which `lowering_lowering_test` prints; the family is given with --family (default
  Elementwise) because the rule table does not record it.

Usage: scripts/update_edge_dialect_doc.py [--build build] [--family Elementwise]
"""
import argparse
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "edge-dialect.md"
TABLE_HEADER = "| op | tensor inputs |"


def replace_table(text: str, table: str) -> str:
    start = text.index(TABLE_HEADER)
    end = text.index("\n\n", start)
    return text[:start] + table.rstrip("\n") + text[end:]


def undocumented_ops(build: pathlib.Path) -> list:
    run = subprocess.run(
        [str(build / "tests" / "lowering_lowering_test"),
         "--gtest_filter=LoweringDocsTest.EveryAcceptedOpIsDocumented"],
        capture_output=True, text=True)
    return sorted(set(re.findall(r"(aten\.\S+) is accepted but not listed", run.stdout)))


def add_to_family(text: str, family: str, ops: list) -> str:
    heading = text.index(f"### {family}\n")
    # The family's op list is the paragraph of `aten.*` names after its description.
    match = re.compile(r"\n(`aten\.[^\n]*`)\n").search(text, heading)
    if match is None:
        sys.exit(f"no op list under '### {family}'")
    listed = re.findall(r"`(aten\.[^`]+)`", match.group(1))
    merged = ", ".join(f"`{op}`" for op in sorted(set(listed) | set(ops)))
    return text[:match.start(1)] + merged + text[match.end(1):]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default=str(ROOT / "build"))
    parser.add_argument("--family", default="Elementwise")
    args = parser.parse_args()
    build = pathlib.Path(args.build)
    table = subprocess.run([str(build / "bin" / "torchir-compile"), "--list-edge-ops"],
                           check=True, capture_output=True, text=True).stdout
    text = replace_table(DOC.read_text(), table)
    DOC.write_text(text)  # first the table, so that the lowering test reads a current page
    ops = undocumented_ops(build)
    if ops:
        DOC.write_text(add_to_family(text, args.family, ops))
    print(f"{DOC.relative_to(ROOT)}: table regenerated, {len(ops)} ATen op(s) added to "
          f"'{args.family}'")


if __name__ == "__main__":
    main()
