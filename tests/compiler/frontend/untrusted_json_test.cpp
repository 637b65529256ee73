#include "compiler/frontend/untrusted_json.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace torchir::frontend {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

const JsonSource kModel{"model.json", "", 0};

// The error message of parsing `text`, or "" when it parses.
std::string ErrorOf(const std::string& text, const JsonSource& source = kModel,
                    int max_depth = kMaxJsonDepth) {
  rapidjson::Document document;
  absl::Status status = ParseUntrustedJson(text, source, &document, max_depth);
  return std::string(status.message());
}

std::string Nested(size_t levels, const std::string& inner = "") {
  return std::string(levels, '[') + inner + std::string(levels, ']');
}

TEST(UntrustedJsonTest, ParsesWhatPytorchIrWrites) {
  rapidjson::Document document;
  ASSERT_TRUE(ParseUntrustedJson(
                  R"({"a": [NaN, Infinity, -Infinity, 0.1, -0, 9007199254740993], "b": {"a": 1}})",
                  kModel, &document)
                  .ok());
  const rapidjson::Value& a = document["a"];
  EXPECT_TRUE(std::isnan(a[0].GetDouble()));
  EXPECT_EQ(a[1].GetDouble(), INFINITY);
  EXPECT_EQ(a[2].GetDouble(), -INFINITY);
  EXPECT_EQ(a[3].GetDouble(), 0.1);  // full precision: the nearest double
  EXPECT_TRUE(a[4].IsInt64());
  EXPECT_EQ(a[5].GetInt64(), 9007199254740993);  // exact, not through a double
  EXPECT_EQ(document["b"]["a"].GetInt(), 1);
}

TEST(UntrustedJsonTest, NumbersGetRapidJsonsTypesAndCorrectRounding) {
  rapidjson::Document document;
  ASSERT_TRUE(ParseUntrustedJson(
                  "[18446744073709551615, -9223372036854775808, -9223372036854775809, "
                  "18446744073709551616, 1844674407370955161596, 0e100, 0.184467440737095516159, "
                  "0.00000000000000000000000000, 1e-400, -1e-400, 1.7976931348623157e308, "
                  "2.220446049250313e-16, -0, -0.0, 4.9e-324, 123]",
                  kModel, &document)
                  .ok());
  const rapidjson::Value& a = document;
  EXPECT_TRUE(a[0].IsUint64() && !a[0].IsInt64());
  EXPECT_EQ(a[0].GetUint64(), UINT64_MAX);
  EXPECT_TRUE(a[1].IsInt64());
  EXPECT_EQ(a[1].GetInt64(), INT64_MIN);
  EXPECT_TRUE(a[2].IsDouble());
  EXPECT_EQ(a[2].GetDouble(), -9223372036854775809.0);
  EXPECT_TRUE(a[3].IsDouble());
  EXPECT_EQ(a[3].GetDouble(), 18446744073709551616.0);
  // These crashed (UBSan: clz of zero) or misread in RapidJSON 1.1.0's full-precision path.
  EXPECT_EQ(a[4].GetDouble(), 1844674407370955161596.0);
  EXPECT_EQ(a[5].GetDouble(), 0.0);
  EXPECT_EQ(a[6].GetDouble(), 0.184467440737095516159);
  EXPECT_EQ(a[7].GetDouble(), 0.0);
  EXPECT_EQ(a[8].GetDouble(), 0.0);
  EXPECT_TRUE(std::signbit(a[9].GetDouble()));
  EXPECT_EQ(a[10].GetDouble(), 1.7976931348623157e308);
  EXPECT_EQ(a[11].GetDouble(), 2.220446049250313e-16);
  EXPECT_TRUE(a[12].IsInt64());
  EXPECT_EQ(a[12].GetInt64(), 0);
  EXPECT_TRUE(a[13].IsDouble());
  EXPECT_TRUE(std::signbit(a[13].GetDouble()));
  EXPECT_EQ(a[14].GetDouble(), 4.9e-324);
  EXPECT_TRUE(a[15].IsInt() && a[15].IsUint() && a[15].IsInt64());
}

