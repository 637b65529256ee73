"""validate_trace.py accepts a well-formed trace and names every kind of problem."""
import copy
import unittest

from validate_trace import check

GOOD = {
    "traceEvents": [
        {"name": "process_name", "ph": "M", "pid": 1, "tid": 1, "args": {"name": "torchir"}},
        {"name": "iteration 0", "cat": "iteration", "ph": "X", "pid": 1, "tid": 1,
         "ts": 0.0, "dur": 10.0, "args": {"iteration": 0}},
        {"name": "conv2d", "cat": "kernel", "ph": "X", "pid": 1, "tid": 1, "ts": 0.0,
         "dur": 4.0, "args": {"instruction": 0, "op": "convolution", "nodes": ["conv2d"]}},
        {"name": "xnnpack_delegate_0", "cat": "delegate", "ph": "X", "pid": 1, "tid": 1,
         "ts": 4.5, "dur": 5.0,
         "args": {"instruction": 1, "op": "XnnpackBackend", "nodes": ["add", "relu"]}},
    ]
}
MODEL = {"conv2d", "add", "relu"}


def broken(change):
    trace = copy.deepcopy(GOOD)
    change(trace["traceEvents"])
    return check(trace, MODEL, 1, False)


class ValidateTraceTest(unittest.TestCase):
    def test_a_well_formed_trace_passes(self):
        self.assertEqual(check(GOOD, MODEL, 3, True), [])

    def test_the_top_level_must_hold_trace_events(self):
        self.assertTrue(check([], None, 1, False))
        self.assertTrue(check({"events": []}, None, 1, False))

    def test_required_keys_and_types(self):
        self.assertIn("'dur' missing", " ".join(broken(lambda e: e[2].pop("dur"))))
        self.assertIn("'ts' missing", " ".join(broken(lambda e: e[2].update(ts="0"))))
        self.assertIn("'pid' missing", " ".join(broken(lambda e: e[2].update(pid="1"))))
        self.assertIn("'cat' missing", " ".join(broken(lambda e: e[2].pop("cat"))))
        self.assertIn("args.nodes", " ".join(broken(lambda e: e[2]["args"].update(nodes=[]))))
        self.assertIn("args.op", " ".join(broken(lambda e: e[2]["args"].pop("op"))))

    def test_phase_duration_and_order(self):
        self.assertIn("unknown ph", " ".join(broken(lambda e: e[2].update(ph="Q"))))
        self.assertIn("negative dur", " ".join(broken(lambda e: e[2].update(dur=-1))))
        self.assertIn("goes back", " ".join(broken(lambda e: e[3].update(ts=-0.5 + 0))))

    def test_names_must_be_the_models_nodes(self):
        self.assertTrue(check(GOOD, {"something_else"}, 1, False))
        self.assertTrue(check(GOOD, MODEL, 4, False))

    def test_a_delegate_must_list_its_nodes_when_asked(self):
        trace = copy.deepcopy(GOOD)
        trace["traceEvents"][3]["args"]["nodes"] = ["xnnpack_delegate_0"]
        self.assertTrue(check(trace, MODEL, 1, True))


if __name__ == "__main__":
    unittest.main()
