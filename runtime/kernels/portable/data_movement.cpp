// The shape kernels: reshape, permute, slice, concatenate and expand. Each
// describes its output as a strided view of its input(s) and hands the copy to
// strided_copy.h; they work on every dtype by element size.
#include <cstdint>
#include <cstring>

#include "runtime/core/result.h"
#include "runtime/kernels/portable/argument_checks.h"
#include "runtime/kernels/portable/kernels.h"
#include "runtime/kernels/portable/strided_copy.h"

namespace torchir::runtime::portable {
namespace {

using tensor_ops::CopyPlan;

// (input, one attribute of kind `tag`, out): tensors of any dtype, the same one.
Error CheckOneAttributeShapeOp(KernelArgs args, EValue::Tag tag, const char* kernel) {
  TORCHIR_RETURN_IF_ERROR(CheckArgCount(args, 3, kernel));
  TORCHIR_RETURN_IF_ERROR(CheckTensorOperand(args, 0, kAllTypes, kernel));
  TORCHIR_RETURN_IF_ERROR(CheckAttributeKind(args, 1, tag, kernel));
  TORCHIR_RETURN_IF_ERROR(CheckTensorOperand(args, 2, kAllTypes, kernel));
  return CheckSameDType(args[0]->to_tensor(), args[2]->to_tensor(), kernel);
}

// Slice's output length: elements start, start + step, ... below end.
int64_t SliceLength(int64_t start, int64_t end, int64_t step) {
  return end == start ? 0 : (end - start - 1) / step + 1;
}

}  // namespace

Error CheckReshape(KernelArgs args) {
  TORCHIR_RETURN_IF_ERROR(CheckOneAttributeShapeOp(args, EValue::Tag::kIntList, "reshape"));
  const Tensor& input = args[0]->to_tensor();
  const Tensor& out = args[2]->to_tensor();
  TORCHIR_RETURN_IF_ERROR(CheckSizes(out, args[1]->to_int_list(), "reshape"));
  TORCHIR_CHECK_OR_RETURN(out.numel() == input.numel(), Error::kShapeMismatch,
                          "reshape: %lld elements cannot become %lld",
                          static_cast<long long>(input.numel()),
                          static_cast<long long>(out.numel()));
  return Error::kOk;
}

// The planner may give the output the input's storage; then there is nothing
// to move.
Error RunReshape(KernelContext&, KernelArgs args) {
  const Tensor& input = args[0]->to_tensor();
  const Tensor& out = args[2]->to_tensor();
  if (out.data() != input.data() && input.nbytes() > 0) {
    std::memmove(out.mutable_data(), input.data(), input.nbytes());
  }
  return Error::kOk;
}

Error CheckPermute(KernelArgs args) {
  TORCHIR_RETURN_IF_ERROR(CheckOneAttributeShapeOp(args, EValue::Tag::kIntList, "permute"));
  const Tensor& input = args[0]->to_tensor();
  Span<const int64_t> dims = args[1]->to_int_list();
  TORCHIR_CHECK_OR_RETURN(dims.size() == input.dim(), Error::kInvalidProgram,
                          "permute: %zu dims for a rank-%zu input", dims.size(), input.dim());
  bool seen[kMaxTensorRank] = {};
  int64_t sizes[kMaxTensorRank];
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t d = dims[i];
    TORCHIR_CHECK_OR_RETURN(d >= 0 && d < static_cast<int64_t>(dims.size()) && !seen[d],
                            Error::kInvalidProgram, "permute: dims is not a permutation");
    seen[d] = true;
    sizes[i] = input.size(static_cast<size_t>(d));
  }
  return CheckSizes(args[2]->to_tensor(), Span<const int64_t>(sizes, dims.size()), "permute");
}

Error RunPermute(KernelContext&, KernelArgs args) {
  const Tensor& input = args[0]->to_tensor();
  const Tensor& out = args[2]->to_tensor();
  Span<const int64_t> dims = args[1]->to_int_list();
  int64_t input_strides[kMaxTensorRank];
  int64_t out_strides[kMaxTensorRank];
  int64_t src_strides[kMaxTensorRank];
  tensor_ops::ContiguousStrides(input.sizes(), input_strides);
  tensor_ops::ContiguousStrides(out.sizes(), out_strides);
  for (size_t i = 0; i < dims.size(); ++i) src_strides[i] = input_strides[dims[i]];
  const CopyPlan plan =
      tensor_ops::MakeCopyPlan(out.dim(), out.sizes().data(), out_strides, src_strides);
  return tensor_ops::CopyBlock(plan, out.element_size(), out.mutable_data(), 0, input.data(), 0);
}

