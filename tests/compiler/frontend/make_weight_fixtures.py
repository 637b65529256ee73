#!/usr/bin/env python3
"""Writes the weight-file fixtures of the frontend tests into a directory.

Usage: make_weight_fixtures.py OUTPUT_DIR

Needs PyTorch (Debian's python3-torch: run it with /usr/bin/python3). Writes:
  model_state.pt          torch.save(model.state_dict()) of a conv + batchnorm + linear model:
                          an OrderedDict with _metadata, int64 num_batches_tracked
  dtypes.pt               a dict of float16, bfloat16, int64, bool, ... tensors, a 0-d and
                          an empty tensor
  views.pt                a transposed (non-contiguous) view, two tensors sharing one storage
                          at different offsets, an expanded (stride 0) view, a Parameter
  nested.pt               {"state_dict": {...}}: not a flat state_dict
  legacy.pt               the pre-1.6 (non-zip) torch.save format
  scripted.pt             a TorchScript archive (torch.jit.save)
  model_state.safetensors the tensors of model_state.pt, written by the writer below
  all_dtypes.safetensors  one tensor of every safetensors dtype, with __metadata__
  pickle_p{2,3,4,5}.pkl   plain_pickle_object() pickled with each protocol
  expected.json           for every fixture above that holds tensors: name, dtype, shape and
                          the dense row-major bytes in hex, in file order; plus metadata
"""

import collections
import json
import os
import pickle
import struct
import sys

import numpy as np
import torch


def tensor_bytes(tensor):
    tensor = tensor.detach().contiguous()
    if tensor.dtype == torch.bfloat16:
        tensor = tensor.view(torch.int16)
    return tensor.numpy().tobytes()


def dtype_name(dtype):
    return str(dtype).replace("torch.", "")


# safetensors codes of the torch dtypes torch 1.13 has, and their ir names.
SAFETENSORS_CODES = {
    torch.bool: "BOOL",
    torch.uint8: "U8",
    torch.int8: "I8",
    torch.int16: "I16",
    torch.float16: "F16",
    torch.bfloat16: "BF16",
    torch.int32: "I32",
    torch.float32: "F32",
    torch.float64: "F64",
    torch.int64: "I64",
    torch.complex64: "C64",
}


def write_safetensors(path, entries, metadata=None):
    """entries: list of (name, safetensors dtype code, shape, raw bytes), written in order."""
    header = {}
    if metadata:
        header["__metadata__"] = metadata
    offset = 0
    for name, code, shape, data in entries:
        header[name] = {"dtype": code, "shape": list(shape),
                        "data_offsets": [offset, offset + len(data)]}
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for _, _, _, data in entries:
            f.write(data)


def expected_entry(name, dtype, shape, data):
    return {"name": name, "dtype": dtype, "shape": list(shape), "hex": data.hex()}


def expected_tensors(state):
    return [expected_entry(name, dtype_name(t.dtype), t.shape, tensor_bytes(t))
            for name, t in state.items()]


