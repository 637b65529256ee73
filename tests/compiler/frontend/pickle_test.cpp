#include "compiler/frontend/pickle.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "compiler/frontend/zip_archive.h"
#include "tests/compiler/frontend/test_archives.h"
#include "tests/compiler/frontend/weight_fixtures.h"

namespace torchir::frontend {
namespace {

using ::testing::AllOf;
using testing::FixturePath;
using ::testing::HasSubstr;
using testing::PickleWriter;
using testing::ReadBytes;
using ::testing::StartsWith;
using Kind = PickleValue::Kind;

constexpr char kName[] = "data.pkl";

absl::StatusOr<PickleDocument> UnpickleBytes(const std::string& bytes,
                                             const PickleLimits& limits = {}) {
  return Unpickle(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), kName, limits);
}

std::string ErrorOf(const std::string& bytes, const PickleLimits& limits = {}) {
  absl::StatusOr<PickleDocument> result = UnpickleBytes(bytes, limits);
  if (result.ok()) {
    ADD_FAILURE() << "unpickled successfully";
    return "";
  }
  return std::string(result.status().message());
}

// The value of `key` in dict `dict`; fails the test when absent.
const PickleValue* Get(const PickleValue& dict, const std::string& key) {
  for (const auto& [k, v] : dict.entries) {
    if (k->kind == Kind::kString && k->text == key) return v;
  }
  ADD_FAILURE() << "no key " << key;
  static const PickleValue kNone;
  return &kNone;
}

std::vector<int64_t> Ints(const PickleValue& sequence) {
  std::vector<int64_t> ints;
  for (const PickleValue* item : sequence.items) ints.push_back(item->integer);
  return ints;
}

// The data.pkl of a fixture archive, via the zip reader.
std::string DataPkl(const std::string& fixture, const std::string& prefix) {
  const std::string bytes = ReadBytes(FixturePath(fixture));
  absl::StatusOr<ZipArchive> archive =
      ZipArchive::Parse(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), fixture);
  EXPECT_TRUE(archive.ok()) << archive.status();
  if (!archive.ok()) return "";
  const ZipEntry* entry = archive->Find(prefix + "/data.pkl");
  EXPECT_NE(entry, nullptr);
  if (entry == nullptr) return "";
  absl::StatusOr<absl::Span<const uint8_t>> data = archive->VerifiedData(*entry);
  EXPECT_TRUE(data.ok()) << data.status();
  if (!data.ok()) return "";
  return std::string(reinterpret_cast<const char*>(data->data()), data->size());
}

class PickleTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { testing::WeightFixtureDir(); }
};

TEST_F(PickleTest, ReadsEveryProtocolPythonWrites) {
  for (int protocol = 2; protocol <= 5; ++protocol) {
    SCOPED_TRACE(protocol);
    absl::StatusOr<PickleDocument> document =
        UnpickleBytes(ReadBytes(FixturePath("pickle_p" + std::to_string(protocol) + ".pkl")));
    ASSERT_TRUE(document.ok()) << document.status();
    const PickleValue& root = document->root();
    ASSERT_EQ(root.kind, Kind::kDict);  // collections.OrderedDict()
    ASSERT_EQ(root.entries.size(), 6u);
    EXPECT_EQ(root.entries[0].first->text, "ints");  // insertion order
    EXPECT_THAT(Ints(*Get(root, "ints")),
                ::testing::ElementsAre(0, 255, 256, 65535, 65536, -1, int64_t{1} << 31, INT64_MIN,
                                       INT64_MAX));
    EXPECT_EQ(Get(root, "float")->real, -1.5);
    EXPECT_EQ(Get(root, "text")->text, "h\xc3\xa9llo");
    const PickleValue& flags = *Get(root, "flags");
    ASSERT_EQ(flags.kind, Kind::kTuple);
    ASSERT_EQ(flags.items.size(), 3u);
    EXPECT_TRUE(flags.items[0]->boolean);
    EXPECT_EQ(flags.items[1]->kind, Kind::kBool);
    EXPECT_FALSE(flags.items[1]->boolean);
    EXPECT_EQ(flags.items[2]->kind, Kind::kNone);
    const PickleValue& tuples = *Get(root, "tuples");
    EXPECT_THAT(Ints(*Get(tuples, "t1")), ::testing::ElementsAre(1));
    EXPECT_THAT(Ints(*Get(tuples, "t2")), ::testing::ElementsAre(1, 2));
    EXPECT_THAT(Ints(*Get(tuples, "t3")), ::testing::ElementsAre(1, 2, 3));
    EXPECT_THAT(Ints(*Get(tuples, "t4")), ::testing::ElementsAre(1, 2, 3, 4));
    const PickleValue& shared = *Get(root, "shared");
    ASSERT_EQ(shared.items.size(), 2u);
    EXPECT_EQ(shared.items[0], shared.items[1]);  // the memo preserves identity
    EXPECT_THAT(Ints(*shared.items[0]), ::testing::ElementsAre(7, 8));
  }
}

