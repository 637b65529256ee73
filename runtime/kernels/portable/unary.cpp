// Elementwise unary math and activations: the kernels of the list in unary_ops.h, one loop for
// all, plus gelu (a string attribute picks its formula).
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

using tensor_ops::MapElements;

// ---- Helpers of the list's formulas ----

// relu6(x + 3) with std::min/max, which (unlike fmin/fmax) keep a NaN as PyTorch does.
template <typename T>
T Relu6OfXPlus3(T x) {
  return std::min(std::max(x + T(3), T(0)), T(6));
}

// Integers negate in unsigned arithmetic: -INT_MIN wraps to INT_MIN as in
// PyTorch, where signed overflow would be undefined.
template <typename T>
T Neg(T x) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(std::make_unsigned_t<T>{0} - static_cast<std::make_unsigned_t<T>>(x));
  } else {
    return -x;
  }
}

template <typename T>
T Abs(T x) {
  if constexpr (std::is_integral_v<T>) {
    return x < 0 ? Neg(x) : x;
  } else {
    return std::fabs(x);
  }
}

// bool (uint8_t, 0 or 1) flips; integers flip every bit.
template <typename T>
T BitwiseNot(T x) {
  if constexpr (std::is_same_v<T, uint8_t>) {
    return x == 0 ? 1 : 0;
  } else {
    return static_cast<T>(~x);
  }
}

// ---- The loops ----

// out = op(input) over every element, for the dtype classes of elementwise_util.h. The output
// is the last argument.
template <typename Types, typename Op>
Error RunUnary(KernelArgs args, const char* kernel, const Op& op) {
  const Tensor& input = args[0]->to_tensor();
  const Tensor& out = args[args.size() - 1]->to_tensor();
  const Error error = Types::Switch(input.scalar_type(), [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    MapElements(out.mutable_data_ptr<T>(), input.data_ptr<T>(), input.numel(), op);
    return Error::kOk;
  });
  if (error != Error::kOk) {
    Log(LogLevel::kError, "%s: unsupported dtype %s", kernel, ScalarTypeName(input.scalar_type()));
  }
  return error;
}

// The attribute at argument `i` of a TORCHIR_UNARY_ATTRS kernel, 0 past the last one; the
// formula converts it to the input's type, as PyTorch converts a Scalar argument.
double Attribute(KernelArgs args, size_t i) {
  return i + 1 < args.size() ? args[i]->to_double() : 0.0;
}

Error CheckUnaryWithAttributes(KernelArgs args, size_t count, const char* kernel) {
  TORCHIR_RETURN_IF_ERROR(CheckArgCount(args, 2 + count, kernel));
  for (size_t i = 1; i <= count; ++i) {
    TORCHIR_RETURN_IF_ERROR(CheckAttributeKind(args, i, EValue::Tag::kDouble, kernel));
  }
  return CheckSameShapeUnary(args, FloatTypes::kDTypes, kernel);
}

// The constants are rounded to T, as in ATen's kernels for each dtype.
struct GeluErf {
  template <typename T>
  T operator()(T x) const {
    const T kSqrtHalf = static_cast<T>(0.70710678118654752440);
    return T(0.5) * x * (T(1) + std::erf(x * kSqrtHalf));
  }
};
struct GeluTanh {
  template <typename T>
  T operator()(T x) const {
    const T kSqrtTwoOverPi = static_cast<T>(0.79788456080286535588);
    const T kKappa = static_cast<T>(0.044715);
    return T(0.5) * x * (T(1) + std::tanh(kSqrtTwoOverPi * (x + kKappa * x * x * x)));
  }
};

// True for the two spellings PyTorch's gelu accepts.
bool IsGeluMode(Span<const char> text, const char* mode) {
  size_t i = 0;
  for (; i < text.size(); ++i) {
    if (mode[i] == '\0' || mode[i] != text[i]) return false;
  }
  return mode[i] == '\0';
}

}  // namespace

// ---- Checks, one per dtype class and attribute count ----

Error CheckFloatUnary(KernelArgs args) {
  TORCHIR_RETURN_IF_ERROR(CheckArgCount(args, 2, "unary float op"));
  return CheckSameShapeUnary(args, FloatTypes::kDTypes, "unary float op");
}

Error CheckRealUnary(KernelArgs args) {
  TORCHIR_RETURN_IF_ERROR(CheckArgCount(args, 2, "unary op"));
  return CheckSameShapeUnary(args, RealTypes::kDTypes, "unary op");
}

Error CheckBitsUnary(KernelArgs args) {
  TORCHIR_RETURN_IF_ERROR(CheckArgCount(args, 2, "unary bitwise op"));
  return CheckSameShapeUnary(args, BitsTypes::kDTypes, "unary bitwise op");
}

