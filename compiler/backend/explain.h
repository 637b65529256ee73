// The text of torchir-compile --explain: what an ordered list of backends did to a
// graph, for someone deciding which backends to list or which op to support next.
#pragma once

#include <string>

#include "compiler/backend/partition_result.h"

namespace torchir::backend {

// Renders `partitioning`:
//   1. per backend, in list order: the Edge nodes it took of those it saw, its delegates
//      (index, call node, the backend's detail, nodes, MACs, blob size) and its notes;
//   2. "delegated (n):" every node taken, with the backend and delegate that took it and,
//      with several backends, why each backend before it did not;
//   3. "not delegated (n):" every node left on the portable kernels with the reason (with
//      several backends, each backend's reason, prefixed by its name);
//   4. an op histogram, delegated against not delegated.
// With no backend: one line saying that every node runs on the portable kernels.
std::string RenderExplanation(const Partitioning& partitioning);

}  // namespace torchir::backend
