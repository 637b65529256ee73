#include "tools/reference/edge_reference.h"

#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <c10/core/InferenceMode.h>
#include <c10/util/Exception.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <exception>
#include <limits>
#include <map>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/dialect/edge_ops.h"
#include "tools/reference/argument_binding.h"
#include "tools/reference/dtype_conversion.h"
#include "tools/reference/graph_runner.h"

namespace torchir::reference {
namespace {

// One node's operands as an Edge op implementation sees them. Accessors fail
// with c10::Error (TORCH_CHECK), like the LibTorch ops the implementations call.
class EdgeCall {
 public:
  EdgeCall(const ir::Node& node, const std::vector<at::Tensor>& inputs)
      : node_(node), inputs_(inputs) {}

  const std::vector<at::Tensor>& inputs() const { return inputs_; }
  const at::Tensor& input(size_t i) const {
    TORCH_CHECK(i < inputs_.size(), "takes at least ", i + 1, " tensor input(s), ", inputs_.size(),
                " given");
    return inputs_[i];
  }
  // An optional trailing operand: absent when the node has fewer inputs.
  c10::optional<at::Tensor> optional_input(size_t i) const {
    if (i >= inputs_.size()) return c10::nullopt;
    return inputs_[i];
  }

  int64_t Int(const char* name) const {
    std::optional<int64_t> value = Attr(name).ToInt();
    TORCH_CHECK(value.has_value(), "attribute '", name, "' is not an int");
    return *value;
  }
  std::vector<int64_t> Ints(const char* name) const {
    std::optional<std::vector<int64_t>> value = Attr(name).ToIntList();
    TORCH_CHECK(value.has_value(), "attribute '", name, "' is not an int list");
    return *value;
  }
  double Real(const char* name) const {
    std::optional<double> value = Attr(name).ToDouble();
    TORCH_CHECK(value.has_value(), "attribute '", name, "' is not a float");
    return *value;
  }
  bool Flag(const char* name) const {
    const ir::AttrValue& value = Attr(name);
    TORCH_CHECK(value.kind() == ir::AttrValue::Kind::kBool, "attribute '", name, "' is not a bool");
    return value.as_bool();
  }
  std::string Str(const char* name) const {
    const ir::AttrValue& value = Attr(name);
    TORCH_CHECK(value.kind() == ir::AttrValue::Kind::kString, "attribute '", name,
                "' is not a string");
    return value.as_string();
  }
  c10::ScalarType DType(const char* name) const {
    const ir::AttrValue& value = Attr(name);
    TORCH_CHECK(value.kind() == ir::AttrValue::Kind::kDType, "attribute '", name,
                "' is not a dtype");
    absl::StatusOr<c10::ScalarType> scalar_type = ToScalarType(value.as_dtype());
    TORCH_CHECK(scalar_type.ok(), std::string(scalar_type.status().message()));
    return *scalar_type;
  }

 private:
  const ir::AttrValue& Attr(const char* name) const {
    const ir::AttrValue* value = node_.FindAttr(name);
    TORCH_CHECK(value != nullptr, "attribute '", name, "' is missing");
    return *value;
  }