Error CheckSlice(KernelArgs args) {
  TORCHIR_RETURN_IF_ERROR(CheckArgCount(args, 6, "slice"));
  TORCHIR_RETURN_IF_ERROR(CheckTensorOperand(args, 0, kAllTypes, "slice"));
  for (size_t i = 1; i <= 4; ++i) {
    TORCHIR_RETURN_IF_ERROR(CheckAttributeKind(args, i, EValue::Tag::kInt, "slice"));
  }
  TORCHIR_RETURN_IF_ERROR(CheckTensorOperand(args, 5, kAllTypes, "slice"));
  const Tensor& input = args[0]->to_tensor();
  const Tensor& out = args[5]->to_tensor();
  TORCHIR_RETURN_IF_ERROR(CheckSameDType(input, out, "slice"));
  const int64_t dim = args[1]->to_int();
  const int64_t start = args[2]->to_int();
  const int64_t end = args[3]->to_int();
  const int64_t step = args[4]->to_int();
  TORCHIR_CHECK_OR_RETURN(dim >= 0 && dim < static_cast<int64_t>(input.dim()),
                          Error::kInvalidProgram, "slice: dim %lld out of range for rank %zu",
                          static_cast<long long>(dim), input.dim());
  const int64_t size = input.size(static_cast<size_t>(dim));
  TORCHIR_CHECK_OR_RETURN(step >= 1 && start >= 0 && start <= end && end <= size,
                          Error::kInvalidProgram,
                          "slice: [%lld:%lld:%lld] must satisfy 0 <= start <= end <= %lld, "
                          "step >= 1",
                          static_cast<long long>(start), static_cast<long long>(end),
                          static_cast<long long>(step), static_cast<long long>(size));
  int64_t sizes[kMaxTensorRank];
  for (size_t d = 0; d < input.dim(); ++d) sizes[d] = input.size(d);
  sizes[dim] = SliceLength(start, end, step);
  return CheckSizes(out, Span<const int64_t>(sizes, input.dim()), "slice");
}

Error RunSlice(KernelContext&, KernelArgs args) {
  const Tensor& input = args[0]->to_tensor();
  const Tensor& out = args[5]->to_tensor();
  const size_t dim = static_cast<size_t>(args[1]->to_int());
  const int64_t start = args[2]->to_int();
  const int64_t step = args[4]->to_int();
  int64_t src_strides[kMaxTensorRank];
  int64_t out_strides[kMaxTensorRank];
  tensor_ops::ContiguousStrides(input.sizes(), src_strides);
  tensor_ops::ContiguousStrides(out.sizes(), out_strides);
  const int64_t start_offset = start * src_strides[dim];  // start < size: no overflow
  // A step past the end is never taken; leaving it out keeps the product in range.
  src_strides[dim] = out.size(dim) > 1 ? src_strides[dim] * step : 0;
  const CopyPlan plan =
      tensor_ops::MakeCopyPlan(out.dim(), out.sizes().data(), out_strides, src_strides);
  return tensor_ops::CopyBlock(plan, out.element_size(), out.mutable_data(), 0, input.data(),
                               start_offset);
}

Error CheckConcatenate(KernelArgs args) {
  TORCHIR_RETURN_IF_ERROR(CheckArgCount(args, 3, "concatenate"));
  TORCHIR_CHECK_OR_RETURN(args[0]->is_tensor_list() && !args[0]->to_tensor_list().empty(),
                          Error::kInvalidProgram,
                          "concatenate: argument 0 is not a non-empty tensor list");
  TORCHIR_RETURN_IF_ERROR(CheckAttributeKind(args, 1, EValue::Tag::kInt, "concatenate"));
  TORCHIR_RETURN_IF_ERROR(CheckTensorOperand(args, 2, kAllTypes, "concatenate"));
  Span<Tensor* const> tensors = args[0]->to_tensor_list();
  const Tensor& out = args[2]->to_tensor();
  for (const Tensor* tensor : tensors) {
    TORCHIR_CHECK_OR_RETURN(tensor != nullptr, Error::kInvalidProgram,
                            "concatenate: a null tensor in the list");
    TORCHIR_RETURN_IF_ERROR(CheckTensor(*tensor, kAllTypes, "concatenate", 0));
    TORCHIR_RETURN_IF_ERROR(CheckSameDType(*tensor, out, "concatenate"));
  }
  const Tensor& first = *tensors[0];
  const int64_t dim = args[1]->to_int();
  // 0-d tensors have no dim to join along (PyTorch refuses them too).
  TORCHIR_CHECK_OR_RETURN(dim >= 0 && dim < static_cast<int64_t>(first.dim()),
                          Error::kInvalidProgram, "concatenate: dim %lld out of range for rank %zu",
                          static_cast<long long>(dim), first.dim());
  int64_t sizes[kMaxTensorRank];
  for (size_t d = 0; d < first.dim(); ++d) sizes[d] = first.size(d);
  for (size_t i = 1; i < tensors.size(); ++i) {
    const Tensor& next = *tensors[i];
    bool fits = next.dim() == first.dim();
    for (size_t d = 0; fits && d < first.dim(); ++d) {
      fits = d == static_cast<size_t>(dim) || next.size(d) == first.size(d);
    }
    TORCHIR_CHECK_OR_RETURN(fits, Error::kShapeMismatch,
                            "concatenate: input %zu does not fit the first along dim %lld", i,
                            static_cast<long long>(dim));
    TORCHIR_CHECK_OR_RETURN(!__builtin_add_overflow(sizes[dim], next.size(dim), &sizes[dim]),
                            Error::kShapeMismatch, "concatenate: the output size overflows");
  }
  return CheckSizes(out, Span<const int64_t>(sizes, first.dim()), "concatenate");
}

