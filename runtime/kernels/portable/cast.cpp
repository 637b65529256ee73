// edge.cast: every pair of the 17 dtypes, with the conversions PyTorch (c10's
// static_cast_with_inter_type) performs:
//   - complex to real keeps the real part; real to complex has imaginary 0;
//   - anything to bool is `value != 0` (NaN is true), for complex either part (torch >= 2.x;
//     1.13 looked at the real part only); bool is 0 or 1;
//   - float16, bfloat16 and float8 go through float32 both ways (so float64 and
//     int64 sources round twice, like c10's Half(float) constructor);
//   - floating to integer truncates toward zero. Out-of-range values and NaN
//     are undefined behaviour in C++ and so in PyTorch; we pin what PyTorch
//     computes on x86-64 so every platform gives the same bytes: int32 and
//     int64 get their most negative value, int8/int16/uint16 wrap the int32
//     result, uint8/uint32 wrap the int64 result, uint64 converts values in
//     [2^63, 2^64) directly and wraps the int64 result otherwise;
//   - integer to integer wraps (two's complement).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "runtime/core/result.h"
#include "runtime/kernels/portable/argument_checks.h"
#include "runtime/kernels/portable/kernels.h"
#include "runtime/kernels/portable/reduced_float.h"

namespace torchir::runtime::portable {
namespace {

using tensor_ops::FloatFormat;

// Storage types for the dtypes C++ has no arithmetic type for.
struct Float16 {
  uint16_t bits;
  static constexpr FloatFormat kFormat = tensor_ops::kFloat16Format;
};
struct BFloat16 {
  uint16_t bits;
  static constexpr FloatFormat kFormat = tensor_ops::kBFloat16Format;
};
struct Float8E4M3FN {
  uint8_t bits;
  static constexpr FloatFormat kFormat = tensor_ops::kFloat8E4M3FNFormat;
};
struct Float8E5M2 {
  uint8_t bits;
  static constexpr FloatFormat kFormat = tensor_ops::kFloat8E5M2Format;
};
// Read as a byte: a program's bool constant may hold any value, and loading a
// C++ bool that is not 0 or 1 is undefined.
struct BoolByte {
  uint8_t value;
};
template <typename T>
struct Complex {
  T real;
  T imag;
};

template <typename T>
constexpr bool kIsNarrowFloat = std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16> ||
                                std::is_same_v<T, Float8E4M3FN> || std::is_same_v<T, Float8E5M2>;
template <typename T>
struct IsComplex : std::false_type {};
template <typename T>
struct IsComplex<Complex<T>> : std::true_type {};

// Calls fn with a null pointer of `type`'s storage type.
template <typename Fn>
Error SwitchAllTypes(ScalarType type, Fn&& fn) {
  switch (type) {
    case ScalarType::kFloat32:
      return fn(static_cast<float*>(nullptr));
    case ScalarType::kFloat64:
      return fn(static_cast<double*>(nullptr));
    case ScalarType::kFloat16:
      return fn(static_cast<Float16*>(nullptr));
    case ScalarType::kBFloat16:
      return fn(static_cast<BFloat16*>(nullptr));
    case ScalarType::kInt8:
      return fn(static_cast<int8_t*>(nullptr));
    case ScalarType::kInt16:
      return fn(static_cast<int16_t*>(nullptr));
    case ScalarType::kInt32:
      return fn(static_cast<int32_t*>(nullptr));
    case ScalarType::kInt64:
      return fn(static_cast<int64_t*>(nullptr));
    case ScalarType::kUInt8:
      return fn(static_cast<uint8_t*>(nullptr));
    case ScalarType::kBool:
      return fn(static_cast<BoolByte*>(nullptr));
    case ScalarType::kComplex64:
      return fn(static_cast<Complex<float>*>(nullptr));
    case ScalarType::kComplex128:
      return fn(static_cast<Complex<double>*>(nullptr));
    case ScalarType::kUInt16:
      return fn(static_cast<uint16_t*>(nullptr));
    case ScalarType::kUInt32:
      return fn(static_cast<uint32_t*>(nullptr));
    case ScalarType::kUInt64:
      return fn(static_cast<uint64_t*>(nullptr));
    case ScalarType::kFloat8E4M3FN:
      return fn(static_cast<Float8E4M3FN*>(nullptr));
    case ScalarType::kFloat8E5M2:
      return fn(static_cast<Float8E5M2*>(nullptr));
  }
  return Error::kInvalidType;
}

// The real number a stored value stands for: bool, an arithmetic type, or
// float32 for the narrow floats.
template <typename From>
auto RealValue(From x) {
  if constexpr (IsComplex<From>::value) {
    return x.real;
  } else if constexpr (std::is_same_v<From, BoolByte>) {
    return x.value != 0;
  } else if constexpr (kIsNarrowFloat<From>) {
    return tensor_ops::DecodeFloat(From::kFormat, x.bits);
  } else {
    return x;
  }
}

// x86-64's truncating conversion (cvttss2si/cvttsd2si): the integer part of
// x, or I's most negative value when that does not fit or x is NaN.
template <typename I, typename F>
I TruncateLikeX86(F x) {
  constexpr F kLowest = static_cast<F>(std::numeric_limits<I>::lowest());  // -2^(bits-1)
  const F whole = std::trunc(x);
  if (whole >= kLowest && whole < -kLowest) return static_cast<I>(whole);
  return std::numeric_limits<I>::lowest();
}

// Floating to integer as PyTorch's compiled code does on x86-64 (file comment).
template <typename To, typename F>
To FloatToInteger(F x) {
  if constexpr (std::is_same_v<To, int32_t> || std::is_same_v<To, int64_t>) {
    return TruncateLikeX86<To>(x);
  } else if constexpr (sizeof(To) <= 2) {
    return std::is_same_v<To, uint8_t> ? static_cast<To>(TruncateLikeX86<int64_t>(x))
                                       : static_cast<To>(TruncateLikeX86<int32_t>(x));
  } else if constexpr (std::is_same_v<To, uint32_t>) {
    return static_cast<To>(TruncateLikeX86<int64_t>(x));
  } else {
    static_assert(std::is_same_v<To, uint64_t>);
    constexpr F kTwo63 = static_cast<F>(9223372036854775808.0);
    const F whole = std::trunc(x);
    if (whole >= kTwo63) return whole < 2 * kTwo63 ? static_cast<uint64_t>(whole) : 0;
    return static_cast<uint64_t>(TruncateLikeX86<int64_t>(x));
  }
}

// A real value r (bool, integer or floating) as a To.
template <typename To, typename R>
To FromReal(R r) {
  if constexpr (std::is_same_v<To, BoolByte>) {
    return BoolByte{static_cast<uint8_t>(r != R(0))};
  } else if constexpr (IsComplex<To>::value) {
    using Part = decltype(To::real);
    return To{FromReal<Part>(r), Part(0)};
  } else if constexpr (kIsNarrowFloat<To>) {
    using Bits = decltype(To::bits);
    return To{static_cast<Bits>(tensor_ops::EncodeFloat(To::kFormat, static_cast<float>(r)))};
  } else if constexpr (std::is_floating_point_v<To> || !std::is_floating_point_v<R>) {
    return static_cast<To>(r);
  } else {
    return FloatToInteger<To>(r);
  }
}

template <typename To, typename From>
To Convert(From x) {
  if constexpr (IsComplex<To>::value && IsComplex<From>::value) {
    using Part = decltype(To::real);
    return To{static_cast<Part>(x.real), static_cast<Part>(x.imag)};
  } else if constexpr (IsComplex<From>::value && std::is_same_v<To, BoolByte>) {
    return BoolByte{static_cast<uint8_t>(x.real != 0 || x.imag != 0)};
  } else {
    return FromReal<To>(RealValue(x));
  }
}

template <typename To, typename From>
void CastElements(const From* in, To* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = Convert<To>(in[i]);
}

}  // namespace

Error CheckCast(KernelArgs args) {
  TORCHIR_RETURN_IF_ERROR(CheckArgCount(args, 3, "cast"));
  TORCHIR_RETURN_IF_ERROR(CheckTensorOperand(args, 0, kAllTypes, "cast"));
  TORCHIR_RETURN_IF_ERROR(CheckAttributeKind(args, 1, EValue::Tag::kScalarType, "cast"));
  TORCHIR_RETURN_IF_ERROR(CheckTensorOperand(args, 2, kAllTypes, "cast"));
  const Tensor& input = args[0]->to_tensor();
  const Tensor& out = args[2]->to_tensor();
  TORCHIR_CHECK_OR_RETURN(args[1]->to_scalar_type() == out.scalar_type(), Error::kInvalidType,
                          "cast: dtype attribute differs from the output's dtype %s",
                          ScalarTypeName(out.scalar_type()));
  return CheckSizes(out, input.sizes(), "cast");
}

Error RunCast(KernelContext&, KernelArgs args) {
  const Tensor& input = args[0]->to_tensor();
  const Tensor& out = args[2]->to_tensor();
  if (input.numel() == 0) return Error::kOk;
  if (input.scalar_type() == out.scalar_type()) {
    // memmove: a program's plan may overlap the output with the input.
    std::memmove(out.mutable_data(), input.data(), input.nbytes());
    return Error::kOk;
  }
  return SwitchAllTypes(input.scalar_type(), [&](auto* from_tag) {
    using From = std::remove_pointer_t<decltype(from_tag)>;
    return SwitchAllTypes(out.scalar_type(), [&](auto* to_tag) {
      using To = std::remove_pointer_t<decltype(to_tag)>;
      CastElements(input.data_ptr<From>(), out.mutable_data_ptr<To>(), input.numel());
      return Error::kOk;
    });
  });
}

}  // namespace torchir::runtime::portable