TEST_F(PickleTest, ReadsAStateDictWithMetadataAttachedByBuild) {
  absl::StatusOr<PickleDocument> document = UnpickleBytes(DataPkl("model_state.pt", "model_state"));
  ASSERT_TRUE(document.ok()) << document.status();
  const PickleValue& root = document->root();
  ASSERT_EQ(root.kind, Kind::kDict);
  EXPECT_EQ(root.entries.size(), 9u);
  const PickleValue& weight = *Get(root, "conv.weight");
  ASSERT_EQ(weight.kind, Kind::kTensor);
  EXPECT_EQ(weight.tensor->storage.storage_type, "FloatStorage");
  EXPECT_EQ(weight.tensor->storage.key, "0");
  EXPECT_EQ(weight.tensor->storage.location, "cpu");
  EXPECT_EQ(weight.tensor->storage.numel, 54);
  EXPECT_EQ(weight.tensor->sizes, (std::vector<int64_t>{3, 2, 3, 3}));
  EXPECT_EQ(weight.tensor->strides, (std::vector<int64_t>{18, 9, 3, 1}));
  EXPECT_EQ(Get(root, "bn.num_batches_tracked")->tensor->storage.storage_type, "LongStorage");
  // state_dict()._metadata arrives as BUILD state {"_metadata": OrderedDict}.
  ASSERT_NE(root.state, nullptr);
  ASSERT_EQ(root.state->kind, Kind::kDict);
  EXPECT_EQ(Get(*root.state, "_metadata")->kind, Kind::kDict);
}

TEST_F(PickleTest, ReadsParametersAndTensorViews) {
  absl::StatusOr<PickleDocument> document = UnpickleBytes(DataPkl("views.pt", "views"));
  ASSERT_TRUE(document.ok()) << document.status();
  const PickleValue& root = document->root();
  EXPECT_EQ(Get(root, "param")->kind, Kind::kTensor);  // _rebuild_parameter unwrapped
  const PickleValue& tail = *Get(root, "tail");
  EXPECT_EQ(tail.tensor->storage_offset, 8);
  EXPECT_EQ(Get(root, "transposed")->tensor->strides, (std::vector<int64_t>{1, 4}));
}

TEST_F(PickleTest, NeverCallsAnything) {
  PickleWriter pickle;
  pickle.Proto().Global("os", "system").Mark().Str("rm -rf /").Op('t').Op('R').Stop();
  absl::StatusOr<PickleDocument> document = UnpickleBytes(pickle.bytes());
  ASSERT_TRUE(document.ok()) << document.status();
  const PickleValue& root = document->root();
  ASSERT_EQ(root.kind, Kind::kObject);
  EXPECT_EQ(root.callable->text, "os");
  EXPECT_EQ(root.callable->name, "system");
  EXPECT_EQ(root.args->items[0]->text, "rm -rf /");

  PickleWriter newobj;
  newobj.Proto().Global("builtins", "object").Op(')').Op(0x81).Op('}').Op('b').Stop();
  document = UnpickleBytes(newobj.bytes());
  ASSERT_TRUE(document.ok()) << document.status();
  EXPECT_EQ(document->root().kind, Kind::kObject);
  EXPECT_EQ(document->root().state->kind, Kind::kDict);
}

