// The window of an Edge pooling node (edge.max_pool2d, edge.avg_pool2d) as the backends read it
// from its attributes: kernel_size, stride, padding, and dilation (1 along both dims when the op
// has none: avg_pool2d). Each backend checks the sizes against what its kernels take.
#pragma once

#include <cstdint>
#include <vector>

#include "compiler/ir/graph.h"

namespace torchir::backend {

struct PoolingWindowAttrs {
  std::vector<int64_t> kernel, stride, padding, dilation;
};

// The node's window attributes, as the Edge op records them (not validated).
PoolingWindowAttrs PoolingWindowAttrsOf(const ir::Node& node);

}  // namespace torchir::backend
