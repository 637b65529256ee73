// Broadcasting binary arithmetic and comparisons: the kernels of the list in binary_ops.h, one
// broadcast loop (elementwise_util.h) for all.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "runtime/core/result.h"
#include "runtime/kernels/portable/argument_checks.h"
#include "runtime/kernels/portable/elementwise_util.h"
#include "runtime/kernels/portable/kernel_util.h"
#include "runtime/kernels/portable/kernels.h"

namespace torchir::runtime::portable {
namespace {

using tensor_ops::BroadcastPlan;

// ---- Helpers of the list's formulas ----

template <typename T>
bool IsNaN(T x) {
  if constexpr (std::is_floating_point_v<T>) {
    return x != x;
  } else {
    return false;
  }
}

// op(a, b) on integers in unsigned arithmetic, which wraps around where signed overflow
// would be undefined; floats as they are.
template <typename T, typename Op>
T Wrapping(T a, T b, Op op) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(op(static_cast<U>(a), static_cast<U>(b))));
  } else {
    return op(a, b);
  }
}

// The C remainder, the dividend's sign; integer x % 0 gives 0 and x % -1 never overflows.
template <typename T>
T Fmod(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    return b == 0 || b == -1 ? T(0) : static_cast<T>(a % b);
  } else {
    return std::fmod(a, b);
  }
}

// Python's %, the divisor's sign (PyTorch's remainder).
template <typename T>
T Remainder(T a, T b) {
  T r = Fmod(a, b);
  if (r != 0 && (r < 0) != (b < 0)) r += b;
  return r;
}

// Python's //. Floats as PyTorch's div_floor: the quotient from fmod, rounded down, a zero
// divisor giving a / b; integers exactly, with INT_MIN // -1 wrapping and x // 0 giving 0.
template <typename T>
T FloorDivide(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    if (b == 0) return 0;
    if (b == -1) return Wrapping(T(0), a, [](auto x, auto y) { return x - y; });
    const T quotient = static_cast<T>(a / b);
    return (a % b != 0 && ((a < 0) != (b < 0))) ? static_cast<T>(quotient - 1) : quotient;
  } else {
    if (b == 0) return a / b;
    const T mod = std::fmod(a, b);
    T div = (a - mod) / b;
    if (mod != 0 && (b < 0) != (mod < 0)) div -= 1;
    if (div == 0) return std::copysign(T(0), a / b);
    T floored = std::floor(div);
    if (div - floored > T(0.5)) floored += 1;
    return floored;
  }
}

// A bool operand (uint8_t) as 0 or 1, whatever non-zero byte it holds; integers as they are.
template <typename T>
T AsBits(T x) {
  if constexpr (std::is_same_v<T, uint8_t>) {
    return x != 0 ? 1 : 0;
  } else {
    return x;
  }
}

// ---- The loops ----

// (self, other, out): operands of one dtype in `operands`, out of the same
// dtype or bool, sized to their broadcast shape.
Error CheckBinary(KernelArgs args, DTypeSet operands, bool bool_out, const char* kernel) {
  TORCHIR_RETURN_IF_ERROR(CheckArgCount(args, 3, kernel));
  for (size_t i = 0; i < 2; ++i) {
    TORCHIR_RETURN_IF_ERROR(CheckTensorOperand(args, i, operands, kernel));
  }
  TORCHIR_RETURN_IF_ERROR(CheckTensorOperand(args, 2, bool_out ? kBoolOnly : operands, kernel));
  const Tensor& self = args[0]->to_tensor();
  const Tensor& other = args[1]->to_tensor();
  const Tensor& out = args[2]->to_tensor();
  TORCHIR_RETURN_IF_ERROR(CheckSameDType(self, other, kernel));
  if (!bool_out) TORCHIR_RETURN_IF_ERROR(CheckSameDType(self, out, kernel));
  BroadcastPlan<2> plan;
  TORCHIR_CHECK_OR_RETURN(tensor_ops::PlanBroadcast(out, {&self, &other}, &plan),
                          Error::kShapeMismatch,
                          "%s: the output is not the broadcast shape of the operands", kernel);
  return Error::kOk;
}

// Runs `op` on T operands into an Out output.
template <typename T, typename Out, typename Op>
Error MapBinary(KernelArgs args, const Op& op) {
  const Tensor& self = args[0]->to_tensor();
  const Tensor& other = args[1]->to_tensor();
  const Tensor& out = args[2]->to_tensor();
  BroadcastPlan<2> plan;
  if (!tensor_ops::PlanBroadcast(out, {&self, &other}, &plan)) return Error::kInternal;
  if constexpr (std::is_same_v<T, double>) {
    // float64 takes the compact loop: every float64 op in the specialised one would add
    // ~17 KB to the portable runner for a dtype rarely on a hot path.
    tensor_ops::BroadcastMapCompact(plan, out.mutable_data_ptr<Out>(), op, self.data_ptr<T>(),
                                    other.data_ptr<T>());
  } else {
    tensor_ops::BroadcastMap(plan, out.mutable_data_ptr<Out>(), op, self.data_ptr<T>(),
                             other.data_ptr<T>());
  }
  return Error::kOk;
}

// out = op(self, other) for the dtype classes of elementwise_util.h; comparisons write bool
// as one byte, 0 or 1.
template <typename Types, bool kBoolOut, typename Op>
Error RunBinary(KernelArgs args, const char* kernel, const Op& op) {
  const ScalarType type = args[0]->to_tensor().scalar_type();
  const Error error = Types::Switch(type, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    return MapBinary<T, std::conditional_t<kBoolOut, uint8_t, T>>(args, op);
  });
  if (error == Error::kInvalidType) {
    Log(LogLevel::kError, "%s: unsupported dtype %s", kernel, ScalarTypeName(type));
  }
  return error;
}

}  // namespace

// ---- Checks, one per dtype class ----

Error CheckFloatBinary(KernelArgs args) {
  return CheckBinary(args, FloatTypes::kDTypes, /*bool_out=*/false, "float binary op");
}
Error CheckRealBinary(KernelArgs args) {
  return CheckBinary(args, RealTypes::kDTypes, /*bool_out=*/false, "binary op");
}
Error CheckBitsBinary(KernelArgs args) {
  return CheckBinary(args, BitsTypes::kDTypes, /*bool_out=*/false, "bitwise op");
}
Error CheckComparison(KernelArgs args) {
  return CheckBinary(args, RealTypes::kDTypes, /*bool_out=*/true, "comparison");
}

// ---- The list's run functions ----

#define TORCHIR_BINARY(name, dtypes, ...)                                           \
  Error RunBinary_##name(KernelContext&, KernelArgs args) {                         \
    return RunBinary<dtypes##Types, false>(args, #name, [](auto a, decltype(a) b) { \
      using T [[maybe_unused]] = decltype(a);                                       \
      return static_cast<T>(__VA_ARGS__);                                           \
    });                                                                             \
  }
#define TORCHIR_COMPARISON(name, ...)                                                         \
  Error RunBinary_##name(KernelContext&, KernelArgs args) {                                   \
    return RunBinary<RealTypes, true>(                                                        \
        args, #name, [](auto a, decltype(a) b) -> uint8_t { return (__VA_ARGS__) ? 1 : 0; }); \
  }
#include "runtime/kernels/portable/binary_ops.h"
#undef TORCHIR_COMPARISON
#undef TORCHIR_BINARY

}  // namespace torchir::runtime::portable
