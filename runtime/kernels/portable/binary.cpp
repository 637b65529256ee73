// Broadcasting binary arithmetic and comparisons: one functor per op, one
// broadcast loop (elementwise_util.h) for all.
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

// Integer add, sub and mul wrap around (two's complement) like PyTorch's,
// computed unsigned because signed overflow is undefined in C++.
template <typename T, bool = std::is_integral_v<T>>
struct WrappingType {
  using type = T;
};
template <typename T>
struct WrappingType<T, true> {
  using type = std::make_unsigned_t<T>;
};
template <typename T>
using Modular = typename WrappingType<T>::type;

struct Add {
  template <typename T>
  T operator()(T a, T b) const {
    return static_cast<T>(Modular<T>(a) + Modular<T>(b));
  }
};
struct Sub {
  template <typename T>
  T operator()(T a, T b) const {
    return static_cast<T>(Modular<T>(a) - Modular<T>(b));
  }
};
struct Mul {
  template <typename T>
  T operator()(T a, T b) const {
    return static_cast<T>(Modular<T>(a) * Modular<T>(b));
  }
};
struct Div {
  float operator()(float a, float b) const { return a / b; }
};
struct Pow {
  float operator()(float a, float b) const { return std::pow(a, b); }
};
// maximum/minimum propagate a NaN from either side (torch.maximum does).
struct Maximum {
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) {
      if (a != a || b != b) return a + b;
    }
    return a > b ? a : b;
  }
};
struct Minimum {
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) {
      if (a != a || b != b) return a + b;
    }
    return a < b ? a : b;
  }
};
struct Eq {
  template <typename T>
  bool operator()(T a, T b) const {
    return a == b;
  }
};
struct Ne {
  template <typename T>
  bool operator()(T a, T b) const {
    return a != b;
  }
};
struct Lt {
  template <typename T>
  bool operator()(T a, T b) const {
    return a < b;
  }
};
struct Le {
  template <typename T>
  bool operator()(T a, T b) const {
    return a <= b;
  }
};
struct Gt {
  template <typename T>
  bool operator()(T a, T b) const {
    return a > b;
  }
};
struct Ge {
  template <typename T>
  bool operator()(T a, T b) const {
    return a >= b;
  }
};

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

// Runs `Op` on T operands into an Out output.
template <typename Op, typename T, typename Out>
Error MapBinary(KernelArgs args) {
  const Tensor& self = args[0]->to_tensor();
  const Tensor& other = args[1]->to_tensor();
  const Tensor& out = args[2]->to_tensor();
  BroadcastPlan<2> plan;
  if (!tensor_ops::PlanBroadcast(out, {&self, &other}, &plan)) return Error::kInternal;
  tensor_ops::BroadcastMap(plan, out.mutable_data_ptr<Out>(), Op(), self.data_ptr<T>(),
                           other.data_ptr<T>());
  return Error::kOk;
}

// (The lambdas are named: the dtype switch is a macro, and the commas of a
// template argument list would split its arguments.)
template <typename Op>
Error RunRealBinary(KernelArgs args, const char* kernel) {
  auto run = [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    return MapBinary<Op, T, T>(args);
  };
  return TORCHIR_SWITCH_REAL_TYPES(args[0]->to_tensor().scalar_type(), kernel, run);
}

// Comparisons write bool as one byte, 0 or 1.
template <typename Op>
Error RunComparison(KernelArgs args, const char* kernel) {
  auto run = [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    return MapBinary<Op, T, uint8_t>(args);
  };
  return TORCHIR_SWITCH_REAL_TYPES(args[0]->to_tensor().scalar_type(), kernel, run);
}

}  // namespace

Error CheckRealBinary(KernelArgs args) {
  return CheckBinary(args, kRealTypes, /*bool_out=*/false, "binary op");
}
Error RunAdd(KernelContext&, KernelArgs args) { return RunRealBinary<Add>(args, "add"); }
Error RunSub(KernelContext&, KernelArgs args) { return RunRealBinary<Sub>(args, "sub"); }
Error RunMul(KernelContext&, KernelArgs args) { return RunRealBinary<Mul>(args, "mul"); }
Error RunMaximum(KernelContext&, KernelArgs args) {
  return RunRealBinary<Maximum>(args, "maximum");
}
Error RunMinimum(KernelContext&, KernelArgs args) {
  return RunRealBinary<Minimum>(args, "minimum");
}

Error CheckFloatBinary(KernelArgs args) {
  return CheckBinary(args, kFloat32Only, /*bool_out=*/false, "float binary op");
}
Error RunDiv(KernelContext&, KernelArgs args) { return MapBinary<Div, float, float>(args); }
Error RunPow(KernelContext&, KernelArgs args) { return MapBinary<Pow, float, float>(args); }

Error CheckComparison(KernelArgs args) {
  return CheckBinary(args, kRealTypes, /*bool_out=*/true, "comparison");
}
Error RunEq(KernelContext&, KernelArgs args) { return RunComparison<Eq>(args, "eq"); }
Error RunNe(KernelContext&, KernelArgs args) { return RunComparison<Ne>(args, "ne"); }
Error RunLt(KernelContext&, KernelArgs args) { return RunComparison<Lt>(args, "lt"); }
Error RunLe(KernelContext&, KernelArgs args) { return RunComparison<Le>(args, "le"); }
Error RunGt(KernelContext&, KernelArgs args) { return RunComparison<Gt>(args, "gt"); }
Error RunGe(KernelContext&, KernelArgs args) { return RunComparison<Ge>(args, "ge"); }

}  // namespace torchir::runtime::portable
