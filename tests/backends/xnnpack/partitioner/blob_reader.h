// Reading the partitioner's delegate blobs back in tests, through the
// FlatBuffers verifier as the runtime does.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "backends/xnnpack/partitioner/xnnpack_partitioner.h"
#include "backends/xnnpack/serialization/xnnpack_blob_generated.h"
#include "flatbuffers/flatbuffers.h"

namespace torchir::testing {

// The blob of delegate `index`, verified; nullptr (and a test failure) when invalid.
inline const torchir::xnnpack::Graph* BlobOf(const xnnpack::XnnpackPartitionResult& result,
                                             size_t index) {
  if (index >= result.payloads.size()) {
    ADD_FAILURE() << "no delegate " << index;
    return nullptr;
  }
  const std::vector<uint8_t>& blob = result.payloads[index].blob;
  flatbuffers::Verifier verifier(blob.data(), blob.size());
  if (!xnnpack::VerifyGraphBuffer(verifier)) {
    ADD_FAILURE() << "blob " << index << " fails the FlatBuffers verifier";
    return nullptr;
  }
  return xnnpack::GetGraph(blob.data());
}

inline std::vector<int64_t> ValueDims(const torchir::xnnpack::Value* value) {
  return std::vector<int64_t>(value->dims()->begin(), value->dims()->end());
}

inline std::vector<int64_t> NodeInts(const torchir::xnnpack::Node* node) {
  return std::vector<int64_t>(node->ints()->begin(), node->ints()->end());
}

inline std::vector<double> NodeFloats(const torchir::xnnpack::Node* node) {
  return std::vector<double>(node->floats()->begin(), node->floats()->end());
}

inline std::vector<uint32_t> NodeInputs(const torchir::xnnpack::Node* node) {
  return std::vector<uint32_t>(node->inputs()->begin(), node->inputs()->end());
}

inline std::vector<uint32_t> NodeOutputs(const torchir::xnnpack::Node* node) {
  return std::vector<uint32_t>(node->outputs()->begin(), node->outputs()->end());
}

inline std::vector<std::string> BlobOps(const torchir::xnnpack::Graph* graph) {
  std::vector<std::string> ops;
  for (const torchir::xnnpack::Node* node : *graph->nodes()) ops.push_back(node->op()->str());
  return ops;
}

// The float32 contents of a graph constant.
inline std::vector<float> ConstantFloats(const ir::Value* value) {
  std::vector<float> values(value->data().size() / sizeof(float));
  if (!values.empty()) std::memcpy(values.data(), value->data().data(), value->data().size());
  return values;
}

}  // namespace torchir::testing
