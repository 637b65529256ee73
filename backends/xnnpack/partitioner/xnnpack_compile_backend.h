// The XNNPACK partitioner behind the compile-side backend interface
// (compiler/backend/backend.h), registered as "xnnpack" by the pipeline.
#pragma once

#include <memory>

#include "compiler/backend/backend.h"

namespace torchir::xnnpack {

// The name users give in --backend lists.
inline constexpr char kXnnpackBackendName[] = "xnnpack";

// A backend whose CheckNode is the capability table (op_capability.h) and whose
// Partition is PartitionForXnnpack, with its result restated as the interface's:
// the region layout is each delegate's detail, the layout conversions and repacked
// constants a note.
std::unique_ptr<backend::Backend> MakeXnnpackCompileBackend();

}  // namespace torchir::xnnpack
