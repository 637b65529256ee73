// Feeds torchir-compile hostile model.json and weights files, as an attacker
// would, and checks that each is refused cleanly: exit status 1, exactly one
// `error:` line naming the file, no output file, no crash. The large files are
// generated here at run time.
#include <dirent.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "tests/support/run_command.h"
#include "tests/support/tiny_linear_model.h"

namespace torchir {
namespace {

constexpr size_t kMillion = 1'000'000;

// The tiny model with the first `from` replaced by `to`.
std::string EditModel(const std::string& from, const std::string& to) {
  std::string text = testing::kTinyLinearModel;
  const size_t at = text.find(from);
  if (at == std::string::npos) {
    ADD_FAILURE() << "test bug: '" << from << "' is not in the model";
    return text;
  }
  return text.replace(at, from.size(), to);
}

std::string LittleEndian64(uint64_t value) {
  std::string bytes(8, '\0');
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>((value >> (8 * i)) & 0xff);
  return bytes;
}

// A safetensors file with `header` and the 24 data bytes of fc.weight and fc.bias.
std::string Safetensors(const std::string& header) {
  return LittleEndian64(header.size()) + header + std::string(24, '\0');
}

constexpr char kEntries[] =
    R"("fc.weight": {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]},)"
    R"( "fc.bias": {"dtype": "F32", "shape": [2], "data_offsets": [16, 24]})";

struct HostileFile {
  std::string name;  // of the test case
  std::string file;  // "model.json" or "weights.safetensors": the one replaced
  std::function<std::string()> bytes;
  std::string expected;      // part of the one error line
  uint64_t sparse_size = 0;  // instead of bytes: a file of this many zero bytes, sparse
};

void PrintTo(const HostileFile& hostile, std::ostream* os) { *os << hostile.name; }

std::vector<HostileFile> HostileFiles() {
  const std::string model = testing::kTinyLinearModel;
  const std::string huge(32u << 20, 'x');
  return {
      {"ArraysAMillionDeep", "model.json",
       [] {
         return R"({"nodes": )" + std::string(kMillion, '[') + std::string(kMillion, ']') + "}";
       },
       "model.json:1:74: arrays and objects nested deeper than 64 levels (byte 73)"},
      {"ObjectsAMillionDeep", "model.json",
       [] {
         std::string text;
         for (size_t i = 0; i < kMillion; ++i) text += "{\"a\":";
         return text + "1" + std::string(kMillion, '}');
       },
       "nested deeper than 64 levels"},
      {"UnclosedAMillionDeep", "model.json", [] { return std::string(kMillion, '['); },
       "nested deeper than 64 levels"},
      {"DuplicateTopLevelKey", "model.json",
       [] { return EditModel("\"nodes\": [", "\"graph_inputs\": [], \"nodes\": ["); },
       "duplicate key 'graph_inputs' in the object at $ (byte "},
      {"DuplicateKeyInANode", "model.json",
       [] {
         return EditModel(R"({"name": "relu", "op_type")",
                          R"({"name": "relu", "name": "relu2", "op_type")");
       },
       "duplicate key 'name' in the object at $.nodes[1]"},
      {"DuplicateKeyInAnInputMeta", "model.json",
       [] {
         return EditModel(R"("producer_node": "x",)", R"("producer_node": "x", "dtype": "int8",)");
       },
       "duplicate key 'dtype' in the object at $.nodes[0].inputs[0]"},
      {"DuplicateWeightMapping", "model.json",
       [] {
         return EditModel(R"("p_fc_bias": "fc.bias"})",
                          R"("p_fc_bias": "fc.bias", "p_fc_weight": "fc.bias"})");
       },
       "duplicate key 'p_fc_weight' in the object at $.weight_name_mapping"},
      {"HugeProducerName", "model.json",
       [huge] {
         return EditModel(R"("producer_node": "x")", "\"producer_node\": \"" + huge + "\"");
       },
       "...' (33554432 bytes) does not exist"},
      {"HugeDtypeString", "model.json",
       [huge] {
         return EditModel(R"("shape": [1, 2], "dtype": "float32"}],)",
                          "\"shape\": [1, 2], \"dtype\": \"" + huge + "\"}],");
       },
       "graph input 0 'x': unknown dtype 'xxx"},
      {"NumberTooBigForADouble", "model.json",
       [] { return EditModel(R"("shape": [1, 2])", R"("shape": [1e400, 2])"); },
       "malformed JSON: Number too big to be stored in double"},
      {"NegativeZeroDimension", "model.json",
       [] { return EditModel(R"("shape": [1, 2])", R"("shape": [-0.0, 2])"); },
       "dimension 0 of the shape is not an integer"},
      {"TwoToThe64Dimension", "model.json",
       [] { return EditModel(R"("shape": [1, 2])", R"("shape": [18446744073709551616, 2])"); },
       "dimension 0 of the shape is not an integer"},
      {"Uint64MaxOutputIndex", "model.json",
       [] {
         return EditModel(R"("producer_output_idx": 0)",
                          R"("producer_output_idx": 18446744073709551615)");
       },
       "producer_output_idx must be an integer"},
      {"InvalidUtf8InAString", "model.json",
       [] { return EditModel("\"TinyLinear\"", "\"Tiny\xff\xfeLinear\""); },
       "malformed JSON: Invalid encoding in string"},
      {"OverlongUtf8", "model.json", [] { return EditModel("\"TinyLinear\"", "\"\xc0\xaf\""); },
       "malformed JSON: Invalid encoding in string"},
      {"InvalidUtf8OutsideStrings", "model.json",
       [] { return EditModel("\"nodes\": [", "\"nodes\": \xff["); },
       "malformed JSON: Invalid value"},
      {"UnpairedSurrogate", "model.json", [] { return EditModel("\"TinyLinear\"", R"("\ud800")"); },
       "malformed JSON"},
      {"Truncated", "model.json", [model] { return model.substr(0, model.size() / 2); },
       "malformed JSON"},
      {"ByteOrderMark", "model.json", [model] { return "\xEF\xBB\xBF" + model; },
       "model.json:1:1: starts with a UTF-8 byte-order mark"},
      {"Empty", "model.json", [] { return std::string(); },
       "model.json:1:1: malformed JSON: The document is empty (byte 0)"},
      {"NulByte", "model.json", [model] { return model + std::string(1, '\0') + "{}"; },
       "malformed JSON: NUL byte"},
      {"LargerThanTheLimit", "model.json", nullptr, "exceeds the JSON limit of 2147483648 bytes",
       (uint64_t{1} << 31) + 1},
      {"WeightsHeaderAMillionDeep", "weights.safetensors",
       [] { return Safetensors(R"({"a": )" + std::string(kMillion, '[') + "}"); },
       "safetensors header 1:70: arrays and objects nested deeper than 64 levels (byte 77 of the "
       "file)"},
      {"WeightsDuplicateTensor", "weights.safetensors",
       [] {
         return Safetensors(
             std::string("{") + kEntries +
             R"(, "fc.weight": {"dtype": "F32", "shape": [0], "data_offsets": [24, 24]}})");
       },
       "duplicate key 'fc.weight' in the object at $"},
      {"WeightsDuplicateMetadataKey", "weights.safetensors",
       [] {
         return Safetensors(R"({"__metadata__": {"format": "pt", "format": "np"}, )" +
                            std::string(kEntries) + "}");
       },
       "duplicate key 'format' in the object at $.__metadata__"},
      {"WeightsHeaderWithByteOrderMark", "weights.safetensors",
       [] { return Safetensors("\xEF\xBB\xBF{" + std::string(kEntries) + "}"); },
       "safetensors header 1:1: starts with a UTF-8 byte-order mark"},
  };
}

// A scratch directory with the valid tiny model, its weights and an empty out/.
class CompileDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    for (char& c : name) c = c == '/' ? '_' : c;
    dir_ = ::testing::TempDir() + "hostile_inputs_test_" + name;
    ASSERT_EQ(std::system(("rm -rf '" + dir_ + "' && mkdir -p '" + dir_ + "/out'").c_str()), 0);
    std::ofstream(Path("model.json"), std::ios::binary) << testing::kTinyLinearModel;
    std::ofstream(Path("weights.safetensors"), std::ios::binary)
        << Safetensors(std::string("{") + kEntries + "}");
  }
  void TearDown() override { std::system(("rm -rf '" + dir_ + "'").c_str()); }

