// Small helpers the capability families share: attribute access, value names in
// reasons, and constant checks. Internal to the partitioner.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "compiler/backend/scalar_constant.h"
#include "compiler/ir/graph.h"

namespace torchir::xnnpack {

// Attribute values of a verified Edge node (the verifier checked presence and kind).
int64_t IntAttr(const ir::Node& node, const char* name);
double DoubleAttr(const ir::Node& node, const char* name);
bool BoolAttr(const ir::Node& node, const char* name);
const std::vector<int64_t>& IntsAttr(const ir::Node& node, const char* name);

// "[1, 3, 224, 224]"
std::string ShapeText(const std::vector<int64_t>& sizes);

// Why `value` cannot be a weight XNNPACK packs at load time, or "" when it can (a weight or
// constant; its bytes may still be unbound). `role` names it: "weight", "bias".
std::string NotAConstantReason(const ir::Value* value, const char* role);

// The single float32 element of a constant with bound data; nullopt otherwise.
using backend::ScalarConstant;

// `dims` sorted and made non-negative against `rank`; nullopt when one is out of range.
std::optional<std::vector<int64_t>> NormalizedDims(const std::vector<int64_t>& dims, int64_t rank);

// Why XNNPACK cannot take this 2-d window ([h, w] each), or "" when it can: it computes window
// sizes, kernel areas and paddings in 32 bits, so each parameter, the kernel area and the
// dilated extent must stay within node_params::kMaxWindowParam (2^24 - 1).
std::string WindowRangeProblem(const std::vector<int64_t>& kernel,
                               const std::vector<int64_t>& stride,
                               const std::vector<int64_t>& padding,
                               const std::vector<int64_t>& dilation);

constexpr double kInfinity = std::numeric_limits<double>::infinity();

}  // namespace torchir::xnnpack