TEST(UntrustedJsonTest, RejectsNumbersBeyondDouble) {
  EXPECT_EQ(ErrorOf("[1e400]"),
            "model.json:1:2: malformed JSON: Number too big to be stored in double (byte 1)");
  EXPECT_EQ(ErrorOf("[0, 1" + std::string(400, '0') + "]"),
            "model.json:1:5: malformed JSON: Number too big to be stored in double (byte 4)");
  EXPECT_THAT(ErrorOf("[-1.8e308]"), HasSubstr("Number too big"));
}

TEST(UntrustedJsonTest, AcceptsNestingUpToTheLimit) {
  EXPECT_EQ(ErrorOf(Nested(kMaxJsonDepth)), "");
  EXPECT_EQ(ErrorOf(Nested(3), kModel, 3), "");
}

TEST(UntrustedJsonTest, RejectsDeeperNestingWithThePosition) {
  EXPECT_EQ(ErrorOf(Nested(kMaxJsonDepth + 1)),
            "model.json:1:65: arrays and objects nested deeper than 64 levels (byte 64)");
  EXPECT_EQ(ErrorOf("{\"a\":\n  [{\"b\": [[1]]}]}", kModel, 3),
            "model.json:2:10: arrays and objects nested deeper than 3 levels (byte 15)");
}