TEST_F(PickleTest, ReadsTheRemainingOpcodes) {
  PickleWriter pickle;
  pickle.Proto(5).Op(0x95).Raw(std::string(8, '\0'));  // an empty FRAME
  pickle.Mark();
  pickle.Op('C').Raw(std::string("\x02\x00\xff", 3));            // SHORT_BINBYTES
  pickle.Op('B').Raw(std::string("\x01\x00\x00\x00z", 5));       // BINBYTES
  pickle.Op(0x8e).Raw(std::string("\x01\0\0\0\0\0\0\0y", 9));    // BINBYTES8
  pickle.Op(0x8d).Raw(std::string("\x02\0\0\0\0\0\0\0ab", 10));  // BINUNICODE8
  pickle.Op('U').Raw(std::string("\x01q", 2));                   // SHORT_BINSTRING
  pickle.Op(0x8a).Raw(std::string("\x00", 1));                   // LONG1 0 bytes
  pickle.Op(0x8b).Raw(std::string("\x02\0\0\0\xff\xff", 6));     // LONG4 -1
  pickle.Op(0x8a).Raw(std::string("\x09\xfe\xff\xff\xff\xff\xff\xff\xff\xff", 10));  // -2
  pickle.Op(0x8f).Mark().Int(1).Int(2).Op(0x90);                                     // set {1, 2}
  pickle.Mark().Int(3).Op(0x91);                                                     // frozenset
  pickle.Mark().Str("k").Int(4).Op('d');                                             // DICT
  pickle.Mark().Int(5).Op('l').Int(6).Op('a');                                       // LIST, APPEND
  pickle.Int(9).Op('2').Op('0');                                                     // DUP, POP
  pickle.Mark().Int(10).Op('1');                                                     // POP_MARK
  pickle.Int(11).Op('r').Raw(std::string("\x00\x01\x00\x00", 4)).Op('0');  // LONG_BINPUT 256
  pickle.Op('j').Raw(std::string("\x00\x01\x00\x00", 4));                  // LONG_BINGET 256
  pickle.Str("m").Str("n").Op(0x93);                                       // STACK_GLOBAL
  pickle.Op('t').Stop();
  absl::StatusOr<PickleDocument> document = UnpickleBytes(pickle.bytes());
  ASSERT_TRUE(document.ok()) << document.status();
  const std::vector<const PickleValue*>& items = document->root().items;
  ASSERT_EQ(items.size(), 15u);
  EXPECT_EQ(items[0]->kind, Kind::kBytes);
  EXPECT_EQ(items[0]->text, std::string("\x00\xff", 2));
  EXPECT_EQ(items[1]->text, "z");
  EXPECT_EQ(items[2]->text, "y");
  EXPECT_EQ(items[3]->text, "ab");
  EXPECT_EQ(items[4]->text, "q");
  EXPECT_EQ(items[5]->integer, 0);
  EXPECT_EQ(items[6]->integer, -1);
  EXPECT_EQ(items[7]->integer, -2);
  EXPECT_EQ(items[8]->kind, Kind::kSet);
  EXPECT_THAT(Ints(*items[8]), ::testing::ElementsAre(1, 2));
  EXPECT_THAT(Ints(*items[9]), ::testing::ElementsAre(3));
  EXPECT_EQ(Get(*items[10], "k")->integer, 4);
  EXPECT_THAT(Ints(*items[11]), ::testing::ElementsAre(5, 6));
  EXPECT_EQ(items[12]->integer, 9);
  EXPECT_EQ(items[13]->integer, 11);
  EXPECT_EQ(items[14]->kind, Kind::kGlobal);
  EXPECT_EQ(items[14]->name, "n");
}

TEST_F(PickleTest, SurvivesCycles) {
  // l = []; l.append(l)
  PickleWriter pickle;
  pickle.Proto().Op(']').BinPut(0).BinGet(0).Op('a').Stop();
  absl::StatusOr<PickleDocument> document = UnpickleBytes(pickle.bytes());
  ASSERT_TRUE(document.ok()) << document.status();
  EXPECT_EQ(document->root().items[0], &document->root());
}

TEST_F(PickleTest, ReportsMalformedPickles) {
  struct Case {
    std::string pickle;
    std::string error;
  };
  const Case cases[] = {
      {"", "truncated: the pickle ends without STOP (opcode 0x00 at offset 0)"},
      {"\x80\x02", "ends without STOP"},
      {"\x80\x06N.", "unsupported pickle protocol 6"},
      {"I1\n.", "unsupported opcode (opcode 0x49 at offset 0)"},
      {".", "stack underflow"},
      {"(t(0.", "stack underflow"},
      {"N\x86.", "stack underflow"},
      {"t.", "no MARK on the stack"},
      {"h\x05.", "memo key 5 is not set"},
      {std::string("q\x00.", 3), "memoizing an empty stack"},
      {"X\xff\xff\xff\x7f", "string of 2147483647 bytes runs past the end"},
      {std::string("\x8a\x09\0\0\0\0\0\0\0\0\x01.", 12), "integer does not fit in 64 bits"},
      {std::string("\x8a\x08\0\0\0\0", 6), "integer of 8 bytes runs past the end"},
      {"cos\nsystem", "GLOBAL name is not terminated by a newline"},
      {"NNK\x01s.", "setting items on a None"},
      {"NK\x01"
       "a.",
       "appending to a None"},
      {"K\x01K\x02\x93.", "STACK_GLOBAL needs two strings"},
      {"cx\ny\nK\x01R.", "REDUCE arguments are a int, expected a tuple"},
      {"K\x01Q.", "persistent id is not a torch storage"},
      {std::string("\x95\xff\0\0\0\0\0\0\0N.", 11), "FRAME runs past the end"},
      {"ccollections\nOrderedDict\nK\x01\x85R.",
       "OrderedDict takes no arguments or one sequence of pairs"},
      {"ctorch._utils\n_rebuild_tensor_v2\nK\x01\x85R.",
       "_rebuild_tensor_v2: expected at least 6 arguments, got 1"},
      {"ctorch._utils\n_rebuild_parameter\nK\x01\x85R.",
       "_rebuild_parameter: argument 1 is not a tensor"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.pickle);
    EXPECT_THAT(ErrorOf(c.pickle), AllOf(StartsWith("data.pkl: pickle: "), HasSubstr(c.error)));
  }
}

