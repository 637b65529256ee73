#include "compiler/frontend/quoted_text.h"

#include <gtest/gtest.h>

#include <string>

namespace torchir::frontend {
namespace {

TEST(QuotedForMessageTest, QuotesPlainText) {
  EXPECT_EQ(QuotedForMessage("conv2d"), "'conv2d'");
  EXPECT_EQ(QuotedForMessage(""), "''");
  EXPECT_EQ(QuotedForMessage("größe"), "'größe'");
}

TEST(QuotedForMessageTest, EscapesWhatWouldBreakTheLine) {
  EXPECT_EQ(QuotedForMessage("a\nb\r\tc"), "'a\\nb\\r\\tc'");
  EXPECT_EQ(QuotedForMessage(std::string("a\0b\x1b\x7f", 5)), "'a\\x00b\\x1B\\x7F'");
  EXPECT_EQ(QuotedForMessage("it's a\\b"), "'it\\'s a\\\\b'");
}

TEST(QuotedForMessageTest, CutsLongTextAtACharacterBoundary) {
  EXPECT_EQ(QuotedForMessage(std::string(300, 'x')),
            "'" + std::string(200, 'x') + "...' (300 bytes)");
  EXPECT_EQ(QuotedForMessage("abcdef", 6), "'abcdef'");
  // "é" is two bytes; a cut after its first byte backs up before it.
  EXPECT_EQ(QuotedForMessage("abé", 3), "'ab...' (4 bytes)");
}

}  // namespace
}  // namespace torchir::frontend
