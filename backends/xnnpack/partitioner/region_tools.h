// The backend-independent region tools (compiler/backend/: layouts, constant repacking, the
// delegate rewrite) under the names the XNNPACK partitioner has always used.
#pragma once

#include "compiler/backend/constant_transform.h"
#include "compiler/backend/delegate_rewriter.h"
#include "compiler/backend/layout.h"

namespace torchir::xnnpack {

using backend::ApplyTransform;
using backend::BroadcastKeepsOrder;
using backend::CombineNeeds;
using backend::ConstantTransform;
using backend::ConvolutionFilterTransform;
using backend::DepthwiseFilterTransform;
using backend::InversePermutation;
using backend::IsIdentityPermutation;
using backend::Layout;
using backend::LayoutName;
using backend::LayoutNeed;
using backend::LayoutNeedName;
using backend::OperandTransform;
using backend::PermutationKeepsOrder;
using backend::PermuteSizes;
using backend::PhysicalDims;
using backend::PhysicalPermutation;
using backend::RegionRewrite;
using backend::ReplaceRegionsWithDelegateCalls;
using backend::ReshapeKeepsOrder;
using backend::RewriteStats;
using backend::Satisfies;
using backend::SerializedSubgraph;
using backend::SubgraphArgument;

}  // namespace torchir::xnnpack
