#!/usr/bin/env python3
"""Generates compiler/dialect/aten_schemas.inc, the ATen schema table of torchir.

The table holds the schema string of every `aten::` op overload that the installed PyTorch (1.13)
knows and that takes or returns a Tensor, except
  - out-style overloads (a keyword-only argument the op writes to, `*, Tensor(a!) out`),
  - backward ops (`*_backward*`: exports are made for inference),
  - TorchScript-only builtins whose types the compiler cannot represent (Dict, tuples, Storage,
    Stream, QScheme, script classes, ...),
then replaces and extends it with SUPPLEMENT: schemas of current PyTorch (2.5+, the version
pytorch-ir exports with) that 1.13 lacks or spells differently in a way exports show.

Run with the interpreter that has torch:
    /usr/bin/python3 tools/gen_aten_schemas.py            # rewrites the .inc in the source tree
    /usr/bin/python3 tools/gen_aten_schemas.py --output F  # writes F instead
The output is deterministic (sorted by name and overload; float defaults printed by Python's
repr). tests/compiler/dialect/test_gen_aten_schemas.py checks that the committed file is current.
"""

import argparse
import os
import re
import sys

# Current PyTorch's schemas (aten/src/ATen/native/native_functions.yaml) for ops 1.13 lacks, or
# where 1.13's schema differs from today's in a way an export shows. Each replaces the 1.13
# overload of the same name, if any. The comment says why it is here.
SUPPLEMENT = [
    # Added in PyTorch 2.0 / 2.1 / 2.5 (keyword-only scale in 2.1, enable_gqa in 2.5).
    "aten::scaled_dot_product_attention(Tensor query, Tensor key, Tensor value, "
    "Tensor? attn_mask=None, float dropout_p=0.0, bool is_causal=False, *, float? scale=None, "
    "bool enable_gqa=False) -> Tensor",
    # What torch.export decomposes sdpa into on CPU (2.2+).
    "aten::_scaled_dot_product_flash_attention_for_cpu(Tensor query, Tensor key, Tensor value, "
    "float dropout_p=0.0, bool is_causal=False, *, Tensor? attn_mask=None, float? scale=None) "
    "-> (Tensor output, Tensor logsumexp)",
    # 2.5: softmax that gives 0, not NaN, for fully masked rows (sdpa's decomposition).
    "aten::_safe_softmax(Tensor self, int dim, ScalarType? dtype=None) -> Tensor",
    # The batch-norm family core ATen uses since 2.0 (eval batch norm exports as ..._no_training).
    "aten::_native_batch_norm_legit_no_training(Tensor input, Tensor? weight, Tensor? bias, "
    "Tensor running_mean, Tensor running_var, float momentum, float eps) "
    "-> (Tensor, Tensor, Tensor)",
    "aten::_native_batch_norm_legit(Tensor input, Tensor? weight, Tensor? bias, "
    "Tensor(a!) running_mean, Tensor(b!) running_var, bool training, float momentum, float eps) "
    "-> (Tensor, Tensor, Tensor)",
    "aten::_native_batch_norm_legit.no_stats(Tensor input, Tensor? weight, Tensor? bias, "
    "bool training, float momentum, float eps) -> (Tensor, Tensor, Tensor)",
    "aten::_native_batch_norm_legit_functional(Tensor input, Tensor? weight, Tensor? bias, "
    "Tensor running_mean, Tensor running_var, bool training, float momentum, float eps) "
    "-> (Tensor, Tensor, Tensor, Tensor running_mean_out, Tensor running_var_out)",
    # 2.4: nn.RMSNorm.
    "aten::rms_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, "
    "float? eps=None) -> Tensor",
    # 2.0: squeeze over several dims.
    "aten::squeeze.dims(Tensor(a) self, int[] dim) -> Tensor(a)",
    "aten::squeeze_.dims(Tensor(a!) self, int[] dim) -> Tensor(a!)",
    "aten::squeeze_copy.dims(Tensor self, int[] dim) -> Tensor",
    # 2.1: indexing without bounds checks, from decompositions (upsampling, gathers).
    "aten::_unsafe_index.Tensor(Tensor self, Tensor?[] indices) -> Tensor",
    "aten::_unsafe_index_put(Tensor self, Tensor?[] indices, Tensor values, "
    "bool accumulate=False) -> Tensor",
    "aten::_unsafe_masked_index(Tensor self, Tensor mask, Tensor?[] indices, Scalar fill) "
    "-> Tensor",
    "aten::_unsafe_masked_index_put_accumulate(Tensor self, Tensor mask, Tensor?[] indices, "
    "Tensor values) -> Tensor",
    # 2.1+: runtime assertions torch.export inserts.
    "aten::_assert_tensor_metadata(Tensor a, SymInt[]? size=None, SymInt[]? stride=None, "
    "ScalarType? dtype=None, *, Device? device=None, Layout? layout=None) -> ()",
    "aten::_assert_async.msg(Tensor self, str assert_msg) -> ()",
    "aten::_assert_scalar(Scalar self, str assert_msg) -> ()",
    "aten::sym_constrain_range_for_size(Scalar size, *, int? min=None, int? max=None) -> ()",
    # 2.1: empty tensors with a given dim order.
    "aten::empty_permuted(SymInt[] size, int[] physical_layout, *, ScalarType? dtype=None, "
    "Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
    # 2.1: what nn.PReLU exports as.
    "aten::_prelu_kernel(Tensor self, Tensor weight) -> Tensor",
    # 2.2: any/all over several dims.
    "aten::any.dims(Tensor self, int[]? dim=None, bool keepdim=False) -> Tensor",
    "aten::all.dims(Tensor self, int[]? dim=None, bool keepdim=False) -> Tensor",
    # 2.3: nonzero with a static result size.
    "aten::nonzero_static(Tensor self, *, SymInt size, int fill_value=-1) -> Tensor",
    # 2.3: the inverse of slice, from functionalisation.
    "aten::slice_inverse(Tensor(a) self, Tensor src, int dim=0, SymInt? start=None, "
    "SymInt? end=None, SymInt step=1) -> Tensor(a)",
    # 1.13 has no defaults for dim and correction, and correction is an int; today both default
    # to None and correction is a Scalar (torch.var(x, correction=0.5) is legal).
    "aten::var.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, "
    "bool keepdim=False) -> Tensor",
    "aten::std.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, "
    "bool keepdim=False) -> Tensor",
    "aten::var_mean.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, "
    "bool keepdim=False) -> (Tensor, Tensor)",
    "aten::std_mean.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, "
    "bool keepdim=False) -> (Tensor, Tensor)",
]

