#include "runtime/kernels/portable/argument_checks.h"

#include <cmath>
#include <limits>

#include "runtime/core/result.h"

namespace torchir::runtime::portable {

Error CheckArgCount(KernelArgs args, size_t expected, const char* kernel) {
  TORCHIR_CHECK_OR_RETURN(args.size() == expected, Error::kInvalidProgram,
                          "%s: %zu arguments, expected %zu", kernel, args.size(), expected);
  for (EValue* arg : args) {
    TORCHIR_CHECK_OR_RETURN(arg != nullptr, Error::kInvalidProgram, "%s: null argument", kernel);
  }
  return Error::kOk;
}

Error CheckTensor(const Tensor& tensor, DTypeSet dtypes, const char* kernel, size_t index) {
  TORCHIR_CHECK_OR_RETURN(dtypes.Contains(tensor.scalar_type()), Error::kInvalidType,
                          "%s: argument %zu has unsupported dtype %s", kernel, index,
                          ScalarTypeName(tensor.scalar_type()));
  TORCHIR_CHECK_OR_RETURN(tensor.dim() <= kMaxTensorRank, Error::kNotSupported,
                          "%s: argument %zu has rank %zu, more than %zu", kernel, index,
                          tensor.dim(), kMaxTensorRank);
  Span<const uint8_t> order = tensor.dim_order();
  TORCHIR_CHECK_OR_RETURN(order.empty() || order.size() == tensor.dim(), Error::kInvalidProgram,
                          "%s: argument %zu has a dim order of the wrong length", kernel, index);
  for (size_t d = 0; d < order.size(); ++d) {
    TORCHIR_CHECK_OR_RETURN(order[d] == d, Error::kNotSupported,
                            "%s: argument %zu is not contiguous", kernel, index);
  }
  int64_t product = 1;
  for (int64_t size : tensor.sizes()) {
    TORCHIR_CHECK_OR_RETURN(size >= 0, Error::kInvalidProgram,
                            "%s: argument %zu has a negative size", kernel, index);
    if (size == 0) continue;
    TORCHIR_CHECK_OR_RETURN(!__builtin_mul_overflow(product, size, &product),
                            Error::kInvalidProgram, "%s: argument %zu has too many elements",
                            kernel, index);
  }
  return Error::kOk;
}

Error CheckTensorOperand(KernelArgs args, size_t i, DTypeSet dtypes, const char* kernel) {
  TORCHIR_CHECK_OR_RETURN(args[i]->is_tensor(), Error::kInvalidProgram,
                          "%s: argument %zu is not a tensor", kernel, i);
  return CheckTensor(args[i]->to_tensor(), dtypes, kernel, i);
}

Error CheckOptionalTensorOperand(KernelArgs args, size_t i, DTypeSet dtypes, const char* kernel) {
  if (args[i]->is_none()) return Error::kOk;
  return CheckTensorOperand(args, i, dtypes, kernel);
}

Error CheckAttributeKind(KernelArgs args, size_t i, EValue::Tag tag, const char* kernel) {
  TORCHIR_CHECK_OR_RETURN(args[i]->tag() == tag, Error::kInvalidProgram,
                          "%s: argument %zu is not of the attribute's kind", kernel, i);
  return Error::kOk;
}

Error CheckSameDType(const Tensor& a, const Tensor& b, const char* kernel) {
  TORCHIR_CHECK_OR_RETURN(a.scalar_type() == b.scalar_type(), Error::kInvalidType,
                          "%s: dtypes %s and %s differ", kernel, ScalarTypeName(a.scalar_type()),
                          ScalarTypeName(b.scalar_type()));
  return Error::kOk;
}

Error CheckSizes(const Tensor& tensor, Span<const int64_t> expected, const char* kernel) {
  bool equal = tensor.dim() == expected.size();
  for (size_t d = 0; equal && d < expected.size(); ++d) equal = tensor.size(d) == expected[d];
  TORCHIR_CHECK_OR_RETURN(equal, Error::kShapeMismatch,
                          "%s: the output's recorded sizes are not the ones the op computes",
                          kernel);
  return Error::kOk;
}

Error CheckOutputShape(const Tensor& out, const ExpectedShape& shape, const char* kernel) {
  TORCHIR_CHECK_OR_RETURN(shape.Matches(out), Error::kShapeMismatch,
                          "%s: output sizes differ from what the inputs imply", kernel);
  return Error::kOk;
}

Error CheckClampBounds(KernelArgs args, size_t min_index, size_t max_index, const char* kernel) {
  TORCHIR_RETURN_IF_ERROR(CheckAttributeKind(args, min_index, EValue::Tag::kDouble, kernel));
  TORCHIR_RETURN_IF_ERROR(CheckAttributeKind(args, max_index, EValue::Tag::kDouble, kernel));
  TORCHIR_CHECK_OR_RETURN(
      !std::isnan(args[min_index]->to_double()) && !std::isnan(args[max_index]->to_double()),
      Error::kInvalidProgram, "%s: output clamp bounds must not be NaN", kernel);
  return Error::kOk;
}

Error CheckSameShapeUnary(KernelArgs args, DTypeSet dtypes, const char* kernel) {
  const size_t out = args.size() - 1;
  TORCHIR_RETURN_IF_ERROR(CheckTensorOperand(args, 0, dtypes, kernel));
  TORCHIR_RETURN_IF_ERROR(CheckTensorOperand(args, out, dtypes, kernel));
  const Tensor& input = args[0]->to_tensor();
  const Tensor& output = args[out]->to_tensor();
  TORCHIR_RETURN_IF_ERROR(CheckSameDType(input, output, kernel));
  return CheckSizes(output, input.sizes(), kernel);
}

}  // namespace torchir::runtime::portable
