#include "compiler/dialect/shape_rules.h"

#include <algorithm>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/ir/checked_math.h"

namespace torchir::dialect::shape_rules {
namespace {

using ir::DType;
using ir::TensorType;

absl::Status Invalid(std::string message) {
  return absl::InvalidArgumentError(std::move(message));
}

std::string Shape(const std::vector<int64_t>& sizes) {
  return absl::StrCat("[", absl::StrJoin(sizes, ", "), "]");
}

int64_t IntAttr(const ir::Node& node, const char* name) { return node.FindAttr(name)->as_int(); }
const std::vector<int64_t>& IntsAttr(const ir::Node& node, const char* name) {
  return node.FindAttr(name)->as_int_list();
}
bool BoolAttr(const ir::Node& node, const char* name) { return node.FindAttr(name)->as_bool(); }

// What a sliding window over one spatial dim is made of, with the attribute
// names its errors quote ("kernel_size[1]", "stride[1]", ...).
struct Window {
  int64_t length;  // of the input dim
  int64_t kernel;
  int64_t stride;
  int64_t padding;  // on each side
  int64_t dilation;
  bool ceil_mode;
};

// ceil(a / b) for a >= 0, b > 0, without forming a + b - 1.
int64_t CeilDiv(int64_t a, int64_t b) { return a / b + (a % b != 0 ? 1 : 0); }

// Output length of a sliding window (PyTorch's convolution and pooling
// formula), refusing what ATen refuses: a non-positive kernel, stride or
// dilation, negative padding, a window larger than the padded input, and any
// step whose arithmetic would overflow int64.
absl::StatusOr<int64_t> WindowOutput(const Window& w, size_t i, const char* kernel_name) {
  auto named = [i](const char* name, int64_t value) {
    return absl::StrCat(name, "[", i, "] = ", value);
  };
  if (w.kernel <= 0) {
    return Invalid(absl::StrCat(named(kernel_name, w.kernel), " must be positive"));
  }
  if (w.stride <= 0) {
    return Invalid(absl::StrCat(named("stride", w.stride), " must be positive"));
  }
  if (w.dilation <= 0) {
    return Invalid(absl::StrCat(named("dilation", w.dilation), " must be positive"));
  }
  if (w.padding < 0) {
    return Invalid(absl::StrCat(named("padding", w.padding), " must be non-negative"));
  }
  // span = dilation * (kernel - 1) + 1
  int64_t span = 0;
  if (!ir::CheckedMul(w.dilation, w.kernel - 1, &span) || !ir::CheckedAdd(span, 1, &span)) {
    return Invalid(absl::StrCat(named("dilation", w.dilation), " with ",
                                named(kernel_name, w.kernel), " overflows the window size"));
  }
  // padded = length + 2 * padding
  int64_t padded = 0;
  if (!ir::CheckedMul(w.padding, 2, &padded) || !ir::CheckedAdd(padded, w.length, &padded)) {
    return Invalid(absl::StrCat(named("padding", w.padding), " overflows the padded length of ",
                                "input length ", w.length));
  }
  if (padded < span) {
    return Invalid(absl::StrCat("window of ", span, " (", named(kernel_name, w.kernel), ", ",
                                named("dilation", w.dilation), ") does not fit input length ",
                                w.length, " with ", named("padding", w.padding)));
  }
  const int64_t numerator = padded - span;
  int64_t out = (w.ceil_mode ? CeilDiv(numerator, w.stride) : numerator / w.stride) + 1;
  // With ceil_mode the last window must start inside the input or its left padding:
  // drop it when (out - 1) * stride >= length + padding.
  if (w.ceil_mode && out - 1 >= CeilDiv(w.length + w.padding, w.stride)) --out;
  return out;
}

}  // namespace

absl::StatusOr<std::vector<int64_t>> BroadcastShapes(const std::vector<int64_t>& a,
                                                     const std::vector<int64_t>& b) {
  const size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) {
      return Invalid(absl::StrCat("shapes ", Shape(a), " and ", Shape(b), " do not broadcast"));
    }
    out[i] = da == 1 ? db : da;
  }
  return out;
}