# Types of arguments and results (as torch prints them in Python) the compiler represents.
SUPPORTED_TYPES = {
    "Tensor", "int", "SymInt", "float", "bool", "number", "str", "Device", "Generator",
    "complex", "t", "Any", "ScalarType", "Layout", "MemoryFormat",
}

HEADER = """\
// GENERATED FILE, DO NOT EDIT. Regenerate with
//     /usr/bin/python3 tools/gen_aten_schemas.py
// The schemas of the aten:: op overloads PyTorch {version} knows that take or return a Tensor
// (out-style overloads, *_backward ops and TorchScript-only builtins excluded), with the
// supplement of current PyTorch's schemas the script holds ({supplement} entries; they replace
// 1.13's overload of the same name). One C string literal per schema, sorted by name and overload.
"""


def is_supported(type_):
    """True when every type inside `type_` (a torch._C type) is one the compiler models."""
    text = str(type_)
    for token in re.findall(r"[A-Za-z_][A-Za-z_0-9.]*", text):
        if token in ("List", "Optional"):
            continue
        if token not in SUPPORTED_TYPES:
            return False
    return True


def mentions_tensor(schema):
    return any("Tensor" in str(item.type) for item in list(schema.arguments) + list(schema.returns))


def is_out_style(schema):
    return any(
        argument.kwarg_only and argument.alias_info is not None and argument.alias_info.is_write
        for argument in schema.arguments)


def wanted(schema):
    if not schema.name.startswith("aten::"):
        return False
    if "_backward" in schema.name or is_out_style(schema) or not mentions_tensor(schema):
        return False
    return all(is_supported(item.type) for item in list(schema.arguments) + list(schema.returns))


_FLOAT_DEFAULT = re.compile(r"=(-?(?:\d+\.\d*(?:e[-+]?\d+)?|\d+e[-+]?\d+))(?=[,)])")


# torch prints enum defaults as numbers; native_functions.yaml (and this table) uses names.
_ENUM_NAMES = {
    "ScalarType": {3: "int", 4: "long", 6: "float", 7: "double", 11: "bool"},
    "MemoryFormat": {0: "contiguous_format", 1: "preserve_format", 2: "channels_last",
                     3: "channels_last_3d"},
    "Layout": {0: "strided"},
}
_ENUM_DEFAULT = re.compile(r"\b(ScalarType|MemoryFormat|Layout)(\??) (\w+)=(-?\d+)(?=[,)])")


def _enum_name(match):
    names = _ENUM_NAMES[match.group(1)]
    value = int(match.group(4))
    if value not in names:
        raise ValueError("no name for %s default %d" % (match.group(1), value))
    return "%s%s %s=%s" % (match.group(1), match.group(2), match.group(3), names[value])


def normalise(text):
    """Spells defaults as native_functions.yaml does: floats by repr (torch prints 17 digits,
    `1.0000000000000001e-05`, `0.`), enums by name (`memory_format=contiguous_format`)."""
    text = _ENUM_DEFAULT.sub(_enum_name, text)
    return _FLOAT_DEFAULT.sub(lambda m: "=" + repr(float(m.group(1))), text)


def key_of(text):
    """(name, overload) of a schema string."""
    head = text[:text.index("(")]
    name, _, overload = head.partition(".")
    return name, overload


def c_literal(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '",'


def generate():
    import torch  # imported here so that --help works without torch

    table = {}
    for schema in torch._C._jit_get_all_schemas():
        if wanted(schema):
            text = normalise(str(schema))
            table[key_of(text)] = text
    for text in SUPPLEMENT:
        table[key_of(text)] = text
    lines = [HEADER.format(version=torch.__version__.split("+")[0], supplement=len(SUPPLEMENT))]
    lines.extend(c_literal(table[key]) + "\n" for key in sorted(table))
    return "".join(lines)


def main():
    default_output = os.path.join(
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "compiler", "dialect",
        "aten_schemas.inc")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", default=default_output, help="where to write the table")
    args = parser.parse_args()
    text = generate()
    with open(args.output, "w", encoding="utf-8") as out:
        out.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
