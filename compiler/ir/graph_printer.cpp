#include "compiler/ir/graph_printer.h"

#include <algorithm>
#include <cstdio>
#include <limits>

#include "compiler/ir/checked_math.h"

namespace torchir::ir {
namespace {

std::string Ref(const Value* value) {
  return (value->is_constant_like() ? "$" : "%") + value->name();
}

}  // namespace

std::string FormatBytes(uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double amount = static_cast<double>(bytes);
  int unit = 0;
  while (amount >= 1024.0 && unit < 4) {
    amount /= 1024.0;
    ++unit;
  }
  char text[32];
  if (unit == 0) {
    std::snprintf(text, sizeof(text), "%llu B", static_cast<unsigned long long>(bytes));
  } else {
    std::snprintf(text, sizeof(text), "%.1f %s", amount, kUnits[unit]);
  }
  return text;
}

std::map<std::string, int> OpHistogram(const Graph& graph) {
  std::map<std::string, int> histogram;
  for (const Node* node : graph.nodes()) ++histogram[node->op()];
  return histogram;
}

ParameterStats ComputeParameterStats(const Graph& graph) {
  ParameterStats stats;
  for (const auto* list : {&graph.weights(), &graph.constants()}) {
    for (const Value* value : *list) {
      ++stats.tensors;
      // Saturating: the summary also describes graphs the verifiers will refuse.
      if (!CheckedAdd(stats.elements, value->type().numel(), &stats.elements)) {
        stats.elements = std::numeric_limits<int64_t>::max();
      }
      if (!CheckedAdd(stats.bytes, uint64_t{value->type().nbytes()}, &stats.bytes)) {
        stats.bytes = std::numeric_limits<uint64_t>::max();
      }
      if (!value->data().empty() || value->type().numel() == 0) ++stats.bound;
    }
  }
  return stats;
}

void PrintGraph(const Graph& graph, std::ostream& out) {
  out << "graph " << (graph.model_name.empty() ? "<unnamed>" : graph.model_name) << " {\n";
  for (const Value* input : graph.inputs()) {
    out << "  input  %" << input->name() << " : " << input->type().ToString() << "\n";
  }
  for (const auto* list : {&graph.weights(), &graph.constants()}) {
    for (const Value* value : *list) {
      out << "  " << (value->kind() == ValueKind::kWeight ? "weight" : "const ") << " $"
          << value->name() << " : " << value->type().ToString();
      if (value->state_dict_key() != value->name()) out << " = '" << value->state_dict_key() << "'";
      if (value->data().empty() && value->type().numel() > 0) out << " (unbound)";
      out << "\n";
    }
  }
  for (const Node* node : graph.nodes()) {
    out << "  ";
    for (size_t i = 0; i < node->num_outputs(); ++i) {
      out << (i ? ", " : "") << "%" << node->output(i)->name() << " : "
          << node->output(i)->type().ToString();
    }
    if (node->num_outputs() == 0) out << "()";
    out << " = " << node->op() << "(";
    for (size_t i = 0; i < node->num_inputs(); ++i) out << (i ? ", " : "") << Ref(node->input(i));
    out << ")";
    for (const auto& [name, value] : node->attrs()) out << " " << name << "=" << value.ToString();
    if (!node->tensor_list_sizes().empty()) {
      out << " tensor_lists=" << AttrValue::IntList(node->tensor_list_sizes()).ToString();
    }
    out << "\n";
  }
  out << "  return ";
  for (size_t i = 0; i < graph.outputs().size(); ++i) {
    out << (i ? ", " : "") << Ref(graph.outputs()[i]);
  }
  out << "\n}\n";
}

void PrintSummary(const Graph& graph, std::ostream& out) {
  out << "model: " << (graph.model_name.empty() ? "<unnamed>" : graph.model_name);
  if (!graph.pytorch_version.empty()) out << " (exported by PyTorch " << graph.pytorch_version << ")";
  out << "\n";
  out << "inputs:  ";
  for (size_t i = 0; i < graph.inputs().size(); ++i) {
    out << (i ? ", " : "") << graph.inputs()[i]->name() << " " << graph.inputs()[i]->type().ToString();
  }
  out << "\noutputs: ";
  for (size_t i = 0; i < graph.outputs().size(); ++i) {
    out << (i ? ", " : "") << graph.outputs()[i]->name() << " "
        << graph.outputs()[i]->type().ToString();
  }
  ParameterStats stats = ComputeParameterStats(graph);
  out << "\nweights: " << graph.weights().size() << " tensors + " << graph.constants().size()
      << " constants, " << stats.elements << " elements, " << FormatBytes(stats.bytes) << " ("
      << stats.bound << "/" << stats.tensors << " with values)\n";
  std::map<std::string, int> histogram = OpHistogram(graph);
  out << "nodes: " << graph.num_nodes() << " (" << histogram.size() << " distinct ops)\n";
  std::vector<std::pair<std::string, int>> rows(histogram.begin(), histogram.end());
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  size_t width = 0;
  for (const auto& row : rows) width = std::max(width, row.first.size());
  for (const auto& [op, count] : rows) {
    out << "  " << op << std::string(width - op.size() + 2, ' ') << count << "\n";
  }
}

}  // namespace torchir::ir
