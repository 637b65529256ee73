// Every Edge op has a portable kernel under its table's kernel name, and every
// portable kernel (runtime/kernels/portable/kernel_list.h) belongs to an Edge op,
// listed once.
#include <set>
#include <string>

#include "compiler/dialect/edge_ops.h"
#include "gtest/gtest.h"
#include "runtime/kernel/kernel_registry.h"
#include "runtime/kernels/portable/portable_kernels.h"

namespace torchir {
namespace {

TEST(PortableKernelCoverage, EveryEdgeOpHasAKernel) {
  std::set<std::string> kernels;
  for (const runtime::Kernel& kernel : runtime::portable::PortableKernels()) {
    kernels.insert(kernel.name);
  }
  for (const dialect::EdgeOpDef& op : dialect::EdgeOps()) {
    EXPECT_TRUE(kernels.count(op.kernel)) << op.name << " has no portable kernel '" << op.kernel
                                          << "'";
  }
}

TEST(PortableKernelCoverage, EveryKernelBelongsToAnEdgeOp) {
  std::set<std::string> table_kernels;
  for (const dialect::EdgeOpDef& op : dialect::EdgeOps()) table_kernels.insert(op.kernel);
  for (const runtime::Kernel& kernel : runtime::portable::PortableKernels()) {
    EXPECT_TRUE(table_kernels.count(kernel.name)) << "kernel '" << kernel.name
                                                  << "' implements no Edge op";
  }
}

TEST(PortableKernelCoverage, EveryKernelIsListedOnce) {
  std::set<std::string> seen;
  for (const runtime::Kernel& kernel : runtime::portable::PortableKernels()) {
    EXPECT_TRUE(seen.insert(kernel.name).second) << "kernel '" << kernel.name << "' listed twice";
  }
}

TEST(PortableKernelCoverage, KernelsDeclareTheirOpsOutputCount) {
  for (const runtime::Kernel& kernel : runtime::portable::PortableKernels()) {
    for (const dialect::EdgeOpDef& op : dialect::EdgeOps()) {
      if (op.kernel == kernel.name) {
        EXPECT_EQ(kernel.num_outputs, op.outputs.size()) << kernel.name;
      }
    }
  }
}

TEST(PortableKernelCoverage, RegistrationIsIdempotentAndFindable) {
  ASSERT_EQ(runtime::portable::RegisterPortableKernels(), runtime::Error::kOk);
  ASSERT_EQ(runtime::portable::RegisterPortableKernels(), runtime::Error::kOk);
  for (const runtime::Kernel& kernel : runtime::portable::PortableKernels()) {
    std::string name = kernel.name;
    const runtime::Kernel* found = runtime::FindKernel(name.data(), name.size());
    ASSERT_NE(found, nullptr) << name;
    EXPECT_EQ(found->run, kernel.run) << name;
  }
}

}  // namespace
}  // namespace torchir
