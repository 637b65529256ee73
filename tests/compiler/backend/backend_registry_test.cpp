// BackendRegistry: names are unique, usable in a --backend list, and "portable" is
// reserved; lookups and the listing follow registration order.
#include "compiler/backend/backend_registry.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>

namespace torchir::backend {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A backend that takes nothing; only its name matters here.
class NamedBackend : public Backend {
 public:
  explicit NamedBackend(std::string name) : name_(std::move(name)) {}
  std::string name() const override { return name_; }
  std::string description() const override { return "takes nothing"; }
  Capability CheckNode(const ir::Node&) const override { return Capability::No("never"); }
  absl::StatusOr<PartitionResult> Partition(ir::Graph&, int64_t) const override {
    return PartitionResult{};
  }

 private:
  std::string name_;
};

std::unique_ptr<Backend> Named(std::string name) {
  return std::make_unique<NamedBackend>(std::move(name));
}

TEST(BackendRegistryTest, FindsAndListsInRegistrationOrder) {
  BackendRegistry registry;
  ASSERT_TRUE(registry.Register(Named("zeta")).ok());
  ASSERT_TRUE(registry.Register(Named("alpha")).ok());
  EXPECT_THAT(registry.Names(), ElementsAre("zeta", "alpha"));
  ASSERT_NE(registry.Find("alpha"), nullptr);
  EXPECT_EQ(registry.Find("alpha")->name(), "alpha");
  EXPECT_EQ(registry.Find("beta"), nullptr);
  EXPECT_EQ(registry.Find(""), nullptr);
}

TEST(BackendRegistryTest, RefusesADuplicateName) {
  BackendRegistry registry;
  ASSERT_TRUE(registry.Register(Named("xnnpack")).ok());
  absl::Status status = registry.Register(Named("xnnpack"));
  EXPECT_EQ(status.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(status.message(), HasSubstr("'xnnpack' is already registered"));
  EXPECT_THAT(registry.Names(), ElementsAre("xnnpack"));
}

TEST(BackendRegistryTest, RefusesNamesAListCannotHold) {
  BackendRegistry registry;
  for (const char* name : {"", "native,xnnpack", "my backend"}) {
    absl::Status status = registry.Register(Named(name));
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << "'" << name << "'";
  }
  absl::Status portable = registry.Register(Named(kPortableBackendName));
  EXPECT_EQ(portable.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(portable.message(), HasSubstr("reserved"));
  EXPECT_EQ(registry.Register(nullptr).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(registry.Names().empty());
}

}  // namespace
}  // namespace torchir::backend
