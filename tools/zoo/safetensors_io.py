"""A small, deterministic reader and writer for the .safetensors container.

Layout: 8-byte little-endian header length, a JSON header mapping each tensor name to
{"dtype", "shape", "data_offsets"} (offsets relative to the data section), padded with spaces
to a multiple of 8, then the raw little-endian tensor bytes in header order.
"""

import json
import os
import struct
from typing import Dict

import numpy as np
import torch

_CODES = {
    torch.float64: "F64", torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16",
    torch.int64: "I64", torch.int32: "I32", torch.int16: "I16", torch.int8: "I8",
    torch.uint8: "U8", torch.bool: "BOOL",
}
_DTYPES = {code: dtype for dtype, code in _CODES.items()}


def _tensor_bytes(tensor: torch.Tensor) -> bytes:
    tensor = tensor.detach().contiguous().cpu()
    if tensor.dtype == torch.bfloat16:
        return tensor.view(torch.int16).numpy().astype("<i2").tobytes()
    array = tensor.numpy()
    return array.astype(array.dtype.newbyteorder("<"), copy=False).tobytes()


def serialize(tensors: Dict[str, torch.Tensor]) -> bytes:
    header, chunks, offset = {}, [], 0
    for name in sorted(tensors):
        tensor = tensors[name]
        if tensor.dtype not in _CODES:
            raise ValueError(f"{name}: dtype {tensor.dtype} cannot be stored in safetensors")
        data = _tensor_bytes(tensor)
        header[name] = {"dtype": _CODES[tensor.dtype], "shape": list(tensor.shape),
                        "data_offsets": [offset, offset + len(data)]}
        chunks.append(data)
        offset += len(data)
    header_bytes = json.dumps(header, separators=(",", ":")).encode("utf-8")
    header_bytes += b" " * (-len(header_bytes) % 8)
    return struct.pack("<Q", len(header_bytes)) + header_bytes + b"".join(chunks)


def write_file(path: str, tensors: Dict[str, torch.Tensor]) -> None:
    """Writes atomically: a temporary file renamed over `path`."""
    temporary = f"{path}.tmp{os.getpid()}"
    with open(temporary, "wb") as f:
        f.write(serialize(tensors))
    os.replace(temporary, path)


def read_file(path: str) -> Dict[str, torch.Tensor]:
    with open(path, "rb") as f:
        blob = f.read()
    if len(blob) < 8:
        raise ValueError(f"{path}: too short for a safetensors file")
    (header_length,) = struct.unpack("<Q", blob[:8])
    if 8 + header_length > len(blob):
        raise ValueError(f"{path}: header length {header_length} beyond end of file")
    header = json.loads(blob[8:8 + header_length])
    data = blob[8 + header_length:]
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        dtype = _DTYPES[entry["dtype"]]
        begin, end = entry["data_offsets"]
        raw = data[begin:end]
        if dtype == torch.bfloat16:
            array = np.frombuffer(raw, dtype="<i2").copy()
            tensor = torch.from_numpy(array).view(torch.bfloat16)
        else:
            np_dtype = torch.empty(0, dtype=dtype).numpy().dtype.newbyteorder("<")
            tensor = torch.from_numpy(np.frombuffer(raw, dtype=np_dtype).copy())
        tensors[name] = tensor.reshape(entry["shape"])
    return tensors
