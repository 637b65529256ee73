#include "backends/xnnpack/partitioner/op_capability.h"

#include "absl/strings/str_cat.h"
#include "backends/xnnpack/partitioner/capability_helpers.h"

namespace torchir::xnnpack {
namespace {

// XNN_MAX_TENSOR_DIMS of the XNNPACK the runtime links.
constexpr size_t kMaxDims = 6;

// Why XNNPACK cannot hold `value` as a tensor of this delegate, or "".
std::string TensorProblem(const ir::Value* value, const char* role) {
  if (value->dtype() != ir::DType::kFloat32) {
    return absl::StrCat(role, " '", value->name(), "' is ",
                        std::string(ir::DTypeName(value->dtype())),
                        ": the XNNPACK delegate runs float32 only");
  }
  if (value->sizes().size() > kMaxDims) {
    return absl::StrCat(role, " '", value->name(), "' has rank ", value->sizes().size(),
                        ": XNNPACK tensors have at most ", kMaxDims, " dims");
  }
  for (int64_t size : value->sizes()) {
    if (size <= 0) {
      return absl::StrCat(role, " '", value->name(), "' ", ShapeText(value->sizes()),
                          " is empty: XNNPACK needs every dim >= 1");
    }
  }
  return "";
}

}  // namespace

const std::vector<OpCapability>& XnnpackCapabilities() {
  static const std::vector<OpCapability>* const table = [] {
    auto* all = new std::vector<OpCapability>();
    for (auto family : {ConvolutionCapabilities, ElementwiseCapabilities, PoolingCapabilities,
                        DataMovementCapabilities}) {
      std::vector<OpCapability> entries = family();
      all->insert(all->end(), entries.begin(), entries.end());
    }
    return all;
  }();
  return *table;
}

const OpCapability* FindXnnpackCapability(std::string_view op) {
  for (const OpCapability& capability : XnnpackCapabilities()) {
    if (capability.op == op) return &capability;
  }
  return nullptr;
}

Support CheckXnnpackSupport(const ir::Node& node) {
  const OpCapability* capability = FindXnnpackCapability(node.op());
  if (capability == nullptr) return Support::No(RefusalReason(node.op()));
  for (const ir::Value* input : node.inputs()) {
    if (std::string problem = TensorProblem(input, "input"); !problem.empty()) {
      return Support::No(problem);
    }
  }
  // Later outputs (edge.max_dim's indices) are the entry's business.
  if (node.num_outputs() > 0) {
    if (std::string problem = TensorProblem(node.output(0), "output"); !problem.empty()) {
      return Support::No(problem);
    }
  }
  return capability->check(node);
}

}  // namespace torchir::xnnpack
