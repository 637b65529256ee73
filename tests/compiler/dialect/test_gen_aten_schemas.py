"""The committed compiler/dialect/aten_schemas.inc equals what tools/gen_aten_schemas.py writes."""

import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
SCRIPT = os.path.join(ROOT, "tools", "gen_aten_schemas.py")
COMMITTED = os.path.join(ROOT, "compiler", "dialect", "aten_schemas.inc")


class GenAtenSchemasTest(unittest.TestCase):
    def test_committed_table_is_current(self):
        with tempfile.TemporaryDirectory() as tmp:
            output = os.path.join(tmp, "aten_schemas.inc")
            subprocess.run([sys.executable, SCRIPT, "--output", output], check=True)
            with open(output, encoding="utf-8") as f:
                generated = f.read()
        with open(COMMITTED, encoding="utf-8") as f:
            committed = f.read()
        self.assertTrue(
            generated == committed,
            "compiler/dialect/aten_schemas.inc is stale: run /usr/bin/python3 "
            "tools/gen_aten_schemas.py")

    def test_table_is_deterministic_and_complete(self):
        with open(COMMITTED, encoding="utf-8") as f:
            lines = [line for line in f if line.startswith('"')]
        keys = [line[1:line.index("(")] for line in lines]
        self.assertEqual(keys, sorted(keys, key=lambda k: tuple(k.partition(".")[::2])))
        self.assertEqual(len(keys), len(set(keys)))
        for op in ("aten::conv2d", "aten::scaled_dot_product_attention",
                   "aten::_native_batch_norm_legit_no_training", "aten::rms_norm",
                   "aten::squeeze.dims", "aten::_unsafe_index.Tensor"):
            self.assertIn(op, keys)
        self.assertFalse(any(k.endswith(".out") for k in keys))
        self.assertFalse(any("_backward" in k for k in keys))


if __name__ == "__main__":
    unittest.main()
