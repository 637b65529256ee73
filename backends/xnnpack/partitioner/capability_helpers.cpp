#include "backends/xnnpack/partitioner/capability_helpers.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backends/xnnpack/serialization/node_params.h"

namespace torchir::xnnpack {

int64_t IntAttr(const ir::Node& node, const char* name) { return node.FindAttr(name)->as_int(); }

double DoubleAttr(const ir::Node& node, const char* name) {
  return node.FindAttr(name)->as_double();
}

bool BoolAttr(const ir::Node& node, const char* name) { return node.FindAttr(name)->as_bool(); }

const std::vector<int64_t>& IntsAttr(const ir::Node& node, const char* name) {
  return node.FindAttr(name)->as_int_list();
}

std::string ShapeText(const std::vector<int64_t>& sizes) {
  return absl::StrCat("[", absl::StrJoin(sizes, ", "), "]");
}

std::string NotAConstantReason(const ir::Value* value, const char* role) {
  if (value->is_constant_like()) return "";
  return absl::StrCat(role, " '", value->name(), "' is computed at run time: XNNPACK packs ", role,
                      "s once, when the program loads");
}

std::optional<std::vector<int64_t>> NormalizedDims(const std::vector<int64_t>& dims, int64_t rank) {
  std::vector<int64_t> normalized;
  for (int64_t dim : dims) {
    const int64_t d = dim < 0 ? dim + rank : dim;
    if (d < 0 || d >= rank) return std::nullopt;
    normalized.push_back(d);
  }
  std::sort(normalized.begin(), normalized.end());
  normalized.erase(std::unique(normalized.begin(), normalized.end()), normalized.end());
  return normalized;
}

std::string WindowRangeProblem(const std::vector<int64_t>& kernel,
                               const std::vector<int64_t>& stride,
                               const std::vector<int64_t>& padding,
                               const std::vector<int64_t>& dilation) {
  constexpr int64_t kLimit = node_params::kMaxWindowParam;
  const std::pair<const char*, const std::vector<int64_t>*> params[] = {
      {"kernel", &kernel}, {"stride", &stride}, {"padding", &padding}, {"dilation", &dilation}};
  for (const auto& [name, values] : params) {
    for (int64_t v : *values) {
      if (v < 0 || v > kLimit) {
        return absl::StrCat(name, " ", ShapeText(*values), " is beyond ", kLimit,
                            ": XNNPACK computes windows in 32 bits");
      }
    }
  }
  // Every factor is at most 2^24 now, so these products fit int64.
  if (kernel[0] * kernel[1] > kLimit) {
    return absl::StrCat("kernel area ", kernel[0], "x", kernel[1], " is beyond ", kLimit,
                        ": XNNPACK computes windows in 32 bits");
  }
  for (size_t i = 0; i < 2; ++i) {
    if ((kernel[i] - 1) * dilation[i] + 1 > kLimit) {
      return absl::StrCat("dilated window ", ShapeText(kernel), " x dilation ", ShapeText(dilation),
                          " is beyond ", kLimit, ": XNNPACK computes windows in 32 bits");
    }
  }
  return "";
}

}  // namespace torchir::xnnpack
