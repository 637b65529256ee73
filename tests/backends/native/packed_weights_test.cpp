#include "backends/native/packed_weights.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace torchir::native {
namespace {

using runtime::Error;

GemmConfig Config(KernelTarget target) {
  GemmConfig config;
  EXPECT_TRUE(GetGemmConfig(target, &config));
  return config;
}

// B[k][n] = 1000 k + n + 1: every element distinct and non-zero, so a zero is padding.
std::vector<float> Numbered(size_t k, size_t n) {
  std::vector<float> b(k * n);
  for (size_t i = 0; i < k; ++i) {
    for (size_t j = 0; j < n; ++j) b[i * n + j] = static_cast<float>(1000 * i + j + 1);
  }
  return b;
}

TEST(PackedWeightsTest, EveryTargetInTheTableHasConsistentBlocking) {
  for (KernelTarget target :
       {KernelTarget::kPortable, KernelTarget::kX86Sse4, KernelTarget::kX86Avx2,
        KernelTarget::kX86Avx512, KernelTarget::kArmNeon}) {
    GemmConfig config = Config(target);
    EXPECT_EQ(config.target, target);
    EXPECT_EQ(config.mc % config.mr, 0u) << KernelTargetName(target);
    EXPECT_EQ(config.nc % config.nr, 0u) << KernelTargetName(target);
  }
  GemmConfig config;
  EXPECT_FALSE(GetGemmConfig(static_cast<KernelTarget>(99), &config));
}

TEST(PackedWeightsTest, ElementsSitWhereTheFormatSays) {
  const GemmConfig config = Config(KernelTarget::kX86Avx2);  // nr 16, kc 256
  const size_t k = 300, n = 37;  // two K blocks (256 + 44), three panels (16 + 16 + 5 + pad)
  const std::vector<float> b = Numbered(k, n);
  std::vector<char> packed(PackedBBytes(config, k, n));
  ASSERT_EQ(packed.size(), kPackedBHeaderBytes + k * 48 * sizeof(float));
  ASSERT_EQ(PackB(config, k, n, b.data(), n, packed.data(), packed.size()), Error::kOk);

  PackedB view;
  ASSERT_EQ(ViewPackedB(packed.data(), packed.size(), &view), Error::kOk);
  EXPECT_EQ(view.k, k);
  EXPECT_EQ(view.n, n);
  EXPECT_EQ(view.config.target, KernelTarget::kX86Avx2);
  const size_t n_padded = 48;
  for (size_t kk = 0; kk < k; ++kk) {
    const size_t block = kk / 256, row = kk % 256, kc = block == 0 ? 256 : k - 256;
    for (size_t j = 0; j < n_padded; ++j) {
      const size_t offset = block * 256 * n_padded + (j / 16) * kc * 16 + row * 16 + j % 16;
      const float expected = j < n ? b[kk * n + j] : 0.0f;
      ASSERT_EQ(view.data[offset], expected) << "k " << kk << " n " << j;
    }
  }
}

// What a runtime on another CPU family does with a program's weights: unpack, then pack for
// its own blocking. Every target's layout round-trips to B exactly, with ldb padding intact.
TEST(PackedWeightsTest, UnpackGivesBackBForEveryTarget) {
  const size_t k = 300, n = 37, ldb = 40;
  const std::vector<float> b = Numbered(k, n);
  for (KernelTarget target :
       {KernelTarget::kPortable, KernelTarget::kX86Sse4, KernelTarget::kX86Avx2,
        KernelTarget::kX86Avx512, KernelTarget::kArmNeon}) {
    const GemmConfig config = Config(target);
    std::vector<char> packed(PackedBBytes(config, k, n));
    ASSERT_EQ(PackB(config, k, n, b.data(), n, packed.data(), packed.size()), Error::kOk);
    PackedB view;
    ASSERT_EQ(ViewPackedB(packed.data(), packed.size(), &view), Error::kOk);
    std::vector<float> unpacked(k * ldb, -1.0f);
    ASSERT_EQ(UnpackB(view, unpacked.data(), ldb), Error::kOk);
    for (size_t i = 0; i < k; ++i) {
      for (size_t j = 0; j < ldb; ++j) {
        ASSERT_EQ(unpacked[i * ldb + j], j < n ? b[i * n + j] : -1.0f)
            << KernelTargetName(target) << " k " << i << " n " << j;
      }
    }
    EXPECT_EQ(UnpackB(view, unpacked.data(), n - 1), Error::kInvalidArgument);
  }
}

// PackBTransposed of B^T (N x K rows, ldbt apart) writes exactly PackB's bytes of B, over two
// K blocks and an N edge on every target; a row stride shorter than K is refused.
TEST(PackedWeightsTest, TransposedPackingEqualsPackingTheTranspose) {
  const size_t k = 300, n = 37, ldbt = 305;
  const std::vector<float> b = Numbered(k, n);
  std::vector<float> bt(n * ldbt, -1.0f);
  for (size_t i = 0; i < k; ++i) {
    for (size_t j = 0; j < n; ++j) bt[j * ldbt + i] = b[i * n + j];
  }
  for (KernelTarget target :
       {KernelTarget::kPortable, KernelTarget::kX86Sse4, KernelTarget::kX86Avx2,
        KernelTarget::kX86Avx512, KernelTarget::kArmNeon}) {
    const GemmConfig config = Config(target);
    std::vector<char> expected(PackedBBytes(config, k, n)), packed(expected.size(), 7);
    ASSERT_EQ(PackB(config, k, n, b.data(), n, expected.data(), expected.size()), Error::kOk);
    ASSERT_EQ(PackBTransposed(config, k, n, bt.data(), ldbt, packed.data(), packed.size()),
              Error::kOk);
    EXPECT_EQ(packed, expected) << KernelTargetName(target);
    EXPECT_EQ(PackBTransposed(config, k, n, bt.data(), k - 1, packed.data(), packed.size()),
              Error::kInvalidArgument);
    EXPECT_EQ(PackBTransposed(config, k, n, bt.data(), ldbt, packed.data(), packed.size() - 1),
              Error::kOutOfMemory);
  }
}

TEST(PackedWeightsTest, RejectsBadHeadersAndShortBuffers) {
  const GemmConfig config = Config(KernelTarget::kPortable);
  const std::vector<float> b = Numbered(5, 3);
  std::vector<char> packed(PackedBBytes(config, 5, 3));
  ASSERT_EQ(PackB(config, 5, 3, b.data(), 3, packed.data(), packed.size()), Error::kOk);
  PackedB view;

  EXPECT_EQ(ViewPackedB(packed.data(), packed.size() - 1, &view), Error::kProgramOutOfBounds);
  EXPECT_EQ(ViewPackedB(packed.data(), 10, &view), Error::kInvalidProgram);

  auto corrupt = [&](size_t offset, uint32_t value) {
    std::vector<char> copy = packed;
    std::memcpy(copy.data() + offset, &value, sizeof(value));
    return ViewPackedB(copy.data(), copy.size(), &view);
  };
  EXPECT_EQ(corrupt(offsetof(PackedBHeader, magic), 0x12345678), Error::kInvalidProgram);
  EXPECT_EQ(corrupt(offsetof(PackedBHeader, version), 2), Error::kUnsupportedVersion);
  EXPECT_EQ(corrupt(offsetof(PackedBHeader, target), 77), Error::kNotSupported);
  EXPECT_EQ(corrupt(offsetof(PackedBHeader, nr), 16), Error::kInvalidProgram);
  EXPECT_EQ(corrupt(offsetof(PackedBHeader, kc), 128), Error::kInvalidProgram);
  // N = 9 needs two panels of 8: the data no longer matches the header.
  EXPECT_EQ(corrupt(offsetof(PackedBHeader, n), 9), Error::kProgramOutOfBounds);

  // Weights a program placed at an odd byte: the view would read misaligned floats.
  std::vector<float> storage(packed.size() / sizeof(float) + 1);
  char* odd = reinterpret_cast<char*>(storage.data()) + 1;
  std::memcpy(odd, packed.data(), packed.size());
  EXPECT_EQ(ViewPackedB(odd, packed.size(), &view), Error::kInvalidProgram);
  EXPECT_EQ(ViewPackedB(storage.data(), packed.size(), &view), Error::kInvalidProgram);  // magic
  std::memcpy(storage.data(), packed.data(), packed.size());
  EXPECT_EQ(ViewPackedB(storage.data(), packed.size(), &view), Error::kOk);

  EXPECT_EQ(PackB(config, 5, 3, b.data(), 3, packed.data(), packed.size() - 1),
            Error::kOutOfMemory);
  EXPECT_EQ(PackB(config, 0, 3, b.data(), 3, packed.data(), packed.size()),
            Error::kInvalidArgument);
  EXPECT_EQ(PackB(config, 5, 3, b.data(), 2, packed.data(), packed.size()),
            Error::kInvalidArgument);
}

}  // namespace
}  // namespace torchir::native
