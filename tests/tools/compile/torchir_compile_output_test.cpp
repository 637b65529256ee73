// torchir-compile -o: runs the binary as a user would, then reads the .pte it
// wrote back the way a loader does (header, FlatBuffers verifier, indices and
// ranges), on the tiny linear model and on every zoo export present.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/frontend/safetensors.h"
#include "flatbuffers/flatbuffers.h"
#include "schema/file_header.h"
#include "schema/program_generated.h"
#include "tests/support/tiny_linear_model.h"

namespace torchir {
namespace {

namespace fs = std::filesystem;
using testing::Floats;

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

std::string ReadText(const fs::path& path) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

std::vector<uint8_t> ReadBytes(const fs::path& path) {
  std::ifstream file(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(file), {});
}

// The zoo directory: $TORCHIR_ZOO_DIR, else <build dir>/zoo.
fs::path ZooDir() {
  if (const char* dir = std::getenv("TORCHIR_ZOO_DIR")) return dir;
  return fs::path(TORCHIR_BINARY_DIR_DEFAULT) / "zoo";
}

uint64_t ElementSize(pte::ScalarType type) {
  using pte::ScalarType;
  switch (type) {
    case ScalarType::Bool:
    case ScalarType::Int8:
    case ScalarType::UInt8:
    case ScalarType::Float8E4M3FN:
    case ScalarType::Float8E5M2:
      return 1;
    case ScalarType::Float16:
    case ScalarType::BFloat16:
    case ScalarType::Int16:
    case ScalarType::UInt16:
      return 2;
    case ScalarType::Float32:
    case ScalarType::Int32:
    case ScalarType::UInt32:
      return 4;
    case ScalarType::Float64:
    case ScalarType::Int64:
    case ScalarType::UInt64:
    case ScalarType::Complex64:
      return 8;
    case ScalarType::Complex128:
      return 16;
  }
  return 0;
}

// What a loader checks before trusting a program; returns the problems found.
// On success `*program` points into `file`.
std::vector<std::string> CheckProgram(const std::vector<uint8_t>& file,
                                      const pte::Program** program = nullptr) {
  std::vector<std::string> problems;
  pte::FileHeader header;
  if (file.size() < pte::kFileHeaderSize || !pte::DecodeFileHeader(file.data(), &header)) {
    return {"no file header"};
  }
  if (header.file_size != file.size() || header.flatbuffer_offset != pte::kFileHeaderSize ||
      header.flatbuffer_offset + header.flatbuffer_size > header.segment_base_offset ||
      header.segment_base_offset + header.segment_data_size != header.file_size) {
    return {"inconsistent header"};
  }
  const uint8_t* flatbuffer = file.data() + header.flatbuffer_offset;
  flatbuffers::Verifier verifier(flatbuffer, header.flatbuffer_size);
  if (!pte::VerifyProgramBuffer(verifier)) return {"the FlatBuffer fails verification"};
  const pte::Program* root = pte::GetProgram(flatbuffer);
  if (program != nullptr) *program = root;
  if (root->version() != pte::kProgramVersion) problems.push_back("version");
  const auto* segments = root->segments();
  if (header.segment_base_offset % pte::kSegmentBaseAlignment != 0) {
    problems.push_back("segment base not page-aligned");
  }
  for (const pte::Segment* segment : *segments) {
    if (segment->offset() % pte::kSegmentAlignment != 0 ||
        segment->offset() + segment->size() > header.segment_data_size) {
      problems.push_back("segment out of range");
    }
  }
  if (root->methods()->size() != 1) return {"not one method"};
  const pte::Method* method = root->methods()->Get(0);
  const int32_t value_count = static_cast<int32_t>(method->values()->size());
  auto check_tensor = [&](int32_t index, const std::string& where) {
    if (index < 0 || index >= value_count) {
      problems.push_back(where + ": value index " + std::to_string(index) + " out of range");
      return;
    }
    const pte::Tensor* tensor = method->values()->Get(index)->value_as_Tensor();
    if (tensor == nullptr)
      problems.push_back(where + ": value " + std::to_string(index) + " is not a tensor");
  };
  for (const pte::EValue* value : *method->values()) {
    const pte::Tensor* tensor = value->value_as_Tensor();
    if (tensor == nullptr) continue;
    uint64_t nbytes = ElementSize(tensor->scalar_type());
    for (int64_t size : *tensor->sizes()) nbytes *= static_cast<uint64_t>(size);
    if ((tensor->constant() == nullptr) == (tensor->allocation() == nullptr)) {
      problems.push_back("a tensor is neither constant nor planned, or both");
    } else if (tensor->constant() != nullptr) {
      const pte::ConstantData* constant = tensor->constant();
      if (constant->segment_index() >= segments->size() ||
          constant->offset() % pte::kSegmentAlignment != 0 ||
          constant->offset() + nbytes > segments->Get(constant->segment_index())->size()) {
        problems.push_back("a constant lies outside its segment");
      }
    } else {
      const pte::Allocation* allocation = tensor->allocation();
      if (allocation->arena_index() >= method->arena_sizes()->size() ||
          allocation->offset() + nbytes > method->arena_sizes()->Get(allocation->arena_index())) {
        problems.push_back("a tensor lies outside its arena");
      }
    }
  }
  for (int32_t index : *method->inputs()) check_tensor(index, "input");
  for (int32_t index : *method->outputs()) check_tensor(index, "output");
  for (const pte::Instruction* instruction : *method->instructions()) {
    const pte::KernelCall* call = instruction->kind_as_KernelCall();
    if (call == nullptr) {
      problems.push_back(instruction->name()->str() + ": not a kernel call");
      continue;
    }
    if (call->operator_index() >= method->operators()->size()) {
      problems.push_back(instruction->name()->str() + ": operator index out of range");
    }
    for (int32_t arg : *call->args()) {
      if (arg < 0 || arg >= value_count) {
        problems.push_back(instruction->name()->str() + ": argument out of range");
      }
    }
  }
  return problems;
}

// The bytes of segment `index` of `file`.
std::string SegmentBytes(const std::vector<uint8_t>& file, const pte::Program& program,
                         uint32_t index) {
  pte::FileHeader header;
  pte::DecodeFileHeader(file.data(), &header);
  const pte::Segment* segment = program.segments()->Get(index);
  return std::string(
      reinterpret_cast<const char*>(file.data() + header.segment_base_offset + segment->offset()),
      segment->size());
}

std::string AsBytes(const std::vector<float>& values) {
  return std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float));
}

class TorchirCompileOutputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("torchir_compile_output_test_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "work");
    std::ofstream(Path("model.json")) << testing::kTinyLinearModel;
    std::vector<frontend::StoredTensor> weights = {Floats("fc.weight", {2, 2}, kWeight),
                                                   Floats("fc.bias", {2}, kBias)};
    ASSERT_TRUE(frontend::WriteSafetensors(Path("weights.safetensors"), weights).ok());
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  std::string Model() const {
    return "'" + Path("model.json") + "' --weights '" + Path("weights.safetensors") + "'";
  }
  // Files the run left in the output directory.
  std::vector<std::string> Outputs() const {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir_ / "work")) {
      names.push_back(entry.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
  }

  RunResult Compile(const std::string& arguments) {
    std::string command = std::string("'") + TORCHIR_COMPILE_BINARY + "' " + arguments + " >'" +
                          Path("out.txt") + "' 2>'" + Path("err.txt") + "'";
    int status = std::system(command.c_str());
    RunResult run;
    run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    run.out = ReadText(Path("out.txt"));
    run.err = ReadText(Path("err.txt"));
    return run;
  }

  const std::vector<float> kWeight = {1, -1, 2, 0.5f};
  const std::vector<float> kBias = {0.5f, -10};
  fs::path dir_;
};

