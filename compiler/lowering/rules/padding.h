// Padding from the input itself (edge.pad), shared by the padding rules and aten.pad.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/lowering/edge_builder.h"

namespace torchir::lowering {

// `x` padded by `pad` (pairs, innermost dim first) in `mode`: "reflect", "replicate" or
// "circular" (the shape rule refuses pads the mode cannot fill); `x` itself when every pad is 0.
absl::StatusOr<ir::Value*> ModePad(EdgeBuilder& builder, ir::Value* x,
                                   const std::vector<int64_t>& pad, const std::string& mode);

}  // namespace torchir::lowering
