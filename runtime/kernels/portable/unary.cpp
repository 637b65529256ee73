// Elementwise unary math and activations: one functor per op, one loop for all.
// Formulas follow PyTorch's CPU kernels so results agree to float rounding.
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

// relu6(x + 3) with std::min/max, which (unlike fmin/fmax) keep a NaN as PyTorch does.
inline float Relu6OfXPlus3(float x) { return std::min(std::max(x + 3.0f, 0.0f), 6.0f); }

struct Hardswish {
  float operator()(float x) const { return x * Relu6OfXPlus3(x) / 6.0f; }
};
struct Hardsigmoid {
  float operator()(float x) const { return Relu6OfXPlus3(x) / 6.0f; }
};
struct Sigmoid {
  float operator()(float x) const { return 1.0f / (1.0f + std::exp(-x)); }
};
struct Tanh {
  float operator()(float x) const { return std::tanh(x); }
};
struct Silu {
  float operator()(float x) const { return x / (1.0f + std::exp(-x)); }
};
struct Exp {
  float operator()(float x) const { return std::exp(x); }
};
struct Log {
  float operator()(float x) const { return std::log(x); }
};
struct Sqrt {
  float operator()(float x) const { return std::sqrt(x); }
};
struct Rsqrt {
  float operator()(float x) const { return 1.0f / std::sqrt(x); }
};
struct Erf {
  float operator()(float x) const { return std::erf(x); }
};
struct GeluErf {
  float operator()(float x) const {
    constexpr float kSqrtHalf = 0.70710678118654752f;
    return 0.5f * x * (1.0f + std::erf(x * kSqrtHalf));
  }
};
struct GeluTanh {
  float operator()(float x) const {
    constexpr float kSqrtTwoOverPi = 0.79788456080286536f;
    constexpr float kKappa = 0.044715f;
    return 0.5f * x * (1.0f + std::tanh(kSqrtTwoOverPi * (x + kKappa * x * x * x)));
  }
};
struct LeakyRelu {
  float negative_slope;
  float operator()(float x) const { return x > 0.0f ? x : x * negative_slope; }
};

// Integers negate in unsigned arithmetic: -INT_MIN wraps to INT_MIN as in
// PyTorch, where signed overflow would be undefined.
struct Neg {
  template <typename T>
  T operator()(T x) const {
    if constexpr (std::is_integral_v<T>) {
      return static_cast<T>(std::make_unsigned_t<T>{0} - static_cast<std::make_unsigned_t<T>>(x));
    } else {
      return -x;
    }
  }
};
struct Abs {
  template <typename T>
  T operator()(T x) const {
    if constexpr (std::is_integral_v<T>) {
      return x < 0 ? Neg()(x) : x;
    } else {
      return std::fabs(x);
    }
  }
};

// The output is the last argument for every unary kernel.
template <typename Op>
Error RunFloat(KernelArgs args, const Op& op) {
  const Tensor& input = args[0]->to_tensor();
  const Tensor& out = args[args.size() - 1]->to_tensor();
  MapElements(out.mutable_data_ptr<float>(), input.data_ptr<float>(), input.numel(), op);
  return Error::kOk;
}

template <typename Op>
Error RunReal(KernelArgs args, const char* kernel) {
  const Tensor& input = args[0]->to_tensor();
  const Tensor& out = args[1]->to_tensor();
  return TORCHIR_SWITCH_REAL_TYPES(input.scalar_type(), kernel, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    MapElements(out.mutable_data_ptr<T>(), input.data_ptr<T>(), input.numel(), Op());
    return Error::kOk;
  });
}

// True for the two spellings PyTorch's gelu accepts.
bool IsGeluMode(Span<const char> text, const char* mode) {
  size_t i = 0;
  for (; i < text.size(); ++i) {
    if (mode[i] == '\0' || mode[i] != text[i]) return false;
  }
  return mode[i] == '\0';
}

}  // namespace

Error CheckFloatUnary(KernelArgs args) {
  TORCHIR_RETURN_IF_ERROR(CheckArgCount(args, 2, "unary float op"));
  return CheckSameShapeUnary(args, kFloat32Only, "unary float op");
}

Error RunHardswish(KernelContext&, KernelArgs args) { return RunFloat(args, Hardswish()); }
Error RunHardsigmoid(KernelContext&, KernelArgs args) { return RunFloat(args, Hardsigmoid()); }
Error RunSigmoid(KernelContext&, KernelArgs args) { return RunFloat(args, Sigmoid()); }
Error RunTanh(KernelContext&, KernelArgs args) { return RunFloat(args, Tanh()); }
Error RunSilu(KernelContext&, KernelArgs args) { return RunFloat(args, Silu()); }
Error RunExp(KernelContext&, KernelArgs args) { return RunFloat(args, Exp()); }
Error RunLog(KernelContext&, KernelArgs args) { return RunFloat(args, Log()); }
Error RunSqrt(KernelContext&, KernelArgs args) { return RunFloat(args, Sqrt()); }
Error RunRsqrt(KernelContext&, KernelArgs args) { return RunFloat(args, Rsqrt()); }
Error RunErf(KernelContext&, KernelArgs args) { return RunFloat(args, Erf()); }

Error CheckGelu(KernelArgs args) {
  TORCHIR_RETURN_IF_ERROR(CheckArgCount(args, 3, "gelu"));
  TORCHIR_RETURN_IF_ERROR(CheckAttributeKind(args, 1, EValue::Tag::kString, "gelu"));
  Span<const char> mode = args[1]->to_string();
  TORCHIR_CHECK_OR_RETURN(IsGeluMode(mode, "none") || IsGeluMode(mode, "tanh"),
                          Error::kInvalidProgram, "gelu: approximate must be 'none' or 'tanh'");
  return CheckSameShapeUnary(args, kFloat32Only, "gelu");
}

Error RunGelu(KernelContext&, KernelArgs args) {
  if (IsGeluMode(args[1]->to_string(), "tanh")) return RunFloat(args, GeluTanh());
  return RunFloat(args, GeluErf());
}

Error CheckLeakyRelu(KernelArgs args) {
  TORCHIR_RETURN_IF_ERROR(CheckArgCount(args, 3, "leaky_relu"));
  TORCHIR_RETURN_IF_ERROR(CheckAttributeKind(args, 1, EValue::Tag::kDouble, "leaky_relu"));
  return CheckSameShapeUnary(args, kFloat32Only, "leaky_relu");
}

Error RunLeakyRelu(KernelContext&, KernelArgs args) {
  return RunFloat(args, LeakyRelu{static_cast<float>(args[1]->to_double())});
}

Error CheckRealUnary(KernelArgs args) {
  TORCHIR_RETURN_IF_ERROR(CheckArgCount(args, 2, "unary op"));
  return CheckSameShapeUnary(args, kRealTypes, "unary op");
}

Error RunNeg(KernelContext&, KernelArgs args) { return RunReal<Neg>(args, "neg"); }
Error RunAbs(KernelContext&, KernelArgs args) { return RunReal<Abs>(args, "abs"); }

}  // namespace torchir::runtime::portable
