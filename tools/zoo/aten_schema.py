"""ATen operator schemas as plain data, argument binding and overload resolution.

torch.export records each call as `aten.<op>.<overload>` with its arguments normalised the way
the dispatcher hands them to Python: positional arguments in schema order with trailing
defaulted ones dropped, keyword-only arguments present only when they differ from the default.
This module reproduces that normalisation so that both exporters and the checker agree on it.
"""

import re
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple

import torch

INT64_MAX = 9223372036854775807

_ALIAS_ANNOTATION = re.compile(r"\([^)]*\)")
_LIST_SUFFIX = re.compile(r"^(.*)\[(\d*)\]$")


class SchemaMismatch(Exception):
    """The given Python arguments do not fit a schema."""


@dataclass(frozen=True)
class Argument:
    name: str
    type: str  # declared type without alias annotations: "Tensor?", "int[2]", "ScalarType?"
    has_default: bool
    default: Any
    kwarg_only: bool


@dataclass(frozen=True)
class Schema:
    name: str  # "conv2d"
    overload: str  # "default", "Tensor", ...
    arguments: Tuple[Argument, ...]
    returns: Tuple[str, ...]

    @property
    def op_type(self) -> str:
        return f"aten.{self.name}.{self.overload}"

    @property
    def is_mutating(self) -> bool:
        return self.name.endswith("_") and not self.name.startswith("_")


def _split_top_level(text: str, sep: str = ",") -> List[str]:
    parts, depth, quote, start = [], 0, None, 0
    for i, ch in enumerate(text):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    tail = text[start:].strip()
    if tail:
        parts.append(tail)
    return parts


def _declared_types(schema_text: str) -> Tuple[Dict[str, Tuple[str, bool]], List[str]]:
    """Maps argument name -> (declared type, has default) parsed from `str(FunctionSchema)`."""
    open_paren = schema_text.index("(")
    depth = 0
    for close_paren in range(open_paren, len(schema_text)):
        if schema_text[close_paren] == "(":
            depth += 1
        elif schema_text[close_paren] == ")":
            depth -= 1
            if depth == 0:
                break
    result = {}
    for piece in _split_top_level(schema_text[open_paren + 1:close_paren]):
        if piece == "*":
            continue
        eq = _split_top_level(piece, "=")
        declaration = _ALIAS_ANNOTATION.sub("", eq[0]).strip()
        type_text, name = declaration.rsplit(" ", 1)
        result[name] = (type_text.replace(" ", ""), len(eq) > 1)
    returns_text = schema_text[close_paren + 1:].split("->", 1)[1].strip()
    if returns_text.startswith("("):
        returns_text = returns_text[1:-1]
    returns = []
    for piece in _split_top_level(returns_text):
        declaration = _ALIAS_ANNOTATION.sub("", piece).strip()
        if declaration:
            returns.append(declaration.split(" ")[0])
    return result, returns


_SCHEMA_CACHE: Dict[int, Schema] = {}


def schema_from_function_schema(fs) -> Schema:
    declared, returns = _declared_types(str(fs))
    arguments = []
    for a in fs.arguments:
        type_text, has_default = declared[a.name]
        arguments.append(Argument(a.name, type_text, has_default, a.default_value, a.kwarg_only))
    name = fs.name.split("::", 1)[1]
    return Schema(name, fs.overload_name or "default", tuple(arguments), tuple(returns))


def schema_of(op) -> Schema:
    key = id(op)
    if key not in _SCHEMA_CACHE:
        _SCHEMA_CACHE[key] = schema_from_function_schema(op._schema)
    return _SCHEMA_CACHE[key]


# ---- type predicates -------------------------------------------------------------------------

def strip_optional(type_text: str) -> Tuple[str, bool]:
    if type_text.endswith("?"):
        return type_text[:-1], True
    return type_text, False


def list_element(type_text: str) -> Optional[Tuple[str, Optional[int]]]:
    """For "int[2]" returns ("int", 2); for "Tensor?[]" ("Tensor?", None); else None."""
    m = _LIST_SUFFIX.match(type_text)
    if not m:
        return None
    return m.group(1), int(m.group(2)) if m.group(2) else None


def is_tensor_type(type_text: str) -> bool:
    return strip_optional(type_text)[0] == "Tensor"


def is_tensor_list_type(type_text: str) -> bool:
    base, _ = strip_optional(type_text)
    element = list_element(base)
    return element is not None and strip_optional(element[0])[0] == "Tensor"


def returns_tensors(schema: Schema) -> bool:
    return any(r.startswith("Tensor") for r in schema.returns)


def is_multi_output(schema: Schema) -> bool:
    returns = schema.returns
    return len(returns) > 1 or (len(returns) == 1 and returns[0].endswith("[]"))


_INT_TYPES = ("int", "SymInt")


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _match_scalar(value, base: str, number_for_tensor: bool):
    """Returns the normalised value or raises SchemaMismatch."""
    if base == "Tensor":
        if isinstance(value, torch.Tensor) or getattr(value, "is_ir_value", False):
            return value
        if number_for_tensor and isinstance(value, (int, float)) and not isinstance(value, bool):
            return value
        raise SchemaMismatch
    if base in _INT_TYPES:
        if _is_int(value):
            return value
        raise SchemaMismatch
    if base == "float":
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        raise SchemaMismatch
    if base == "bool":
        if isinstance(value, bool):
            return value
        raise SchemaMismatch
    if base == "Scalar":
        if isinstance(value, (int, float, bool)):
            return value
        raise SchemaMismatch
    if base == "ScalarType":
        if isinstance(value, torch.dtype):
            return value
        raise SchemaMismatch
    if base == "Layout":
        if isinstance(value, torch.layout):
            return value
        raise SchemaMismatch
    if base == "MemoryFormat":
        if isinstance(value, torch.memory_format):
            return value
        raise SchemaMismatch
    if base == "Device":
        if isinstance(value, torch.device):
            return value
        if isinstance(value, str):
            return torch.device(value)
        raise SchemaMismatch
    if base == "str":
        if isinstance(value, str):
            return value
        raise SchemaMismatch
    raise SchemaMismatch  # Dimname, Generator, Storage, ...: not used by exported models


