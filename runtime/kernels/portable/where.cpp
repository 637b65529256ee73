// edge.where: condition ? self : other, the three broadcast together. Selecting
// moves bits, so the loop runs on unsigned words of the element's size.
#include <cstdint>
#include <type_traits>

#include "runtime/core/result.h"
#include "runtime/kernels/portable/argument_checks.h"
#include "runtime/kernels/portable/elementwise_util.h"
#include "runtime/kernels/portable/kernels.h"

namespace torchir::runtime::portable {
namespace {

using tensor_ops::BroadcastPlan;

constexpr DTypeSet kWhereTypes{ScalarType::kFloat32, ScalarType::kFloat64, ScalarType::kInt32,
                               ScalarType::kInt64, ScalarType::kBool};

// Any non-zero condition byte counts as true.
struct Select {
  template <typename T>
  T operator()(uint8_t condition, T a, T b) const {
    return condition != 0 ? a : b;
  }
};

bool Plan(const Tensor& out, KernelArgs args, BroadcastPlan<3>* plan) {
  return tensor_ops::PlanBroadcast(
      out, {&args[0]->to_tensor(), &args[1]->to_tensor(), &args[2]->to_tensor()}, plan);
}

template <typename Word>
void SelectWords(const BroadcastPlan<3>& plan, KernelArgs args, const Tensor& out) {
  tensor_ops::BroadcastMap(
      plan, out.mutable_data_ptr<Word>(), Select(), args[0]->to_tensor().data_ptr<uint8_t>(),
      args[1]->to_tensor().data_ptr<Word>(), args[2]->to_tensor().data_ptr<Word>());
}

}  // namespace

Error CheckWhere(KernelArgs args) {
  TORCHIR_RETURN_IF_ERROR(CheckArgCount(args, 4, "where"));
  TORCHIR_RETURN_IF_ERROR(CheckTensorOperand(args, 0, kBoolOnly, "where"));
  for (size_t i = 1; i < 4; ++i) {
    TORCHIR_RETURN_IF_ERROR(CheckTensorOperand(args, i, kWhereTypes, "where"));
  }
  const Tensor& self = args[1]->to_tensor();
  const Tensor& out = args[3]->to_tensor();
  TORCHIR_RETURN_IF_ERROR(CheckSameDType(self, args[2]->to_tensor(), "where"));
  TORCHIR_RETURN_IF_ERROR(CheckSameDType(self, out, "where"));
  BroadcastPlan<3> plan;
  TORCHIR_CHECK_OR_RETURN(Plan(out, args, &plan), Error::kShapeMismatch,
                          "where: the output is not the broadcast shape of the operands");
  return Error::kOk;
}

Error RunWhere(KernelContext&, KernelArgs args) {
  const Tensor& out = args[3]->to_tensor();
  BroadcastPlan<3> plan;
  if (!Plan(out, args, &plan)) return Error::kInternal;
  switch (out.element_size()) {
    case 1:
      SelectWords<uint8_t>(plan, args, out);
      break;
    case 4:
      SelectWords<uint32_t>(plan, args, out);
      break;
    case 8:
      SelectWords<uint64_t>(plan, args, out);
      break;
    default:
      return Error::kInternal;
  }
  return Error::kOk;
}

}  // namespace torchir::runtime::portable
