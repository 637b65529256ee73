#!/usr/bin/env python3
"""Regenerates the generated parts of docs/edge-dialect.md in place.

- "The ops": the Edge op table, as `torchir-compile --list-edge-ops` prints it (the
  `edge_ops_test` drift test fails when the page and the code differ);
- "ATen ops accepted": one family's list (--family, default Elementwise) is rebuilt: emptied,
  then filled, in sorted order, with every accepted ATen op the page then lacks, as
  `lowering_lowering_test` reports them (the rule table does not record families, so ops
  accepted but listed nowhere land in the family named).

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


MARKER = "<!-- the family's ATen ops, being regenerated -->"


def empty_family(text: str, family: str) -> str:
    heading = text.index(f"### {family}\n")
    # The family's op list is the paragraph of `aten.*` names after its description.
    match = re.compile(r"\n(`aten\.[^\n]*`)\n").search(text, heading)
    if match is None:
        sys.exit(f"no op list under '### {family}'")
    return text[:match.start(1)] + MARKER + text[match.end(1):]


def fill_family(text: str, ops: list) -> str:
    return text.replace(MARKER, ", ".join(f"`{op}`" for op in sorted(set(ops))))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default=str(ROOT / "build"))
    parser.add_argument("--family", default="Elementwise")
    args = parser.parse_args()
    build = pathlib.Path(args.build)
    table = subprocess.run([str(build / "bin" / "torchir-compile"), "--list-edge-ops"],
                           check=True, capture_output=True, text=True).stdout
    text = empty_family(replace_table(DOC.read_text(), table), args.family)
    DOC.write_text(text)  # the lowering test reads the page: now without the family's ops
    ops = undocumented_ops(build)
    DOC.write_text(fill_family(text, ops))
    print(f"{DOC.relative_to(ROOT)}: table regenerated, {len(ops)} ATen op(s) listed under "
          f"'{args.family}'")

if __name__ == "__main__":
    main()