absl::StatusOr<int64_t> NormalizeDim(int64_t dim, int64_t rank) {
  const int64_t bound = std::max<int64_t>(rank, 1);
  if (dim < -bound || dim >= bound) {
    return Invalid(absl::StrCat("dim ", dim, " is out of range for rank ", rank));
  }
  return dim < 0 ? dim + bound : dim;
}

absl::StatusOr<Types> SameAsFirst(const Inputs& inputs, const ir::Node&) {
  return Types{*inputs[0]};
}

absl::StatusOr<Types> Broadcast(const Inputs& inputs, const ir::Node&) {
  auto sizes = BroadcastShapes(inputs[0]->sizes, inputs[1]->sizes);
  if (!sizes.ok()) return sizes.status();
  return Types{TensorType{inputs[0]->dtype, *sizes}};
}

absl::StatusOr<Types> BroadcastToBool(const Inputs& inputs, const ir::Node&) {
  auto sizes = BroadcastShapes(inputs[0]->sizes, inputs[1]->sizes);
  if (!sizes.ok()) return sizes.status();
  return Types{TensorType{DType::kBool, *sizes}};
}

absl::StatusOr<Types> Where(const Inputs& inputs, const ir::Node&) {
  auto sizes = BroadcastShapes(inputs[0]->sizes, inputs[1]->sizes);
  if (!sizes.ok()) return sizes.status();
  sizes = BroadcastShapes(*sizes, inputs[2]->sizes);
  if (!sizes.ok()) return sizes.status();
  return Types{TensorType{inputs[1]->dtype, *sizes}};
}

absl::StatusOr<Types> Cast(const Inputs& inputs, const ir::Node& node) {
  return Types{TensorType{node.FindAttr("dtype")->as_dtype(), inputs[0]->sizes}};
}

absl::StatusOr<Types> Convolution(const Inputs& inputs, const ir::Node& node) {
  const TensorType& input = *inputs[0];
  const TensorType& weight = *inputs[1];
  const int64_t spatial = input.rank() - 2;
  if (spatial < 1 || spatial > 3) {
    return Invalid(absl::StrCat("input must be [N, C, spatial...] with 1 to 3 spatial dims, got ",
                                Shape(input.sizes)));
  }
  if (weight.rank() != input.rank()) {
    return Invalid(absl::StrCat("weight ", Shape(weight.sizes), " must have the input's rank ",
                                input.rank()));
  }
  const auto& stride = IntsAttr(node, "stride");
  const auto& padding = IntsAttr(node, "padding");
  const auto& dilation = IntsAttr(node, "dilation");
  for (const auto* list : {&stride, &padding, &dilation}) {
    if (static_cast<int64_t>(list->size()) != spatial) {
      return Invalid(absl::StrCat("stride, padding and dilation need ", spatial,
                                  " entries each, got ", Shape(*list)));
    }
  }
  const int64_t groups = IntAttr(node, "groups");
  const int64_t channels = input.sizes[1];
  const int64_t out_channels = weight.sizes[0];
  if (groups < 1 || channels % groups != 0 || out_channels % groups != 0 ||
      weight.sizes[1] != channels / groups) {
    return Invalid(absl::StrCat("weight ", Shape(weight.sizes), " with groups ", groups,
                                " does not fit ", channels, " input channels"));
  }
  if (inputs.size() > 2 && inputs[2]->sizes != std::vector<int64_t>{out_channels}) {
    return Invalid(absl::StrCat("bias ", Shape(inputs[2]->sizes), " must be [", out_channels,
                                "]"));
  }
  std::vector<int64_t> out = {input.sizes[0], out_channels};
  for (int64_t i = 0; i < spatial; ++i) {
    auto length = WindowOutput(
        {input.sizes[2 + i], weight.sizes[2 + i], stride[i], padding[i], dilation[i], false},
        static_cast<size_t>(i), "kernel");
    if (!length.ok()) return length.status();
    out.push_back(*length);
  }
  return Types{TensorType{input.dtype, out}};
}

