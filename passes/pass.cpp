#include "passes/pass.h"

namespace torchir::passes {

void PassContext::AddToCounter(std::string_view name, int64_t delta) {
  for (auto& [counter, value] : counters_) {
    if (counter == name) {
      value += delta;
      return;
    }
  }
  counters_.emplace_back(std::string(name), delta);
}

}  // namespace torchir::passes
