#include "runtime/kernels/portable/kernel_lists.h"
#include "runtime/kernels/portable/tensor_kernels.h"

namespace torchir::runtime::portable {

Span<const Kernel> TensorKernels() {
  static const Kernel kKernels[] = {
      {"clamp", CheckClamp, RunClamp},
      {"hardswish", CheckFloatUnary, RunHardswish},
      {"hardsigmoid", CheckFloatUnary, RunHardsigmoid},
      {"sigmoid", CheckFloatUnary, RunSigmoid},
      {"tanh", CheckFloatUnary, RunTanh},
      {"gelu", CheckGelu, RunGelu},
      {"silu", CheckFloatUnary, RunSilu},
      {"leaky_relu", CheckLeakyRelu, RunLeakyRelu},
      {"exp", CheckFloatUnary, RunExp},
      {"log", CheckFloatUnary, RunLog},
      {"sqrt", CheckFloatUnary, RunSqrt},
      {"rsqrt", CheckFloatUnary, RunRsqrt},
      {"erf", CheckFloatUnary, RunErf},
      {"neg", CheckRealUnary, RunNeg},
      {"abs", CheckRealUnary, RunAbs},
      {"add", CheckRealBinary, RunAdd},
      {"sub", CheckRealBinary, RunSub},
      {"mul", CheckRealBinary, RunMul},
      {"div", CheckFloatBinary, RunDiv},
      {"pow", CheckFloatBinary, RunPow},
      {"maximum", CheckRealBinary, RunMaximum},
      {"minimum", CheckRealBinary, RunMinimum},
      {"eq", CheckComparison, RunEq},
      {"ne", CheckComparison, RunNe},
      {"lt", CheckComparison, RunLt},
      {"le", CheckComparison, RunLe},
      {"gt", CheckComparison, RunGt},
      {"ge", CheckComparison, RunGe},
      {"where", CheckWhere, RunWhere},
      {"cast", CheckCast, RunCast},
      {"reshape", CheckReshape, RunReshape},
      {"permute", CheckPermute, RunPermute},
      {"slice", CheckSlice, RunSlice},
      {"concatenate", CheckConcatenate, RunConcatenate},
      {"expand", CheckExpand, RunExpand},
      {"index_select", CheckIndexSelect, RunIndexSelect},
      {"constant_pad", CheckConstantPad, RunConstantPad},
  };
  return Span<const Kernel>(kKernels);
}

}  // namespace torchir::runtime::portable