absl::StatusOr<Types> Linear(const Inputs& inputs, const ir::Node&) {
  const TensorType& input = *inputs[0];
  const TensorType& weight = *inputs[1];
  if (input.rank() < 1 || weight.rank() != 2 || weight.sizes[1] != input.sizes.back()) {
    return Invalid(absl::StrCat("input ", Shape(input.sizes), " and weight ",
                                Shape(weight.sizes), " do not fit: weight must be [N, ",
                                input.rank() ? input.sizes.back() : 0, "]"));
  }
  if (inputs.size() > 2 && inputs[2]->sizes != std::vector<int64_t>{weight.sizes[0]}) {
    return Invalid(absl::StrCat("bias ", Shape(inputs[2]->sizes), " must be [", weight.sizes[0],
                                "]"));
  }
  std::vector<int64_t> out = input.sizes;
  out.back() = weight.sizes[0];
  return Types{TensorType{input.dtype, out}};
}

absl::StatusOr<Types> Matmul(const Inputs& inputs, const ir::Node&) {
  const TensorType& a = *inputs[0];
  const TensorType& b = *inputs[1];
  if (a.rank() < 2 || b.rank() < 2) {
    return Invalid(absl::StrCat("operands must have rank >= 2, got ", Shape(a.sizes), " and ",
                                Shape(b.sizes)));
  }
  const int64_t m = a.sizes[a.rank() - 2], k = a.sizes.back();
  const int64_t kb = b.sizes[b.rank() - 2], n = b.sizes.back();
  if (k != kb) {
    return Invalid(absl::StrCat("inner dimensions differ: ", Shape(a.sizes), " @ ",
                                Shape(b.sizes)));
  }
  auto batch = BroadcastShapes(std::vector<int64_t>(a.sizes.begin(), a.sizes.end() - 2),
                               std::vector<int64_t>(b.sizes.begin(), b.sizes.end() - 2));
  if (!batch.ok()) return batch.status();
  std::vector<int64_t> out = *batch;
  out.push_back(m);
  out.push_back(n);
  return Types{TensorType{a.dtype, out}};
}

absl::StatusOr<Types> Normalization(const Inputs& inputs, const ir::Node&) {
  // edge.batch_norm(input [N, C, ...], mean [C], var [C], weight? [C], bias? [C])
  const TensorType& input = *inputs[0];
  if (input.rank() < 2) return Invalid("input must have a channel dimension (rank >= 2)");
  for (size_t i = 1; i < inputs.size(); ++i) {
    if (inputs[i]->sizes != std::vector<int64_t>{input.sizes[1]}) {
      return Invalid(absl::StrCat("per-channel operand ", i, " is ", Shape(inputs[i]->sizes),
                                  ", expected [", input.sizes[1], "]"));
    }
  }
  return Types{input};
}

absl::StatusOr<Types> LayerNorm(const Inputs& inputs, const ir::Node& node) {
  const TensorType& input = *inputs[0];
  const auto& normalized = IntsAttr(node, "normalized_shape");
  if (normalized.empty() || normalized.size() > input.sizes.size() ||
      !std::equal(normalized.begin(), normalized.end(), input.sizes.end() - normalized.size())) {
    return Invalid(absl::StrCat("normalized_shape ", Shape(normalized),
                                " is not a suffix of the input shape ", Shape(input.sizes)));
  }
  for (size_t i = 1; i < inputs.size(); ++i) {
    if (inputs[i]->sizes != normalized) {
      return Invalid(absl::StrCat("weight/bias ", Shape(inputs[i]->sizes),
                                  " must equal normalized_shape ", Shape(normalized)));
    }
  }
  return Types{input};
}

absl::StatusOr<Types> Softmax(const Inputs& inputs, const ir::Node& node) {
  auto dim = NormalizeDim(IntAttr(node, "dim"), inputs[0]->rank());
  if (!dim.ok()) return dim.status();
  return Types{*inputs[0]};
}

absl::StatusOr<Types> Reduce(const Inputs& inputs, const ir::Node& node) {
  const TensorType& input = *inputs[0];
  const auto& dims = IntsAttr(node, "dims");
  const bool keepdim = BoolAttr(node, "keepdim");
  std::vector<bool> reduced(input.sizes.size(), dims.empty());
  for (int64_t dim : dims) {
    auto d = NormalizeDim(dim, input.rank());
    if (!d.ok()) return d.status();
    if (input.rank() == 0) continue;
    if (reduced[*d]) return Invalid(absl::StrCat("dim ", dim, " is listed twice"));
    reduced[*d] = true;
  }
  std::vector<int64_t> out;
  for (size_t i = 0; i < input.sizes.size(); ++i) {
    if (!reduced[i]) {
      out.push_back(input.sizes[i]);
    } else if (keepdim) {
      out.push_back(1);
    }
  }
  return Types{TensorType{input.dtype, out}};
}

