// Why the Edge ops without a capability entry stay on the portable kernels. The
// XNNPACK the runtime links is Debian's 2022-02-16 snapshot (/usr/include/xnnpack.h).
#include <string>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"
#include "backends/xnnpack/partitioner/op_capability.h"

namespace torchir::xnnpack {
namespace {

constexpr char kSnapshot[] = "this XNNPACK (2022-02-16)";

}  // namespace

std::string RefusalReason(std::string_view op) {
  static const std::pair<std::string_view, std::string_view> kReasons[] = {
      {"edge.matmul", "has no batch matrix multiply of two activations"},
      {"edge.permute", "has no transpose"},
      {"edge.concatenate", "has no concatenate"},
      {"edge.slice", "has no slice"},
      {"edge.expand", "has no broadcast-to (only binary ops broadcast)"},
      {"edge.layer_norm", "has no layer normalisation"},
      {"edge.batch_norm",
       "has no batch normalisation (only batch norms folded into a "
       "convolution or linear are delegated)"},
      {"edge.tanh", "has no tanh"},
      {"edge.gelu", "has no GELU (nor the erf or tanh it is built from)"},
      {"edge.exp", "has no exp"},
      {"edge.log", "has no log"},
      {"edge.erf", "has no erf"},
      {"edge.exp2", "has no exp"},
      {"edge.expm1", "has no exp"},
      {"edge.log2", "has no log"},
      {"edge.log10", "has no log"},
      {"edge.log1p", "has no log"},
      {"edge.softplus", "has no exp or log"},
      {"edge.mish", "has no tanh, exp or log"},
      {"edge.sin", "has no trigonometric functions"},
      {"edge.cos", "has no trigonometric functions"},
      {"edge.tan", "has no trigonometric functions"},
      {"edge.asin", "has no trigonometric functions"},
      {"edge.acos", "has no trigonometric functions"},
      {"edge.atan", "has no trigonometric functions"},
      {"edge.atan2", "has no trigonometric functions"},
      {"edge.sinh", "has no hyperbolic functions"},
      {"edge.cosh", "has no hyperbolic functions"},
      {"edge.asinh", "has no hyperbolic functions"},
      {"edge.acosh", "has no hyperbolic functions"},
      {"edge.atanh", "has no hyperbolic functions"},
      {"edge.trunc", "has no truncation (floor, ceiling and bankers rounding only)"},
      {"edge.frac", "has no truncation (floor, ceiling and bankers rounding only)"},
      {"edge.remainder", "has no remainder"},
      {"edge.fmod", "has no remainder"},
      {"edge.floor_divide", "has no remainder (to round a quotient down exactly)"},
      {"edge.log_softmax", "has no log-softmax (nor a log to build it from)"},
      {"edge.sum", "has no sum reduction"},
      {"edge.adaptive_avg_pool2d",
       "has no adaptive pooling (1x1 outputs lower to edge.mean, "
       "which is delegated)"},
      {"edge.index_select", "has no gather"},
      {"edge.where", "has no select"},
      {"edge.cast",
       "converts only between float32, float16 and quantized types, and the "
       "delegate runs float32 only"},
      {"edge.eq", "has no comparisons"},
      {"edge.ne", "has no comparisons"},
      {"edge.lt", "has no comparisons"},
      {"edge.le", "has no comparisons"},
      {"edge.gt", "has no comparisons"},
      {"edge.ge", "has no comparisons"},
  };
  for (const auto& [name, reason] : kReasons) {
    if (name == op) return absl::StrCat(kSnapshot, " ", std::string(reason));
  }
  return absl::StrCat("the XNNPACK delegate has no mapping for ", std::string(op));
}

}  // namespace torchir::xnnpack
