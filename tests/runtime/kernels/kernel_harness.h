// Runs one Edge node through its portable kernel and through the LibTorch Edge
// reference (tools/reference/edge_reference.h), and compares the outputs. The
// kernel tests build one-node graphs with tests/support/graph_builder.h:
//
//   GraphBuilder b;
//   ir::Value* x = b.Input("x", F32({2, 3}));
//   b.Output(b.Op("edge.exp", {x}).Out(F32({2, 3})));
//   auto graph = b.Build();
//   EXPECT_OK(CompareKernelWithReference(*graph, RandomInputs(*graph, /*seed=*/1)));
#pragma once

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "compiler/ir/graph.h"
#include "runtime/core/error.h"
#include "tools/reference/host_tensor.h"
#include "tools/verify/compare.h"

namespace torchir::testing {

// Inputs for the graph's inputs: floats uniform in [low, high), integers in
// [int_low, int_high), bools fair coin flips.
std::vector<reference::HostTensor> RandomInputs(const ir::Graph& graph, uint32_t seed,
                                                double low = -2.0, double high = 2.0,
                                                int64_t int_low = 0, int64_t int_high = 10);

// Registers the portable kernels (once), runs the graph's single node through
// its kernel (check, then run) and through RunEdgeReference, and compares every
// output. Error when the kernel is missing, its check or run fails, or an
// output differs beyond `tolerance`; the message names the op and the output.
absl::Status CompareKernelWithReference(const ir::Graph& graph,
                                        const std::vector<reference::HostTensor>& inputs,
                                        const verify::Tolerance& tolerance = {1e-5, 1e-4});

// Only the kernel's init-time check on the graph's single node (inputs get
// zero-filled buffers): for tests that a malformed call is refused.
runtime::Error CheckKernel(const ir::Graph& graph);

}  // namespace torchir::testing
