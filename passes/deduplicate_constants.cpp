#include "passes/deduplicate_constants.h"

#include <cstring>
#include <map>
#include <tuple>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "absl/strings/string_view.h"

namespace torchir::passes {
namespace {

// A leaf whose bytes are known and which no node may write.
bool IsCandidate(const ir::Value& leaf, const OpProperties& properties) {
  if (leaf.data().empty() || leaf.data().size() != leaf.type().nbytes()) return false;
  for (const ir::Use& use : leaf.uses()) {
    if (!properties.IsPure(*use.user)) return false;
  }
  return true;
}

size_t HashBytes(const ir::TensorData& data) {
  return absl::Hash<absl::string_view>()(
      absl::string_view(reinterpret_cast<const char*>(data.data()), data.size()));
}

bool SameBytes(const ir::TensorData& a, const ir::TensorData& b) {
  return a.size() == b.size() && (a.size() == 0 || std::memcmp(a.data(), b.data(), a.size()) == 0);
}

}  // namespace

absl::Status DeduplicateConstants::Run(ir::Graph& graph, PassContext& context) {
  const OpProperties& properties = context.op_properties();
  // Step 1. An ordered map keeps the pass deterministic.
  using GroupKey = std::tuple<ir::ValueKind, ir::DType, std::vector<int64_t>>;
  std::map<GroupKey, std::vector<ir::Value*>> groups;
  for (const std::vector<ir::Value*>* leaves : {&graph.weights(), &graph.constants()}) {
    for (ir::Value* leaf : *leaves) {
      if (!IsCandidate(*leaf, properties)) continue;
      groups[GroupKey(leaf->kind(), leaf->dtype(), leaf->sizes())].push_back(leaf);
    }
  }

  std::vector<std::pair<ir::Value*, ir::Value*>> merges;  // duplicate, kept
  for (const auto& [key, members] : groups) {
    if (members.size() < 2) continue;
    // Step 2. Distinct leaves kept so far, by the hash of their bytes.
    absl::flat_hash_map<size_t, std::vector<ir::Value*>> kept;
    for (ir::Value* leaf : members) {
      std::vector<ir::Value*>& same_hash = kept[HashBytes(leaf->data())];
      ir::Value* equal = nullptr;
      for (ir::Value* candidate : same_hash) {
        if (SameBytes(candidate->data(), leaf->data())) {
          equal = candidate;
          break;
        }
      }
      if (equal != nullptr) {
        merges.emplace_back(leaf, equal);
      } else {
        same_hash.push_back(leaf);
      }
    }
  }

  // Step 3.
  for (const auto& [duplicate, kept] : merges) {
    graph.ReplaceAllUsesWith(duplicate, kept);
    graph.EraseLeaf(duplicate);
  }
  if (!merges.empty()) context.MarkChanged();
  context.AddToCounter("leaves_merged", static_cast<int64_t>(merges.size()));
  return absl::OkStatus();
}

}  // namespace torchir::passes
