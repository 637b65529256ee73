#include "compiler/frontend/safetensors.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <random>
#include <string>

#include "compiler/frontend/weight_file.h"
#include "tests/compiler/frontend/weight_fixtures.h"

namespace torchir::frontend {
namespace {

using testing::ExpectTensorsMatch;
using testing::FixturePath;
using ::testing::HasSubstr;
using testing::LoadExpected;
using testing::MakeTempDir;
using testing::ReadBytes;
using ::testing::StartsWith;
using testing::WriteBytes;

constexpr char kName[] = "weights.safetensors";

// A .safetensors image: the 8-byte length, `header` as is, then `data`.
std::string Image(const std::string& header, const std::string& data = "") {
  std::string out;
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((header.size() >> (8 * i)) & 0xff));
  return out + header + data;
}

absl::StatusOr<SafetensorsContents> Parse(const std::string& bytes) {
  return ParseSafetensors(nullptr, reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(),
                          kName);
}

// The error of parsing `bytes`; fails the test if parsing succeeds.
std::string ErrorOf(const std::string& bytes) {
  absl::StatusOr<SafetensorsContents> result = Parse(bytes);
  if (result.ok()) {
    ADD_FAILURE() << "parsed successfully";
    return "";
  }
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(result.status().message());
}

class SafetensorsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { testing::WeightFixtureDir(); }
};

TEST_F(SafetensorsTest, ReadsEveryDTypeAsPythonWroteIt) {
  absl::StatusOr<SafetensorsContents> contents =
      ReadSafetensors(FixturePath("all_dtypes.safetensors"));
  ASSERT_TRUE(contents.ok()) << contents.status();
  testing::ExpectedFile expected = LoadExpected("all_dtypes.safetensors");
  ExpectTensorsMatch(expected, contents->tensors);
  EXPECT_EQ(contents->metadata, (std::map<std::string, std::string>(expected.metadata.begin(),
                                                                    expected.metadata.end())));
}

TEST_F(SafetensorsTest, WeightFileOpensSafetensorsByContent) {
  absl::StatusOr<std::unique_ptr<WeightFile>> file =
      WeightFile::Open(FixturePath("model_state.safetensors"));
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_EQ((*file)->format(), "safetensors");
  EXPECT_EQ((*file)->metadata().at("format"), "pt");
  ExpectTensorsMatch(LoadExpected("model_state.safetensors"), (*file)->tensors());
  const StoredTensor* weight = (*file)->Find("conv.weight");
  ASSERT_NE(weight, nullptr);
  EXPECT_EQ(weight->shape, (std::vector<int64_t>{3, 2, 3, 3}));
  EXPECT_EQ((*file)->Find("conv.missing"), nullptr);
}

TEST_F(SafetensorsTest, TensorsAreViewsIntoTheBufferThatKeepItAlive) {
  auto bytes = std::make_shared<std::string>(ReadBytes(FixturePath("model_state.safetensors")));
  const uint8_t* begin = reinterpret_cast<const uint8_t*>(bytes->data());
  absl::StatusOr<SafetensorsContents> contents =
      ParseSafetensors(bytes, begin, bytes->size(), kName);
  ASSERT_TRUE(contents.ok()) << contents.status();
  std::weak_ptr<std::string> alive = bytes;
  bytes.reset();
  EXPECT_FALSE(alive.expired());  // the tensors hold it
  for (const StoredTensor& tensor : contents->tensors) {
    EXPECT_GE(tensor.data.data(), begin);
    EXPECT_LE(tensor.data.data() + tensor.data.size(), begin + alive.lock()->size());
  }
  contents->tensors.clear();
  EXPECT_TRUE(alive.expired());
}

TEST_F(SafetensorsTest, WriterMatchesThePythonWriterByteForByte) {
  absl::StatusOr<SafetensorsContents> contents =
      ReadSafetensors(FixturePath("all_dtypes.safetensors"));
  ASSERT_TRUE(contents.ok()) << contents.status();
  const std::string dir = MakeTempDir();
  const std::string path = dir + "/out.safetensors";
  ASSERT_TRUE(WriteSafetensors(path, contents->tensors, contents->metadata).ok());
  EXPECT_EQ(ReadBytes(path), ReadBytes(FixturePath("all_dtypes.safetensors")));
  // Only the output is left: the temporary file was renamed.
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), {}), 1);
  std::filesystem::remove_all(dir);
}