absl::StatusOr<Types> MaxDim(const Inputs& inputs, const ir::Node& node) {
  const TensorType& input = *inputs[0];
  auto dim = NormalizeDim(IntAttr(node, "dim"), input.rank());
  if (!dim.ok()) return dim.status();
  std::vector<int64_t> out = input.sizes;
  if (input.rank() > 0) {
    if (BoolAttr(node, "keepdim")) {
      out[*dim] = 1;
    } else {
      out.erase(out.begin() + *dim);
    }
  }
  return Types{TensorType{input.dtype, out}, TensorType{DType::kInt64, out}};
}

absl::StatusOr<Types> AlongDim(const Inputs& inputs, const ir::Node& node) {
  auto dim = NormalizeDim(IntAttr(node, "dim"), inputs[0]->rank());
  if (!dim.ok()) return dim.status();
  return Types{*inputs[0]};
}

absl::StatusOr<Types> TopK(const Inputs& inputs, const ir::Node& node) {
  const TensorType& input = *inputs[0];
  auto dim = NormalizeDim(IntAttr(node, "dim"), input.rank());
  if (!dim.ok()) return dim.status();
  const int64_t k = IntAttr(node, "k");
  const int64_t length = input.rank() == 0 ? 1 : input.sizes[*dim];
  if (k < 0 || k > length) {
    return Invalid(absl::StrCat("k ", k, " is out of range for a dim of ", length));
  }
  std::vector<int64_t> out = input.sizes;
  if (input.rank() > 0) out[*dim] = k;
  return Types{TensorType{input.dtype, out}, TensorType{DType::kInt64, out}};
}

absl::StatusOr<Types> Scatter(const Inputs& inputs, const ir::Node& node) {
  const TensorType& input = *inputs[0];
  const TensorType& index = *inputs[1];
  const TensorType& src = *inputs[2];
  const int64_t dim = IntAttr(node, "dim");
  if (input.rank() == 0 || dim < 0 || dim >= input.rank()) {
    return Invalid(absl::StrCat("dim ", dim, " is not a dim of ", Shape(input.sizes)));
  }
  if (index.rank() != input.rank() || src.rank() != input.rank()) {
    return Invalid("index and src must have the input's rank");
  }
  const ir::AttrValue* reduce_attr = node.FindAttr("reduce");
  const std::string reduce =
      reduce_attr != nullptr && reduce_attr->kind() == ir::AttrValue::Kind::kString
          ? reduce_attr->as_string()
          : "";
  if (reduce != "none" && reduce != "sum" && reduce != "prod" && reduce != "amax" &&
      reduce != "amin") {
    return Invalid(absl::StrCat("reduce '", reduce, "' is not none, sum, prod, amax or amin"));
  }
  if (reduce != "none" && input.dtype != DType::kFloat32 && input.dtype != DType::kInt32 &&
      input.dtype != DType::kInt64) {
    return Invalid(absl::StrCat("reduce '", reduce, "' takes float32, int32 or int64, not ",
                                std::string(ir::DTypeName(input.dtype))));
  }
  const ir::AttrValue* include_self = node.FindAttr("include_self");
  if (reduce == "none" && include_self != nullptr &&
      include_self->kind() == ir::AttrValue::Kind::kBool && !include_self->as_bool()) {
    return Invalid("a plain write (reduce 'none') must include self");
  }
  for (int64_t d = 0; d < input.rank(); ++d) {
    if (index.sizes[d] > src.sizes[d] || (d != dim && index.sizes[d] > input.sizes[d])) {
      return Invalid(absl::StrCat("index ", Shape(index.sizes), " is larger than src ",
                                  Shape(src.sizes), " or the input ", Shape(input.sizes),
                                  " in dim ", d));
    }
  }
  return Types{input};
}

