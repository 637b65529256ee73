"""Specification of tools/export_ir.py: the files it writes follow the pytorch-ir format note
(/work/shared/pytorch-ir-format.md) and its built-in checker accepts them and rejects damage.

Run: /usr/bin/python3 -m unittest tests/tools/test_export_ir.py   (needs torch; ~10 s)
"""

import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOLS = os.path.join(ROOT, "tools")
sys.path.insert(0, TOOLS)

import torch  # noqa: E402

from zoo import safetensors_io, torchscript_export  # noqa: E402
from zoo.exporter import FILES, ExportError, export_zoo_model  # noqa: E402
from zoo.ir_checker import CheckFailure, check_export  # noqa: E402

GETITEM = "<built-in function getitem>"


class ExportedModels:
    """Exports each (model, flavour) once per test run."""

    def __init__(self):
        self.root = tempfile.mkdtemp(prefix="export_ir_test_")
        self.cache = {}

    def directory(self, name, flavour="export"):
        key = (name, flavour)
        if key not in self.cache:
            out_dir = os.path.join(self.root, name, flavour)
            export_zoo_model(name, flavour, out_dir)
            self.cache[key] = out_dir
        return self.cache[key]

    def document(self, name, flavour="export"):
        with open(os.path.join(self.directory(name, flavour), "model.json")) as f:
            return json.load(f)


EXPORTS = None


def setUpModule():
    global EXPORTS
    EXPORTS = ExportedModels()


def tearDownModule():
    shutil.rmtree(EXPORTS.root, ignore_errors=True)


def nodes_by_op(document, op_type):
    return [n for n in document["nodes"] if n["op_type"] == op_type]


class TopLevelTest(unittest.TestCase):
    def test_top_level_keys_in_format_order(self):
        doc = EXPORTS.document("conv_bn_relu")
        self.assertEqual(list(doc), ["model_name", "pytorch_version", "graph_inputs",
                                     "graph_outputs", "weights", "weight_name_mapping", "nodes"])
        self.assertEqual(doc["model_name"], "conv_bn_relu")
        self.assertEqual(doc["pytorch_version"], torch.__version__)
        self.assertEqual(doc["graph_inputs"], [{"name": "x", "shape": [1, 3, 16, 16],
                                                "dtype": "float32"}])

    def test_weight_name_mapping_uses_placeholder_prefixes(self):
        doc = EXPORTS.document("conv_bn_relu")
        self.assertEqual(doc["weight_name_mapping"], {
            "p_conv_weight": "conv.weight", "p_bn_weight": "bn.weight", "p_bn_bias": "bn.bias",
            "b_bn_running_mean": "bn.running_mean", "b_bn_running_var": "bn.running_var",
            "b_bn_num_batches_tracked": "bn.num_batches_tracked"})
        self.assertEqual([w["name"] for w in doc["weights"]],
                         list(doc["weight_name_mapping"].values()))

    def test_weights_file_holds_state_dict_keys(self):
        tensors = safetensors_io.read_file(
            os.path.join(EXPORTS.directory("conv_bn_relu"), "weights.safetensors"))
        self.assertEqual(set(tensors), {"conv.weight", "bn.weight", "bn.bias", "bn.running_mean",
                                        "bn.running_var", "bn.num_batches_tracked"})
        # Running statistics are randomised, not the 0/1 defaults.
        self.assertGreater(float(tensors["bn.running_mean"].abs().max()), 0.0)
        self.assertFalse(torch.equal(tensors["bn.running_var"], torch.ones(8)))

    def test_inputs_and_expected_keyed_by_graph_names(self):
        directory = EXPORTS.directory("sub")
        doc = EXPORTS.document("sub")
        inputs = safetensors_io.read_file(os.path.join(directory, "inputs.safetensors"))
        expected = safetensors_io.read_file(os.path.join(directory, "expected.safetensors"))
        self.assertEqual(set(inputs), {v["name"] for v in doc["graph_inputs"]})
        self.assertEqual(set(expected), {v["name"] for v in doc["graph_outputs"]})


