// The init-time argument checks every portable kernel's `check` function builds on. Each
// returns kOk, or logs what is wrong and returns the error: kInvalidProgram for a wrong
// argument count, kind or attribute value, kInvalidType for a dtype, kShapeMismatch for
// sizes, kNotSupported for a layout or rank the portable kernels do not handle.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/error.h"
#include "runtime/core/evalue.h"
#include "runtime/core/scalar_type.h"
#include "runtime/core/span.h"
#include "runtime/core/tensor.h"
#include "runtime/kernel/kernel.h"

namespace torchir::runtime::portable {

// A set of dtypes, as a bit mask over ScalarType.
class DTypeSet {
 public:
  constexpr DTypeSet() = default;
  template <typename... Rest>
  constexpr explicit DTypeSet(ScalarType first, Rest... rest)
      : bits_(((1u << static_cast<int>(first)) | ... | (1u << static_cast<int>(rest)))) {}
  static constexpr DTypeSet All() { return DTypeSet((1u << kNumScalarTypes) - 1); }

  constexpr bool Contains(ScalarType type) const {
    const int value = static_cast<int>(type);
    return IsValidScalarType(value) && ((bits_ >> value) & 1u) != 0;
  }

 private:
  constexpr explicit DTypeSet(uint32_t bits) : bits_(bits) {}
  uint32_t bits_ = 0;
};

inline constexpr DTypeSet kFloat32Only{ScalarType::kFloat32};
inline constexpr DTypeSet kBoolOnly{ScalarType::kBool};
// float32 and float64: the dtypes of the portable kernels that compute in floating point.
inline constexpr DTypeSet kFloatTypes{ScalarType::kFloat32, ScalarType::kFloat64};
inline constexpr DTypeSet kRealTypes{ScalarType::kFloat32, ScalarType::kFloat64, ScalarType::kInt32,
                                     ScalarType::kInt64};
inline constexpr DTypeSet kIndexTypes{ScalarType::kInt32, ScalarType::kInt64};
inline constexpr DTypeSet kAllTypes = DTypeSet::All();

// The kernel's arguments have the expected count and none is null.
Error CheckArgCount(KernelArgs args, size_t expected, const char* kernel);

// `tensor` is contiguous, has rank <= kMaxTensorRank and non-negative sizes
// whose non-zero product fits in int64_t (so strides computed from them never
// overflow, even for empty tensors), and a dtype in `dtypes`. `index` is its
// argument position, for the message.
Error CheckTensor(const Tensor& tensor, DTypeSet dtypes, const char* kernel, size_t index);

// args[i] is a tensor that passes CheckTensor.
Error CheckTensorOperand(KernelArgs args, size_t i, DTypeSet dtypes, const char* kernel);

// args[i] is None (an omitted optional operand) or a tensor as above.
Error CheckOptionalTensorOperand(KernelArgs args, size_t i, DTypeSet dtypes, const char* kernel);

// args[i] holds a value of kind `tag` (an attribute).
Error CheckAttributeKind(KernelArgs args, size_t i, EValue::Tag tag, const char* kernel);

// `b` has `a`'s dtype (no implicit promotion in Edge).
Error CheckSameDType(const Tensor& a, const Tensor& b, const char* kernel);

// `tensor`'s sizes are exactly `expected`.
Error CheckSizes(const Tensor& tensor, Span<const int64_t> expected, const char* kernel);

// A shape built on the stack by a check function: what an output's sizes must
// be. Appending past kMaxTensorRank marks it as matching no tensor.
class ExpectedShape {
 public:
  void Append(int64_t size) {
    if (rank_ < kMaxTensorRank) sizes_[rank_] = size;
    ++rank_;
  }
  bool Matches(const Tensor& t) const {
    if (rank_ > kMaxTensorRank || t.dim() != rank_) return false;
    for (size_t d = 0; d < rank_; ++d) {
      if (t.size(d) != sizes_[d]) return false;
    }
    return true;
  }

 private:
  int64_t sizes_[kMaxTensorRank] = {};
  size_t rank_ = 0;
};

// `out` has exactly the sizes `shape`.
Error CheckOutputShape(const Tensor& out, const ExpectedShape& shape, const char* kernel);

// The fused output clamp bounds of convolution and linear (args[min_index],
// args[max_index]) are doubles and not NaN: NaN bounds come from no activation and
// would make the clamp order-dependent.
Error CheckClampBounds(KernelArgs args, size_t min_index, size_t max_index, const char* kernel);

// The common shape of the elementwise unary kernels: args[0] is the input,
// args.back() the output, both with one dtype from `dtypes` and equal sizes;
// the caller checks the attributes in between (and the argument count).
Error CheckSameShapeUnary(KernelArgs args, DTypeSet dtypes, const char* kernel);

}  // namespace torchir::runtime::portable
