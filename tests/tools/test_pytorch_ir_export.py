"""What torchir relies on in the real pytorch-ir's output (tools/zoo/pytorch_ir_export.py).

Each test pins one behaviour of pytorch-ir 0.2.3 on torch 2.14 that the reader, the lowering or
the exporter's workaround depends on (docs/zoo.md, "What the real pytorch-ir writes"); when a new
pin changes one, the test that fails names it.

Run with the Python environment: $(scripts/python_env.sh) -m unittest tests/tools/test_pytorch_ir_export.py
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOLS = os.path.join(ROOT, "tools")
sys.path.insert(0, TOOLS)

from zoo.exporter import FILES, export_zoo_model  # noqa: E402
from zoo.ir_checker import check_export  # noqa: E402

ROOT_DIR = None


def setUpModule():
    global ROOT_DIR
    ROOT_DIR = tempfile.mkdtemp(prefix="pytorch_ir_export_test_")


def tearDownModule():
    shutil.rmtree(ROOT_DIR, ignore_errors=True)


def export(name):
    out_dir = os.path.join(ROOT_DIR, name)
    if not os.path.exists(os.path.join(out_dir, "model.json")):
        export_zoo_model(name, "pytorch_ir", out_dir)
    with open(os.path.join(out_dir, "model.json")) as f:
        return out_dir, json.load(f)


def ops(document):
    return [node["op_type"] for node in document["nodes"]]


class PytorchIrExportTest(unittest.TestCase):
    def test_writes_the_four_files_and_our_checker_accepts_them(self):
        out_dir, document = export("conv_bn_relu")
        for file_name in FILES:
            self.assertTrue(os.path.isfile(os.path.join(out_dir, file_name)), file_name)
        self.assertEqual(check_export(out_dir), len(document["nodes"]))
        self.assertTrue(document["pytorch_version"].startswith("2."))
        # Placeholders map to state_dict keys; weights are listed by key.
        self.assertEqual(document["weight_name_mapping"]["p_conv_weight"], "conv.weight")
        self.assertIn("conv.weight", [w["name"] for w in document["weights"]])

    def test_to_dtype_records_assert_tensor_metadata_without_outputs_on_meta(self):
        _, document = export("to_dtype")
        asserts = [n for n in document["nodes"]
                   if n["op_type"] == "aten._assert_tensor_metadata.default"]
        self.assertTrue(asserts)
        for node in asserts:
            self.assertEqual(node["outputs"], [])
            self.assertEqual(node["attrs"]["device"], "meta")
            # IR.save cannot write torch.dtype: the exporter writes str(dtype).
            self.assertTrue(node["attrs"]["dtype"].startswith("torch."))

    def test_tensor_literal_is_a_constant_keyed_by_target_read_through_lift_and_detach(self):
        _, document = export("index_constant")
        self.assertEqual(document["weight_name_mapping"], {"c_lifted_tensor_0": "lifted_tensor_0"})
        self.assertEqual(list(document["constants"]), ["lifted_tensor_0"])
        self.assertEqual(document["constants"]["lifted_tensor_0"]["data"], [2, 0, 1])
        self.assertEqual(ops(document)[:2],
                         ["aten.lift_fresh_copy.default", "aten.detach_.default"])

    def test_varargs_inputs_are_named_inputs_n(self):
        _, document = export("add_tensor")
        self.assertEqual([i["name"] for i in document["graph_inputs"]], ["inputs_0", "inputs_1"])

    def test_trailing_defaults_are_kept(self):
        _, document = export("layer_norm")
        (node,) = document["nodes"]
        self.assertEqual(node["op_type"], "aten.layer_norm.default")
        self.assertIn("eps", node["attrs"])
        self.assertIn("cudnn_enable", node["attrs"])

    def test_without_pytorch_ir_the_flavour_is_one_clear_error_and_writes_nothing(self):
        if not os.path.exists("/usr/bin/python3"):
            self.skipTest("no Debian python3 (the interpreter without pytorch-ir)")
        out_dir = os.path.join(ROOT_DIR, "refused")
        result = subprocess.run(
            ["/usr/bin/python3", os.path.join(TOOLS, "export_ir.py"), "relu", "-o", out_dir,
             "--flavour", "pytorch_ir"], capture_output=True, text=True)
        self.assertEqual(result.returncode, 1)
        lines = result.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, result.stderr)
        self.assertIn("flavour pytorch_ir needs the pytorch-ir package", lines[0])
        self.assertFalse(os.path.exists(out_dir))


if __name__ == "__main__":
    unittest.main()