def plain_pickle_object():
    """Plain data exercising the opcodes Python emits; pickle_test.cpp checks this structure."""
    shared = [7, 8]
    return collections.OrderedDict([
        ("ints", [0, 255, 256, 65535, 65536, -1, 2**31, -2**63, 2**63 - 1]),
        ("float", -1.5),
        ("text", "h\u00e9llo"),
        ("flags", (True, False, None)),
        ("tuples", {"t1": (1,), "t2": (1, 2), "t3": (1, 2, 3), "t4": (1, 2, 3, 4)}),
        ("shared", (shared, shared)),
    ])


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(2, 3, kernel_size=3)
        self.bn = torch.nn.BatchNorm2d(3)
        self.fc = torch.nn.Linear(3, 2)

    def forward(self, x):
        return self.fc(self.bn(self.conv(x)).mean(dim=(2, 3)))


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make_weight_fixtures.py OUTPUT_DIR")
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    expected = {}

    model = Model()
    model.train()
    model(torch.randn(4, 2, 6, 6))  # moves the running stats and num_batches_tracked
    model.eval()
    state = model.state_dict()
    assert isinstance(state, collections.OrderedDict) and hasattr(state, "_metadata")
    torch.save(state, os.path.join(out, "model_state.pt"))
    expected["model_state.pt"] = {"tensors": expected_tensors(state)}

    write_safetensors(
        os.path.join(out, "model_state.safetensors"),
        [(name, SAFETENSORS_CODES[t.dtype], t.shape, tensor_bytes(t)) for name, t in state.items()],
        {"format": "pt"})
    expected["model_state.safetensors"] = {"tensors": expected_tensors(state),
                                           "metadata": {"format": "pt"}}

    dtypes = {
        "half": torch.randn(2, 3).half(),
        "bfloat16": torch.randn(3, 2).bfloat16(),
        "long": torch.tensor([[-(2**40), 7], [2**62, -1]], dtype=torch.int64),
        "flags": torch.tensor([True, False, True]),
        "int8": torch.tensor([-128, 0, 127], dtype=torch.int8),
        "uint8": torch.tensor([0, 1, 255], dtype=torch.uint8),
        "int16": torch.tensor([-300, 300], dtype=torch.int16),
        "int32": torch.tensor([-70000, 70000], dtype=torch.int32),
        "double": torch.randn(2, dtype=torch.float64),
        "complex": torch.randn(2, dtype=torch.complex64),
        "scalar": torch.tensor(3.5),
        "empty": torch.zeros(0, 3),
    }
    torch.save(dtypes, os.path.join(out, "dtypes.pt"))
    expected["dtypes.pt"] = {"tensors": expected_tensors(dtypes)}

    base = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    views = {
        "transposed": base.t(),              # strides (1, 4): non-contiguous
        "row": base[1],                      # offset 4 into base's storage
        "tail": base[2:],                    # offset 8, same storage
        "expanded": torch.tensor([1.0, 2.0, 3.0]).unsqueeze(1).expand(3, 2),  # stride 0
        "column": base[:, 1],                # offset 1, stride 4
        "slice": base[:, 1:3],               # rows of 2 contiguous elements, stride 4
        "param": torch.nn.Parameter(torch.tensor([0.25, -0.5])),
    }
    torch.save(views, os.path.join(out, "views.pt"))
    expected["views.pt"] = {"tensors": expected_tensors(views)}

    torch.save({"state_dict": {"w": torch.ones(2)}}, os.path.join(out, "nested.pt"))
    torch.save({"w": torch.ones(2)}, os.path.join(out, "legacy.pt"),
               _use_new_zipfile_serialization=False)
    torch.jit.save(torch.jit.trace(torch.nn.Linear(2, 2), torch.ones(1, 2)),
                   os.path.join(out, "scripted.pt"))

    # Every safetensors dtype, including those torch 1.13 lacks.
    rng = np.random.default_rng(0)
    all_dtypes = [
        ("bool", "BOOL", "bool", [3], bytes([1, 0, 1])),
        ("u8", "U8", "uint8", [2], bytes([0, 255])),
        ("i8", "I8", "int8", [2], np.array([-5, 5], np.int8).tobytes()),
        ("i16", "I16", "int16", [2], np.array([-300, 300], np.int16).tobytes()),
        ("u16", "U16", "uint16", [2], np.array([1, 65535], np.uint16).tobytes()),
        ("f16", "F16", "float16", [2, 2], rng.standard_normal(4).astype(np.float16).tobytes()),
        ("bf16", "BF16", "bfloat16", [2], tensor_bytes(torch.tensor([1.5, -2.0]).bfloat16())),
        ("i32", "I32", "int32", [1, 2], np.array([[-7, 7]], np.int32).tobytes()),
        ("u32", "U32", "uint32", [2], np.array([1, 2**32 - 1], np.uint32).tobytes()),
        ("f32", "F32", "float32", [3], rng.standard_normal(3).astype(np.float32).tobytes()),
        ("f64", "F64", "float64", [2], rng.standard_normal(2).tobytes()),
        ("i64", "I64", "int64", [2], np.array([-(2**63), 2**63 - 1], np.int64).tobytes()),
        ("u64", "U64", "uint64", [1], np.array([2**64 - 1], np.uint64).tobytes()),
        ("f8_e4m3", "F8_E4M3", "float8_e4m3fn", [4], bytes([0x38, 0xb8, 0x7e, 0x00])),
        ("f8_e5m2", "F8_E5M2", "float8_e5m2", [4], bytes([0x3c, 0xbc, 0x7b, 0x00])),
        ("c64", "C64", "complex64", [1], np.array([1 + 2j], np.complex64).tobytes()),
        ("scalar", "F32", "float32", [], np.array(2.5, np.float32).tobytes()),
        ("empty", "F32", "float32", [0, 4], b""),
    ]
    metadata = {"format": "pt", "note": "every dtype"}
    write_safetensors(os.path.join(out, "all_dtypes.safetensors"),
                      [(name, code, shape, data) for name, code, _, shape, data in all_dtypes],
                      metadata)
    expected["all_dtypes.safetensors"] = {
        "tensors": [expected_entry(name, ir, shape, data)
                    for name, _, ir, shape, data in all_dtypes],
        "metadata": metadata}

    for protocol in (2, 3, 4, 5):
        with open(os.path.join(out, "pickle_p%d.pkl" % protocol), "wb") as f:
            pickle.dump(plain_pickle_object(), f, protocol=protocol)

    with open(os.path.join(out, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1)


if __name__ == "__main__":
    main()
