// The mapping from the compiler's element types to the .pte format's own enum.
#pragma once

#include <optional>

#include "compiler/ir/dtype.h"
#include "schema/program_generated.h"

namespace torchir::emit {

// The .pte ScalarType of `dtype`. Spelled out case by case rather than cast:
// the two enums are numbered independently, and the file format's numbering
// is fixed forever while the compiler's may change. nullopt only for a value
// outside ir::DType (a corrupted enum), so callers report it instead of crashing.
std::optional<pte::ScalarType> ToPteScalarType(ir::DType dtype);

}  // namespace torchir::emit
