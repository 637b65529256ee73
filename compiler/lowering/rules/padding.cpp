// Lowering of the padding ops that fill from the input itself: reflection_pad{1,2,3}d,
// replication_pad{1,2,3}d and _pad_circular all become edge.pad with their mode. (Constant
// padding, aten.constant_pad_nd and aten.pad, lowers in data_movement.cpp.)
#include <string>
#include <vector>

#include "compiler/lowering/rules/padding.h"

#include "compiler/lowering/rule_table.h"
#include "compiler/lowering/rules/rule_helpers.h"

namespace torchir::lowering {

absl::StatusOr<ir::Value*> ModePad(EdgeBuilder& builder, ir::Value* x,
                                   const std::vector<int64_t>& pad, const std::string& mode) {
  bool any = false;
  for (int64_t p : pad) any = any || p != 0;
  if (!any) return x;
  return builder.Emit1("edge.pad", {x},
                       {{"pad", ir::AttrValue::IntList(pad)}, {"mode", ir::AttrValue::String(mode)}});
}

namespace {

using dialect::AtenCall;

constexpr char kReflect[] = "reflect";
constexpr char kReplicate[] = "replicate";
constexpr char kCircular[] = "circular";

// aten.<mode>_pad<N>d(self, padding[2N]): pads the N innermost dims.
template <const char* kMode, int kDims>
Results PadNd(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(std::vector<int64_t> padding, call.IntList("padding"));
  if (padding.size() != 2 * kDims) {
    return Unsupported(absl::StrCat("padding has ", padding.size(), " entries, expected ",
                                    2 * kDims));
  }
  return Single(ModePad(ctx.builder(), x, padding, kMode));
}

// aten._pad_circular(self, pad): F.pad(mode="circular")'s decomposition.
Results PadCircular(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(std::vector<int64_t> pad, call.IntList("pad"));
  return Single(ModePad(ctx.builder(), x, pad, kCircular));
}

}  // namespace

void AddPaddingRules(RuleTable& table) {
  table.Add("aten.reflection_pad1d.default", PadNd<kReflect, 1>);
  table.Add("aten.reflection_pad2d.default", PadNd<kReflect, 2>);
  table.Add("aten.reflection_pad3d.default", PadNd<kReflect, 3>);
  table.Add("aten.replication_pad1d.default", PadNd<kReplicate, 1>);
  table.Add("aten.replication_pad2d.default", PadNd<kReplicate, 2>);
  table.Add("aten.replication_pad3d.default", PadNd<kReplicate, 3>);
  table.Add("aten._pad_circular.default", PadCircular);
}

}  // namespace torchir::lowering
