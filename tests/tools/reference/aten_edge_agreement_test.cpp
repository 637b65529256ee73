// Lowerings checked against LibTorch itself: a hand-built ATen graph runs once through the
// ATen reference executor (LibTorch's own kernels) and once lowered to Edge through the Edge
// reference, for argument forms the zoo cannot export (torch 1.13's CPU kernel corrupts its
// heap on some of them; torch 2's meta kernels declare other shapes).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "compiler/lowering/lowering.h"
#include "tests/support/graph_builder.h"
#include "tools/reference/edge_reference.h"
#include "tools/reference/reference_executor.h"

namespace torchir::reference {
namespace {

using testing::F32;
using ::testing::FloatNear;
using testing::GraphBuilder;
using testing::I64;
using ::testing::Pointwise;

template <typename T>
HostTensor Host(ir::TensorType type, const std::vector<T>& values) {
  return {std::move(type), testing::DataOf(values)};
}

std::vector<float> AsFloats(const HostTensor& tensor) {
  EXPECT_EQ(tensor.type.dtype, ir::DType::kFloat32);
  std::vector<float> values(tensor.data.size() / sizeof(float));
  if (!values.empty()) std::memcpy(values.data(), tensor.data.data(), tensor.data.size());
  return values;
}

// Output 0 of the ATen graph built by `b` (every output read) through LibTorch and through
// lowering + the Edge reference: equal within float32 rounding.
void ExpectLoweringMatchesLibTorch(GraphBuilder& b, const std::vector<HostTensor>& inputs) {
  std::unique_ptr<ir::Graph> aten = b.Build();
  absl::StatusOr<std::vector<HostTensor>> expected = RunReference(*aten, inputs);
  ASSERT_TRUE(expected.ok()) << expected.status();
  absl::StatusOr<std::unique_ptr<ir::Graph>> edge = lowering::LowerToEdge(*aten);
  ASSERT_TRUE(edge.ok()) << edge.status();
  absl::StatusOr<std::vector<HostTensor>> actual = RunEdgeReference(**edge, inputs);
  ASSERT_TRUE(actual.ok()) << actual.status();
  ASSERT_EQ(actual->size(), expected->size());
  for (size_t i = 0; i < actual->size(); ++i) {
    EXPECT_THAT(AsFloats((*actual)[i]), Pointwise(FloatNear(1e-6), AsFloats((*expected)[i])))
        << "output " << i;
  }
}

// include_last_offset with a last offset short of the indices' end (offsets [0, 2, 5] over 9
// indices: bags [0, 2) and [2, 5)): LibTorch's sum and mean numerator stop at 5, its max and
// its mean's count run to 9. Padding index 3 is excluded either way.
TEST(AtenEdgeAgreement, EmbeddingBagWithAShortLastOffset) {
  for (int64_t mode : {0, 1, 2}) {
    for (int64_t padding_idx : {-1, 3}) {
      GraphBuilder b;
      ir::Value* weight = b.Input("weight", F32({6, 2}));
      ir::Value* ids = b.Input("ids", I64({9}));
      ir::Value* offsets = b.Input("offsets", I64({3}));
      std::vector<ir::Value*> outs =
          b.Op("aten._embedding_bag.default", {weight, ids, offsets})
              .Attr("mode", mode)
              .Attr("include_last_offset", true)
              .Attr("padding_idx", padding_idx)
              // The auxiliary outputs' shapes as LibTorch's CPU kernel makes them.
              .Outs({F32({2, 2}), I64({mode == 0 && padding_idx < 0 ? 0 : 9}), I64({2}),
                     mode == 2 ? I64({2, 2}) : I64({2})});
      b.Output(b.Op("getitem", outs).Attr("index", 0).Out(F32({2, 2})));
      std::vector<float> table(12);
      for (size_t i = 0; i < table.size(); ++i) table[i] = 0.25f * static_cast<float>(i) - 1.0f;
      ExpectLoweringMatchesLibTorch(
          b, {Host(F32({6, 2}), table),
              Host(I64({9}), std::vector<int64_t>{1, 3, 0, 5, 3, 2, 4, 4, 1}),
              Host(I64({3}), std::vector<int64_t>{0, 2, 5})});
    }
  }
}

// per_sample_weights (mode sum): each row scaled before the sum, which the fast path also stops
// at a short last offset.
TEST(AtenEdgeAgreement, EmbeddingBagWithPerSampleWeights) {
  for (bool include_last_offset : {false, true}) {
    GraphBuilder b;
    ir::Value* weight = b.Input("weight", F32({6, 2}));
    ir::Value* ids = b.Input("ids", I64({9}));
    ir::Value* offsets = b.Input("offsets", I64({3}));
    ir::Value* scale = b.Input("scale", F32({9}));
    const int64_t bags = include_last_offset ? 2 : 3;
    std::vector<ir::Value*> outs =
        b.Op("aten._embedding_bag.default", {weight, ids, offsets, scale})
            .Attr("mode", 0)
            .Attr("include_last_offset", include_last_offset)
            .Outs({F32({bags, 2}), I64({0}), I64({bags}), I64({bags})});
    b.Output(b.Op("getitem", outs).Attr("index", 0).Out(F32({bags, 2})));
    std::vector<float> table(12);
    for (size_t i = 0; i < table.size(); ++i) table[i] = 0.25f * static_cast<float>(i) - 1.0f;
    ExpectLoweringMatchesLibTorch(
        b,
        {Host(F32({6, 2}), table), Host(I64({9}), std::vector<int64_t>{1, 3, 0, 5, 3, 2, 4, 4, 1}),
         Host(I64({3}), std::vector<int64_t>{0, 2, 5}),
         Host(F32({9}),
              std::vector<float>{0.5f, -1.0f, 2.0f, 0.25f, 1.5f, -0.75f, 1.0f, 3.0f, -2.0f})});
  }
}

// _cdist_forward with the default compute_mode: p = 2 takes _euclidean_dist's matrix product
// once a side has more than 25 rows (its rounding differs from the direct form); batch dims
// broadcast.
TEST(AtenEdgeAgreement, CdistSwitchesToTheMatrixProductPastTwentyFiveRows) {
  for (double p : {2.0, 1.0}) {
    for (int64_t rows : {25, 30}) {
      GraphBuilder b;
      ir::Value* x1 = b.Input("x1", F32({1, rows, 3}));
      ir::Value* x2 = b.Input("x2", F32({2, 4, 3}));
      b.Output(b.Op("aten._cdist_forward.default", {x1, x2})
                   .Attr("p", p)
                   .Attr("compute_mode", ir::AttrValue::None())
                   .Out(F32({2, rows, 4})));
      std::vector<float> a(static_cast<size_t>(rows * 3)), c(24);
      for (size_t i = 0; i < a.size(); ++i) a[i] = 0.37f * static_cast<float>(i % 11) - 1.5f;
      for (size_t i = 0; i < c.size(); ++i) c[i] = 0.29f * static_cast<float>(i % 7) - 0.8f;
      ExpectLoweringMatchesLibTorch(b, {Host(F32({1, rows, 3}), a), Host(F32({2, 4, 3}), c)});
    }
  }
}

}  // namespace
}  // namespace torchir::reference