TEST_F(TorchirCompileOutputTest, WritesAProgramALoaderAccepts) {
  const std::string pte = Path("work/tiny.pte");
  RunResult run = Compile(Model() + " --backend portable -o '" + pte + "'");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(run.out.empty()) << run.out;
  EXPECT_EQ(run.err.rfind("wrote " + pte + ": ", 0), 0u) << run.err;
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
  EXPECT_NE(run.err.find("(program "), std::string::npos) << run.err;
  EXPECT_NE(run.err.find(", 1 segment), "), std::string::npos) << run.err;
  EXPECT_NE(run.err.find(" operator"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find(", arena "), std::string::npos) << run.err;

  std::vector<uint8_t> file = ReadBytes(pte);
  const pte::Program* program = nullptr;
  std::vector<std::string> problems = CheckProgram(file, &program);
  ASSERT_TRUE(problems.empty()) << problems.front();
  const pte::Method* method = program->methods()->Get(0);
  EXPECT_EQ(method->name()->str(), "forward");
  ASSERT_EQ(method->input_names()->size(), 1u);
  EXPECT_EQ(method->input_names()->Get(0)->str(), "x");
  ASSERT_EQ(method->output_names()->size(), 1u);
  EXPECT_EQ(method->output_names()->Get(0)->str(), "relu");
  // relu folds into the linear's clamp: one kernel call.
  ASSERT_EQ(method->operators()->size(), 1u);
  EXPECT_EQ(method->operators()->Get(0)->name()->str(), "linear");
  // The weights travel in the constant segment.
  std::string constants = SegmentBytes(file, *program, 0);
  EXPECT_NE(constants.find(AsBytes(kWeight)), std::string::npos);
  EXPECT_NE(constants.find(AsBytes(kBias)), std::string::npos);
  EXPECT_EQ(Outputs(), (std::vector<std::string>{"tiny.pte"}));
}

TEST_F(TorchirCompileOutputTest, QuietPrintsNothing) {
  RunResult run = Compile(Model() + " --quiet -o '" + Path("work/tiny.pte") + "'");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(run.err.empty()) << run.err;
  EXPECT_TRUE(run.out.empty()) << run.out;
  EXPECT_TRUE(fs::exists(Path("work/tiny.pte")));
}

TEST_F(TorchirCompileOutputTest, TheSameModelGivesTheSameBytes) {
  ASSERT_EQ(Compile(Model() + " -o '" + Path("work/a.pte") + "'").exit_code, 0);
  ASSERT_EQ(Compile(Model() + " -o '" + Path("work/b.pte") + "'").exit_code, 0);
  EXPECT_TRUE(ReadBytes(Path("work/a.pte")) == ReadBytes(Path("work/b.pte")));
}

TEST_F(TorchirCompileOutputTest, ReportsAndDumpsStillWorkAlongsideOutput) {
  RunResult run = Compile(Model() + " --backend portable --summary --pass-stats --memory-report --dump-graph edge " +
                          "-o '" + Path("work/tiny.pte") + "'");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("model: TinyLinear"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("fuse_activation"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("peak live bytes:"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("edge.linear("), std::string::npos) << run.out;
  EXPECT_NE(run.err.find("wrote "), std::string::npos) << run.err;
  EXPECT_TRUE(CheckProgram(ReadBytes(Path("work/tiny.pte"))).empty());

  RunResult aten = Compile(Model() + " --dump-graph aten -o '" + Path("work/aten.pte") + "'");
  ASSERT_EQ(aten.exit_code, 0) << aten.err;
  EXPECT_NE(aten.out.find("aten.linear.default"), std::string::npos) << aten.out;
  EXPECT_TRUE(fs::exists(Path("work/aten.pte"))) << "dumping the ATen graph does not stop -o";
}

TEST_F(TorchirCompileOutputTest, MissingWeightsFailWithoutTouchingTheOutput) {
  const std::string pte = Path("work/tiny.pte");
  std::ofstream(pte) << "previous program";
  RunResult run = Compile("'" + Path("model.json") + "' -o '" + pte + "'");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("2 weights and constants have no value (give --weights); first: "
                         "'fc.weight', 'fc.bias'; --verbose lists all 2"),
            std::string::npos)
      << run.err;
  std::istringstream lines(run.err);
  for (std::string line; std::getline(lines, line);) {
    EXPECT_EQ(line.rfind("error: ", 0), 0u) << line;
  }
  EXPECT_EQ(ReadText(pte), "previous program");
  EXPECT_EQ(Outputs(), (std::vector<std::string>{"tiny.pte"})) << "no temporary left behind";
}

TEST_F(TorchirCompileOutputTest, AnUnwritableOutputIsOneErrorLine) {
  const std::string pte = Path("work/missing/tiny.pte");
  RunResult run = Compile(Model() + " -o '" + pte + "'");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.err.rfind("error: " + pte + ": ", 0), 0u) << run.err;
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
  EXPECT_TRUE(Outputs().empty());
}

TEST_F(TorchirCompileOutputTest, AnUnknownBackendIsAUsageError) {
  RunResult run = Compile(Model() + " --backend tflite -o '" + Path("work/tiny.pte") + "'");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("error: --backend: unknown backend 'tflite' (available: "),
            std::string::npos)
      << run.err;
  EXPECT_TRUE(Outputs().empty());
  // In a list too: the first unknown name, and 'portable' only alone.
  RunResult listed =
      Compile(Model() + " --backend xnnpack,tflite -o '" + Path("work/tiny.pte") + "'");
  EXPECT_EQ(listed.exit_code, 2);
  EXPECT_NE(listed.err.find("error: --backend: unknown backend 'tflite' (available: xnnpack, "
                            "native, portable)\n"),
            std::string::npos)
      << listed.err;
  RunResult mixed =
      Compile(Model() + " --backend xnnpack,portable -o '" + Path("work/tiny.pte") + "'");
  EXPECT_EQ(mixed.exit_code, 2);
  EXPECT_NE(mixed.err.find("cannot be listed with other backends"), std::string::npos) << mixed.err;
  EXPECT_TRUE(Outputs().empty());
  RunResult portable = Compile(Model() + " --backend portable -o '" + Path("work/tiny.pte") + "'");
  EXPECT_EQ(portable.exit_code, 0) << portable.err;
}

