// edge.constant_pad: pad pairs (before, after) apply to the innermost dims
// first; a negative entry crops. The output is the value everywhere, then the
// part of the input that survives the crops is copied to its place.
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "runtime/core/result.h"
#include "runtime/kernels/portable/argument_checks.h"
#include "runtime/kernels/portable/kernel_util.h"
#include "runtime/kernels/portable/kernels.h"
#include "runtime/kernels/portable/strided_copy.h"

namespace torchir::runtime::portable {
namespace {

// Whether `value` converts to T without overflow; integers truncate it, as
// PyTorch's fill does (which refuses the same values).
bool FitsDType(double value, ScalarType type) {
  switch (type) {
    case ScalarType::kFloat32:
      return !std::isfinite(value) || std::fabs(value) <= std::numeric_limits<float>::max();
    case ScalarType::kFloat64:
      return true;
    case ScalarType::kInt32:
      return std::trunc(value) >= -2147483648.0 && std::trunc(value) < 2147483648.0;
    case ScalarType::kInt64:
      return std::trunc(value) >= -9223372036854775808.0 &&
             std::trunc(value) < 9223372036854775808.0;
    default:
      return false;
  }
}

}  // namespace

Error CheckConstantPad(KernelArgs args) {
  TORCHIR_RETURN_IF_ERROR(CheckArgCount(args, 4, "constant_pad"));
  TORCHIR_RETURN_IF_ERROR(CheckTensorOperand(args, 0, kRealTypes, "constant_pad"));
  TORCHIR_RETURN_IF_ERROR(CheckAttributeKind(args, 1, EValue::Tag::kIntList, "constant_pad"));
  TORCHIR_RETURN_IF_ERROR(CheckAttributeKind(args, 2, EValue::Tag::kDouble, "constant_pad"));
  TORCHIR_RETURN_IF_ERROR(CheckTensorOperand(args, 3, kRealTypes, "constant_pad"));
  const Tensor& input = args[0]->to_tensor();
  const Tensor& out = args[3]->to_tensor();
  TORCHIR_RETURN_IF_ERROR(CheckSameDType(input, out, "constant_pad"));
  Span<const int64_t> pad = args[1]->to_int_list();
  TORCHIR_CHECK_OR_RETURN(pad.size() % 2 == 0 && pad.size() / 2 <= input.dim(),
                          Error::kInvalidProgram,
                          "constant_pad: %zu pad entries for a rank-%zu input; need a (before, "
                          "after) pair per padded dim",
                          pad.size(), input.dim());
  TORCHIR_CHECK_OR_RETURN(FitsDType(args[2]->to_double(), input.scalar_type()),
                          Error::kInvalidProgram, "constant_pad: value %g does not fit %s",
                          args[2]->to_double(), ScalarTypeName(input.scalar_type()));
  int64_t sizes[kMaxTensorRank];
  for (size_t d = 0; d < input.dim(); ++d) {
    int64_t before;
    int64_t after;
    PadsOf(pad, input.dim(), d, &before, &after);
    // Excluding INT64_MIN lets run negate a crop without overflow.
    const bool summed = before != std::numeric_limits<int64_t>::min() &&
                        !__builtin_add_overflow(input.size(d), before, &sizes[d]) &&
                        !__builtin_add_overflow(sizes[d], after, &sizes[d]);
    TORCHIR_CHECK_OR_RETURN(summed && sizes[d] >= 0, Error::kInvalidProgram,
                            "constant_pad: the pads of dim %zu leave no valid size", d);
  }
  return CheckSizes(out, Span<const int64_t>(sizes, input.dim()), "constant_pad");
}

Error RunConstantPad(KernelContext&, KernelArgs args) {
  const Tensor& input = args[0]->to_tensor();
  const Tensor& out = args[3]->to_tensor();
  if (out.numel() == 0) return Error::kOk;
  const double value = args[2]->to_double();
  auto fill = [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    const T typed_value = static_cast<T>(value);  // checked to fit at init
    T* data = out.mutable_data_ptr<T>();
    for (int64_t i = 0; i < out.numel(); ++i) data[i] = typed_value;
    return Error::kOk;
  };
  TORCHIR_RETURN_IF_ERROR(TORCHIR_SWITCH_REAL_TYPES(out.scalar_type(), "constant_pad", fill));
  // The surviving block: where it starts in the input and in the output.
  Span<const int64_t> pad = args[1]->to_int_list();
  int64_t input_strides[kMaxTensorRank];
  int64_t out_strides[kMaxTensorRank];
  int64_t lengths[kMaxTensorRank];
  tensor_ops::ContiguousStrides(input.sizes(), input_strides);
  tensor_ops::ContiguousStrides(out.sizes(), out_strides);
  int64_t src_offset = 0;
  int64_t dst_offset = 0;
  for (size_t d = 0; d < input.dim(); ++d) {
    int64_t before;
    int64_t after;
    PadsOf(pad, input.dim(), d, &before, &after);
    const int64_t input_start = before < 0 ? -before : 0;
    const int64_t out_start = before > 0 ? before : 0;
    const int64_t from_input = input.size(d) - input_start;
    const int64_t to_out = out.size(d) - out_start;
    lengths[d] = from_input < to_out ? from_input : to_out;
    if (lengths[d] <= 0) return Error::kOk;  // cropped away: padding only
    src_offset += input_start * input_strides[d];
    dst_offset += out_start * out_strides[d];
  }
  const tensor_ops::CopyPlan plan =
      tensor_ops::MakeCopyPlan(input.dim(), lengths, out_strides, input_strides);
  return tensor_ops::CopyBlock(plan, out.element_size(), out.mutable_data(), dst_offset,
                               input.data(), src_offset);
}

}  // namespace torchir::runtime::portable
