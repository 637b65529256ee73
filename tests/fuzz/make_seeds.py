#!/usr/bin/env python3
"""Writes the seed corpus of every parser fuzzer (tests/fuzz/run_fuzzers.sh).

    make_seeds.py SOURCE_DIR FIXTURES_DIR ZOO_DIR OUT_DIR

OUT_DIR/<target>/ gets real files and generated hostile ones (nothing large is
committed: big and deep seeds are written here at run time):
  fuzz_ir_reader    tests/fuzz/seeds/ir/*.json; every zoo model.json up to 4 MB
                    (when ZOO_DIR exists); a 3.5 MB IR from scripts/make_large_ir.py;
                    nesting at, just past and far past the depth limit; duplicate keys
  fuzz_safetensors  the fixtures' .safetensors; small zoo inputs/expected files
  fuzz_torch_pt     the fixtures' .pt files
  fuzz_zip_archive  the zip .pt fixtures; zips with deflated, ZIP64 and commented entries
  fuzz_pickle       the fixtures' .pkl files and the data.pkl of every zip .pt
Needs only the standard library.
"""
import glob
import importlib.util
import json
import os
import shutil
import sys
import zipfile

MAX_IR_SEED = 4 << 20
MAX_SAFETENSORS_SEED = 1 << 20


def copy_files(paths, out, prefix=""):
    for path in paths:
        shutil.copy(path, os.path.join(out, prefix + os.path.basename(path)))


def write(out, name, data):
    mode = "wb" if isinstance(data, bytes) else "w"
    with open(os.path.join(out, name), mode) as f:
        f.write(data)


def zoo_files(zoo, name, limit):
    """(model_flavour, path) of every zoo file called `name` of at most `limit` bytes."""
    found = []
    for path in sorted(glob.glob(os.path.join(zoo, "*", "*", name))):
        if os.path.getsize(path) <= limit:
            flavour_dir = os.path.dirname(path)
            tag = os.path.basename(os.path.dirname(flavour_dir)) + "_" + os.path.basename(flavour_dir)
            found.append((tag, path))
    return found


def ir_seeds(source, zoo, out):
    copy_files(sorted(glob.glob(os.path.join(source, "tests/fuzz/seeds/ir/*.json"))), out)
    for tag, path in zoo_files(zoo, "model.json", MAX_IR_SEED):
        shutil.copy(path, os.path.join(out, "zoo_" + tag + ".json"))
    spec = importlib.util.spec_from_file_location(
        "make_large_ir", os.path.join(source, "scripts/make_large_ir.py"))
    large = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(large)
    write(out, "large_3mb.json", json.dumps(large.build(int(3.5e6)), indent=2))
    # Nesting around the limit (64), as bare arrays and inside a node's attrs.
    for depth in (63, 64, 65, 1000, 300_000):
        write(out, "deep_%d.json" % depth, "[" * depth + "]" * depth)
    write(out, "deep_objects.json", '{"a":' * 100_000 + "1" + "}" * 100_000)
    with open(os.path.join(source, "tests/fuzz/seeds/ir/tiny.json")) as f:
        tiny = f.read()
    for depth in (20, 40, 70):
        write(out, "deep_attr_%d.json" % depth,
              tiny.replace('"attrs": {}', '"attrs": {"x": %s}' % ("[" * depth + "]" * depth), 1))
    # Duplicate keys at the top level and inside a node.
    write(out, "duplicate_top.json", tiny.replace("{", '{"nodes": [], ', 1))
    write(out, "duplicate_node.json", tiny.replace('"op_type"', '"name": "x", "op_type"', 1))


def safetensors_seeds(fixtures, zoo, out):
    copy_files(sorted(glob.glob(os.path.join(fixtures, "*.safetensors"))), out)
    for name in ("inputs.safetensors", "expected.safetensors"):
        for tag, path in zoo_files(zoo, name, MAX_SAFETENSORS_SEED)[:20]:
            shutil.copy(path, os.path.join(out, "zoo_" + tag + "_" + name))


def zip_seeds(fixtures, out):
    pts = [p for p in sorted(glob.glob(os.path.join(fixtures, "*.pt"))) if zipfile.is_zipfile(p)]
    copy_files(pts, out)
    payload = bytes(range(256)) * 4
    with zipfile.ZipFile(os.path.join(out, "deflated.zip"), "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("a/data.pkl", payload)
        z.writestr("a/data/0", payload, compress_type=zipfile.ZIP_STORED)
    with zipfile.ZipFile(os.path.join(out, "zip64.zip"), "w", zipfile.ZIP_STORED,
                         allowZip64=True) as z:
        with z.open("big/data/0", "w", force_zip64=True) as f:
            f.write(payload)
        z.writestr("big/version", b"3\n")
        z.comment = b"a comment after the directory"
    with zipfile.ZipFile(os.path.join(out, "empty.zip"), "w") as z:
        pass


def pickle_seeds(fixtures, out):
    copy_files(sorted(glob.glob(os.path.join(fixtures, "*.pkl"))), out)
    for path in sorted(glob.glob(os.path.join(fixtures, "*.pt"))):
        if not zipfile.is_zipfile(path):
            continue
        with zipfile.ZipFile(path) as archive:
            for entry in archive.namelist():
                if entry.endswith(".pkl"):
                    name = os.path.basename(path) + "." + entry.replace("/", "_")
                    write(out, name, archive.read(entry))


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    source, fixtures, zoo, out = sys.argv[1:]
    dirs = {}
    for target in ("fuzz_ir_reader", "fuzz_safetensors", "fuzz_torch_pt", "fuzz_zip_archive",
                   "fuzz_pickle"):
        dirs[target] = os.path.join(out, target)
        os.makedirs(dirs[target], exist_ok=True)
    ir_seeds(source, zoo, dirs["fuzz_ir_reader"])
    safetensors_seeds(fixtures, zoo, dirs["fuzz_safetensors"])
    copy_files(sorted(glob.glob(os.path.join(fixtures, "*.pt"))), dirs["fuzz_torch_pt"])
    zip_seeds(fixtures, dirs["fuzz_zip_archive"])
    pickle_seeds(fixtures, dirs["fuzz_pickle"])
    for target, path in dirs.items():
        files = os.listdir(path)
        size = sum(os.path.getsize(os.path.join(path, f)) for f in files)
        print("%s: %d seeds, %d bytes" % (target, len(files), size))


if __name__ == "__main__":
    main()
