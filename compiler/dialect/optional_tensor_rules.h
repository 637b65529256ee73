// Which optional tensor arguments a call passed, when the pytorch-ir file records only how many.
//
// An optional tensor passed as None leaves no input in the file, so "2 of weight, bias,
// running_mean, running_var were given" does not say which two. A small table keyed by op name
// narrows the choices:
//  - groups: arguments passed whole or not at all (a norm's weight and bias; its running
//    mean and variance);
//  - needs: {a, b} means `a` only comes together with `b` (a bias never without its weight);
//  - a batch-statistics flag: in eval-mode exports it is false exactly when the running
//    statistics are passed (`training` for the batch-norm family, `use_input_stats` for
//    instance_norm).
// The choice must then be unique.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/dialect/aten_schema.h"

namespace torchir::dialect {

// Decides which of the optional tensor arguments `candidates` (indices into
// schema.arguments, in order) were passed, given that `count` of them were. `bool_argument`
// returns the value of a bool argument of the call (nullopt when unknown). Returns one flag per
// candidate, or an error explaining why no unique choice exists (the message names the
// candidates but not the node; the caller adds it).
absl::StatusOr<std::vector<bool>> ChoosePresentOptionalTensors(
    const AtenSchema& schema, const std::vector<size_t>& candidates, size_t count,
    const std::function<std::optional<bool>(std::string_view)>& bool_argument);

}  // namespace torchir::dialect