TEST_F(SafetensorsTest, WriterRoundTripsAndPadsTheHeader) {
  std::vector<StoredTensor> tensors(2);
  tensors[0].name = "b";  // kept in the given order, not sorted
  tensors[0].dtype = ir::DType::kInt16;
  tensors[0].shape = {3};
  const int16_t values[] = {1, -2, 3};
  tensors[0].data = ir::TensorData::Copy(values, sizeof(values));
  tensors[1].name = "a \"quoted\" name";
  tensors[1].dtype = ir::DType::kFloat32;
  tensors[1].shape = {0, 2};
  tensors[1].data = ir::TensorData::Copy(nullptr, 0);
  const std::string dir = MakeTempDir();
  const std::string path = dir + "/round.safetensors";
  ASSERT_TRUE(WriteSafetensors(path, tensors, {{"k", "v"}}).ok());

  const std::string bytes = ReadBytes(path);
  uint64_t header_length = 0;
  for (int i = 7; i >= 0; --i) header_length = (header_length << 8) | uint8_t(bytes[i]);
  EXPECT_EQ(header_length % 8, 0u);
  EXPECT_EQ(bytes.substr(8, 16), "{\"__metadata__\":");

  absl::StatusOr<std::unique_ptr<WeightFile>> file = WeightFile::Open(path);
  ASSERT_TRUE(file.ok()) << file.status();
  ASSERT_EQ((*file)->tensors().size(), 2u);
  EXPECT_EQ((*file)->tensors()[0].name, "b");
  EXPECT_EQ((*file)->tensors()[1].name, "a \"quoted\" name");
  EXPECT_EQ((*file)->tensors()[1].shape, (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(std::memcmp((*file)->tensors()[0].data.data(), values, sizeof(values)), 0);
  EXPECT_EQ((*file)->metadata().at("k"), "v");
  std::filesystem::remove_all(dir);
}

TEST_F(SafetensorsTest, WriterRejectsBadTensorsAndLeavesNoFile) {
  StoredTensor good;
  good.name = "w";
  good.shape = {2};
  const float values[] = {1, 2};
  good.data = ir::TensorData::Copy(values, sizeof(values));

  StoredTensor short_data = good;
  short_data.shape = {3};
  StoredTensor complex128 = good;
  complex128.dtype = ir::DType::kComplex128;
  complex128.shape = {};
  const double complex_value[] = {1, 2};  // one complex128: 16 bytes
  complex128.data = ir::TensorData::Copy(complex_value, sizeof(complex_value));
  StoredTensor reserved = good;
  reserved.name = "__metadata__";

  const std::string dir = MakeTempDir();
  const std::string path = dir + "/bad.safetensors";
  struct Case {
    std::vector<StoredTensor> tensors;
    std::string error;
  };
  const Case cases[] = {
      {{short_data}, "has 8 bytes of data, but shape [3] float32 needs 12"},
      {{complex128}, "safetensors has no dtype for complex128"},
      {{reserved}, "the name is reserved"},
      {{good, good}, "tensor 'w': duplicate name"},
  };
  for (const Case& c : cases) {
    absl::Status status = WriteSafetensors(path, c.tensors);
    EXPECT_THAT(std::string(status.message()), HasSubstr(c.error));
    EXPECT_THAT(std::string(status.message()), StartsWith(path));
    EXPECT_FALSE(std::filesystem::exists(path));
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir));

  absl::Status status = WriteSafetensors(dir + "/missing/dir/x.safetensors", {good});
  EXPECT_THAT(std::string(status.message()), HasSubstr("missing/dir/x.safetensors"));
  EXPECT_THAT(std::string(status.message()), HasSubstr("No such file or directory"));
  std::filesystem::remove_all(dir);
}

TEST_F(SafetensorsTest, EveryTruncationFailsCleanly) {
  const std::string bytes = ReadBytes(FixturePath("model_state.safetensors"));
  ASSERT_TRUE(Parse(bytes).ok());
  for (size_t length = 0; length < bytes.size(); ++length) {
    SCOPED_TRACE(length);
    EXPECT_THAT(ErrorOf(bytes.substr(0, length)), StartsWith(std::string(kName) + ": "));
  }
}

TEST_F(SafetensorsTest, ReportsTheHeaderLengthProblem) {
  EXPECT_THAT(ErrorOf("abc"), HasSubstr("too short for a safetensors header length"));
  std::string past = Image("{}");
  past[0] = 100;
  EXPECT_THAT(ErrorOf(past), HasSubstr("header length 100 runs past the end of the file (2 bytes"));
  std::string absurd = Image("{}");
  absurd[7] = 0x7f;
  EXPECT_THAT(ErrorOf(absurd), HasSubstr("exceeds the limit of 100000000 bytes"));
  EXPECT_THAT(ErrorOf(Image("")), HasSubstr("header is empty"));
}

TEST_F(SafetensorsTest, ReportsMalformedHeaders) {
  const std::string eight_bytes(8, '\0');
  struct Case {
    std::string header;
    std::string data;
    std::string error;
  };
  const Case cases[] = {
      {"{\"a\":", "", "safetensors header 1:6: malformed JSON: "},
      {"[1, 2]", "", "not a JSON object"},
      {std::string("{\"a\"\0:1}", 8), "",
       "safetensors header 1:5: malformed JSON: NUL byte (byte 12 of the file)"},
      {"{\"\xff\":{}}", "", "malformed JSON: Invalid encoding in string"},
      {"\xEF\xBB\xBF{}", "", "safetensors header 1:1: starts with a UTF-8 byte-order mark"},
      {"{\"a\": " + std::string(100, '[') + std::string(100, ']') + "}", "",
       "safetensors header 1:70: arrays and objects nested deeper than 64 levels (byte 77 of the "
       "file)"},
      {"{\"w\": 1}", "", "tensor 'w': entry is a number, expected an object"},
      {R"({"w": {"shape": [2], "data_offsets": [0, 8]}})", eight_bytes,
       "tensor 'w': missing 'dtype'"},
      {R"({"w": {"dtype": "F32", "data_offsets": [0, 8]}})", eight_bytes, "missing 'shape'"},
      {R"({"w": {"dtype": "F32", "shape": [2]}})", eight_bytes, "missing 'data_offsets'"},
      {R"({"w": {"dtype": 7, "shape": [2], "data_offsets": [0, 8]}})", eight_bytes,
       "'dtype' is a number, expected a string"},
      {R"({"w": {"dtype": "F128", "shape": [2], "data_offsets": [0, 8]}})", eight_bytes,
       "unsupported dtype 'F128'"},
      {R"({"w": {"dtype": "F32", "shape": 2, "data_offsets": [0, 8]}})", eight_bytes,
       "'shape' is a number, expected an array"},
      {R"({"w": {"dtype": "F32", "shape": [-2], "data_offsets": [0, 8]}})", eight_bytes,
       "'shape' element 0 is not a non-negative 64-bit integer"},
      {R"({"w": {"dtype": "F32", "shape": [2.0], "data_offsets": [0, 8]}})", eight_bytes,
       "'shape' element 0 is not"},
      {R"({"w": {"dtype": "F32", "shape": [18446744073709551615], "data_offsets": [0, 8]}})",
       eight_bytes, "'shape' element 0 is not"},
      {R"({"w": {"dtype": "F32", "shape": [4611686018427387904, 4], "data_offsets": [0, 8]}})",
       eight_bytes, "shape [4611686018427387904, 4] float32 overflows 64-bit byte sizes"},
      {R"({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0]}})", eight_bytes,
       "'data_offsets' is not an array [begin, end]"},
      {R"({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, "8"]}})", eight_bytes,
       "'data_offsets' are not non-negative 64-bit integers"},
      {R"({"w": {"dtype": "F32", "shape": [2], "data_offsets": [8, 0]}})", eight_bytes,
       "data_offsets [8, 0] have begin > end"},
      {R"({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 16]}})", eight_bytes,
       "data_offsets [0, 16] end past the data buffer (8 bytes)"},
      {R"({"fc.weight": {"dtype": "F32", "shape": [8, 4], "data_offsets": [0, 64]}})",
       std::string(64, '\0'),
       "tensor 'fc.weight': data_offsets [0, 64] do not match shape [8, 4] float32 (128 bytes)"},
      {R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
           "b": {"dtype": "I32", "shape": [2], "data_offsets": [4, 12]}})",
       std::string(12, '\0'), "tensor 'b': data_offsets [4, 12] overlap tensor 'a' (ending at 8)"},
      {R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
           "b": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}})",
       eight_bytes, "overlap"},
      {R"({"a": {"dtype": "U8", "shape": [2], "data_offsets": [4, 6]}})", std::string(6, '\0'),
       "tensor 'a': data_offsets [4, 6] leave a hole of 4 bytes at 0"},
      {R"({"a": {"dtype": "U8", "shape": [2], "data_offsets": [0, 2]}})", std::string(6, '\0'),
       "4 trailing bytes after the last tensor"},
      {R"({"a": {"dtype": "U8", "shape": [1], "data_offsets": [0, 1]},
           "a": {"dtype": "U8", "shape": [1], "data_offsets": [1, 2]}})",
       std::string(2, '\0'), "safetensors header 2:12: duplicate key 'a' in the object at $"},
      {R"({"__metadata__": [], "a": {"dtype": "U8", "shape": [], "data_offsets": [0, 1]}})",
       std::string(1, '\0'), "'__metadata__' is an array, expected an object"},
      {R"({"__metadata__": {"version": 2}})", "",
       "'__metadata__' entry 'version' is a number, expected a string"},
      {R"({"__metadata__": {}, "__metadata__": {}})", "", "duplicate key '__metadata__'"},
      {R"({"__metadata__": {"format": "pt", "format": "np"}})", "",
       "duplicate key 'format' in the object at $.__metadata__"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.header);
    const std::string error = ErrorOf(Image(c.header, c.data));
    EXPECT_THAT(error, StartsWith(std::string(kName) + ": "));
    EXPECT_THAT(error, HasSubstr(c.error));
  }
}