absl::StatusOr<Types> Pool2d(const Inputs& inputs, const ir::Node& node) {
  const TensorType& input = *inputs[0];
  if (input.rank() != 3 && input.rank() != 4) {
    return Invalid(absl::StrCat("input must be [N, C, H, W] or [C, H, W], got ",
                                Shape(input.sizes)));
  }
  const auto& kernel = IntsAttr(node, "kernel_size");
  const auto& stride = IntsAttr(node, "stride");
  const auto& padding = IntsAttr(node, "padding");
  const ir::AttrValue* dilation_attr = node.FindAttr("dilation");
  const std::vector<int64_t> dilation =
      dilation_attr != nullptr ? dilation_attr->as_int_list() : std::vector<int64_t>{1, 1};
  for (const auto* list : {&kernel, &stride, &padding, &dilation}) {
    if (list->size() != 2) {
      return Invalid(absl::StrCat("kernel_size, stride, padding and dilation need 2 entries, got ",
                                  Shape(*list)));
    }
  }
  const bool ceil_mode = BoolAttr(node, "ceil_mode");
  std::vector<int64_t> out(input.sizes.begin(), input.sizes.end() - 2);
  for (size_t i = 0; i < 2; ++i) {
    auto length = WindowOutput({input.sizes[input.rank() - 2 + static_cast<int64_t>(i)], kernel[i],
                                stride[i], padding[i], dilation[i], ceil_mode},
                               i, "kernel_size");
    if (!length.ok()) return length.status();
    // Both are positive now; PyTorch allows at most half the kernel of padding.
    if (padding[i] > kernel[i] / 2) {
      return Invalid(absl::StrCat("padding[", i, "] = ", padding[i],
                                  " exceeds half the kernel_size ", kernel[i]));
    }
    out.push_back(*length);
  }
  return Types{TensorType{input.dtype, out}};
}

absl::StatusOr<Types> AdaptiveAvgPool2d(const Inputs& inputs, const ir::Node& node) {
  const TensorType& input = *inputs[0];
  const auto& size = IntsAttr(node, "output_size");
  if ((input.rank() != 3 && input.rank() != 4) || size.size() != 2 || size[0] <= 0 ||
      size[1] <= 0) {
    return Invalid(absl::StrCat("input ", Shape(input.sizes), " and output_size ", Shape(size),
                                " must be 4-d (or 3-d) and 2 positive sizes"));
  }
  std::vector<int64_t> out(input.sizes.begin(), input.sizes.end() - 2);
  out.insert(out.end(), size.begin(), size.end());
  return Types{TensorType{input.dtype, out}};
}

absl::StatusOr<Types> Upsample2d(const Inputs& inputs, const ir::Node& node) {
  if (inputs[0]->rank() != 4) {
    return Invalid(absl::StrCat("input ", Shape(inputs[0]->sizes), " must be 4-d"));
  }
  return AdaptiveAvgPool2d(inputs, node);
}

absl::StatusOr<Types> GridSampler2d(const Inputs& inputs, const ir::Node& node) {
  const TensorType& input = *inputs[0];
  const TensorType& grid = *inputs[1];
  if (input.rank() != 4 || grid.rank() != 4 || grid.sizes[0] != input.sizes[0] ||
      grid.sizes[3] != 2) {
    return Invalid(absl::StrCat("input ", Shape(input.sizes), " and grid ", Shape(grid.sizes),
                                " must be [N, C, H, W] and [N, Ho, Wo, 2]"));
  }
  // As ATen: an image without pixels has nothing to sample.
  if (input.sizes[2] == 0 || input.sizes[3] == 0) {
    return Invalid(absl::StrCat("input ", Shape(input.sizes), " has empty spatial dims"));
  }
  const int64_t interpolation = IntAttr(node, "interpolation_mode");
  const int64_t padding = IntAttr(node, "padding_mode");
  if (interpolation < 0 || interpolation > 2 || padding < 0 || padding > 2) {
    return Invalid(absl::StrCat("interpolation_mode ", interpolation, " and padding_mode ", padding,
                                " must each be 0, 1 or 2"));
  }
  return Types{
      TensorType{input.dtype, {input.sizes[0], input.sizes[1], grid.sizes[1], grid.sizes[2]}}};
}

