// Program::Load accepts well-formed programs and rejects every corrupt or
// hostile one with an Error (never a crash).
#include "runtime/executor/program.h"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/backend/backend.h"
#include "runtime/executor/data_loader.h"
#include "runtime/executor/memory_allocator.h"
#include "runtime/executor/method.h"
#include "runtime/platform/platform.h"
#include "tests/runtime/executor/test_program.h"

namespace torchir::testing {
namespace {

using runtime::BufferDataLoader;
using runtime::Error;
using runtime::Program;

Error LoadError(const std::vector<uint8_t>& bytes) {
  AlignedBytes aligned(bytes);
  BufferDataLoader loader(aligned.data(), aligned.size());
  return Program::Load(loader).error();
}

// Load, init and run; returns the first error.
Error LoadInitRun(const std::vector<uint8_t>& bytes) {
  AlignedBytes aligned(bytes);
  BufferDataLoader loader(aligned.data(), aligned.size());
  auto program = Program::Load(loader);
  if (!program.ok()) return program.error();
  runtime::MallocAllocator allocator;
  auto method = runtime::Method::Load(*program, "forward", allocator);
  if (!method.ok()) return method.error();
  return method->Execute();
}

class ProgramTest : public ::testing::Test {
 protected:
  void SetUp() override {
    RegisterTestKernels();
    // Corruption tests log one error each; keep the output readable.
    runtime::SetLogHook([](runtime::LogLevel, const char*) {});
  }
  void TearDown() override { runtime::SetLogHook(nullptr); }
};

TEST_F(ProgramTest, LoadsAWellFormedProgram) {
  AlignedBytes bytes(Serialize(ScaleProgram()));
  BufferDataLoader loader(bytes.data(), bytes.size());
  auto program = Program::Load(loader);
  ASSERT_TRUE(program.ok()) << runtime::ErrorName(program.error());
  EXPECT_EQ(program->num_methods(), 1u);
  EXPECT_STREQ(program->method_name(0), "forward");
  EXPECT_NE(program->FindMethod("forward"), nullptr);
  EXPECT_EQ(program->FindMethod("backward"), nullptr);
  ASSERT_EQ(program->num_segments(), 1u);
  EXPECT_EQ(program->segment(0).size(), 16u);
  EXPECT_EQ(program->header().segment_base_offset % 4096, 0u);
}

TEST_F(ProgramTest, RejectsBadMagicAndVersions) {
  std::vector<uint8_t> bytes = Serialize(ScaleProgram());
  bytes[0] = 'X';
  EXPECT_EQ(LoadError(bytes), Error::kInvalidProgram);

  TestProgram p = ScaleProgram();
  p.header_version = 2;
  EXPECT_EQ(LoadError(Serialize(p)), Error::kUnsupportedVersion);
  p = ScaleProgram();
  p.program_version = 99;
  EXPECT_EQ(LoadError(Serialize(p)), Error::kUnsupportedVersion);
}

TEST_F(ProgramTest, RejectsAMisalignedBuffer) {
  std::vector<uint8_t> bytes = Serialize(ScaleProgram());
  std::vector<uint8_t> shifted(bytes.size() + 64);
  AlignedBytes aligned(shifted);
  std::memcpy(const_cast<uint8_t*>(aligned.data()) + 1, bytes.data(), bytes.size());
  BufferDataLoader loader(aligned.data() + 1, bytes.size());
  EXPECT_EQ(Program::Load(loader).error(), Error::kInvalidArgument);
}

TEST_F(ProgramTest, RejectsEveryTruncation) {
  const std::vector<uint8_t> bytes = Serialize(ScaleProgram());
  for (size_t length = 0; length < bytes.size(); length += (length < 512 ? 1 : 97)) {
    std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + static_cast<long>(length));
    EXPECT_NE(LoadError(prefix), Error::kOk) << "prefix of " << length << " bytes loaded";
  }
}

TEST_F(ProgramTest, SurvivesEverySingleByteFlip) {
  // A flipped byte may still form a valid program (e.g. inside constant data);
  // what matters is that loading, init and execution never crash and any
  // failure is an Error.
  const std::vector<uint8_t> bytes = Serialize(ScaleProgram());
  const size_t end = 64 + static_cast<size_t>(bytes[16]) + (static_cast<size_t>(bytes[17]) << 8);
  size_t rejected = 0;
  for (size_t i = 0; i < end && i < bytes.size(); ++i) {
    for (uint8_t mask : {0x01, 0x80, 0xff}) {
      std::vector<uint8_t> corrupt = bytes;
      corrupt[i] ^= mask;
      if (LoadInitRun(corrupt) != Error::kOk) ++rejected;
    }
  }
  // Most flips in the header and FlatBuffer must be caught.
  EXPECT_GT(rejected, end);
}

TEST_F(ProgramTest, DebugHandlesAreUntrusted) {
  // The debug handle's strings are read by tools after load: every flip of the
  // FlatBuffer either fails load or leaves names a reader can walk safely.
  TestProgram with_handle = ScaleProgram();
  with_handle.instructions[0].debug_nodes = {"scale", "fused_relu", "and_a_third_node"};
  const std::vector<uint8_t> bytes = Serialize(with_handle);
  ASSERT_EQ(LoadInitRun(bytes), Error::kOk);
  const size_t end = 64 + static_cast<size_t>(bytes[16]) + (static_cast<size_t>(bytes[17]) << 8);
  size_t loaded = 0;
  for (size_t i = 64; i < end && i < bytes.size(); ++i) {
    std::vector<uint8_t> corrupt = bytes;
    corrupt[i] ^= 0xff;
    AlignedBytes aligned(corrupt);
    BufferDataLoader loader(aligned.data(), aligned.size());
    auto program = Program::Load(loader);
    if (!program.ok()) continue;
    runtime::MallocAllocator allocator;
    auto method = runtime::Method::Load(*program, "forward", allocator);
    if (!method.ok()) continue;
    ++loaded;
    for (size_t k = 0; k < method->num_instructions(); ++k) {
      for (size_t n = 0; n < method->instruction_num_debug_nodes(k); ++n) {
        EXPECT_LT(std::strlen(method->instruction_debug_node(k, n)), corrupt.size());
      }
      EXPECT_LT(std::strlen(method->instruction_op(k)), corrupt.size());
    }
  }
  EXPECT_LT(loaded, end - 64);  // the verifier rejects most flips
}

TEST_F(ProgramTest, RejectsOutOfRangeIndices) {
  TestProgram p = ScaleProgram();
  p.instructions[0].index = 5;  // operator index
  EXPECT_EQ(LoadError(Serialize(p)), Error::kProgramOutOfBounds);

  p = ScaleProgram();
  p.instructions[0].args[1] = 17;  // value index
  EXPECT_EQ(LoadError(Serialize(p)), Error::kProgramOutOfBounds);

  p = ScaleProgram();
  p.instructions[0].args[1] = -1;
  EXPECT_EQ(LoadError(Serialize(p)), Error::kProgramOutOfBounds);

  p = ScaleProgram();
  p.inputs = {2};  // a double, not a tensor
  EXPECT_EQ(LoadError(Serialize(p)), Error::kInvalidProgram);

  p = ScaleProgram();
  p.inputs = {1};  // a constant cannot be an input
  EXPECT_EQ(LoadError(Serialize(p)), Error::kInvalidProgram);

  p = ScaleProgram();
  p.values[1].tensor.index = 3;  // segment index
  EXPECT_EQ(LoadError(Serialize(p)), Error::kProgramOutOfBounds);

  p = ScaleProgram();
  p.values[0].tensor.index = 1;  // arena index
  EXPECT_EQ(LoadError(Serialize(p)), Error::kProgramOutOfBounds);

  p = ScaleProgram();
  p.instructions[0].delegate = true;  // no delegates exist
  EXPECT_EQ(LoadError(Serialize(p)), Error::kProgramOutOfBounds);

  p = ScaleProgram();
  TestValue list;
  list.kind = TestValue::Kind::kTensorList;
  list.items = {0, 2};  // value 2 is a double
  p.values.push_back(list);
  EXPECT_EQ(LoadError(Serialize(p)), Error::kInvalidProgram);
}

TEST_F(ProgramTest, RejectsTensorsOutsideTheirStorage) {
  TestProgram p = ScaleProgram();
  p.values[3].tensor.offset = 116;  // 16 bytes at 116 end past the 128-byte arena
  EXPECT_EQ(LoadError(Serialize(p)), Error::kProgramOutOfBounds);

  p = ScaleProgram();
  p.values[1].tensor.sizes = {5};  // 20 bytes in a 16-byte segment
  EXPECT_EQ(LoadError(Serialize(p)), Error::kProgramOutOfBounds);

  p = ScaleProgram();
  p.values[3].tensor.offset = 66;  // misaligned float
  EXPECT_EQ(LoadError(Serialize(p)), Error::kInvalidProgram);

  p = ScaleProgram();
  p.arena_sizes = {~uint64_t{0}, ~uint64_t{0}};  // sum overflows
  EXPECT_EQ(LoadError(Serialize(p)), Error::kInvalidProgram);
}

// A delegate declares how far its backend may read past each tensor it is
// passed; load checks that the slack lies inside the tensor's arena (planned)
// or the file (constants).
TEST_F(ProgramTest, RejectsDelegateArgumentsWithoutTheirReadSlack) {
  auto with_delegate = [](uint32_t slack, std::vector<int32_t> args) {
    TestProgram p = ScaleProgram();
    p.delegates = {TestDelegate{"AnyBackend", 1, slack}};
    p.segments.push_back({'B', 'L', 'O', 'B'});
    p.instructions.push_back(TestInstruction{true, 0, std::move(args), "delegate"});
    return Serialize(p);
  };
  // y: 16 bytes at 64 in a 128-byte arena leaves 48; c: 16 bytes leave 48 in the file.
  EXPECT_EQ(LoadError(with_delegate(48, {3, 0})), Error::kOk);
  EXPECT_EQ(LoadError(with_delegate(48, {1, 3})), Error::kOk);
  EXPECT_EQ(LoadError(with_delegate(49, {3, 0})), Error::kProgramOutOfBounds);
  EXPECT_EQ(LoadError(with_delegate(4096, {0, 3})), Error::kProgramOutOfBounds);
  // Non-tensor arguments have no storage to check.
  EXPECT_EQ(LoadError(with_delegate(48, {2, 3})), Error::kOk);
  // The declaration itself is bounded.
  EXPECT_EQ(LoadError(with_delegate(4097, {3, 0})), Error::kInvalidProgram);
  EXPECT_EQ(LoadError(with_delegate(~0u, {3, 0})), Error::kInvalidProgram);
}

// A delegate call's planned scratch must lie inside its arena, 64-byte aligned; absent or
// 0 bytes (older programs) means none was planned.
TEST_F(ProgramTest, RejectsDelegateScratchOutsideItsArena) {
  auto with_scratch = [](bool has, uint32_t arena, uint64_t offset, uint64_t bytes) {
    TestProgram p = ScaleProgram();
    p.arena_sizes = {256};
    p.delegates = {TestDelegate{"AnyBackend", 1}};
    p.segments.push_back({'B', 'L', 'O', 'B'});
    TestInstruction call{true, 0, {3, 0}, "delegate"};
    call.has_scratch = has;
    call.scratch_arena = arena;
    call.scratch_offset = offset;
    call.scratch_bytes = bytes;
    p.instructions.push_back(call);
    return Serialize(p);
  };
  EXPECT_EQ(LoadError(with_scratch(true, 0, 128, 128)), Error::kOk);
  EXPECT_EQ(LoadError(with_scratch(false, 0, 0, 0)), Error::kOk);        // not planned
  EXPECT_EQ(LoadError(with_scratch(true, 7, 1u << 20, 0)), Error::kOk);  // 0 bytes: unused
  EXPECT_EQ(LoadError(with_scratch(true, 0, 192, 128)), Error::kProgramOutOfBounds);
  EXPECT_EQ(LoadError(with_scratch(true, 0, 0, 257)), Error::kProgramOutOfBounds);
  EXPECT_EQ(LoadError(with_scratch(true, 1, 0, 64)), Error::kProgramOutOfBounds);
  // offset + bytes wraps around: caught, not trusted.
  EXPECT_EQ(LoadError(with_scratch(true, 0, ~uint64_t{0} - 63, 128)), Error::kProgramOutOfBounds);
  EXPECT_EQ(LoadError(with_scratch(true, 0, 64, ~uint64_t{0})), Error::kProgramOutOfBounds);
  EXPECT_EQ(LoadError(with_scratch(true, 0, 32, 64)), Error::kInvalidProgram);  // misaligned
  EXPECT_EQ(LoadError(with_scratch(false, 0, 0, 64)), Error::kInvalidProgram);  // bytes, no place
}

// A backend that fills all the scratch it asks for on every call, as a GEMM's blocks would.
class ScratchWriter : public runtime::Backend {
 public:
  runtime::Result<void*> Init(runtime::Span<const uint8_t>,
                              runtime::Span<const runtime::CompileSpecView>, runtime::KernelArgs,
                              runtime::MemoryAllocator&) override {
    return static_cast<void*>(this);
  }
  Error Execute(void*, runtime::KernelArgs) override {
    if (scratch == nullptr) return Error::kNotInitialized;
    std::memset(scratch, 0x5a, 128);
    return Error::kOk;
  }
  void Destroy(void*) override { scratch = nullptr; }
  size_t ScratchBytes(void*) const override { return 128; }
  void BindScratch(void*, void* bound) override { scratch = bound; }
  void* scratch = nullptr;
};

// Whatever a hostile file says about a delegate's planned scratch, the bytes the Method binds
// stay inside the planned arena (or are its own): every flip of the FlatBuffer loads, inits and
// runs without a write past the arena, or fails with an Error.
TEST_F(ProgramTest, PlannedScratchSurvivesEverySingleByteFlip) {
  static ScratchWriter backend;
  static const Error registered = runtime::RegisterBackend("ScratchWriter", &backend);
  ASSERT_EQ(registered, Error::kOk);
  TestProgram p = ScaleProgram();
  p.arena_sizes = {256};
  p.delegates = {TestDelegate{"ScratchWriter", 1}};
  p.segments.push_back({'S'});
  TestInstruction call{true, 0, {3, 0}, "scratchy"};
  call.has_scratch = true;
  call.scratch_offset = 128;
  call.scratch_bytes = 128;
  p.instructions.push_back(call);
  const std::vector<uint8_t> bytes = Serialize(p);
  // The app's arena, followed by guard bytes a write past it would change.
  alignas(64) static uint8_t memory[256 + 256];
  auto load_init_run = [&](const std::vector<uint8_t>& file) {
    std::memset(memory, 0, sizeof(memory));
    std::memset(memory + 256, 0xee, 256);
    AlignedBytes aligned(file);
    BufferDataLoader loader(aligned.data(), aligned.size());
    auto program = Program::Load(loader);
    if (!program.ok()) return program.error();
    runtime::Span<uint8_t> arenas[] = {runtime::Span<uint8_t>(memory, 256)};
    runtime::MethodOptions options;
    options.arenas = runtime::Span<const runtime::Span<uint8_t>>(arenas, 1);
    runtime::MallocAllocator allocator;
    auto method = runtime::Method::Load(*program, "forward", allocator, options);
    if (!method.ok()) return method.error();
    const Error error = method->Execute();
    for (size_t i = 256; i < sizeof(memory); ++i) {
      if (memory[i] != 0xee) {
        ADD_FAILURE() << "a write past the arena at byte " << i;
        break;
      }
    }
    return error;
  };
  ASSERT_EQ(load_init_run(bytes), Error::kOk);
  EXPECT_EQ(memory[128], 0x5a);  // the planned bytes were the ones written
  const size_t end = 64 + static_cast<size_t>(bytes[16]) + (static_cast<size_t>(bytes[17]) << 8);
  size_t rejected = 0;
  for (size_t i = 64; i < end && i < bytes.size(); ++i) {
    for (uint8_t mask : {0x01, 0x40, 0xff}) {
      std::vector<uint8_t> corrupt = bytes;
      corrupt[i] ^= mask;
      if (load_init_run(corrupt) != Error::kOk) ++rejected;
    }
  }
  EXPECT_GT(rejected, 0u);
}

TEST_F(ProgramTest, RejectsOversizedAndMalformedTensors) {
  TestProgram p = ScaleProgram();
  p.values[3].tensor.sizes = {int64_t{1} << 40, int64_t{1} << 40};  // overflows
  EXPECT_EQ(LoadError(Serialize(p)), Error::kInvalidProgram);

  p = ScaleProgram();
  p.values[3].tensor.sizes = {-4};
  EXPECT_EQ(LoadError(Serialize(p)), Error::kInvalidProgram);

  p = ScaleProgram();
  p.values[3].tensor.sizes = std::vector<int64_t>(17, 1);  // rank above the limit
  EXPECT_EQ(LoadError(Serialize(p)), Error::kInvalidProgram);

  p = ScaleProgram();
  p.values[3].tensor.type = static_cast<runtime::ScalarType>(40);
  EXPECT_EQ(LoadError(Serialize(p)), Error::kInvalidProgram);

  p = ScaleProgram();
  p.values[3].tensor.dim_order = {0, 0};
  p.values[3].tensor.sizes = {2, 2};
  EXPECT_EQ(LoadError(Serialize(p)), Error::kInvalidProgram);
}

TEST_F(ProgramTest, RejectsSegmentsOutsideTheFile) {
  std::vector<uint8_t> bytes = Serialize(ScaleProgram());
  // Claim more segment data than the file holds.
  bytes[32] = 0xff;
  bytes[33] = 0xff;
  EXPECT_EQ(LoadError(bytes), Error::kProgramOutOfBounds);
  // A file size field larger than the buffer: truncated.
  bytes = Serialize(ScaleProgram());
  bytes[41] += 1;
  EXPECT_EQ(LoadError(bytes), Error::kProgramOutOfBounds);
}

// Inputs the program-loader fuzzer once crashed on, kept as regression tests:
// each must be refused at load or init, or run, without a sanitizer report.
TEST_F(ProgramTest, FuzzerFindingsStayFixed) {
  const std::string dir =
      std::string(TORCHIR_SOURCE_DIR_DEFAULT) + "/tests/runtime/executor/corrupt";
  const char* const kFiles[] = {"misaligned_int64_vector.pte", "union_without_table.pte"};
  for (const char* name : kFiles) {
    auto file = runtime::FileDataLoader::Open((dir + "/" + name).c_str());
    ASSERT_TRUE(file.ok()) << name;
    auto program = Program::Load(*file);
    EXPECT_EQ(program.error(), Error::kInvalidProgram) << name;
  }
}

TEST_F(ProgramTest, FileDataLoaderReportsMissingFiles) {
  for (runtime::FileLoad load : {runtime::FileLoad::kMap, runtime::FileLoad::kHugePages}) {
    auto loader = runtime::FileDataLoader::Open("/nonexistent/model.pte", load);
    EXPECT_EQ(loader.error(), Error::kIoError);
    auto directory = runtime::FileDataLoader::Open("/", load);
    EXPECT_EQ(directory.error(), Error::kIoError);
  }
}

// A program read into huge pages holds the file's bytes, starts at a 2 MiB boundary (where THP
// can back it), survives a move, and loads and runs as the mapped file does.
TEST_F(ProgramTest, FileDataLoaderReadsIntoHugePages) {
  const std::vector<uint8_t> bytes = Serialize(ScaleProgram());
  const std::string path = ::testing::TempDir() + "/huge_pages.pte";
  std::FILE* out = std::fopen(path.c_str(), "wb");
  ASSERT_NE(out, nullptr);
  ASSERT_EQ(std::fwrite(bytes.data(), 1, bytes.size(), out), bytes.size());
  ASSERT_EQ(std::fclose(out), 0);
  auto opened = runtime::FileDataLoader::Open(path.c_str(), runtime::FileLoad::kHugePages);
  ASSERT_TRUE(opened.ok());
  runtime::FileDataLoader file = std::move(opened.get());
  const runtime::Span<const uint8_t> data = file.data();
  ASSERT_EQ(data.size(), bytes.size());
  EXPECT_EQ(std::memcmp(data.data(), bytes.data(), bytes.size()), 0);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(data.data()) % (uintptr_t{2} << 20), 0u);
  auto program = Program::Load(file);
  EXPECT_TRUE(program.ok());
  std::remove(path.c_str());
}

}  // namespace
}  // namespace torchir::testing