  std::string Path(const std::string& name) const { return dir_ + "/" + name; }

  testing::CommandResult Compile() {
    return testing::RunCommand(
        std::string("'") + TORCHIR_COMPILE_BINARY + "' '" + Path("model.json") + "' --weights '" +
            Path("weights.safetensors") + "' -o '" + Path("out/model.pte") + "'",
        dir_);
  }

  // Names in out/ (the compiler's output directory).
  std::vector<std::string> OutputFiles() const {
    std::vector<std::string> names;
    if (DIR* dir = opendir((dir_ + "/out").c_str())) {
      while (dirent* entry = readdir(dir)) {
        std::string name = entry->d_name;
        if (name != "." && name != "..") names.push_back(name);
      }
      closedir(dir);
    }
    return names;
  }

  std::string dir_;
};

class HostileInputsTest : public CompileDirTest,
                          public ::testing::WithParamInterface<HostileFile> {};

TEST_P(HostileInputsTest, IsRefusedWithOneErrorLine) {
  const HostileFile& hostile = GetParam();
  const std::string path = Path(hostile.file);
  if (hostile.sparse_size != 0) {
    std::ofstream(path, std::ios::binary | std::ios::trunc).close();
    ASSERT_EQ(::truncate(path.c_str(), static_cast<off_t>(hostile.sparse_size)), 0);
  } else {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << hostile.bytes();
  }
  const testing::CommandResult run = Compile();
  EXPECT_EQ(run.exit_code, 1) << run.err.substr(0, 2000);
  // One line, "error: <path>..." with the expected problem, short enough to read.
  ASSERT_FALSE(run.err.empty());
  EXPECT_EQ(run.err.find('\n'), run.err.size() - 1) << run.err.substr(0, 2000);
  EXPECT_EQ(run.err.rfind("error: " + path, 0), 0u) << run.err.substr(0, 2000);
  EXPECT_NE(run.err.find(hostile.expected), std::string::npos) << run.err.substr(0, 2000);
  EXPECT_LT(run.err.size(), 600u) << run.err.substr(0, 2000);
  EXPECT_TRUE(OutputFiles().empty()) << "the compiler left " << OutputFiles().front();
}

INSTANTIATE_TEST_SUITE_P(Files, HostileInputsTest, ::testing::ValuesIn(HostileFiles()),
                         [](const ::testing::TestParamInfo<HostileFile>& info) {
                           return info.param.name;
                         });

// The harness itself: the untouched files compile, and the program lands in out/.
TEST_F(CompileDirTest, ValidFilesCompile) {
  const testing::CommandResult run = Compile();
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(OutputFiles(), std::vector<std::string>{"model.pte"});
}

}  // namespace
}  // namespace torchir