Error CheckFloatUnaryAttrs1(KernelArgs args) {
  return CheckUnaryWithAttributes(args, 1, "unary float op with 1 attribute");
}
Error CheckFloatUnaryAttrs2(KernelArgs args) {
  return CheckUnaryWithAttributes(args, 2, "unary float op with 2 attributes");
}
Error CheckFloatUnaryAttrs3(KernelArgs args) {
  return CheckUnaryWithAttributes(args, 3, "unary float op with 3 attributes");
}

// ---- The list's run functions ----

#define TORCHIR_UNARY(name, dtypes, ...)                     \
  Error RunUnary_##name(KernelContext&, KernelArgs args) {   \
    return RunUnary<dtypes##Types>(args, #name, [](auto x) { \
      using T [[maybe_unused]] = decltype(x);                \
      return static_cast<T>(__VA_ARGS__);                    \
    });                                                      \
  }
#define TORCHIR_UNARY_ATTRS(name, count, ...)                      \
  Error RunUnary_##name(KernelContext&, KernelArgs args) {         \
    const double d0 = Attribute(args, 1), d1 = Attribute(args, 2); \
    const double d2 = Attribute(args, 3);                          \
    return RunUnary<FloatTypes>(args, #name, [=](auto x) {         \
      using T = decltype(x);                                       \
      const T a0 = static_cast<T>(d0), a1 = static_cast<T>(d1);    \
      const T a2 = static_cast<T>(d2);                             \
      static_cast<void>(a0 + a1 + a2);                             \
      return static_cast<T>(__VA_ARGS__);                          \
    });                                                            \
  }
#include "runtime/kernels/portable/unary_ops.h"
#undef TORCHIR_UNARY_ATTRS
#undef TORCHIR_UNARY

// ---- gelu ----

Error CheckGelu(KernelArgs args) {
  TORCHIR_RETURN_IF_ERROR(CheckArgCount(args, 3, "gelu"));
  TORCHIR_RETURN_IF_ERROR(CheckAttributeKind(args, 1, EValue::Tag::kString, "gelu"));
  Span<const char> mode = args[1]->to_string();
  TORCHIR_CHECK_OR_RETURN(IsGeluMode(mode, "none") || IsGeluMode(mode, "tanh"),
                          Error::kInvalidProgram, "gelu: approximate must be 'none' or 'tanh'");
  return CheckSameShapeUnary(args, FloatTypes::kDTypes, "gelu");
}

Error RunGelu(KernelContext&, KernelArgs args) {
  if (IsGeluMode(args[1]->to_string(), "tanh"))
    return RunUnary<FloatTypes>(args, "gelu", GeluTanh());
  return RunUnary<FloatTypes>(args, "gelu", GeluErf());
}

// ---- prelu ----

namespace {

// The channel count prelu's weight may match: dim 1 (a 0-d or 1-d input has one channel).
int64_t PreluChannels(const Tensor& input) { return input.dim() >= 2 ? input.size(1) : 1; }

}  // namespace

Error CheckPrelu(KernelArgs args) {
  TORCHIR_RETURN_IF_ERROR(CheckArgCount(args, 3, "prelu"));
  TORCHIR_RETURN_IF_ERROR(CheckTensorOperand(args, 1, kFloat32Only, "prelu"));
  TORCHIR_RETURN_IF_ERROR(CheckSameShapeUnary(args, kFloat32Only, "prelu"));
  const Tensor& weight = args[1]->to_tensor();
  const int64_t channels = PreluChannels(args[0]->to_tensor());
  TORCHIR_CHECK_OR_RETURN(weight.dim() <= 1 && (weight.numel() == 1 || weight.numel() == channels),
                          Error::kShapeMismatch, "prelu: %lld weights for %lld channels",
                          (long long)weight.numel(), (long long)channels);
  return Error::kOk;
}

// x > 0 ? x : slope * x, like PyTorch (a NaN stays NaN).
Error RunPrelu(KernelContext&, KernelArgs args) {
  const Tensor& input = args[0]->to_tensor();
  const Tensor& weight = args[1]->to_tensor();
  const Tensor& out = args[2]->to_tensor();
  const float* x = input.data_ptr<float>();
  const float* slopes = weight.data_ptr<float>();
  float* y = out.mutable_data_ptr<float>();
  if (weight.numel() == 1) {
    const float slope = slopes[0];
    MapElements(y, x, input.numel(), [slope](float v) { return v > 0.0f ? v : slope * v; });
    return Error::kOk;
  }
  // One slope per channel of [outer, channels, inner] (rank >= 2 here).
  const int64_t channels = PreluChannels(input);
  const int64_t outer = input.size(0);
  const int64_t inner = SizeProduct(input, 2, input.dim());
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t c = 0; c < channels; ++c) {
      const float slope = slopes[c];
      const int64_t offset = (o * channels + c) * inner;
      MapElements(y + offset, x + offset, inner,
                  [slope](float v) { return v > 0.0f ? v : slope * v; });
    }
  }
  return Error::kOk;
}

}  // namespace torchir::runtime::portable