def match_value(value, type_text: str, number_for_tensor: bool = False):
    base, optional = strip_optional(type_text)
    if value is None:
        if optional:
            return None
        raise SchemaMismatch
    element = list_element(base)
    if element is None:
        return _match_scalar(value, base, number_for_tensor)
    element_type, count = element
    if isinstance(value, (list, tuple, torch.Size)):
        return [match_value(v, element_type) for v in value]
    if strip_optional(element_type)[0] in _INT_TYPES + ("float", "bool"):
        single = _match_scalar(value, strip_optional(element_type)[0], False)
        return [single] * (count or 1)
    raise SchemaMismatch


def _is_int_list_type(type_text: str) -> bool:
    element = list_element(strip_optional(type_text)[0])
    return element is not None and element[0] in _INT_TYPES


@dataclass
class BoundArgument:
    argument: Argument
    value: Any
    given: bool  # passed by the caller (False: filled from the schema default)


def bind(schema: Schema, args, kwargs, number_for_tensor: Optional[str] = None
         ) -> List[BoundArgument]:
    """Binds Python call arguments to `schema` the way PyTorch's argument parser does.

    `number_for_tensor` names the Tensor parameter that may receive a Python number ("other"
    for wrapped binary ops, "*" for any, as in already-resolved FX graphs). Raises
    SchemaMismatch when the arguments do not fit. Integer varargs (`x.view(2, -1)`) are packed
    into the list parameter they stand for.
    """
    positional = [a for a in schema.arguments if not a.kwarg_only]
    args = list(args)
    if len(args) > len(positional) and positional and _is_int_list_type(positional[-1].type):
        k = len(positional) - 1
        if all(_is_int(v) for v in args[k:]):
            args = args[:k] + [list(args[k:])]
    if len(args) > len(positional):
        raise SchemaMismatch
    given: Dict[str, Any] = {positional[i].name: v for i, v in enumerate(args)}
    names = {a.name for a in schema.arguments}
    for key, value in kwargs.items():
        name = key
        if name not in names and name == "input" and schema.arguments[0].name == "self":
            name = "self"
        if name not in names or name in given:
            raise SchemaMismatch
        given[name] = value
    bound = []
    for a in schema.arguments:
        if a.name in given:
            tensor_slot = number_for_tensor in ("*", a.name)
            bound.append(BoundArgument(a, match_value(given[a.name], a.type, tensor_slot), True))
        elif a.has_default:
            bound.append(BoundArgument(a, a.default, False))
        else:
            raise SchemaMismatch
    return bound


# Binary ops whose Python binding wraps a Python number into a tensor, so that torch.export
# records `aten.mul.Tensor(x, 0.5)` rather than `aten.mul.Scalar`.
_NUMBER_WRAPPING_BINARY = {"add", "add_", "sub", "sub_", "mul", "mul_", "div", "div_"}


def resolve_overload(packet_name: str, args, kwargs):
    """Finds the overload of `aten.<packet_name>` torch.export would record for this call.

    Returns (OpOverload, Schema, [BoundArgument]); raises LookupError when none fits.
    """
    packet = getattr(torch.ops.aten, packet_name, None)
    if packet is None:
        raise LookupError(f"no ATen operator named aten.{packet_name}")
    overloads = list(packet.overloads())
    attempts = []
    if packet_name in _NUMBER_WRAPPING_BINARY:
        attempts += [(o, "other") for o in ("Tensor", "Tensor_mode") if o in overloads]
    attempts += [(o, None) for o in overloads]
    for overload, number_for_tensor in attempts:
        op = getattr(packet, overload)
        schema = schema_of(op)
        try:
            return op, schema, bind(schema, args, kwargs, number_for_tensor)
        except SchemaMismatch:
            continue
    shown = ", ".join(_describe(a) for a in args)
    raise LookupError(f"no overload of aten.{packet_name} accepts ({shown}) {sorted(kwargs)}")


def _describe(value) -> str:
    if isinstance(value, torch.Tensor):
        return f"Tensor{list(value.shape)}"
    return type(value).__name__


def _same_value(a, b) -> bool:
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same_value(x, y) for x, y in zip(a, b))
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        return False
    if type(a) is bool or type(b) is bool:
        return type(a) is type(b) and a == b
    try:
        return a == b
    except Exception:  # noqa: BLE001 - incomparable values are simply different
        return False


def is_at_default(bound: BoundArgument) -> bool:
    a = bound.argument
    return a.has_default and _same_value(bound.value, a.default)


def recorded_arguments(bound: List[BoundArgument]) -> List[BoundArgument]:
    """The arguments torch.export keeps: trailing defaulted positionals and defaulted
    keyword-only arguments are dropped."""
    positional = [b for b in bound if not b.argument.kwarg_only]
    end = len(positional)
    while end > 0 and is_at_default(positional[end - 1]):
        end -= 1
    keyword = [b for b in bound if b.argument.kwarg_only and not is_at_default(b)]
    return positional[:end] + keyword


def call_op(op, bound: List[BoundArgument], convert=lambda v: v):
    args = [convert(b.value) for b in bound if not b.argument.kwarg_only]
    kwargs = {b.argument.name: convert(b.value) for b in bound if b.argument.kwarg_only}
    return op(*args, **kwargs)