// Each input lands in a slab of the output along dim.
Error RunConcatenate(KernelContext&, KernelArgs args) {
  Span<Tensor* const> tensors = args[0]->to_tensor_list();
  const size_t dim = static_cast<size_t>(args[1]->to_int());
  const Tensor& out = args[2]->to_tensor();
  int64_t out_strides[kMaxTensorRank];
  int64_t src_strides[kMaxTensorRank];
  tensor_ops::ContiguousStrides(out.sizes(), out_strides);
  int64_t position = 0;
  for (const Tensor* tensor : tensors) {
    tensor_ops::ContiguousStrides(tensor->sizes(), src_strides);
    const CopyPlan plan =
        tensor_ops::MakeCopyPlan(tensor->dim(), tensor->sizes().data(), out_strides, src_strides);
    TORCHIR_RETURN_IF_ERROR(tensor_ops::CopyBlock(plan, out.element_size(), out.mutable_data(),
                                                  position * out_strides[dim], tensor->data(), 0));
    position += tensor->size(dim);
  }
  return Error::kOk;
}

Error CheckExpand(KernelArgs args) {
  TORCHIR_RETURN_IF_ERROR(CheckOneAttributeShapeOp(args, EValue::Tag::kIntList, "expand"));
  const Tensor& input = args[0]->to_tensor();
  Span<const int64_t> sizes = args[1]->to_int_list();
  TORCHIR_RETURN_IF_ERROR(CheckSizes(args[2]->to_tensor(), sizes, "expand"));
  TORCHIR_CHECK_OR_RETURN(sizes.size() >= input.dim(), Error::kShapeMismatch,
                          "expand: %zu sizes for a rank-%zu input", sizes.size(), input.dim());
  const size_t leading = sizes.size() - input.dim();
  for (size_t d = 0; d < input.dim(); ++d) {
    const int64_t from = input.size(d);
    TORCHIR_CHECK_OR_RETURN(from == 1 || from == sizes[leading + d], Error::kShapeMismatch,
                            "expand: input dim %zu of size %lld cannot become %lld", d,
                            static_cast<long long>(from),
                            static_cast<long long>(sizes[leading + d]));
  }
  return Error::kOk;
}

// New leading dims and size-1 dims repeat the input: source stride 0.
Error RunExpand(KernelContext&, KernelArgs args) {
  const Tensor& input = args[0]->to_tensor();
  const Tensor& out = args[2]->to_tensor();
  int64_t input_strides[kMaxTensorRank];
  int64_t out_strides[kMaxTensorRank];
  int64_t src_strides[kMaxTensorRank] = {};
  tensor_ops::ContiguousStrides(input.sizes(), input_strides);
  tensor_ops::ContiguousStrides(out.sizes(), out_strides);
  const size_t leading = out.dim() - input.dim();
  for (size_t d = 0; d < input.dim(); ++d) {
    src_strides[leading + d] = input.size(d) == 1 ? 0 : input_strides[d];
  }
  const CopyPlan plan =
      tensor_ops::MakeCopyPlan(out.dim(), out.sizes().data(), out_strides, src_strides);
  return tensor_ops::CopyBlock(plan, out.element_size(), out.mutable_data(), 0, input.data(), 0);
}

}  // namespace torchir::runtime::portable
