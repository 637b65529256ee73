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