class NodeStructureTest(unittest.TestCase):
    def test_scalar_operand_goes_to_attrs(self):
        doc = EXPORTS.document("mul")
        scalar_muls = [n for n in nodes_by_op(doc, "aten.mul.Tensor") if "other" in n["attrs"]]
        self.assertEqual(sorted(n["attrs"]["other"] for n in scalar_muls), [0.5, 3])
        for node in scalar_muls:
            self.assertEqual(len(node["inputs"]), 1)

    def test_rsub_of_scalar(self):
        (node,) = nodes_by_op(EXPORTS.document("sub"), "aten.rsub.Scalar")
        self.assertEqual(node["attrs"], {"other": 1.0})

    def test_cat_records_tensor_list_sizes(self):
        cats = nodes_by_op(EXPORTS.document("cat"), "aten.cat.default")
        self.assertEqual([n["attrs"]["_tensor_list_sizes"] for n in cats], [[2], [3]])
        self.assertEqual([len(n["inputs"]) for n in cats], [2, 3])
        self.assertEqual(cats[1]["attrs"]["dim"], -1)

    def test_index_with_none_records_mask_and_lifted_constant(self):
        doc = EXPORTS.document("index_constant")
        (index,) = nodes_by_op(doc, "aten.index.Tensor")
        self.assertEqual(index["attrs"]["_tensor_list_sizes"], [1])
        self.assertEqual(index["attrs"]["_tensor_list_none_masks"], [[True, False]])
        constant = index["inputs"][1]
        self.assertEqual(constant["name"], "c_lifted_tensor_0")
        self.assertNotIn("producer_node", constant)
        self.assertEqual(doc["constants"], {"c_lifted_tensor_0": {"data": [2, 0, 1],
                                                                  "dtype": "int64"}})
        self.assertEqual(doc["weight_name_mapping"]["c_lifted_tensor_0"], "lifted_tensor_0")

    def test_plain_tensor_attribute_becomes_named_constant(self):
        doc = EXPORTS.document("index_attribute")
        self.assertEqual(doc["constants"], {"c_perm": {"data": [1, 0], "dtype": "int64"}})
        (index,) = nodes_by_op(doc, "aten.index.Tensor")
        self.assertNotIn("_tensor_list_none_masks", index["attrs"])

    def test_multi_output_node_and_getitems(self):
        doc = EXPORTS.document("chunk")
        (chunk,) = nodes_by_op(doc, "aten.chunk.default")
        self.assertEqual([o["name"] for o in chunk["outputs"]], ["chunk_0", "chunk_1", "chunk_2"])
        self.assertEqual(chunk["attrs"], {"chunks": 3, "dim": 1})
        getitems = nodes_by_op(doc, GETITEM)
        self.assertEqual([g["name"] for g in getitems], ["getitem", "getitem_1", "getitem_2"])
        for i, g in enumerate(getitems):
            self.assertEqual(g["attrs"], {"index": i})
            self.assertEqual([m["name"] for m in g["inputs"]], ["chunk_0", "chunk_1", "chunk_2"])
            self.assertEqual([(m["producer_node"], m["producer_output_idx"]) for m in g["inputs"]],
                             [("chunk", 0), ("chunk", 1), ("chunk", 2)])
            self.assertEqual(g["outputs"][0]["name"], g["name"])

    def test_unused_split_result_gets_no_getitem(self):
        doc = EXPORTS.document("split")
        (split,) = nodes_by_op(doc, "aten.split.Tensor")
        readers = [g["attrs"]["index"] for g in nodes_by_op(doc, GETITEM)
                   if g["inputs"][0]["producer_node"] == split["name"]]
        self.assertEqual(readers, [0, 1])
        self.assertEqual(len(nodes_by_op(doc, "aten.split_with_sizes.default")), 1)

    def test_producer_links(self):
        doc = EXPORTS.document("conv_bn_relu")
        outputs = {}
        for node in doc["nodes"]:
            for meta in node["inputs"]:
                if meta["name"] in doc["weight_name_mapping"]:
                    self.assertNotIn("producer_node", meta)
                elif meta["name"] == "x":
                    self.assertEqual((meta["producer_node"], meta["producer_output_idx"]), ("x", 0))
                else:
                    self.assertEqual(outputs[meta["name"]],
                                     (meta["producer_node"], meta["producer_output_idx"]))
            for i, meta in enumerate(node["outputs"]):
                outputs[meta["name"]] = (node["name"], i)

    def test_export_flavour_keeps_inplace_ops_and_pre_dispatch_names(self):
        doc = EXPORTS.document("conv_bn_relu")
        self.assertEqual([(n["name"], n["op_type"]) for n in doc["nodes"]], [
            ("conv2d", "aten.conv2d.default"), ("batch_norm", "aten.batch_norm.default"),
            ("relu_", "aten.relu_.default")])
        # stride is at its default but not trailing, so it stays (as in torch.export).
        self.assertEqual(doc["nodes"][0]["attrs"], {"stride": [1, 1], "padding": [1, 1]})
        self.assertEqual(doc["nodes"][1]["attrs"], {"training": False, "momentum": 0.1,
                                                    "eps": 1e-05, "cudnn_enabled": True})

    def test_conv_without_bias_leaves_no_trace(self):
        (conv,) = EXPORTS.document("conv2d_strided_padded_nobias")["nodes"]
        self.assertEqual(len(conv["inputs"]), 2)
        self.assertEqual(conv["attrs"], {"stride": [2, 2], "padding": [1, 1]})

    def test_batch_norm_without_affine_has_only_running_stats(self):
        (bn,) = EXPORTS.document("batch_norm_no_affine")["nodes"]
        self.assertEqual([m["name"] for m in bn["inputs"]],
                         ["x", "b_bn_running_mean", "b_bn_running_var"])

    def test_builtin_names_get_suffix_like_fx(self):
        names = [n["name"] for n in EXPORTS.document("slice_select")["nodes"]]
        self.assertIn("slice_1", names)
        self.assertNotIn("slice", names)

    def test_non_finite_attribute_written_as_python_json(self):
        with open(os.path.join(EXPORTS.directory("tiny_gpt"), "model.json")) as f:
            self.assertIn('"value": -Infinity', f.read())


