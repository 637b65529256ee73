#include "compiler/frontend/torch_pt.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>

#include "compiler/frontend/weight_file.h"
#include "tests/compiler/frontend/test_archives.h"
#include "tests/compiler/frontend/weight_fixtures.h"

namespace torchir::frontend {
namespace {

using ::testing::AllOf;
using testing::BuildTorchArchive;
using testing::ExpectTensorsMatch;
using testing::FixturePath;
using testing::FloatRange;
using ::testing::HasSubstr;
using testing::LoadExpected;
using testing::PickleWriter;
using testing::ReadBytes;
using ::testing::StartsWith;

constexpr char kName[] = "model.pt";

absl::StatusOr<std::vector<StoredTensor>> Parse(const std::string& bytes,
                                                const TorchPtOptions& options = {}) {
  return ParseTorchPt(nullptr, reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), kName,
                      options);
}

std::string ErrorOf(const std::string& bytes, const TorchPtOptions& options = {}) {
  absl::StatusOr<std::vector<StoredTensor>> result = Parse(bytes, options);
  if (result.ok()) {
    ADD_FAILURE() << "parsed successfully";
    return "";
  }
  return std::string(result.status().message());
}

// A state_dict pickle {name: tensor} with one float storage "0" of `numel`.
std::string StateDict(int64_t numel, int64_t offset, const std::vector<int64_t>& sizes,
                      const std::vector<int64_t>& strides,
                      const std::string& storage_type = "FloatStorage") {
  PickleWriter pickle;
  pickle.Proto().Op('}').Mark().Str("w");
  pickle.Tensor(storage_type, "0", numel, offset, sizes, strides);
  return pickle.Op('u').Stop().bytes();
}

std::string Replace(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

class TorchPtTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { testing::WeightFixtureDir(); }
};

TEST_F(TorchPtTest, ReadsAModelStateDictWithMetadata) {
  absl::StatusOr<std::vector<StoredTensor>> tensors = ReadTorchPt(FixturePath("model_state.pt"));
  ASSERT_TRUE(tensors.ok()) << tensors.status();
  ExpectTensorsMatch(LoadExpected("model_state.pt"), *tensors);
}

TEST_F(TorchPtTest, ReadsEveryTorchDType) {
  absl::StatusOr<std::vector<StoredTensor>> tensors = ReadTorchPt(FixturePath("dtypes.pt"));
  ASSERT_TRUE(tensors.ok()) << tensors.status();
  ExpectTensorsMatch(LoadExpected("dtypes.pt"), *tensors);
}

TEST_F(TorchPtTest, ReadsStridedSharedAndExpandedViews) {
  absl::StatusOr<std::vector<StoredTensor>> tensors = ReadTorchPt(FixturePath("views.pt"));
  ASSERT_TRUE(tensors.ok()) << tensors.status();
  ExpectTensorsMatch(LoadExpected("views.pt"), *tensors);
}

TEST_F(TorchPtTest, ContiguousViewsAreZeroCopyAndShareTheirStorage) {
  auto bytes = std::make_shared<std::string>(ReadBytes(FixturePath("views.pt")));
  const uint8_t* begin = reinterpret_cast<const uint8_t*>(bytes->data());
  const uint8_t* end = begin + bytes->size();
  absl::StatusOr<std::vector<StoredTensor>> tensors =
      ParseTorchPt(bytes, begin, bytes->size(), kName);
  ASSERT_TRUE(tensors.ok()) << tensors.status();
  auto find = [&](const std::string& name) {
    for (const StoredTensor& tensor : *tensors) {
      if (tensor.name == name) return tensor.data;
    }
    ADD_FAILURE() << name;
    return ir::TensorData();
  };
  const ir::TensorData row = find("row");
  const ir::TensorData tail = find("tail");
  const ir::TensorData transposed = find("transposed");
  EXPECT_TRUE(row.data() >= begin && row.data() < end);
  EXPECT_EQ(tail.data() - row.data(), 4 * sizeof(float));  // offsets 4 and 8 of one storage
  EXPECT_FALSE(transposed.data() >= begin && transposed.data() < end);  // a dense copy
}

TEST_F(TorchPtTest, WeightFileSniffsTheZipFormat) {
  absl::StatusOr<std::unique_ptr<WeightFile>> file =
      WeightFile::Open(FixturePath("model_state.pt"));
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_EQ((*file)->format(), "pytorch");
  const StoredTensor* steps = (*file)->Find("bn.num_batches_tracked");
  ASSERT_NE(steps, nullptr);
  EXPECT_EQ(steps->dtype, ir::DType::kInt64);
  EXPECT_TRUE(steps->shape.empty());
  int64_t value;
  std::memcpy(&value, steps->data.data(), sizeof(value));
  EXPECT_EQ(value, 1);
}

TEST_F(TorchPtTest, RejectsFilesThatAreNotStateDicts) {
  const std::string nested = FixturePath("nested.pt");
  absl::StatusOr<std::unique_ptr<WeightFile>> file = WeightFile::Open(nested);
  EXPECT_THAT(std::string(file.status().message()),
              HasSubstr(nested + ": state_dict entry 'state_dict' is a dict, not a tensor"));

  const std::string legacy = FixturePath("legacy.pt");
  file = WeightFile::Open(legacy);
  EXPECT_THAT(std::string(file.status().message()),
              AllOf(StartsWith(legacy + ": legacy (pre-1.6, non-zip) torch.save format"),
                    HasSubstr("re-save it")));

  const std::string scripted = FixturePath("scripted.pt");
  file = WeightFile::Open(scripted);
  EXPECT_THAT(std::string(file.status().message()),
              AllOf(StartsWith(scripted + ": "), HasSubstr("TorchScript archive")));
}

TEST_F(TorchPtTest, EveryTruncationFailsCleanly) {
  const std::string bytes = ReadBytes(FixturePath("model_state.pt"));
  for (size_t length = 0; length < bytes.size(); ++length) {
    SCOPED_TRACE(length);
    // An exact-size copy, so any read past the end is a real overread.
    const std::string prefix = bytes.substr(0, length);
    EXPECT_THAT(ErrorOf(prefix), StartsWith(std::string(kName) + ": "));
  }
}

TEST_F(TorchPtTest, RejectsABogusCentralDirectory) {
  const std::string bytes = ReadBytes(FixturePath("model_state.pt"));
  // torch.save writes a ZIP64 end record; its central directory offset is at +48.
  const size_t record = bytes.rfind(std::string("PK\x06\x06", 4));
  ASSERT_NE(record, std::string::npos);
  std::string moved = bytes;
  moved[record + 48 + 6] = 0x7f;
  EXPECT_THAT(ErrorOf(moved), HasSubstr("central directory ["));

  std::string bad_signature = bytes;
  bad_signature[bytes.find(std::string("PK\x01\x02", 4)) + 2] = 9;
  EXPECT_THAT(ErrorOf(bad_signature), HasSubstr("central directory entry 0 (at offset"));

  std::string many_entries = bytes;
  many_entries[record + 24 + 4] = 1;  // entries on this disk: 2^32 + 9
  many_entries[record + 32 + 4] = 1;  // total entries: 2^32 + 9
  EXPECT_THAT(ErrorOf(many_entries), HasSubstr("cannot hold"));
}

TEST_F(TorchPtTest, DetectsACorruptPickleAndMissingStorage) {
  const std::string bytes = ReadBytes(FixturePath("model_state.pt"));
  std::string flipped = bytes;
  const size_t at = bytes.find("conv.weight");
  ASSERT_NE(at, std::string::npos);
  flipped[at] = 'C';
  EXPECT_THAT(ErrorOf(flipped),
              AllOf(HasSubstr("zip entry 'model_state/data.pkl': CRC-32 mismatch")));

  const std::string renamed = Replace(bytes, "model_state/data/0", "model_state/data/X");
  EXPECT_THAT(ErrorOf(renamed), HasSubstr("tensor 'conv.weight': storage '0' has no archive entry "
                                          "'model_state/data/0'"));
}

TEST_F(TorchPtTest, RandomBytesAfterTheZipMagicNeverCrash) {
  std::mt19937 random(777);
  const std::string bytes = ReadBytes(FixturePath("model_state.pt"));
  for (int round = 0; round < 500; ++round) {
    std::string corrupt = bytes;
    for (int i = 0; i < 4; ++i) corrupt[4 + random() % (corrupt.size() - 4)] = char(random());
    absl::StatusOr<std::vector<StoredTensor>> result = Parse(corrupt);
    if (!result.ok()) {
      EXPECT_THAT(std::string(result.status().message()), StartsWith(kName));
    }
  }
}

TEST_F(TorchPtTest, ChecksViewsAgainstTheirStorage) {
  const std::string storage = FloatRange(6);
  struct Case {
    std::string pickle;
    std::string error;
  };
  const Case cases[] = {
      {StateDict(6, 4, {3}, {1}),
       "tensor 'w': view (offset 4, size [3], stride [1]) of float32 runs past the end of storage "
       "'0' (24 bytes)"},
      {StateDict(6, 0, {2, 3}, {4, 1}), "runs past the end of storage"},
      {StateDict(7, 0, {6}, {1}),
       "storage '0' declares 7 FloatStorage elements but its entry 'archive/data/0' holds 24 "
       "bytes"},
      {StateDict(6, 0, {6}, {1}, "QInt8Storage"), "unsupported storage type 'QInt8Storage'"},
      {StateDict(6, 0, {int64_t{1} << 62, 4}, {0, 0}), "overflows 64-bit sizes"},
      {StateDict(6, 0, {1 << 20, 1 << 20}, {0, 0}), "beyond the limit of"},
      {PickleWriter().Proto().Op(']').Stop().bytes(),
       "archive/data.pkl holds a list, expected a state_dict"},
      {PickleWriter().Proto().Op('}').Int(1).Int(2).Op('s').Stop().bytes(),
       "state_dict key is a int, expected a str"},
      {PickleWriter().Proto().Op('}').Mark().Str("a").Float(1).Op('u').Stop().bytes(),
       "state_dict entry 'a' is a float, not a tensor"},
  };
  TorchPtOptions options;
  options.max_copied_bytes = 1 << 20;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.error);
    const std::string archive = BuildTorchArchive("archive", c.pickle, {{"0", storage}});
    EXPECT_THAT(ErrorOf(archive, options), AllOf(StartsWith(kName), HasSubstr(c.error)));
  }

  PickleWriter duplicate;
  duplicate.Proto().Op('}').Mark().Str("w").Tensor("FloatStorage", "0", 6, 0, {6}, {1});
  duplicate.Str("w").Tensor("FloatStorage", "0", 6, 0, {6}, {1}).Op('u').Stop();
  EXPECT_THAT(ErrorOf(BuildTorchArchive("archive", duplicate.bytes(), {{"0", storage}})),
              HasSubstr("duplicate state_dict key 'w'"));
}

