#include "compiler/backend/pooling_window.h"

namespace torchir::backend {

PoolingWindowAttrs PoolingWindowAttrsOf(const ir::Node& node) {
  PoolingWindowAttrs window;
  window.kernel = node.FindAttr("kernel_size")->as_int_list();
  window.stride = node.FindAttr("stride")->as_int_list();
  window.padding = node.FindAttr("padding")->as_int_list();
  const ir::AttrValue* dilation = node.FindAttr("dilation");
  window.dilation = dilation != nullptr ? dilation->as_int_list() : std::vector<int64_t>{1, 1};
  return window;
}

}  // namespace torchir::backend