  const ir::Node& node_;
  const std::vector<at::Tensor>& inputs_;
};

using EdgeResults = std::vector<at::Tensor>;
using EdgeImplementation = EdgeResults (*)(const EdgeCall& call);

// One side of a clamp to [low, high] of `like`'s dtype; nullopt when open
// (-inf below, +inf above). Integer tensors clamp to the integers inside the
// interval, computed in their own dtype (a float bound would promote them).
c10::optional<at::Scalar> Bound(const at::Tensor& like, double bound, bool is_low) {
  if (is_low ? bound == -INFINITY : bound == INFINITY) return c10::nullopt;
  if (!at::isIntegralType(like.scalar_type(), /*includeBool=*/false)) return at::Scalar(bound);
  const double rounded = is_low ? std::ceil(bound) : std::floor(bound);
  const double limit = 9.2e18;  // inside int64's range
  return at::Scalar(static_cast<int64_t>(std::clamp(rounded, -limit, limit)));
}

at::Tensor Clamp(const at::Tensor& x, double low, double high) {
  c10::optional<at::Scalar> min = Bound(x, low, /*is_low=*/true);
  c10::optional<at::Scalar> max = Bound(x, high, /*is_low=*/false);
  if (!min && !max) return x;
  return at::clamp(x, min, max);
}

at::Tensor OutputClamp(const EdgeCall& call, const at::Tensor& x) {
  return Clamp(x, call.Real("output_min"), call.Real("output_max"));
}

// `dims` of a reduction, or every dim when empty ("all when empty").
std::vector<int64_t> ReductionDims(const EdgeCall& call) {
  std::vector<int64_t> dims = call.Ints("dims");
  if (dims.empty()) {
    for (int64_t d = 0; d < call.input(0).dim(); ++d) dims.push_back(d);
  }
  return dims;
}

EdgeResults One(at::Tensor tensor) { return {std::move(tensor)}; }

// The hand-written implementations, from the op's meaning alone: only for ops that the
// generic fallback below cannot run, because the Edge op means something else than the ATen
// op named like its kernel (a fused clamp, a reduction over all dims when `dims` is empty,
// integer sums that keep their dtype) or because no ATen op has its kernel's name.
const std::map<std::string, EdgeImplementation, std::less<>>& Implementations() {
  static const auto* table = new std::map<std::string, EdgeImplementation, std::less<>>{
      {"edge.convolution",
       [](const EdgeCall& c) {
         std::vector<int64_t> stride = c.Ints("stride");
         std::vector<int64_t> output_padding(stride.size(), 0);
         return One(OutputClamp(
             c, at::convolution(c.input(0), c.input(1), c.optional_input(2), stride,
                                c.Ints("padding"), c.Ints("dilation"), /*transposed=*/false,
                                output_padding, c.Int("groups"))));
       }},
      {"edge.linear",
       [](const EdgeCall& c) {
         return One(OutputClamp(c, at::linear(c.input(0), c.input(1), c.optional_input(2))));
       }},
      {"edge.matmul", [](const EdgeCall& c) { return One(at::matmul(c.input(0), c.input(1))); }},
      {"edge.batch_norm",
       [](const EdgeCall& c) {
         return One(at::batch_norm(c.input(0), c.optional_input(3), c.optional_input(4), c.input(1),
                                   c.input(2), /*training=*/false, /*momentum=*/0.0, c.Real("eps"),
                                   /*cudnn_enabled=*/false));
       }},
      {"edge.layer_norm",
       [](const EdgeCall& c) {
         return One(at::layer_norm(c.input(0), c.Ints("normalized_shape"), c.optional_input(1),
                                   c.optional_input(2), c.Real("eps")));
       }},
      {"edge.softmax",
       [](const EdgeCall& c) { return One(at::softmax(c.input(0), c.Int("dim"))); }},
      {"edge.log_softmax",
       [](const EdgeCall& c) { return One(at::log_softmax(c.input(0), c.Int("dim"))); }},
      {"edge.clamp",
       [](const EdgeCall& c) { return One(Clamp(c.input(0), c.Real("min"), c.Real("max"))); }},
      {"edge.cast", [](const EdgeCall& c) { return One(c.input(0).to(c.DType("dtype"))); }},
      {"edge.mean",
       [](const EdgeCall& c) {
         return One(at::mean(c.input(0), ReductionDims(c), c.Flag("keepdim")));
       }},
      {"edge.sum",
       [](const EdgeCall& c) {
         // LibTorch sums integers in int64; Edge keeps the input's dtype.
         return One(
             at::sum(c.input(0), ReductionDims(c), c.Flag("keepdim"), c.input(0).scalar_type()));
       }},
      {"edge.amax",
       [](const EdgeCall& c) {
         return One(at::amax(c.input(0), ReductionDims(c), c.Flag("keepdim")));
       }},
      {"edge.max_dim",
       [](const EdgeCall& c) {
         auto [values, indices] = at::max(c.input(0), c.Int("dim"), c.Flag("keepdim"));
         return EdgeResults{values, indices};
       }},
      {"edge.max_pool2d",
       [](const EdgeCall& c) {
         return One(at::max_pool2d(c.input(0), c.Ints("kernel_size"), c.Ints("stride"),
                                   c.Ints("padding"), c.Ints("dilation"), c.Flag("ceil_mode")));
       }},
      {"edge.avg_pool2d",
       [](const EdgeCall& c) {
         return One(at::avg_pool2d(c.input(0), c.Ints("kernel_size"), c.Ints("stride"),
                                   c.Ints("padding"), c.Flag("ceil_mode"),
                                   c.Flag("count_include_pad"), /*divisor_override=*/c10::nullopt));
       }},
      {"edge.adaptive_avg_pool2d",
       [](const EdgeCall& c) {
         return One(at::adaptive_avg_pool2d(c.input(0), c.Ints("output_size")));
       }},
      {"edge.reshape", [](const EdgeCall& c) { return One(c.input(0).reshape(c.Ints("shape"))); }},
      {"edge.permute", [](const EdgeCall& c) { return One(c.input(0).permute(c.Ints("dims"))); }},
      {"edge.slice",
       [](const EdgeCall& c) {
         return One(
             at::slice(c.input(0), c.Int("dim"), c.Int("start"), c.Int("end"), c.Int("step")));
       }},
      {"edge.concatenate",
       [](const EdgeCall& c) { return One(at::cat(c.inputs(), c.Int("dim"))); }},
      {"edge.expand", [](const EdgeCall& c) { return One(c.input(0).expand(c.Ints("sizes"))); }},
      {"edge.index_select",
       [](const EdgeCall& c) {
         return One(at::index_select(c.input(0), c.Int("dim"), c.input(1)));
       }},
      {"edge.constant_pad",
       [](const EdgeCall& c) {
         return One(at::constant_pad_nd(c.input(0), c.Ints("pad"), c.Real("value")));
       }},
      {"edge.pad",
       [](const EdgeCall& c) {
         return One(at::pad(c.input(0), c.Ints("pad"), c.Str("mode"), c10::nullopt));
       }},
      // Reductions, scans (ops-structural).
      {"edge.amin",
       [](const EdgeCall& c) {
         return One(at::amin(c.input(0), ReductionDims(c), c.Flag("keepdim")));
       }},
      {"edge.prod",
       [](const EdgeCall& c) {
         // LibTorch's prod takes one dim at a time; integers keep the input's dtype in Edge.
         at::Tensor x = c.input(0);
         if (x.dim() == 0) return One(x.clone());
         std::vector<int64_t> dims = ReductionDims(c);
         for (int64_t& dim : dims) dim = dim < 0 ? dim + x.dim() : dim;
         std::sort(dims.rbegin(), dims.rend());
         for (int64_t dim : dims) x = at::prod(x, dim, /*keepdim=*/true, x.scalar_type());
         if (!c.Flag("keepdim")) {
           for (int64_t dim : dims) x = x.squeeze(dim);
         }
         return One(x);
       }},
      {"edge.min_dim",
       [](const EdgeCall& c) {
         auto [values, indices] = at::min(c.input(0), c.Int("dim"), c.Flag("keepdim"));
         return EdgeResults{values, indices};
       }},
      {"edge.cumsum",
       [](const EdgeCall& c) {
         return One(at::cumsum(c.input(0), c.Int("dim"), c.input(0).scalar_type()));
       }},
      {"edge.scatter",
       [](const EdgeCall& c) {
         const at::Tensor index = c.input(1).to(at::kLong);
         const std::string reduce = c.Str("reduce");
         if (reduce != "none") {
           return One(at::scatter_reduce(c.input(0), c.Int("dim"), index, c.input(2), reduce,
                                         c.Flag("include_self")));
         }
         return One(at::scatter(c.input(0), c.Int("dim"), index, c.input(2)));
       }},
      {"edge.topk",
       [](const EdgeCall& c) {
         // A stable sort cut to k: the op's tie order (LibTorch's topk leaves it open).
         auto [values, indices] =
             at::sort(c.input(0), /*stable=*/true, c.Int("dim"), /*descending=*/c.Flag("largest"));
         const int64_t k = c.Int("k");
         if (c.input(0).dim() == 0) return EdgeResults{values, indices};
         return EdgeResults{values.narrow(c.Int("dim"), 0, k).contiguous(),
                            indices.narrow(c.Int("dim"), 0, k).contiguous()};
       }},
  };
  return *table;
}

// ---- The generic fallback ------------------------------------------------------------
// An Edge op without a hand-written implementation runs as the ATen op named like its kernel
// (edge.atan2 as aten::atan2), through the dispatcher: the node's tensor inputs go to the
// schema's tensor arguments in order, each attribute to the argument of the same name, every
// other argument takes its schema default. Exactly one overload must fit; a row whose ATen
// namesake means something else needs a hand-written implementation instead.

// The overload names of every operator LibTorch registers, by qualified name ("aten::add").
const std::map<std::string, std::vector<std::string>, std::less<>>& OverloadsByName() {
  static const auto* index = [] {
    auto* map = new std::map<std::string, std::vector<std::string>, std::less<>>();
    for (const c10::OperatorName& name : c10::Dispatcher::singleton().getAllOpNames()) {
      (*map)[name.name].push_back(name.overload_name);
    }
    for (auto& [name, overloads] : *map) std::sort(overloads.begin(), overloads.end());
    return map;
  }();
  return *index;
}

// What an overload must accept: the node's (or the row's) tensor input count, attribute
// names and output count.
struct CallShape {
  size_t inputs = 0;
  std::vector<std::string> attrs;
  size_t outputs = 0;
};

CallShape ShapeOf(const ir::Node& node) {
  CallShape shape{node.num_inputs(), {}, node.num_outputs()};
  for (const auto& [name, value] : node.attrs()) shape.attrs.push_back(name);
  return shape;
}

CallShape ShapeOf(const dialect::EdgeOpDef& def) {
  CallShape shape{def.inputs.size(), {}, def.outputs.size()};
  for (const dialect::AttrSpec& attr : def.attrs) shape.attrs.push_back(attr.name);
  return shape;
}

bool IsTensor(const c10::TypePtr& type) { return type->kind() == c10::TypeKind::TensorType; }
bool IsOptionalTensor(const c10::TypePtr& type) {
  const auto* optional = type->castRaw<c10::OptionalType>();
  return optional != nullptr && IsTensor(optional->getElementType());
}

// True when `schema` is a functional overload `shape` can call: tensor inputs dealt in order
// to its Tensor arguments (trailing Tensor? ones all given or all None), attributes naming
// its other arguments, the rest defaulted, one tensor result per output.
bool Fits(const c10::FunctionSchema& schema, const CallShape& shape) {
  if (schema.is_mutable()) return false;
  size_t required = 0, optional = 0;
  for (const c10::Argument& argument : schema.arguments()) {
    const bool attr =
        std::find(shape.attrs.begin(), shape.attrs.end(), argument.name()) != shape.attrs.end();
    if (IsTensor(argument.type()) || IsOptionalTensor(argument.type())) {
      if (attr) return false;
      (IsTensor(argument.type()) ? required : optional) += 1;
    } else if (argument.type()->kind() == c10::TypeKind::ListType &&
               argument.type()->containedTypes().size() == 1 &&
               (IsTensor(argument.type()->containedType(0)) ||
                IsOptionalTensor(argument.type()->containedType(0)))) {
      return false;  // tensor lists: no Edge op passes one to its namesake
    } else if (!attr && !argument.default_value()) {
      return false;
    }
  }
  for (const std::string& name : shape.attrs) {
    if (!schema.argumentIndexWithName(name)) return false;
  }
  if (shape.inputs != required && shape.inputs != required + optional) return false;
  size_t tensor_returns = 0;
  for (const c10::Argument& result : schema.returns()) tensor_returns += IsTensor(result.type());
  return tensor_returns == shape.outputs && tensor_returns == schema.returns().size();
}

// The one overload of aten::<kernel> that fits `shape`, or why there is none.
absl::StatusOr<c10::OperatorHandle> FindNamesake(const dialect::EdgeOpDef& def,
                                                 const CallShape& shape) {
  const std::string name = absl::StrCat("aten::", def.kernel);
  auto overloads = OverloadsByName().find(name);
  if (overloads == OverloadsByName().end()) {
    return absl::NotFoundError(absl::StrCat("no hand-written implementation and no ", name));
  }
  std::vector<c10::OperatorHandle> fitting;
  std::vector<std::string> fitting_names;
  for (const std::string& overload : overloads->second) {
    std::optional<c10::OperatorHandle> handle =
        c10::Dispatcher::singleton().findSchema({name, overload});
    if (handle && Fits(handle->schema(), shape)) {
      fitting.push_back(*handle);
      fitting_names.push_back(overload.empty() ? "default" : overload);
    }
  }
  if (fitting.size() == 1) return fitting[0];
  return absl::NotFoundError(
      fitting.empty() ? absl::StrCat("no overload of ", name, " takes its operands and attributes")
                      : absl::StrCat("overloads ", absl::StrJoin(fitting_names, ", "), " of ", name,
                                     " all fit; give the op a hand-written implementation"));
}

absl::StatusOr<c10::OperatorHandle> FindNamesake(const ir::Node& node) {
  const dialect::EdgeOpDef* def = dialect::FindEdgeOp(node.op());
  if (def == nullptr) return absl::NotFoundError("the Edge reference executor has no such op");
  return FindNamesake(*def, ShapeOf(node));
}

absl::StatusOr<EdgeResults> RunNamesake(const ir::Node& node,
                                        const std::vector<at::Tensor>& inputs) {
  absl::StatusOr<c10::OperatorHandle> op = FindNamesake(node);
  if (!op.ok()) return op.status();
  absl::StatusOr<torch::jit::Stack> stack = BindArguments(node, op->schema(), inputs);
  if (!stack.ok()) return stack.status();
  op->callBoxed(*stack);
  return FlattenReturns(*stack);
}

// Lists every node that neither a hand-written implementation nor the fallback can run.
absl::Status CheckImplemented(const ir::Graph& graph) {
  std::vector<std::string> problems;
  for (const ir::Node* node : graph.nodes()) {
    if (Implementations().count(node->op()) != 0) continue;
    absl::StatusOr<c10::OperatorHandle> op = FindNamesake(*node);
    if (!op.ok()) problems.push_back(absl::StrCat(NodeContext(*node), ": ", op.status().message()));
  }
  if (!problems.empty()) return absl::NotFoundError(absl::StrJoin(problems, "\n"));
  return absl::OkStatus();
}

absl::StatusOr<std::vector<HostTensor>> Run(const ir::Graph& graph,
                                            const std::vector<HostTensor>& inputs) {
  absl::Status implemented = CheckImplemented(graph);
  if (!implemented.ok()) return implemented;
  // Edge types are exact: every result is checked, read or not.
  return RunGraph(
      graph, inputs,
      [](const ir::Node& node,
         const std::vector<at::Tensor>& node_inputs) -> absl::StatusOr<std::vector<at::Tensor>> {
        auto implementation = Implementations().find(node.op());
        if (implementation == Implementations().end()) return RunNamesake(node, node_inputs);
        return implementation->second(EdgeCall(node, node_inputs));
      },
      RunOptions{/*check_unread_results=*/true});
}

}  // namespace

absl::StatusOr<std::vector<HostTensor>> RunEdgeReference(const ir::Graph& graph,
                                                         const std::vector<HostTensor>& inputs) {
  c10::InferenceMode inference_mode;
  try {
    return Run(graph, inputs);
  } catch (const std::exception& e) {
    return absl::InternalError(absl::StrCat("Edge reference executor: ", e.what()));
  }
}

std::vector<std::string> EdgeReferenceOps() {
  std::vector<std::string> ops;
  for (const auto& [op, implementation] : Implementations()) ops.push_back(op);
  for (const dialect::EdgeOpDef& def : dialect::EdgeOps()) {
    if (Implementations().count(def.name) == 0 && FindNamesake(def, ShapeOf(def)).ok()) {
      ops.push_back(def.name);
    }
  }
  std::sort(ops.begin(), ops.end());
  return ops;
}

}  // namespace torchir::reference
