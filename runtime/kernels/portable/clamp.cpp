// edge.clamp: relu, relu6, hardtanh and clamp lower to it, with +-inf bounds
// for an open side.
#include <cmath>
#include <limits>
#include <type_traits>

#include "runtime/core/result.h"
#include "runtime/kernels/portable/argument_checks.h"
#include "runtime/kernels/portable/elementwise_util.h"
#include "runtime/kernels/portable/kernel_util.h"
#include "runtime/kernels/portable/kernels.h"

namespace torchir::runtime::portable {
namespace {

// `bound` (already rounded to an integer, or +-inf) as a T, saturating: a bound
// outside T's range clamps nothing on its side.
template <typename T>
T SaturatingCast(double bound) {
  constexpr double kLowest = static_cast<double>(std::numeric_limits<T>::lowest());
  if (bound <= kLowest) return std::numeric_limits<T>::lowest();
  if (bound >= -kLowest) return std::numeric_limits<T>::max();  // 2^(bits-1) is exact
  return static_cast<T>(bound);
}

// The bounds in T: floats keep them (infinities never clamp); integer tensors
// clamp to the integers inside [min, max], as the reference does.
template <typename T>
struct Bounds {
  T low;
  T high;
  Bounds(double min, double max) {
    if constexpr (std::is_floating_point_v<T>) {
      low = static_cast<T>(min);
      high = static_cast<T>(max);
    } else {
      low = SaturatingCast<T>(std::ceil(min));
      high = SaturatingCast<T>(std::floor(max));
    }
  }
};

// max then min, as PyTorch: min > max yields max everywhere, and a NaN input
// fails both comparisons and stays NaN.
template <typename T>
struct ClampTo {
  T low;
  T high;
  T operator()(T x) const {
    const T raised = x < low ? low : x;
    return raised > high ? high : raised;
  }
};

}  // namespace

Error CheckClamp(KernelArgs args) {
  TORCHIR_RETURN_IF_ERROR(CheckArgCount(args, 4, "clamp"));
  TORCHIR_RETURN_IF_ERROR(CheckAttributeKind(args, 1, EValue::Tag::kDouble, "clamp"));
  TORCHIR_RETURN_IF_ERROR(CheckAttributeKind(args, 2, EValue::Tag::kDouble, "clamp"));
  TORCHIR_CHECK_OR_RETURN(!std::isnan(args[1]->to_double()) && !std::isnan(args[2]->to_double()),
                          Error::kInvalidProgram, "clamp: a bound is NaN");
  return CheckSameShapeUnary(args, kRealTypes, "clamp");
}

Error RunClamp(KernelContext&, KernelArgs args) {
  const Tensor& input = args[0]->to_tensor();
  const Tensor& out = args[3]->to_tensor();
  return TORCHIR_SWITCH_REAL_TYPES(input.scalar_type(), "clamp", [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    const Bounds<T> bounds(args[1]->to_double(), args[2]->to_double());
    tensor_ops::MapElements(out.mutable_data_ptr<T>(), input.data_ptr<T>(), input.numel(),
                            ClampTo<T>{bounds.low, bounds.high});
    return Error::kOk;
  });
}

}  // namespace torchir::runtime::portable
