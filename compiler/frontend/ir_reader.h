// Reads the pytorch-ir JSON format (see docs/input-format.md) into an ir::Graph.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/graph.h"

namespace torchir::frontend {

// What reading produced besides the graph.
struct ReadReport {
  std::vector<std::string> warnings;
};

// Parses and validates a pytorch-ir JSON document in one pass.
//
// The result holds graph inputs, weight placeholders (ValueKind::kWeight, with
// their state_dict keys), lifted constants (ValueKind::kConstant, with their
// inline data when the file carries it), the nodes in file order and the graph
// outputs. getitem nodes keep the op name "getitem" and an `index` attribute.
//
// The JSON itself is read under the rules of untrusted_json.h (nesting <= 64,
// no duplicate keys, UTF-8, no BOM or NUL, at most kMaxJsonBytes; the file
// size is checked before reading). Validation then rejects, with an error
// naming the file, node and tensor: unknown dtypes, negative dims, duplicate
// node or tensor names, inputs whose producer is missing or comes later,
// producer output indices out of range, inputs whose recorded shape or dtype
// disagrees with the producer's output, malformed tensor-list sizes, and
// outputs that name no value. Several problems are reported together, one per
// line.
//
// `source_name` names the document in messages (normally its path).
absl::StatusOr<std::unique_ptr<ir::Graph>> ParsePytorchIr(std::string_view json,
                                                          std::string_view source_name,
                                                          ReadReport* report = nullptr);

// Reads the file at `path` and parses it as above.
absl::StatusOr<std::unique_ptr<ir::Graph>> ReadPytorchIrFile(const std::string& path,
                                                             ReadReport* report = nullptr);

}  // namespace torchir::frontend
