#include "compiler/ir/attribute.h"

#include <gtest/gtest.h>

#include <limits>

namespace torchir::ir {
namespace {

TEST(AttrValueTest, KindsAndAccessors) {
  EXPECT_TRUE(AttrValue().is_none());
  EXPECT_EQ(AttrValue::Bool(true).kind(), AttrValue::Kind::kBool);
  EXPECT_EQ(AttrValue::Int(-3).as_int(), -3);
  EXPECT_DOUBLE_EQ(AttrValue::Double(0.5).as_double(), 0.5);
  EXPECT_EQ(AttrValue::String("tanh").as_string(), "tanh");
  EXPECT_EQ(AttrValue::IntList({1, 2}).as_int_list(), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(AttrValue::DoubleList({0.5}).list_size(), 1u);
  EXPECT_EQ(AttrValue::BoolList({true, false}).as_bool_list()[1], false);
  EXPECT_EQ(AttrValue::OfDType(DType::kFloat16).as_dtype(), DType::kFloat16);
  EXPECT_EQ(AttrValue::OfMemoryFormat(MemoryFormat::kChannelsLast).as_memory_format(),
            MemoryFormat::kChannelsLast);
  EXPECT_EQ(AttrValue::OfLayout(Layout::kStrided).as_layout(), Layout::kStrided);
  EXPECT_EQ(AttrValue::OfDevice(Device{"cpu", 0}).as_device().index, 0);
  AttrValue nested = AttrValue::List({AttrValue::BoolList({false, true}), AttrValue::None()});
  EXPECT_EQ(nested.kind(), AttrValue::Kind::kList);
  EXPECT_TRUE(nested.as_list()[1].is_none());
}

TEST(AttrValueTest, LenientConversions) {
  EXPECT_EQ(AttrValue::Int(3).ToDouble(), 3.0);
  EXPECT_EQ(AttrValue::Bool(true).ToInt(), 1);
  EXPECT_EQ(AttrValue::Double(2.0).ToInt(), 2);
  EXPECT_FALSE(AttrValue::Double(2.5).ToInt().has_value());
  EXPECT_FALSE(AttrValue::String("x").ToDouble().has_value());
  // `int[2] stride=1` may be written as a single int.
  EXPECT_EQ(AttrValue::Int(1).ToIntList(), (std::vector<int64_t>{1}));
  EXPECT_EQ(AttrValue::List({AttrValue::Int(4), AttrValue::Int(5)}).ToIntList(),
            (std::vector<int64_t>{4, 5}));
  EXPECT_FALSE(AttrValue::List({AttrValue::None()}).ToIntList().has_value());
}

TEST(AttrValueTest, RendersLikePython) {
  EXPECT_EQ(AttrValue().ToString(), "None");
  EXPECT_EQ(AttrValue::Bool(false).ToString(), "False");
  EXPECT_EQ(AttrValue::Double(1e-5).ToString(), "1e-05");
  EXPECT_EQ(AttrValue::Double(2).ToString(), "2.0");
  EXPECT_EQ(AttrValue::IntList({2, 2}).ToString(), "[2, 2]");
  EXPECT_EQ(AttrValue::OfDType(DType::kInt64).ToString(), "torch.int64");
  EXPECT_EQ(AttrValue::OfMemoryFormat(MemoryFormat::kContiguous).ToString(),
            "torch.contiguous_format");
  EXPECT_EQ(AttrValue::Double(-std::numeric_limits<double>::infinity()).ToString(), "-inf");
}

TEST(AttrValueTest, EqualityComparesKindAndValue) {
  EXPECT_EQ(AttrValue::Int(1), AttrValue::Int(1));
  EXPECT_NE(AttrValue::Int(1), AttrValue::Double(1.0));
  EXPECT_NE(AttrValue::IntList({1}), AttrValue::IntList({1, 1}));
}

TEST(AttributeParsing, DevicesMemoryFormatsLayouts) {
  EXPECT_EQ(ParseDevice("meta")->type, "cpu");
  EXPECT_EQ(ParseDevice("cuda:1")->index, 1);
  EXPECT_FALSE(ParseDevice("cuda:").has_value());
  EXPECT_FALSE(ParseDevice("CPU").has_value());
  EXPECT_FALSE(ParseDevice("").has_value());
  EXPECT_EQ(ParseMemoryFormat("torch.channels_last"), MemoryFormat::kChannelsLast);
  EXPECT_EQ(ParseMemoryFormat("preserve_format"), MemoryFormat::kPreserve);
  EXPECT_FALSE(ParseMemoryFormat("torch.float32").has_value());
  EXPECT_EQ(ParseLayout("torch.strided"), Layout::kStrided);
}

}  // namespace
}  // namespace torchir::ir