TEST_F(TorchirCompileOutputTest, AnUnknownTargetIsAUsageError) {
  RunResult run = Compile(Model() + " --backend native,xnnpack --target riscv -o '" +
                          Path("work/tiny.pte") + "'");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("error: --target: unknown target 'riscv' (available: host (here: "),
            std::string::npos)
      << run.err;
  EXPECT_TRUE(Outputs().empty());
}

TEST_F(TorchirCompileOutputTest, HelpTeachesOutputAndBackend) {
  RunResult run = Compile("--help");
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_NE(run.out.find("--output OUT.pte"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("(-o)"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("--backend NAME"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("-o model.pte"), std::string::npos) << run.out;
}

// Every exported zoo model compiles to a program a loader accepts; one of
// them twice, to the same bytes.
TEST_F(TorchirCompileOutputTest, EveryZooModelCompilesToAValidProgram) {
  std::error_code error;
  std::vector<fs::path> models;
  if (fs::is_directory(ZooDir(), error)) {
    for (const fs::directory_entry& model : fs::directory_iterator(ZooDir(), error)) {
      for (const char* flavour : {"export", "core"}) {
        fs::path dir = model.path() / flavour;
        if (fs::is_regular_file(dir / "model.json", error)) models.push_back(dir);
      }
    }
  }
  if (models.empty()) GTEST_SKIP() << "no zoo at " << ZooDir() << " (run the zoo_generate test)";
  std::sort(models.begin(), models.end());
  for (const fs::path& model : models) {
    SCOPED_TRACE(model.string());
    const std::string pte = Path("work/model.pte");
    RunResult run =
        Compile("'" + (model / "model.json").string() + "' --weights '" +
                (model / "weights.safetensors").string() + "' --backend portable --quiet -o '" +
                pte + "'");
    ASSERT_EQ(run.exit_code, 0) << run.err;
    std::vector<std::string> problems = CheckProgram(ReadBytes(pte));
    EXPECT_TRUE(problems.empty()) << problems.front();
  }
  fs::path mobilenet = ZooDir() / "mobilenet_v2" / "export";
  if (fs::is_directory(mobilenet, error)) {
    for (const char* backend : {"portable", "xnnpack"}) {
      SCOPED_TRACE(backend);
      std::string arguments = "'" + (mobilenet / "model.json").string() + "' --weights '" +
                              (mobilenet / "weights.safetensors").string() + "' --backend " +
                              backend + " -o ";
      RunResult first = Compile(arguments + "'" + Path("work/a.pte") + "'");
      ASSERT_EQ(first.exit_code, 0) << first.err;
      // Portable: one kernel call per node; XNNPACK: the layout permute and one delegate.
      EXPECT_NE(first.err.find(std::string(backend) == "portable" ? "65 instructions"
                                                                   : "2 instructions"),
                std::string::npos)
          << first.err;
      ASSERT_EQ(Compile(arguments + "'" + Path("work/b.pte") + "'").exit_code, 0);
      EXPECT_TRUE(ReadBytes(Path("work/a.pte")) == ReadBytes(Path("work/b.pte")));
    }
  }
}

}  // namespace
}  // namespace torchir