TEST_F(TorchPtTest, CopiesOverlappingViewsWithinTheBudget) {
  const std::string archive =
      BuildTorchArchive("x", StateDict(6, 1, {2, 3}, {0, 2}), {{"0", FloatRange(6)}});
  absl::StatusOr<std::vector<StoredTensor>> tensors = Parse(archive);
  ASSERT_TRUE(tensors.ok()) << tensors.status();
  ASSERT_EQ((*tensors)[0].data.size(), 6 * sizeof(float));
  float values[6];
  std::memcpy(values, (*tensors)[0].data.data(), sizeof(values));
  EXPECT_THAT(values, ::testing::ElementsAre(1, 3, 5, 1, 3, 5));
}

TEST_F(TorchPtTest, ReadsRebuildTensorV3WithAnExplicitDType) {
  // What newer PyTorch writes for dtypes without a typed storage class.
  PickleWriter pickle;
  pickle.Proto().Op('}').Mark().Str("u");
  pickle.Global("torch._utils", "_rebuild_tensor_v3").Mark();
  pickle.Storage("UntypedStorage", "0", 8).Int(1).IntTuple({3}).IntTuple({1}).Bool(false);
  pickle.Global("collections", "OrderedDict").Op(')').Op('R');
  pickle.Global("torch", "uint16").Op('t').Op('R').Op('u').Stop();
  const std::string storage("\x01\x00\x02\x00\x03\x00\x04\x00", 8);
  // The tensors borrow the archive's bytes (no owner given): keep them alive.
  const std::string archive = BuildTorchArchive("v3", pickle.bytes(), {{"0", storage}});
  absl::StatusOr<std::vector<StoredTensor>> tensors = Parse(archive);
  ASSERT_TRUE(tensors.ok()) << tensors.status();
  EXPECT_EQ((*tensors)[0].dtype, ir::DType::kUInt16);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>((*tensors)[0].data.data()), 6),
            storage.substr(2, 6));
}

TEST_F(TorchPtTest, RejectsUnsupportedArchives) {
  const std::string pickle = StateDict(6, 0, {6}, {1});
  std::vector<testing::ZipFile> deflated = {{"a/data.pkl", pickle, /*method=*/8}};
  EXPECT_THAT(ErrorOf(testing::BuildZip(deflated)),
              HasSubstr("zip entry 'a/data.pkl': compression method 8 (deflate) is not supported"));

  std::vector<testing::ZipFile> big_endian = {
      {"a/data.pkl", pickle}, {"a/byteorder", "big"}, {"a/data/0", FloatRange(6)}};
  EXPECT_THAT(ErrorOf(testing::BuildZip(big_endian)), HasSubstr("byte order 'big'"));

  EXPECT_THAT(ErrorOf(testing::BuildZip({{"top.pkl", pickle}})),
              HasSubstr("zip entry 'top.pkl' is not inside a top folder"));
  EXPECT_THAT(ErrorOf(testing::BuildZip({{"a/other.pkl", pickle}})),
              HasSubstr("no 'a/data.pkl' in the archive"));
  EXPECT_THAT(ErrorOf("just text"), HasSubstr("not a torch.save zip archive"));
}

}  // namespace
}  // namespace torchir::frontend