class CoreFlavourTest(unittest.TestCase):
    def test_batch_norm_becomes_legit_no_training_with_getitem(self):
        doc = EXPORTS.document("conv_bn_relu", "core")
        self.assertEqual([n["op_type"] for n in doc["nodes"]], [
            "aten.convolution.default", "aten._native_batch_norm_legit_no_training.default",
            GETITEM, "aten.relu.default"])
        bn = doc["nodes"][1]
        self.assertEqual(bn["attrs"], {"momentum": 0.1, "eps": 1e-05})
        self.assertEqual(len(bn["outputs"]), 3)

    def test_linear_decomposes_to_t_addmm(self):
        doc = EXPORTS.document("linear_2d", "core")
        self.assertEqual([n["op_type"] for n in doc["nodes"]],
                         ["aten.t.default", "aten.addmm.default"])


class CheckerTest(unittest.TestCase):
    def damaged_copy(self, name, damage):
        target = tempfile.mkdtemp(prefix="export_ir_damaged_")
        self.addCleanup(shutil.rmtree, target, ignore_errors=True)
        shutil.copytree(EXPORTS.directory(name), target, dirs_exist_ok=True)
        path = os.path.join(target, "model.json")
        with open(path) as f:
            doc = json.load(f)
        damage(doc)
        with open(path, "w") as f:
            json.dump(doc, f)
        return target

    def test_accepts_the_written_files(self):
        for name in ("conv_bn_relu", "chunk", "index_constant", "tiny_gpt"):
            for flavour in ("export", "core"):
                self.assertGreater(check_export(EXPORTS.directory(name, flavour)), 0)

    def test_rejects_a_changed_scalar(self):
        def damage(doc):
            nodes_by_op(doc, "aten.mul.Tensor")[1]["attrs"]["other"] = 0.25
        with self.assertRaisesRegex(CheckFailure, "differs from the eager result"):
            check_export(self.damaged_copy("mul", damage))

    def test_rejects_a_missing_none_mask(self):
        def damage(doc):
            nodes_by_op(doc, "aten.index.Tensor")[0]["attrs"].pop("_tensor_list_none_masks")
        # Without the mask the index applies to dim 0 instead of dim 1.
        with self.assertRaisesRegex(CheckFailure, "index .* out of bounds|differs from the eager"):
            check_export(self.damaged_copy("index_constant", damage))

    def test_rejects_a_wrong_producer(self):
        def damage(doc):
            nodes_by_op(doc, GETITEM)[0]["inputs"][0]["producer_output_idx"] = 2
        with self.assertRaisesRegex(CheckFailure, "names producer"):
            check_export(self.damaged_copy("chunk", damage))


