// Shared by the compute kernel tests: a one-node graph is first checked to be
// a valid Edge graph (so each test states a call the compiler could emit),
// then its kernel is compared with the LibTorch reference.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "compiler/dialect/edge_ops.h"
#include "gtest/gtest.h"
#include "tests/runtime/kernels/kernel_harness.h"
#include "tests/support/graph_builder.h"

namespace torchir::testing {

inline constexpr double kInf = std::numeric_limits<double>::infinity();

inline ir::TensorType I32(std::vector<int64_t> sizes) {
  return ir::TensorType{ir::DType::kInt32, std::move(sizes)};
}

inline ir::TensorType OfType(ir::DType dtype, std::vector<int64_t> sizes) {
  return ir::TensorType{dtype, std::move(sizes)};
}

// The graph passes the Edge verifier and its kernel matches the reference on
// random inputs (floats in [low, high), integers in [int_low, int_high)).
inline void ExpectMatchesReference(const ir::Graph& graph, uint32_t seed,
                                   verify::Tolerance tolerance = {1e-5, 1e-4}, double low = -2.0,
                                   double high = 2.0, int64_t int_low = 0, int64_t int_high = 10) {
  absl::Status verified = dialect::VerifyEdgeGraph(graph);
  ASSERT_TRUE(verified.ok()) << verified.message();
  absl::Status compared = CompareKernelWithReference(
      graph, RandomInputs(graph, seed, low, high, int_low, int_high), tolerance);
  EXPECT_TRUE(compared.ok()) << compared.message();
}

// The kernel's init-time check refuses the node with `expected`.
inline void ExpectKernelRefuses(const ir::Graph& graph, runtime::Error expected) {
  EXPECT_STREQ(runtime::ErrorName(CheckKernel(graph)), runtime::ErrorName(expected));
}

// As above, and the compiler's Edge verifier refuses the node too: the two
// agree on what a valid call is.
inline void ExpectRefused(const ir::Graph& graph, runtime::Error expected) {
  EXPECT_FALSE(dialect::VerifyEdgeGraph(graph).ok()) << "the Edge verifier accepts the node";
  ExpectKernelRefuses(graph, expected);
}

}  // namespace torchir::testing