TEST(UntrustedJsonTest, RejectsAMillionLevelsWithoutRecursion) {
  // The recursive parser overflowed the stack near 100k levels (ASan) or 150k (release).
  EXPECT_THAT(ErrorOf(Nested(1'000'000)), HasSubstr("nested deeper than 64 levels"));
  EXPECT_THAT(ErrorOf(std::string(1'000'000, '[')), HasSubstr("nested deeper than 64 levels"));
  std::string objects;
  for (int i = 0; i < 200'000; ++i) objects += "{\"a\":";
  EXPECT_THAT(ErrorOf(objects), HasSubstr("model.json:1:321: arrays and objects nested deeper"));
}

TEST(UntrustedJsonTest, RejectsDuplicateKeysWithTheirPath) {
  EXPECT_EQ(ErrorOf("{\"nodes\": [],\n \"nodes\": []}"),
            "model.json:2:2: duplicate key 'nodes' in the object at $ (byte 15)");
  EXPECT_EQ(ErrorOf(R"({"nodes": [{"name": "a"}, {"name": "b", "op": 1, "name": "c"}]})"),
            "model.json:1:50: duplicate key 'name' in the object at $.nodes[1] (byte 49)");
  EXPECT_THAT(ErrorOf(R"({"constants": {"a b": {"x": [[], {"k": 1, "k": 2}]}}})"),
              HasSubstr("duplicate key 'k' in the object at $.constants['a b'].x[1]"));
}

TEST(UntrustedJsonTest, ComparesKeysAfterUnescaping) {
  EXPECT_THAT(ErrorOf(R"({"ab": 1, "a\u0062": 2})"),
              HasSubstr("1:11: duplicate key 'ab' in the object at $ (byte 10)"));
  // A key whose escapes end in a backslash: the position is still the opening quote.
  EXPECT_THAT(ErrorOf(R"({"a\\": 1, "a\\": 2})"), HasSubstr("1:12: duplicate key 'a\\\\'"));
  EXPECT_EQ(ErrorOf(R"({"a\u0000b": 1, "a\u0000c": 2, "a": 3})"), "");
  EXPECT_THAT(ErrorOf(R"({"a\u0000b": 1, "a\u0000b": 2})"), HasSubstr("duplicate key 'a\\x00b'"));
}

TEST(UntrustedJsonTest, AllowsEqualKeysInDifferentObjects) {
  EXPECT_EQ(ErrorOf(R"([{"name": 1}, {"name": 2, "x": {"name": 3}}, {"name": 4}])"), "");
  // A closed object's keys do not leak into its parent.
  EXPECT_EQ(ErrorOf(R"({"x": {"y": 1}, "y": 2})"), "");
}

TEST(UntrustedJsonTest, FindsDuplicatesInLargeObjects) {
  std::string text = "{";
  for (int i = 0; i < 5000; ++i) text += "\"key" + std::to_string(i) + "\": {\"k\": 0}, ";
  EXPECT_EQ(ErrorOf(text + "\"last\": 1}"), "");
  EXPECT_THAT(ErrorOf(text + "\"key17\": 1}"),
              HasSubstr("duplicate key 'key17' in the object at $"));
  EXPECT_THAT(ErrorOf(text + "\"key4999\": 1}"), HasSubstr("duplicate key 'key4999'"));
  // The 17th key, where the linear scan hands over to the hash set.
  std::string seventeen = "{";
  for (int i = 0; i < 17; ++i) seventeen += "\"k" + std::to_string(i) + "\": 0, ";
  EXPECT_THAT(ErrorOf(seventeen + "\"k16\": 1}"), HasSubstr("duplicate key 'k16'"));
  EXPECT_THAT(ErrorOf(seventeen + "\"k0\": 1}"), HasSubstr("duplicate key 'k0'"));
}

TEST(UntrustedJsonTest, RejectsWhatIsNotJson) {
  EXPECT_EQ(ErrorOf(""), "model.json:1:1: malformed JSON: The document is empty (byte 0)");
  EXPECT_EQ(ErrorOf("\xEF\xBB\xBF{}"),
            "model.json:1:1: starts with a UTF-8 byte-order mark, which JSON files must not have "
            "(byte 0)");
  EXPECT_EQ(ErrorOf(std::string("{}\0{}", 5)), "model.json:1:3: malformed JSON: NUL byte (byte 2)");
  EXPECT_THAT(ErrorOf(std::string("{\"a\0\": 1}", 9)), HasSubstr("1:4: malformed JSON: NUL byte"));
  EXPECT_THAT(ErrorOf("{\"\xC3\x28\": 1}"),
              HasSubstr("malformed JSON: Invalid encoding in string"));
  EXPECT_THAT(ErrorOf("{\"a\": \xFF}"), HasSubstr("malformed JSON"));
  EXPECT_THAT(ErrorOf("{\"a\": [1, 2"), HasSubstr("malformed JSON"));
  EXPECT_THAT(ErrorOf("{} {}"), HasSubstr("1:4: malformed JSON: The document root must not be"));
  EXPECT_THAT(ErrorOf("[1e400]"), HasSubstr("malformed JSON: Number too big"));
  EXPECT_THAT(ErrorOf("[1,]"), HasSubstr("malformed JSON"));
  EXPECT_THAT(ErrorOf("// c\n{}"), HasSubstr("malformed JSON"));
}

TEST(UntrustedJsonTest, NamesThePartAndItsOffsetInTheFile) {
  const JsonSource header{"w.safetensors", "safetensors header", 8};
  EXPECT_EQ(ErrorOf("{\"a\": 1, \"a\": 2}", header),
            "w.safetensors: safetensors header 1:10: duplicate key 'a' in the object at $ "
            "(byte 17 of the file)");
}

TEST(UntrustedJsonTest, MessagesStayOnOneLine) {
  std::string long_key(100'000, 'x');
  const std::string error =
      ErrorOf("{\"bad\\nkey\\u0007\": 1, \"bad\\nkey\\u0007\": 2, \"" + long_key + "\": 0}");
  EXPECT_THAT(error, HasSubstr("duplicate key 'bad\\nkey\\x07'"));
  EXPECT_THAT(error, Not(HasSubstr("\n")));
  const std::string long_error = ErrorOf("{\"" + long_key + "\": 1, \"" + long_key + "\": 2}");
  EXPECT_THAT(long_error, HasSubstr("...' (100000 bytes)"));
  EXPECT_LT(long_error.size(), 400u);
}

}  // namespace
}  // namespace torchir::frontend
