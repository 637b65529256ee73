#include "tools/reference/decompositions.h"

#include <ATen/ATen.h>
#include <c10/util/Exception.h>
#include <torch/csrc/jit/frontend/function_schema_parser.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <optional>

namespace torchir::reference {
namespace {

using torch::jit::Stack;
using Results = std::vector<c10::IValue>;

c10::optional<at::Tensor> OptionalTensor(const c10::IValue& value) {
  if (value.isNone()) return c10::nullopt;
  return value.toTensor();
}

c10::optional<double> OptionalDouble(const c10::IValue& value) {
  if (value.isNone()) return c10::nullopt;
  return value.toDouble();
}

c10::optional<at::ScalarType> OptionalScalarType(const c10::IValue& value) {
  if (value.isNone()) return c10::nullopt;
  return static_cast<at::ScalarType>(value.toInt());
}

// Softmax whose rows that are entirely -inf come out as zeros instead of NaN
// (what PyTorch's attention uses since 2.5).
at::Tensor SafeSoftmax(const at::Tensor& self, int64_t dim, c10::optional<at::ScalarType> dtype) {
  at::Tensor out = at::softmax(self, dim, dtype);
  at::Tensor masked_rows =
      at::all(self.eq(-std::numeric_limits<double>::infinity()), dim, /*keepdim=*/true);
  return at::where(masked_rows, at::zeros_like(out), out);
}

struct AttentionResult {
  at::Tensor output;
  at::Tensor scores;  // scaled, masked, before softmax
};

// softmax(q k^T * scale + mask) v, the reference semantics of
// scaled_dot_product_attention.
AttentionResult Attention(at::Tensor query, at::Tensor key, at::Tensor value,
                          const c10::optional<at::Tensor>& attn_mask, double dropout_p,
                          bool is_causal, c10::optional<double> scale, bool enable_gqa) {
  TORCH_CHECK(dropout_p == 0.0, "dropout_p=", dropout_p,
              " makes attention random; the reference executor needs a model exported in "
              "eval mode (dropout_p=0)");
  TORCH_CHECK(!(is_causal && attn_mask), "is_causal=True cannot be combined with attn_mask");
  TORCH_CHECK(query.dim() >= 2 && key.dim() >= 2 && value.dim() >= 2,
              "query, key and value need at least 2 dimensions");
  if (enable_gqa && query.dim() >= 3 && key.size(-3) != query.size(-3)) {
    TORCH_CHECK(key.size(-3) > 0 && query.size(-3) % key.size(-3) == 0, "enable_gqa: query heads (",
                query.size(-3), ") are not a multiple of key/value heads (", key.size(-3), ")");
    int64_t repeats = query.size(-3) / key.size(-3);
    key = key.repeat_interleave(repeats, -3);
    value = value.repeat_interleave(repeats, -3);
  }
  const double scale_factor = scale ? *scale : 1.0 / std::sqrt(static_cast<double>(query.size(-1)));
  at::Tensor scores = at::matmul(query, key.transpose(-2, -1)) * scale_factor;
  const double neg_inf = -std::numeric_limits<double>::infinity();
  if (is_causal) {
    at::Tensor keep =
        at::ones({query.size(-2), key.size(-2)}, query.options().dtype(at::kBool)).tril();
    scores = scores.masked_fill(keep.logical_not(), neg_inf);
  }
  if (attn_mask) {
    if (attn_mask->scalar_type() == at::kBool) {
      scores = scores.masked_fill(attn_mask->logical_not(), neg_inf);
    } else {
      scores = scores + *attn_mask;
    }
  }
  at::Tensor weights = SafeSoftmax(scores, -1, c10::nullopt);
  return {at::matmul(weights, value), scores};
}

// aten::scaled_dot_product_attention (added in PyTorch 2.0).
Results ScaledDotProductAttention(const Stack& a) {
  return {Attention(a[0].toTensor(), a[1].toTensor(), a[2].toTensor(), OptionalTensor(a[3]),
                    a[4].toDouble(), a[5].toBool(), OptionalDouble(a[6]), a[7].toBool())
              .output};
}

// The CPU flash-attention kernel that core-ATen exports decompose sdpa into;
// it also returns the logsumexp of the scores, shaped [..., L], in float.
Results FlashAttentionForCpu(const Stack& a) {
  AttentionResult result =
      Attention(a[0].toTensor(), a[1].toTensor(), a[2].toTensor(), OptionalTensor(a[5]),
                a[3].toDouble(), a[4].toBool(), OptionalDouble(a[6]), /*enable_gqa=*/false);
  return {result.output, at::logsumexp(result.scores.to(at::kFloat), {-1})};
}

// Batch norm in inference: normalise with the running statistics.
Results BatchNormNoTraining(const Stack& a) {
  auto [out, save_mean, save_invstd] = at::native_batch_norm(
      a[0].toTensor(), OptionalTensor(a[1]), OptionalTensor(a[2]), a[3].toTensor(), a[4].toTensor(),
      /*training=*/false, a[5].toDouble(), a[6].toDouble());
  return {out, save_mean, save_invstd};
}

// Batch norm updating the running statistics in place when training.
Results BatchNormLegit(const Stack& a) {
  auto [out, save_mean, save_invstd] = at::native_batch_norm(
      a[0].toTensor(), OptionalTensor(a[1]), OptionalTensor(a[2]), a[3].toTensor(), a[4].toTensor(),
      a[5].toBool(), a[6].toDouble(), a[7].toDouble());
  return {out, save_mean, save_invstd};
}

Results BatchNormLegitNoStats(const Stack& a) {
  auto [out, save_mean, save_invstd] = at::native_batch_norm(
      a[0].toTensor(), OptionalTensor(a[1]), OptionalTensor(a[2]), c10::nullopt, c10::nullopt,
      a[3].toBool(), a[4].toDouble(), a[5].toDouble());
  return {out, save_mean, save_invstd};
}

// The functional form returns the updated statistics instead of writing them.
Results BatchNormLegitFunctional(const Stack& a) {
  at::Tensor running_mean = a[3].toTensor().clone();
  at::Tensor running_var = a[4].toTensor().clone();
  auto [out, save_mean, save_invstd] = at::native_batch_norm(
      a[0].toTensor(), OptionalTensor(a[1]), OptionalTensor(a[2]), running_mean, running_var,
      a[5].toBool(), a[6].toDouble(), a[7].toDouble());
  return {out, save_mean, save_invstd, running_mean, running_var};
}

// x / sqrt(mean(x^2 over the normalized dims) + eps) * weight, computed in
// float for reduced-precision inputs; eps defaults to that type's epsilon.
Results RmsNorm(const Stack& a) {
  at::Tensor input = a[0].toTensor();
  std::vector<int64_t> normalized_shape = a[1].toIntVector();
  c10::optional<at::Tensor> weight = OptionalTensor(a[2]);
  c10::optional<double> eps = OptionalDouble(a[3]);
  const int64_t n = static_cast<int64_t>(normalized_shape.size());
  TORCH_CHECK(n <= input.dim(), "normalized_shape has more dimensions than the input");
  std::vector<int64_t> dims;
  for (int64_t d = input.dim() - n; d < input.dim(); ++d) dims.push_back(d);
  const bool reduced = input.scalar_type() == at::kHalf || input.scalar_type() == at::kBFloat16;
  at::Tensor x = reduced ? input.to(at::kFloat) : input;
  double epsilon = eps ? *eps
                       : (x.scalar_type() == at::kDouble
                              ? std::numeric_limits<double>::epsilon()
                              : static_cast<double>(std::numeric_limits<float>::epsilon()));
  at::Tensor out = x * at::rsqrt(x.pow(2).mean(dims, /*keepdim=*/true) + epsilon);
  if (weight) out = out * *weight;
  return {out.to(input.scalar_type())};
}

Results SafeSoftmaxOp(const Stack& a) {
  return {SafeSoftmax(a[0].toTensor(), a[1].toInt(), OptionalScalarType(a[2]))};
}

// squeeze over a list of dims (PyTorch 2.0): drops those of size 1.
at::Tensor SqueezeDims(const at::Tensor& self, std::vector<int64_t> dims, bool in_place) {
  const int64_t rank = std::max<int64_t>(self.dim(), 1);
  for (int64_t& d : dims) {
    TORCH_CHECK(d >= -rank && d < rank, "dim ", d, " out of range for a ", self.dim(), "-d tensor");
    if (d < 0) d += rank;
  }
  std::sort(dims.begin(), dims.end(), std::greater<int64_t>());
  dims.erase(std::unique(dims.begin(), dims.end()), dims.end());
  at::Tensor result = self;
  for (int64_t d : dims) {
    if (self.dim() == 0 || self.size(d) != 1) continue;
    if (in_place) {
      result.squeeze_(d);
    } else {
      result = result.squeeze(d);
    }
  }
  return result;
}

Results SqueezeDimsOp(const Stack& a) {
  return {SqueezeDims(a[0].toTensor(), a[1].toIntVector(), false)};
}
Results SqueezeDimsInPlace(const Stack& a) {
  return {SqueezeDims(a[0].toTensor(), a[1].toIntVector(), true)};
}
Results SqueezeCopyDims(const Stack& a) {
  return {SqueezeDims(a[0].toTensor(), a[1].toIntVector(), false).clone()};
}

// Export-time checks that PyTorch keeps in the graph; checked here too.
Results AssertTensorMetadata(const Stack& a) {
  at::Tensor tensor = a[0].toTensor();
  if (!a[1].isNone()) {
    std::vector<int64_t> sizes = a[1].toIntVector();
    TORCH_CHECK(tensor.sizes() == at::IntArrayRef(sizes), "tensor has sizes ", tensor.sizes(),
                ", the graph asserts ", at::IntArrayRef(sizes));
  }
  if (!a[3].isNone()) {
    TORCH_CHECK(tensor.scalar_type() == static_cast<at::ScalarType>(a[3].toInt()),
                "tensor has dtype ", tensor.scalar_type(), ", the graph asserts ",
                static_cast<at::ScalarType>(a[3].toInt()));
  }
  return {};
}

Results AssertScalar(const Stack& a) {
  TORCH_CHECK(a[0].toScalar().toBool(), "assertion failed: ", a[1].toStringRef());
  return {};
}

Results AssertAsyncMsg(const Stack& a) {
  TORCH_CHECK(a[0].toTensor().is_nonzero(), "assertion failed: ", a[1].toStringRef());
  return {};
}

Results NoResults(const Stack&) { return {}; }

c10::List<c10::optional<at::Tensor>> OptionalTensorList(const c10::IValue& value) {
  return value.toOptionalTensorList();
}

Results UnsafeIndex(const Stack& a) {
  return {at::index(a[0].toTensor(), OptionalTensorList(a[1]))};
}

Results UnsafeIndexPut(const Stack& a) {
  return {at::index_put(a[0].toTensor(), OptionalTensorList(a[1]), a[2].toTensor(), a[3].toBool())};
}

// where(mask, self[clamped indices], fill): out-of-range indices are clamped
// because the mask hides what they select.
Results UnsafeMaskedIndex(const Stack& a) {
  at::Tensor self = a[0].toTensor();
  c10::List<c10::optional<at::Tensor>> indices = OptionalTensorList(a[2]);
  c10::List<c10::optional<at::Tensor>> clamped;
  for (size_t i = 0; i < indices.size(); ++i) {
    c10::optional<at::Tensor> index = indices.get(i);
    if (index && static_cast<int64_t>(i) < self.dim()) {
      const int64_t size = self.size(static_cast<int64_t>(i));
      clamped.push_back(index->clamp(-size, size - 1));
    } else {
      clamped.push_back(index);
    }
  }
  return {at::where(a[1].toTensor(), at::index(self, clamped), a[3].toScalar())};
}

// empty_permuted: a tensor whose memory is laid out in `physical_layout`
// order. Filled with zeros so that runs are reproducible.
Results EmptyPermuted(const Stack& a) {
  std::vector<int64_t> size = a[0].toIntVector();
  std::vector<int64_t> layout = a[1].toIntVector();
  TORCH_CHECK(size.size() == layout.size(), "physical_layout must have one entry per dim");
  std::vector<int64_t> physical_size(size.size());
  std::vector<int64_t> inverse(size.size());
  for (size_t i = 0; i < layout.size(); ++i) {
    TORCH_CHECK(layout[i] >= 0 && layout[i] < static_cast<int64_t>(size.size()),
                "physical_layout is not a permutation");
    physical_size[i] = size[static_cast<size_t>(layout[i])];
    inverse[static_cast<size_t>(layout[i])] = static_cast<int64_t>(i);
  }
  at::ScalarType dtype = OptionalScalarType(a[2]).value_or(at::get_default_dtype_as_scalartype());
  return {at::zeros(physical_size, at::TensorOptions().dtype(dtype)).permute(inverse)};
}

Results PreluKernel(const Stack& a) {
  at::Tensor self = a[0].toTensor();
  return {at::where(self > 0, self, a[1].toTensor() * self)};
}

const std::vector<Decomposition>& Table() {
  static const std::vector<Decomposition> table = {
      {"aten.scaled_dot_product_attention.default",
       "aten::scaled_dot_product_attention(Tensor query, Tensor key, Tensor value, "
       "Tensor? attn_mask=None, float dropout_p=0.0, bool is_causal=False, *, "
       "float? scale=None, bool enable_gqa=False) -> Tensor",
       ScaledDotProductAttention},
      {"aten._scaled_dot_product_flash_attention_for_cpu.default",
       "aten::_scaled_dot_product_flash_attention_for_cpu(Tensor query, Tensor key, "
       "Tensor value, float dropout_p=0.0, bool is_causal=False, *, Tensor? attn_mask=None, "
       "float? scale=None) -> (Tensor output, Tensor logsumexp)",
       FlashAttentionForCpu},
      {"aten._native_batch_norm_legit_no_training.default",
       "aten::_native_batch_norm_legit_no_training(Tensor input, Tensor? weight, "
       "Tensor? bias, Tensor running_mean, Tensor running_var, float momentum, float eps) "
       "-> (Tensor, Tensor, Tensor)",
       BatchNormNoTraining},
      {"aten._native_batch_norm_legit.default",
       "aten::_native_batch_norm_legit(Tensor input, Tensor? weight, Tensor? bias, "
       "Tensor(a!) running_mean, Tensor(b!) running_var, bool training, float momentum, "
       "float eps) -> (Tensor, Tensor, Tensor)",
       BatchNormLegit},
      {"aten._native_batch_norm_legit.no_stats",
       "aten::_native_batch_norm_legit.no_stats(Tensor input, Tensor? weight, Tensor? bias, "
       "bool training, float momentum, float eps) -> (Tensor, Tensor, Tensor)",
       BatchNormLegitNoStats},
      {"aten._native_batch_norm_legit_functional.default",
       "aten::_native_batch_norm_legit_functional(Tensor input, Tensor? weight, Tensor? bias, "
       "Tensor running_mean, Tensor running_var, bool training, float momentum, float eps) "
       "-> (Tensor, Tensor, Tensor, Tensor running_mean_out, Tensor running_var_out)",
       BatchNormLegitFunctional},
      {"aten.rms_norm.default",
       "aten::rms_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, "
       "float? eps=None) -> Tensor",
       RmsNorm},
      {"aten._safe_softmax.default",
       "aten::_safe_softmax(Tensor self, int dim, ScalarType? dtype=None) -> Tensor",
       SafeSoftmaxOp},
      {"aten.squeeze.dims", "aten::squeeze.dims(Tensor(a) self, int[] dim) -> Tensor(a)",
       SqueezeDimsOp},
      {"aten.squeeze_.dims", "aten::squeeze_.dims(Tensor(a!) self, int[] dim) -> Tensor(a!)",
       SqueezeDimsInPlace},
      {"aten.squeeze_copy.dims", "aten::squeeze_copy.dims(Tensor self, int[] dim) -> Tensor",
       SqueezeCopyDims},
      {"aten._assert_tensor_metadata.default",
       "aten::_assert_tensor_metadata(Tensor a, SymInt[]? size=None, SymInt[]? stride=None, "
       "ScalarType? dtype=None, *, Device? device=None, Layout? layout=None) -> ()",
       AssertTensorMetadata},
      {"aten._assert_scalar.default", "aten::_assert_scalar(Scalar self, str assert_msg) -> ()",
       AssertScalar},
      {"aten._assert_async.msg", "aten::_assert_async.msg(Tensor self, str assert_msg) -> ()",
       AssertAsyncMsg},
      {"aten.sym_constrain_range_for_size.default",
       "aten::sym_constrain_range_for_size(Scalar size, *, int? min=None, int? max=None) -> ()",
       NoResults},
      {"aten._unsafe_index.Tensor",
       "aten::_unsafe_index.Tensor(Tensor self, Tensor?[] indices) -> Tensor", UnsafeIndex},
      {"aten._unsafe_index_put.default",
       "aten::_unsafe_index_put(Tensor self, Tensor?[] indices, Tensor values, "
       "bool accumulate=False) -> Tensor",
       UnsafeIndexPut},
      {"aten._unsafe_masked_index.default",
       "aten::_unsafe_masked_index(Tensor self, Tensor mask, Tensor?[] indices, Scalar fill) "
       "-> Tensor",
       UnsafeMaskedIndex},
      {"aten.empty_permuted.default",
       "aten::empty_permuted(SymInt[] size, int[] physical_layout, *, ScalarType? dtype=None, "
       "Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
       EmptyPermuted},
      {"aten._prelu_kernel.default", "aten::_prelu_kernel(Tensor self, Tensor weight) -> Tensor",
       PreluKernel},
  };
  return table;
}

}  // namespace

const std::vector<Decomposition>& Decompositions() { return Table(); }

const Decomposition* FindDecomposition(std::string_view op) {
  for (const Decomposition& decomposition : Table()) {
    if (op == decomposition.op) return &decomposition;
  }
  return nullptr;
}

const c10::FunctionSchema& SchemaOf(const Decomposition& decomposition) {
  static std::mutex mutex;
  static std::map<const Decomposition*, c10::FunctionSchema> parsed;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = parsed.find(&decomposition);
  if (it == parsed.end()) {
    it = parsed.emplace(&decomposition, torch::jit::parseSchema(decomposition.schema)).first;
  }
  return it->second;
}

}  // namespace torchir::reference