TEST_F(SafetensorsTest, AcceptsAnEmptyFileOfTensorsAndZeroSizedTensors) {
  absl::StatusOr<SafetensorsContents> empty = Parse(Image("{}      "));
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_TRUE(empty->tensors.empty());

  // The tensors borrow the file's bytes (no owner given): keep them alive.
  const std::string file =
      Image(R"({"z": {"dtype": "F16", "shape": [0, 5], "data_offsets": [0, 0]},
                "s": {"dtype": "I8", "shape": [], "data_offsets": [0, 1]}})",
            "\x07");
  absl::StatusOr<SafetensorsContents> zero = Parse(file);
  ASSERT_TRUE(zero.ok()) << zero.status();
  ASSERT_EQ(zero->tensors.size(), 2u);
  EXPECT_EQ(zero->tensors[0].data.size(), 0u);
  EXPECT_EQ(zero->tensors[1].data.data()[0], 7);
}

TEST_F(SafetensorsTest, FlippedHeaderBytesNeverCrash) {
  const std::string bytes = ReadBytes(FixturePath("model_state.safetensors"));
  uint64_t header_length = 0;
  for (int i = 7; i >= 0; --i) header_length = (header_length << 8) | uint8_t(bytes[i]);
  int failures = 0;
  for (size_t i = 0; i < 8 + header_length; ++i) {
    for (uint8_t mask : {0x01, 0x20, 0xff}) {
      std::string corrupt = bytes;
      corrupt[i] = static_cast<char>(corrupt[i] ^ mask);
      absl::StatusOr<SafetensorsContents> result = Parse(corrupt);
      if (!result.ok()) {
        ++failures;
        EXPECT_THAT(std::string(result.status().message()), StartsWith(kName));
      }
    }
  }
  EXPECT_GT(failures, 0);
}