TEST_F(PickleTest, ChecksRebuildTensorArguments) {
  auto tensor = [](int64_t offset, std::vector<int64_t> sizes, std::vector<int64_t> strides) {
    PickleWriter pickle;
    pickle.Proto();
    pickle.Tensor("FloatStorage", "0", 4, offset, sizes, strides);
    return pickle.Stop().bytes();
  };
  EXPECT_THAT(ErrorOf(tensor(-1, {4}, {1})), HasSubstr("storage_offset is not a non-negative int"));
  EXPECT_THAT(ErrorOf(tensor(0, {-4}, {1})), HasSubstr("size is not a tuple of non-negative ints"));
  EXPECT_THAT(ErrorOf(tensor(0, {4}, {-1})),
              HasSubstr("stride is not a tuple of non-negative ints"));
  EXPECT_THAT(ErrorOf(tensor(0, {4}, {1, 1})), HasSubstr("size has 1 dimensions but stride has 2"));

  PickleWriter not_storage;
  not_storage.Proto().Global("torch._utils", "_rebuild_tensor_v2").Mark().None();
  not_storage.Int(0).IntTuple({1}).IntTuple({1}).Bool(false).None().Op('t').Op('R').Stop();
  EXPECT_THAT(ErrorOf(not_storage.bytes()), HasSubstr("argument 1 is a None, expected a storage"));

  absl::StatusOr<PickleDocument> good = UnpickleBytes(tensor(1, {3}, {1}));
  ASSERT_TRUE(good.ok()) << good.status();
  EXPECT_EQ(good->root().tensor->storage_offset, 1);
}

TEST_F(PickleTest, EnforcesItsLimits) {
  PickleLimits limits;
  limits.max_stack_depth = 4;
  limits.max_mark_depth = 2;
  limits.max_memo_entries = 2;
  limits.max_values = 8;
  EXPECT_THAT(ErrorOf("NNNNN.", limits), HasSubstr("stack deeper than 4"));
  EXPECT_THAT(ErrorOf("(((", limits), HasSubstr("more than 2 nested MARKs"));
  EXPECT_THAT(ErrorOf("N\x94\x94\x94.", limits), HasSubstr("more than 2 memo entries"));
  EXPECT_THAT(ErrorOf("N0N0N0N0N0N0N0N0N0.", limits), HasSubstr("more than 8 values"));
  // Re-putting an existing memo key does not count as a new entry.
  absl::StatusOr<PickleDocument> document = UnpickleBytes("Nq\x01q\x01q\x01.", limits);
  EXPECT_TRUE(document.ok()) << document.status();
}

TEST_F(PickleTest, EveryTruncationAndRandomInputFailsCleanly) {
  const std::string bytes = DataPkl("model_state.pt", "model_state");
  ASSERT_TRUE(UnpickleBytes(bytes).ok());
  for (size_t length = 0; length < bytes.size(); ++length) {
    SCOPED_TRACE(length);
    EXPECT_THAT(ErrorOf(bytes.substr(0, length)), StartsWith("data.pkl: pickle: "));
  }
  std::mt19937 random(99);
  for (int round = 0; round < 2000; ++round) {
    std::string corrupt = bytes;
    for (int i = 0; i < 3; ++i) corrupt[random() % corrupt.size()] = static_cast<char>(random());
    absl::StatusOr<PickleDocument> result = UnpickleBytes(corrupt);
    if (!result.ok()) {
      EXPECT_THAT(std::string(result.status().message()), StartsWith(kName));
    }
  }
}

}  // namespace
}  // namespace torchir::frontend
