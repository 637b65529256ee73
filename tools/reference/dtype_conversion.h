// Internal to torchir_reference: ir::DType <-> c10::ScalarType.
#pragma once

#include <c10/core/ScalarType.h>

#include "absl/status/statusor.h"
#include "compiler/ir/dtype.h"

namespace torchir::reference {

// Fails for dtypes LibTorch 1.13 lacks (uint16/32/64, float8).
absl::StatusOr<c10::ScalarType> ToScalarType(ir::DType dtype);
// Fails for scalar types torchir does not model (quantized types, ...).
absl::StatusOr<ir::DType> FromScalarType(c10::ScalarType scalar_type);

}  // namespace torchir::reference