TEST_F(SafetensorsTest, RandomBytesNeverCrash) {
  std::mt19937 random(12345);
  for (int round = 0; round < 2000; ++round) {
    std::string bytes(random() % 64, '\0');
    for (char& c : bytes) c = static_cast<char>(random());
    if (round % 2 == 0 && bytes.size() >= 8) {  // a plausible header length
      bytes[0] = static_cast<char>(bytes.size() - 8);
      std::fill(bytes.begin() + 1, bytes.begin() + 8, '\0');
    }
    absl::StatusOr<SafetensorsContents> result = Parse(bytes);
    if (!result.ok()) {
      EXPECT_THAT(std::string(result.status().message()), StartsWith(kName));
    }
  }
}

TEST_F(SafetensorsTest, AHeaderLengthThatStartsLikeAPickleIsStillSafetensors) {
  // A 640-byte header: the file starts with 0x80 0x02, pickle's PROTO 2.
  std::string header = R"({"w": {"dtype": "U8", "shape": [1], "data_offsets": [0, 1]}})";
  header.resize(640, ' ');
  const std::string dir = MakeTempDir();
  WriteBytes(dir + "/w.safetensors", Image(header, "\x2a"));
  absl::StatusOr<std::unique_ptr<WeightFile>> file = WeightFile::Open(dir + "/w.safetensors");
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_EQ((*file)->format(), "safetensors");
  EXPECT_EQ((*file)->tensors()[0].data.data()[0], 0x2a);
  std::filesystem::remove_all(dir);
}

TEST_F(SafetensorsTest, FileErrorsNameThePath) {
  const std::string dir = MakeTempDir();
  absl::StatusOr<std::unique_ptr<WeightFile>> missing = WeightFile::Open(dir + "/nope.safetensors");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(missing.status().message()),
              HasSubstr(dir + "/nope.safetensors: cannot open: No such file or directory"));

  WriteBytes(dir + "/empty.safetensors", "");
  absl::StatusOr<std::unique_ptr<WeightFile>> empty = WeightFile::Open(dir + "/empty.safetensors");
  EXPECT_THAT(std::string(empty.status().message()),
              HasSubstr(dir + "/empty.safetensors: file of 0 bytes is too short"));

  absl::StatusOr<std::unique_ptr<WeightFile>> directory = WeightFile::Open(dir);
  EXPECT_THAT(std::string(directory.status().message()), HasSubstr("Is a directory"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace torchir::frontend
