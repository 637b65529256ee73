"""scripts/layer_table.py: the columns, the best native path and the ratios, from a small JSON."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts",
                      "layer_table.py")


def run(name, gflops, family):
    return {"name": name, "run_name": name, "run_type": "iteration", "family_index": family,
            "GFLOPS": gflops}


def table(rows):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump({"context": {}, "benchmarks": rows}, f)
    try:
        result = subprocess.run([sys.executable, SCRIPT, f.name], capture_output=True, text=True)
    finally:
        os.unlink(f.name)
    return result


def cells(output, layer):
    for line in output.splitlines():
        parts = [p.strip() for p in line.strip().strip("|").split("|")]
        if parts and parts[0] == layer:
            return parts
    raise AssertionError(f"no row for {layer} in:\n{output}")


class LayerTableTest(unittest.TestCase):
    def test_f2x2_counts_as_the_best_native_path(self):
        rows = [run("Peak/start", 100.0, 0), run("Peak/end", 100.0, 9),
                # The 7 x 7 layer: direct 90, F(2x2) 150, oneDNN 120 -> best / oneDNN 1.25.
                run("Native/l_3x3_7", 90.0, 1), run("Native/l_3x3_7/again", 90.0, 2),
                run("Winograd2x2/l_3x3_7", 150.0, 3), run("OneDnn/l_3x3_7", 120.0, 4),
                run("LibTorch/l_3x3_7", 60.0, 5),
                # A stride-2 layer with no Winograd row: 80 against oneDNN's 100 -> 0.80.
                run("Native/l_3x3s2", 80.0, 6), run("OneDnn/l_3x3s2", 100.0, 7),
                run("LibTorch/l_3x3s2", 50.0, 8)]
        result = table(rows)
        self.assertEqual(result.returncode, 0, result.stderr)
        header = cells(result.stdout, "layer")
        self.assertIn("F(2x2)", header)
        best = header.index("best native / best PyTorch")
        seven = cells(result.stdout, "l_3x3_7")
        self.assertEqual(seven[header.index("F(2x2)")], "150 [150-150]")
        self.assertEqual(seven[header.index("F(2x2)") + 1], "150%")
        self.assertEqual(seven[header.index("native / oneDNN")], "0.75")
        self.assertEqual(seven[best], "1.25")
        stride2 = cells(result.stdout, "l_3x3s2")
        self.assertEqual(stride2[header.index("F(2x2)")], "-")
        self.assertEqual(stride2[best], "0.80")
        self.assertIn("best native / best PyTorch: lowest 0.80 (l_3x3s2), median 1.02, "
                      "1 of 2 below 1: l_3x3s2 0.800", result.stdout)

    def test_no_f2x2_column_without_its_rows(self):
        result = table([run("Peak/start", 100.0, 0), run("Native/a", 90.0, 1),
                        run("Xnnpack/a", 100.0, 2), run("LibTorch/a", 45.0, 3)])
        self.assertEqual(result.returncode, 0, result.stderr)
        header = cells(result.stdout, "layer")
        self.assertNotIn("F(2x2)", header)
        self.assertNotIn("best native / LibTorch", header)
        self.assertEqual(cells(result.stdout, "a")[header.index("native / XNNPACK")], "0.90")

    def test_a_file_without_benchmarks_is_refused_in_one_line(self):
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            f.write("{}")
        try:
            result = subprocess.run([sys.executable, SCRIPT, f.name], capture_output=True,
                                    text=True)
        finally:
            os.unlink(f.name)
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("is not Google Benchmark JSON", result.stderr)
        self.assertEqual(len(result.stderr.strip().splitlines()), 1)


if __name__ == "__main__":
    unittest.main()
