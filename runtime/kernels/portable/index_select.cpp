// edge.index_select: out[..., j, ...] = input[..., index[j], ...] along dim.
// The index values are data, so run checks them (the only check at run).
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "runtime/core/result.h"
#include "runtime/kernels/portable/argument_checks.h"
#include "runtime/kernels/portable/kernels.h"
#include "runtime/kernels/portable/strided_copy.h"

namespace torchir::runtime::portable {
namespace {

// Gathers `outer` x `count` blocks of `inner` words. Each index is checked as it is read:
// a program's plan may place `out` over `index`, so the values checked before can change
// while `out` is written. False (and a partial output) when one is outside [0, input_dim).
template <typename Word, typename Index>
bool Gather(const Word* input, const Index* index, Word* out, int64_t outer, int64_t count,
            int64_t input_dim, int64_t inner) {
  for (int64_t o = 0; o < outer; ++o) {
    const Word* slab = input + o * input_dim * inner;
    for (int64_t j = 0; j < count; ++j, out += inner) {
      const Index i = index[j];
      if (i < 0 || static_cast<int64_t>(i) >= input_dim) return false;
      const Word* row = slab + static_cast<int64_t>(i) * inner;
      for (int64_t k = 0; k < inner; ++k) out[k] = row[k];
    }
  }
  return true;
}

// Every index lies in [0, limit); negative ones are refused, as in PyTorch.
template <typename Index>
bool IndicesInRange(const Index* index, int64_t count, int64_t limit) {
  for (int64_t j = 0; j < count; ++j) {
    if (index[j] < 0 || static_cast<int64_t>(index[j]) >= limit) return false;
  }
  return true;
}

}  // namespace

Error CheckIndexSelect(KernelArgs args) {
  TORCHIR_RETURN_IF_ERROR(CheckArgCount(args, 4, "index_select"));
  TORCHIR_RETURN_IF_ERROR(CheckTensorOperand(args, 0, kAllTypes, "index_select"));
  TORCHIR_RETURN_IF_ERROR(CheckTensorOperand(args, 1, kIndexTypes, "index_select"));
  TORCHIR_RETURN_IF_ERROR(CheckAttributeKind(args, 2, EValue::Tag::kInt, "index_select"));
  TORCHIR_RETURN_IF_ERROR(CheckTensorOperand(args, 3, kAllTypes, "index_select"));
  const Tensor& input = args[0]->to_tensor();
  const Tensor& index = args[1]->to_tensor();
  const Tensor& out = args[3]->to_tensor();
  TORCHIR_RETURN_IF_ERROR(CheckSameDType(input, out, "index_select"));
  const int64_t dim = args[2]->to_int();
  TORCHIR_CHECK_OR_RETURN(
      dim >= 0 && dim < static_cast<int64_t>(input.dim()), Error::kInvalidProgram,
      "index_select: dim %lld out of range for rank %zu", static_cast<long long>(dim), input.dim());
  TORCHIR_CHECK_OR_RETURN(index.dim() == 1, Error::kShapeMismatch,
                          "index_select: the index must be 1-d, it has rank %zu", index.dim());
  int64_t sizes[kMaxTensorRank];
  for (size_t d = 0; d < input.dim(); ++d) sizes[d] = input.size(d);
  sizes[dim] = index.size(0);
  return CheckSizes(out, Span<const int64_t>(sizes, input.dim()), "index_select");
}

Error RunIndexSelect(KernelContext&, KernelArgs args) {
  const Tensor& input = args[0]->to_tensor();
  const Tensor& index = args[1]->to_tensor();
  const Tensor& out = args[3]->to_tensor();
  const size_t dim = static_cast<size_t>(args[2]->to_int());
  int64_t outer = 1;
  int64_t inner = 1;
  for (size_t d = 0; d < dim; ++d) outer *= input.size(d);
  for (size_t d = dim + 1; d < input.dim(); ++d) inner *= input.size(d);
  const int64_t count = index.numel();
  const int64_t input_dim = input.size(dim);
  auto gather = [&](auto* index_data) -> Error {
    TORCHIR_CHECK_OR_RETURN(IndicesInRange(index_data, count, input_dim), Error::kIndexOutOfRange,
                            "index_select: an index is outside [0, %lld)",
                            static_cast<long long>(input_dim));
    if (out.numel() == 0) return Error::kOk;
    return tensor_ops::SwitchElementSize(out.element_size(), [&](auto* tag) {
      using Word = std::remove_pointer_t<decltype(tag)>;
      TORCHIR_CHECK_OR_RETURN(Gather(input.data_ptr<Word>(), index_data,
                                     out.mutable_data_ptr<Word>(), outer, count, input_dim, inner),
                              Error::kIndexOutOfRange,
                              "index_select: an index changed while the output was written "
                              "(the output overlaps the index)");
      return Error::kOk;
    });
  };
  if (index.scalar_type() == ScalarType::kInt32) return gather(index.data_ptr<int32_t>());
  return gather(index.data_ptr<int64_t>());
}

}  // namespace torchir::runtime::portable