absl::StatusOr<Types> Reshape(const Inputs& inputs, const ir::Node& node) {
  const auto& shape = IntsAttr(node, "shape");
  for (int64_t size : shape) {
    if (size < 0) return Invalid(absl::StrCat("shape ", Shape(shape), " has a negative size"));
  }
  int64_t in_numel = 0, out_numel = 0;
  if (!ir::CheckedProduct(inputs[0]->sizes, &in_numel)) {
    return Invalid(absl::StrCat("input ", Shape(inputs[0]->sizes), " has no valid element count"));
  }
  if (!ir::CheckedProduct(shape, &out_numel)) {
    return Invalid(absl::StrCat("shape ", Shape(shape), ": element count overflows"));
  }
  if (out_numel != in_numel) {
    return Invalid(absl::StrCat("cannot reshape ", Shape(inputs[0]->sizes), " (", in_numel,
                                " elements) to ", Shape(shape), " (", out_numel, " elements)"));
  }
  return Types{TensorType{inputs[0]->dtype, shape}};
}

absl::StatusOr<Types> Permute(const Inputs& inputs, const ir::Node& node) {
  const TensorType& input = *inputs[0];
  const auto& dims = IntsAttr(node, "dims");
  if (static_cast<int64_t>(dims.size()) != input.rank()) {
    return Invalid(absl::StrCat("dims ", Shape(dims), " must list all ", input.rank(), " dims"));
  }
  std::vector<bool> seen(dims.size(), false);
  std::vector<int64_t> out;
  for (int64_t dim : dims) {
    if (dim < 0 || dim >= input.rank() || seen[dim]) {
      return Invalid(absl::StrCat("dims ", Shape(dims), " is not a permutation"));
    }
    seen[dim] = true;
    out.push_back(input.sizes[dim]);
  }
  return Types{TensorType{input.dtype, out}};
}

absl::StatusOr<Types> Slice(const Inputs& inputs, const ir::Node& node) {
  const TensorType& input = *inputs[0];
  const int64_t dim = IntAttr(node, "dim");
  const int64_t start = IntAttr(node, "start");
  const int64_t end = IntAttr(node, "end");
  const int64_t step = IntAttr(node, "step");
  if (dim < 0 || dim >= input.rank()) {
    return Invalid(absl::StrCat("dim ", dim, " is out of range for rank ", input.rank()));
  }
  const int64_t size = input.sizes[dim];
  if (step < 1) return Invalid(absl::StrCat("step = ", step, " must be positive"));
  if (start < 0 || start > end || end > size) {
    return Invalid(absl::StrCat("start = ", start, " and end = ", end,
                                " must satisfy 0 <= start <= end <= ", size));
  }
  std::vector<int64_t> out = input.sizes;
  out[dim] = CeilDiv(end - start, step);
  return Types{TensorType{input.dtype, out}};
}

absl::StatusOr<Types> Concatenate(const Inputs& inputs, const ir::Node& node) {
  const TensorType& first = *inputs[0];
  if (first.rank() == 0) return Invalid("cannot concatenate 0-d tensors");
  auto dim = NormalizeDim(IntAttr(node, "dim"), first.rank());
  if (!dim.ok()) return dim.status();
  if (IntAttr(node, "dim") != *dim) return Invalid("dim must be normalised (non-negative)");
  std::vector<int64_t> out = first.sizes;
  for (size_t i = 1; i < inputs.size(); ++i) {
    const TensorType& next = *inputs[i];
    bool fits = next.rank() == first.rank();
    for (int64_t d = 0; fits && d < first.rank(); ++d) {
      fits = d == *dim || next.sizes[d] == first.sizes[d];
    }
    if (!fits) {
      return Invalid(absl::StrCat("input ", i, " ", Shape(next.sizes), " does not fit ",
                                  Shape(first.sizes), " along dim ", *dim));
    }
    if (!ir::CheckedAdd(out[*dim], next.sizes[*dim], &out[*dim])) {
      return Invalid(absl::StrCat("the sizes along dim ", *dim, " overflow when added (input ", i,
                                  " ", Shape(next.sizes), ")"));
    }
  }
  return Types{TensorType{first.dtype, out}};
}