class FilesTest(unittest.TestCase):
    def test_safetensors_header_is_aligned_and_round_trips(self):
        tensors = {"b": torch.arange(5, dtype=torch.int64), "a": torch.randn(2, 3),
                   "m": torch.tensor([True, False]), "h": torch.randn(3).to(torch.bfloat16)}
        blob = safetensors_io.serialize(tensors)
        (length,) = struct.unpack("<Q", blob[:8])
        self.assertEqual(length % 8, 0)
        header = json.loads(blob[8:8 + length])
        self.assertEqual(header["a"]["dtype"], "F32")
        self.assertEqual(header["a"]["data_offsets"], [0, 24])
        path = os.path.join(EXPORTS.root, "round_trip.safetensors")
        safetensors_io.write_file(path, tensors)
        back = safetensors_io.read_file(path)
        for key, tensor in tensors.items():
            self.assertTrue(torch.equal(back[key], tensor), key)

    def test_same_bytes_on_every_run(self):
        again = os.path.join(EXPORTS.root, "again")
        export_zoo_model("tiny_vit", "export", again)
        first = EXPORTS.directory("tiny_vit")
        for file_name in ("model.json", "weights.safetensors", "inputs.safetensors",
                          "expected.safetensors"):
            with open(os.path.join(first, file_name), "rb") as a, \
                    open(os.path.join(again, file_name), "rb") as b:
                self.assertEqual(a.read(), b.read(), file_name)

    def test_unknown_model_is_an_error(self):
        with self.assertRaises(ExportError):
            export_zoo_model("no_such_model", "export", os.path.join(EXPORTS.root, "none"))


