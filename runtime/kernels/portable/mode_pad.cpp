// edge.pad: padding whose values come from the input itself. Pad pairs (before, after) apply to
// the innermost dims first, as for edge.constant_pad; every entry is >= 0. For an output index
// i of a padded dim of size n (i counts from -before):
//   reflect    mirror without repeating the edge: -1 -> 1, n -> n - 2 (needs before, after < n)
//   replicate  repeat the edge element: clamp(i, 0, n - 1) (needs n >= 1)
//   circular   wrap around: i mod n (needs before, after <= n)
// exactly as PyTorch's reflection_pad*, replication_pad* and F.pad(mode="circular"). Elements
// are copied as bytes, so every dtype works.
#include <cstdint>
#include <cstring>

#include "runtime/core/result.h"
#include "runtime/kernels/portable/argument_checks.h"
#include "runtime/kernels/portable/kernel_util.h"
#include "runtime/kernels/portable/kernels.h"
#include "runtime/kernels/portable/strided_copy.h"

namespace torchir::runtime::portable {
namespace {

enum class PadMode { kReflect, kReplicate, kCircular, kUnknown };

PadMode ParseMode(Span<const char> text) {
  auto is = [&](const char* name) {
    return text.size() == std::strlen(name) && std::memcmp(text.data(), name, text.size()) == 0;
  };
  if (is("reflect")) return PadMode::kReflect;
  if (is("replicate")) return PadMode::kReplicate;
  if (is("circular")) return PadMode::kCircular;
  return PadMode::kUnknown;
}

// The input index that output index `i` (counting from -before) reads; Check guarantees
// 0 <= result < n.
int64_t SourceIndex(int64_t i, int64_t n, PadMode mode) {
  switch (mode) {
    case PadMode::kReflect:
      if (i < 0) return -i;
      if (i >= n) return 2 * (n - 1) - i;
      return i;
    case PadMode::kReplicate:
      return i < 0 ? 0 : (i >= n ? n - 1 : i);
    default:  // circular
      return ((i % n) + n) % n;
  }
}

}  // namespace

Error CheckModePad(KernelArgs args) {
  TORCHIR_RETURN_IF_ERROR(CheckArgCount(args, 4, "pad"));
  TORCHIR_RETURN_IF_ERROR(CheckTensorOperand(args, 0, kAllTypes, "pad"));
  TORCHIR_RETURN_IF_ERROR(CheckAttributeKind(args, 1, EValue::Tag::kIntList, "pad"));
  TORCHIR_RETURN_IF_ERROR(CheckAttributeKind(args, 2, EValue::Tag::kString, "pad"));
  TORCHIR_RETURN_IF_ERROR(CheckTensorOperand(args, 3, kAllTypes, "pad"));
  const Tensor& input = args[0]->to_tensor();
  const Tensor& out = args[3]->to_tensor();
  TORCHIR_RETURN_IF_ERROR(CheckSameDType(input, out, "pad"));
  const PadMode mode = ParseMode(args[2]->to_string());
  TORCHIR_CHECK_OR_RETURN(mode != PadMode::kUnknown, Error::kInvalidProgram,
                          "pad: mode must be 'reflect', 'replicate' or 'circular'");
  Span<const int64_t> pad = args[1]->to_int_list();
  TORCHIR_CHECK_OR_RETURN(pad.size() % 2 == 0 && pad.size() / 2 <= input.dim(),
                          Error::kInvalidProgram,
                          "pad: %zu pad entries for a rank-%zu input; need a (before, after) pair "
                          "per padded dim",
                          pad.size(), input.dim());
  int64_t sizes[kMaxTensorRank];
  for (size_t d = 0; d < input.dim(); ++d) {
    int64_t before;
    int64_t after;
    PadsOf(pad, input.dim(), d, &before, &after);
    const int64_t n = input.size(d);
    const bool padded = before != 0 || after != 0;
    const int64_t limit = mode == PadMode::kReflect ? n - 1 : n;  // largest pad allowed
    TORCHIR_CHECK_OR_RETURN(
        before >= 0 && after >= 0 && (!padded || (n >= 1 && (mode == PadMode::kReplicate ||
                                                            (before <= limit && after <= limit)))),
        Error::kInvalidProgram, "pad: pads (%lld, %lld) of dim %zu (size %lld) do not fit mode %s",
        static_cast<long long>(before), static_cast<long long>(after), d,
        static_cast<long long>(n),
        mode == PadMode::kReflect ? "reflect" : (mode == PadMode::kReplicate ? "replicate"
                                                                             : "circular"));
    TORCHIR_CHECK_OR_RETURN(!__builtin_add_overflow(n, before, &sizes[d]) &&
                                !__builtin_add_overflow(sizes[d], after, &sizes[d]),
                            Error::kInvalidProgram, "pad: the pads of dim %zu overflow", d);
  }
  return CheckSizes(out, Span<const int64_t>(sizes, input.dim()), "pad");
}

Error RunModePad(KernelContext&, KernelArgs args) {
  const Tensor& input = args[0]->to_tensor();
  const Tensor& out = args[3]->to_tensor();
  if (out.numel() == 0) return Error::kOk;
  const PadMode mode = ParseMode(args[2]->to_string());
  Span<const int64_t> pad = args[1]->to_int_list();
  const size_t rank = input.dim();
  const size_t element = out.element_size();
  int64_t input_strides[kMaxTensorRank];
  int64_t before[kMaxTensorRank];
  tensor_ops::ContiguousStrides(input.sizes(), input_strides);
  for (size_t d = 0; d < rank; ++d) {
    int64_t after;
    PadsOf(pad, rank, d, &before[d], &after);
  }
  // Walk the output in order with a multi-index; each element reads one input element.
  int64_t index[kMaxTensorRank] = {};
  const auto* src = static_cast<const uint8_t*>(input.data());
  auto* dst = static_cast<uint8_t*>(out.mutable_data());
  for (int64_t o = 0; o < out.numel(); ++o) {
    int64_t offset = 0;
    for (size_t d = 0; d < rank; ++d) {
      offset += SourceIndex(index[d] - before[d], input.size(d), mode) * input_strides[d];
    }
    std::memcpy(dst + o * element, src + offset * element, element);
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < out.size(d)) break;
      index[d] = 0;
    }
  }
  return Error::kOk;
}

}  // namespace torchir::runtime::portable
