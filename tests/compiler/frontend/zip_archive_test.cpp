#include "compiler/frontend/zip_archive.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "tests/compiler/frontend/test_archives.h"
#include "tests/compiler/frontend/weight_fixtures.h"

namespace torchir::frontend {
namespace {

using testing::BuildZip;
using ::testing::ElementsAre;
using testing::FixturePath;
using ::testing::HasSubstr;
using testing::ReadBytes;
using ::testing::StartsWith;
using testing::ZipFile;
using testing::ZipOptions;

constexpr char kName[] = "archive.zip";

absl::StatusOr<ZipArchive> Parse(const std::string& bytes) {
  return ZipArchive::Parse(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), kName);
}

std::string ParseError(const std::string& bytes) {
  absl::StatusOr<ZipArchive> archive = Parse(bytes);
  if (archive.ok()) {
    ADD_FAILURE() << "parsed successfully";
    return "";
  }
  return std::string(archive.status().message());
}

std::string Text(absl::Span<const uint8_t> bytes) {
  return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

std::vector<std::string> Names(const ZipArchive& archive) {
  std::vector<std::string> names;
  for (const ZipEntry& entry : archive.entries()) names.push_back(entry.name);
  return names;
}

// The data of the entry called `name` in `bytes`, or the error.
std::string DataOrError(const std::string& bytes, const std::string& name) {
  absl::StatusOr<ZipArchive> archive = Parse(bytes);
  if (!archive.ok()) return std::string(archive.status().message());
  const ZipEntry* entry = archive->Find(name);
  if (entry == nullptr) return "no entry";
  absl::StatusOr<absl::Span<const uint8_t>> data = archive->VerifiedData(*entry);
  if (!data.ok()) return std::string(data.status().message());
  return Text(*data);
}

void PutU32(std::string* bytes, size_t at, uint32_t value) {
  for (int i = 0; i < 4; ++i) (*bytes)[at + i] = static_cast<char>((value >> (8 * i)) & 0xff);
}

class ZipArchiveTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { testing::WeightFixtureDir(); }
};

TEST_F(ZipArchiveTest, ReadsATorchSaveArchive) {
  const std::string bytes = ReadBytes(FixturePath("dtypes.pt"));
  absl::StatusOr<ZipArchive> archive = Parse(bytes);
  ASSERT_TRUE(archive.ok()) << archive.status();
  const std::vector<std::string> names = Names(*archive);
  EXPECT_EQ(names.front(), "dtypes/data.pkl");
  EXPECT_EQ(names.back(), "dtypes/version");
  EXPECT_EQ(names.size(), 2u + 12u);  // data.pkl, version, one storage per tensor
  const ZipEntry* version = archive->Find("dtypes/version");
  ASSERT_NE(version, nullptr);
  absl::StatusOr<absl::Span<const uint8_t>> data = archive->VerifiedData(*version);
  ASSERT_TRUE(data.ok()) << data.status();
  EXPECT_EQ(Text(*data), "3\n");
  // torch.save aligns entry data to 64 bytes, which keeps zero-copy views aligned.
  for (const ZipEntry& entry : archive->entries()) {
    absl::StatusOr<absl::Span<const uint8_t>> bytes_of = archive->VerifiedData(entry);
    ASSERT_TRUE(bytes_of.ok()) << bytes_of.status();
    EXPECT_EQ((bytes_of->data() - reinterpret_cast<const uint8_t*>(bytes.data())) % 64, 0)
        << entry.name;
  }
  EXPECT_EQ(archive->Find("dtypes/nothing"), nullptr);
}

TEST_F(ZipArchiveTest, ReadsClassicAndZip64ArchivesWithComments) {
  const std::vector<ZipFile> files = {
      {"a.txt", "alpha"}, {"dir/b.bin", std::string("\0\1", 2)}, {"empty", ""}};
  for (bool zip64 : {false, true}) {
    SCOPED_TRACE(zip64);
    ZipOptions options;
    options.zip64 = zip64;
    options.comment = "a comment PK\x05\x06 with a fake signature";
    const std::string bytes = BuildZip(files, options);
    absl::StatusOr<ZipArchive> archive = Parse(bytes);
    ASSERT_TRUE(archive.ok()) << archive.status();
    EXPECT_THAT(Names(*archive), ElementsAre("a.txt", "dir/b.bin", "empty"));
    EXPECT_EQ(DataOrError(bytes, "a.txt"), "alpha");
    EXPECT_EQ(DataOrError(bytes, "dir/b.bin"), std::string("\0\1", 2));
    EXPECT_EQ(DataOrError(bytes, "empty"), "");
    EXPECT_EQ(archive->entries()[1].uncompressed_size, 2u);
  }
  absl::StatusOr<ZipArchive> empty = Parse(BuildZip({}));
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_TRUE(empty->entries().empty());
}

TEST_F(ZipArchiveTest, ComputesTheStandardCrc32) {
  const std::string check = "123456789";
  EXPECT_EQ(Crc32(absl::MakeConstSpan(reinterpret_cast<const uint8_t*>(check.data()), 9)),
            0xcbf43926u);
  EXPECT_EQ(Crc32({}), 0u);
}

TEST_F(ZipArchiveTest, ReportsDirectoryErrors) {
  const std::string good = BuildZip({{"a.txt", "alpha"}, {"b.txt", "beta"}});
  const size_t end = good.size() - 22;
  const size_t central = good.find(std::string("PK\x01\x02", 4));

  EXPECT_THAT(ParseError("PK"), HasSubstr("too short to hold a zip directory"));
  EXPECT_THAT(ParseError(std::string(100, 'x')), HasSubstr("no end-of-central-directory record"));

  std::string offset = good;
  PutU32(&offset, end + 16, 1000);
  EXPECT_THAT(ParseError(offset), HasSubstr("central directory [1000, +"));

  std::string count = good;
  count[end + 8] = count[end + 10] = 50;
  EXPECT_THAT(ParseError(count), HasSubstr("cannot hold 50 entries"));

  std::string disk = good;
  disk[end + 4] = 1;
  EXPECT_THAT(ParseError(disk), HasSubstr("multi-disk archives are not supported"));

  std::string signature = good;
  signature[central + 3] = 9;
  EXPECT_THAT(ParseError(signature), HasSubstr("central directory entry 0 (at offset " +
                                               std::to_string(central) + "): bad signature"));

  std::string name = good;
  name[central + 28] = 100;  // the name would run into the end record
  EXPECT_THAT(ParseError(name),
              HasSubstr("name, extra field or comment runs past the central directory"));

  std::string local = good;
  PutU32(&local, central + 42, 0x7fffffff);
  EXPECT_THAT(ParseError(local), HasSubstr("local header offset 2147483647 is past the end"));

  EXPECT_THAT(ParseError(BuildZip({{"same", "1"}, {"same", "2"}})),
              HasSubstr("duplicate entry name 'same'"));

  // ZIP64 sizes without the extra field that should hold them.
  std::string missing64 = good;
  PutU32(&missing64, central + 20, 0xffffffff);
  EXPECT_THAT(ParseError(missing64), HasSubstr("need a ZIP64 extra field, which is missing"));

  ZipOptions zip64;
  zip64.zip64 = true;
  std::string bad_record = BuildZip({{"a", "1"}}, zip64);
  const size_t locator = bad_record.size() - 22 - 20;
  PutU32(&bad_record, locator + 8, static_cast<uint32_t>(locator - 10));
  EXPECT_THAT(ParseError(bad_record), HasSubstr("ZIP64 end record offset"));
}

TEST_F(ZipArchiveTest, ReportsEntryDataErrors) {
  const std::string good = BuildZip({{"a.txt", "alpha"}});
  EXPECT_THAT(DataOrError(BuildZip({{"d", "xx", /*method=*/8}}), "d"),
              HasSubstr("archive.zip: zip entry 'd': compression method 8 (deflate) is not "
                        "supported"));
  EXPECT_THAT(DataOrError(BuildZip({{"e", "xx", 0, /*flags=*/1}}), "e"),
              HasSubstr("encrypted entries are not supported"));

  std::string local_signature = good;
  local_signature[1] = 'X';
  EXPECT_THAT(DataOrError(local_signature, "a.txt"), HasSubstr("bad local header signature"));

  std::string local_name = good;
  local_name[30] = 'A';
  EXPECT_THAT(DataOrError(local_name, "a.txt"), HasSubstr("local header names 'A.txt' instead"));

  std::string long_extra = good;
  long_extra[28] = static_cast<char>(0xff);
  long_extra[29] = static_cast<char>(0xff);
  EXPECT_THAT(DataOrError(long_extra, "a.txt"),
              HasSubstr("local header name or extra field runs past the end"));

  const size_t central = good.find(std::string("PK\x01\x02", 4));
  std::string big = good;
  PutU32(&big, central + 20, 1000);
  PutU32(&big, central + 24, 1000);
  EXPECT_THAT(DataOrError(big, "a.txt"), HasSubstr("data [35, +1000) runs past the end"));

  std::string sizes = good;
  PutU32(&sizes, central + 24, 4);
  EXPECT_THAT(DataOrError(sizes, "a.txt"),
              HasSubstr("stored entry has compressed size 5 != uncompressed size 4"));

  std::string crc = good;
  crc[35] = 'A';
  EXPECT_THAT(DataOrError(crc, "a.txt"), HasSubstr("zip entry 'a.txt': CRC-32 mismatch"));
}

TEST_F(ZipArchiveTest, EveryTruncationAndRandomInputFailsCleanly) {
  const std::string bytes = ReadBytes(FixturePath("views.pt"));
  for (size_t length = 0; length < bytes.size(); ++length) {
    SCOPED_TRACE(length);
    EXPECT_THAT(ParseError(bytes.substr(0, length)), StartsWith(std::string(kName) + ": zip"));
  }
  std::mt19937 random(4242);
  for (int round = 0; round < 3000; ++round) {
    std::string corrupt = bytes;
    // Hit the directory at the end most of the time.
    for (int i = 0; i < 2; ++i) {
      const size_t span = round % 4 == 0 ? corrupt.size() : 200;
      corrupt[corrupt.size() - 1 - random() % span] = static_cast<char>(random());
    }
    absl::StatusOr<ZipArchive> archive = Parse(corrupt);
    if (!archive.ok()) {
      EXPECT_THAT(std::string(archive.status().message()), StartsWith(kName));
      continue;
    }
    for (const ZipEntry& entry : archive->entries()) {
      absl::StatusOr<absl::Span<const uint8_t>> data = archive->Data(entry);
      if (data.ok()) {
        EXPECT_GE(data->data(), reinterpret_cast<const uint8_t*>(corrupt.data()));
        EXPECT_LE(data->data() + data->size(),
                  reinterpret_cast<const uint8_t*>(corrupt.data()) + corrupt.size());
      }
    }
  }
}

}  // namespace
}  // namespace torchir::frontend