class TorchScriptTest(unittest.TestCase):
    """--torchscript: the PyTorch paths the benchmarks compare with, each checked first."""

    @classmethod
    def setUpClass(cls):
        cls.directory = os.path.join(EXPORTS.root, "torchscript_conv_bn_relu")
        export_zoo_model("conv_bn_relu", "export", cls.directory, torchscript=True)
        cls.inputs = safetensors_io.read_file(os.path.join(cls.directory, "inputs.safetensors"))
        (cls.expected,) = safetensors_io.read_file(
            os.path.join(cls.directory, "expected.safetensors")).values()

    def run_module(self, module):
        with torch.no_grad():
            return module(self.inputs["x"])

    def test_writes_the_three_files_beside_the_ir(self):
        self.assertEqual(sorted(os.listdir(self.directory)),
                         sorted(FILES + ("traced.pt", "traced_frozen.pt", "mobile.pt")))

    def test_every_file_reproduces_eager_pytorch(self):
        for file_name in ("traced.pt", "traced_frozen.pt", "mobile.pt"):
            module = torch.jit.load(os.path.join(self.directory, file_name))
            self.assertTrue(torch.allclose(self.run_module(module), self.expected,
                                           rtol=1e-4, atol=1e-4), file_name)

    def test_frozen_file_takes_optimize_for_inference_after_loading(self):
        module = torch.jit.optimize_for_inference(
            torch.jit.load(os.path.join(self.directory, "traced_frozen.pt")))
        self.assertIn("prim::mkldnn_convolution",
                      {node.kind() for node in module.graph.nodes()})
        self.assertTrue(torch.allclose(self.run_module(module), self.expected,
                                       rtol=1e-4, atol=1e-4))

    def test_mobile_file_runs_on_the_lite_interpreter(self):
        from torch.jit.mobile import _load_for_lite_interpreter
        module = _load_for_lite_interpreter(os.path.join(self.directory, "mobile.pt"))
        self.assertTrue(torch.allclose(self.run_module(module), self.expected,
                                       rtol=1e-4, atol=1e-4))

    def graph_ops(self, file_name):
        module = torch.jit.load(os.path.join(self.directory, file_name))
        return {node.kind() for node in module.inlined_graph.nodes()}

    def test_traced_file_is_unoptimised(self):
        self.assertTrue(any("batch_norm" in op for op in self.graph_ops("traced.pt")))

    def test_frozen_file_folds_batch_norm(self):
        self.assertFalse(any("batch_norm" in op for op in self.graph_ops("traced_frozen.pt")))

    def test_mobile_file_uses_prepacked_xnnpack_convolution(self):
        self.assertIn("prepacked::conv2d_clamp_run", self.graph_ops("mobile.pt"))

    def test_a_file_that_differs_from_eager_is_refused_and_nothing_written(self):
        class Doubler(torch.nn.Module):
            def forward(self, x):
                return x * 2.0

        out_dir = os.path.join(EXPORTS.root, "torchscript_refused")
        with mock.patch.object(torchscript_export, "optimize_for_mobile",
                               lambda frozen: torch.jit.script(Doubler())):
            with self.assertRaisesRegex(ExportError, "mobile.pt: output 0 differs"):
                export_zoo_model("relu", "export", out_dir, torchscript=True)
        self.assertFalse(os.path.exists(out_dir))

    def test_check_outputs_compares_shape_and_values(self):
        want = [torch.ones(2, 3)]
        torchscript_export.check_outputs("same", torch.ones(2, 3) + 1e-6, want)
        with self.assertRaisesRegex(torchscript_export.TorchScriptError, "differs .* by 0.01"):
            torchscript_export.check_outputs("off", torch.ones(2, 3) + 0.01, want)
        with self.assertRaisesRegex(torchscript_export.TorchScriptError, r"float32\[3, 2\]"):
            torchscript_export.check_outputs("shape", torch.ones(3, 2), want)


class CommandLineTest(unittest.TestCase):
    def run_tool(self, *args):
        return subprocess.run([sys.executable, os.path.join(TOOLS, "export_ir.py"), *args],
                              capture_output=True, text=True)

    def test_single_export(self):
        out_dir = os.path.join(EXPORTS.root, "cli_relu")
        result = self.run_tool("relu6", "-o", out_dir, "--flavour", "core")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(sorted(os.listdir(out_dir)), ["expected.safetensors",
                                                       "inputs.safetensors", "model.json",
                                                       "weights.safetensors"])

    def test_torchscript_option_adds_the_pytorch_files(self):
        out_dir = os.path.join(EXPORTS.root, "cli_torchscript")
        result = self.run_tool("text_cnn", "-o", out_dir, "--torchscript")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(sorted(os.listdir(out_dir)), [
            "expected.safetensors", "inputs.safetensors", "mobile.pt", "model.json",
            "traced.pt", "traced_frozen.pt", "weights.safetensors"])

    def test_unknown_model_exits_non_zero(self):
        result = self.run_tool("no_such_model", "-o", os.path.join(EXPORTS.root, "x"))
        self.assertEqual(result.returncode, 1)
        self.assertTrue(result.stderr.startswith("error: "), result.stderr)

    def test_list_names_the_zoo(self):
        result = self.run_tool("--list")
        self.assertEqual(result.returncode, 0)
        for name in ("resnet18", "mobilenet_v2", "mobilenet_v3_large", "tiny_vit", "conv2d"):
            self.assertIn(name, result.stdout)


if __name__ == "__main__":
    unittest.main()