absl::StatusOr<Types> Expand(const Inputs& inputs, const ir::Node& node) {
  const auto& sizes = IntsAttr(node, "sizes");
  for (int64_t size : sizes) {
    if (size < 0) return Invalid(absl::StrCat("sizes must be explicit and non-negative, got ", Shape(sizes)));
  }
  auto out = BroadcastShapes(inputs[0]->sizes, sizes);
  if (!out.ok()) return out.status();
  if (*out != sizes) {
    return Invalid(absl::StrCat("cannot expand ", Shape(inputs[0]->sizes), " to ",
                                Shape(sizes)));
  }
  return Types{TensorType{inputs[0]->dtype, sizes}};
}

absl::StatusOr<Types> IndexSelect(const Inputs& inputs, const ir::Node& node) {
  const TensorType& input = *inputs[0];
  const TensorType& index = *inputs[1];
  const int64_t dim = IntAttr(node, "dim");
  if (dim < 0 || dim >= input.rank()) {
    return Invalid(absl::StrCat("dim ", dim, " is out of range for rank ", input.rank()));
  }
  if (index.rank() != 1) {
    return Invalid(absl::StrCat("index must be 1-d, got ", Shape(index.sizes)));
  }
  std::vector<int64_t> out = input.sizes;
  out[dim] = index.sizes[0];
  return Types{TensorType{input.dtype, out}};
}

absl::StatusOr<Types> ConstantPad(const Inputs& inputs, const ir::Node& node) {
  const TensorType& input = *inputs[0];
  const auto& pad = IntsAttr(node, "pad");
  if (pad.size() % 2 != 0 || static_cast<int64_t>(pad.size() / 2) > input.rank()) {
    return Invalid(absl::StrCat("pad ", Shape(pad), " needs a (before, after) pair per padded ",
                                "dim, innermost first, for at most ", input.rank(), " dims"));
  }
  std::vector<int64_t> out = input.sizes;
  for (size_t i = 0; i < pad.size() / 2; ++i) {
    const size_t d = out.size() - 1 - i;
    if (!ir::CheckedAdd(out[d], pad[2 * i], &out[d]) ||
        !ir::CheckedAdd(out[d], pad[2 * i + 1], &out[d])) {
      return Invalid(absl::StrCat("pad[", 2 * i, "] = ", pad[2 * i], " and pad[", 2 * i + 1,
                                  "] = ", pad[2 * i + 1], " overflow dim ", d, " of size ",
                                  input.sizes[d]));
    }
    if (out[d] < 0) {
      return Invalid(absl::StrCat("pad[", 2 * i, "] = ", pad[2 * i], " and pad[", 2 * i + 1,
                                  "] = ", pad[2 * i + 1], " remove more than dim ", d, " of size ",
                                  input.sizes[d]));
    }
  }
  return Types{TensorType{input.dtype, out}};
}

absl::StatusOr<Types> ModePad(const Inputs& inputs, const ir::Node& node) {
  const TensorType& input = *inputs[0];
  const auto& pad = IntsAttr(node, "pad");
  const ir::AttrValue* mode_attr = node.FindAttr("mode");
  const std::string mode = mode_attr != nullptr && mode_attr->kind() == ir::AttrValue::Kind::kString
                               ? mode_attr->as_string()
                               : "";
  if (mode != "reflect" && mode != "replicate" && mode != "circular") {
    return Invalid(absl::StrCat("mode '", mode, "' is not reflect, replicate or circular"));
  }
  for (size_t i = 0; i < pad.size(); ++i) {
    if (pad[i] < 0) return Invalid(absl::StrCat("pad[", i, "] = ", pad[i], " is negative"));
    const size_t d = input.sizes.size() - 1 - i / 2;
    if (i / 2 >= input.sizes.size() || pad[i] == 0) continue;
    const int64_t n = input.sizes[d];
    const bool fits = mode == "reflect" ? pad[i] < n : (mode == "circular" ? pad[i] <= n : n >= 1);
    if (!fits) {
      return Invalid(absl::StrCat("pad[", i, "] = ", pad[i], " does not fit dim ", d, " of size ",
                                  n, " in mode ", mode,
                                  mode == "reflect" ? " (needs < size)" : " (needs <= size)"));
    }
  }
  return ConstantPad(inputs, node);
}

}  // namespace torchir::dialect::shape_rules
