// Method: init binds memory, resolves kernels and delegates; Execute runs
// them in order without allocating.
#include "runtime/executor/method.h"

#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/backend/backend.h"
#include "runtime/executor/data_loader.h"
#include "runtime/executor/memory_allocator.h"
#include "runtime/executor/program.h"
#include "runtime/platform/platform.h"
#include "tests/runtime/executor/test_program.h"

// GCC flags free() in a replaced operator delete as mismatched; it is not.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

// Counts global heap allocations so a test can assert Execute makes none.
static size_t g_heap_allocations = 0;
void* operator new(size_t size) {
  ++g_heap_allocations;
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }

namespace torchir::testing {
namespace {

using runtime::BufferDataLoader;
using runtime::Error;
using runtime::Method;
using runtime::Program;

// Fails every allocation after the first `budget`.
class FailingAllocator : public runtime::MemoryAllocator {
 public:
  explicit FailingAllocator(size_t budget) : budget_(budget) {}
  void* Allocate(size_t size, size_t alignment) override {
    if (calls_++ >= budget_) return nullptr;
    return inner_.Allocate(size, alignment);
  }
  size_t calls() const { return calls_; }

 private:
  runtime::MallocAllocator inner_;
  size_t budget_;
  size_t calls_ = 0;
};

class MethodTest : public ::testing::Test {
 protected:
  void SetUp() override {
    RegisterTestKernels();
    runtime::SetLogHook([](runtime::LogLevel, const char*) {});
  }
  void TearDown() override { runtime::SetLogHook(nullptr); }
};

TEST_F(MethodTest, RunsAndReadsOutputs) {
  AlignedBytes bytes(Serialize(ScaleProgram()));
  BufferDataLoader loader(bytes.data(), bytes.size());
  Program program = std::move(Program::Load(loader).get());
  runtime::MallocAllocator allocator;
  auto method = Method::Load(program, "forward", allocator);
  ASSERT_TRUE(method.ok()) << runtime::ErrorName(method.error());
  ASSERT_EQ(method->num_inputs(), 1u);
  ASSERT_EQ(method->num_outputs(), 1u);
  EXPECT_STREQ(method->input_name(0), "x");
  EXPECT_STREQ(method->output_name(0), "y");
  EXPECT_STREQ(method->instruction_name(0), "scale");
  const float x[4] = {10, 20, 30, 40};
  ASSERT_EQ(method->SetInput(0, x, sizeof(x)), Error::kOk);
  ASSERT_EQ(method->Execute(), Error::kOk);
  const float* y = method->output(0).data_ptr<float>();
  EXPECT_FLOAT_EQ(y[0], 22);  // (10 + 1) * 2
  EXPECT_FLOAT_EQ(y[3], 88);  // (40 + 4) * 2
  EXPECT_EQ(method->SetInput(0, x, 8), Error::kShapeMismatch);
  EXPECT_EQ(method->SetInput(1, x, 16), Error::kIndexOutOfRange);
}

TEST_F(MethodTest, ReadsEachInstructionsDebugHandle) {
  TestProgram with_handle = ScaleProgram();
  with_handle.instructions[0].debug_nodes = {"scale", "fused_relu"};
  AlignedBytes bytes(Serialize(with_handle));
  BufferDataLoader loader(bytes.data(), bytes.size());
  Program program = std::move(Program::Load(loader).get());
  runtime::MallocAllocator allocator;
  auto method = Method::Load(program, "forward", allocator);
  ASSERT_TRUE(method.ok()) << runtime::ErrorName(method.error());
  ASSERT_EQ(method->instruction_num_debug_nodes(0), 2u);
  EXPECT_STREQ(method->instruction_debug_node(0, 0), "scale");
  EXPECT_STREQ(method->instruction_debug_node(0, 1), "fused_relu");
  EXPECT_STREQ(method->instruction_debug_node(0, 2), "");  // out of range
  EXPECT_STREQ(method->instruction_op(0), "test_scale");
  EXPECT_EQ(method->instruction_num_debug_nodes(1), 0u);
  EXPECT_STREQ(method->instruction_debug_node(1, 0), "");
  EXPECT_STREQ(method->instruction_op(1), "");
}

TEST_F(MethodTest, ProgramsWithoutDebugHandlesNameTheInstructionsNode) {
  AlignedBytes bytes(Serialize(ScaleProgram()));  // writes no debug_nodes
  BufferDataLoader loader(bytes.data(), bytes.size());
  Program program = std::move(Program::Load(loader).get());
  runtime::MallocAllocator allocator;
  auto method = Method::Load(program, "forward", allocator);
  ASSERT_TRUE(method.ok()) << runtime::ErrorName(method.error());
  ASSERT_EQ(method->instruction_num_debug_nodes(0), 1u);
  EXPECT_STREQ(method->instruction_debug_node(0, 0), "scale");
}

TEST_F(MethodTest, ExecuteAllocatesNothing) {
  AlignedBytes bytes(Serialize(ScaleProgram()));
  BufferDataLoader loader(bytes.data(), bytes.size());
  Program program = std::move(Program::Load(loader).get());
  runtime::MallocAllocator allocator;
  Method method = std::move(Method::Load(program, "forward", allocator).get());
  const size_t before_heap = g_heap_allocations;
  const size_t before_arena = allocator.allocated_bytes();
  for (int i = 0; i < 10; ++i) ASSERT_EQ(method.Execute(), Error::kOk);
  EXPECT_EQ(g_heap_allocations, before_heap);
  EXPECT_EQ(allocator.allocated_bytes(), before_arena);
}

TEST_F(MethodTest, UsesArenasTheAppProvides) {
  AlignedBytes bytes(Serialize(ScaleProgram()));
  BufferDataLoader loader(bytes.data(), bytes.size());
  Program program = std::move(Program::Load(loader).get());
  alignas(64) uint8_t arena[128] = {};
  runtime::Span<uint8_t> arenas[] = {runtime::Span<uint8_t>(arena, sizeof(arena))};
  runtime::MethodOptions options;
  options.arenas = runtime::Span<const runtime::Span<uint8_t>>(arenas, 1);
  alignas(16) uint8_t init_memory[4096];
  runtime::BufferAllocator allocator(runtime::Span<uint8_t>(init_memory, sizeof(init_memory)));
  auto method = Method::Load(program, "forward", allocator, options);
  ASSERT_TRUE(method.ok());
  EXPECT_EQ(method->input(0).data(), arena);          // x at offset 0
  EXPECT_EQ(method->output(0).data(), arena + 64);    // y at offset 64
  EXPECT_LT(allocator.used(), sizeof(init_memory));

  runtime::Span<uint8_t> small[] = {runtime::Span<uint8_t>(arena, 64)};
  options.arenas = runtime::Span<const runtime::Span<uint8_t>>(small, 1);
  EXPECT_EQ(Method::Load(program, "forward", allocator, options).error(),
            Error::kInvalidArgument);
}

TEST_F(MethodTest, EveryAllocationFailureIsAnError) {
  AlignedBytes bytes(Serialize(ScaleProgram()));
  BufferDataLoader loader(bytes.data(), bytes.size());
  Program program = std::move(Program::Load(loader).get());
  FailingAllocator unlimited(1000);
  ASSERT_TRUE(Method::Load(program, "forward", unlimited).ok());
  const size_t needed = unlimited.calls();
  ASSERT_GT(needed, 3u);
  for (size_t budget = 0; budget < needed; ++budget) {
    FailingAllocator allocator(budget);
    EXPECT_EQ(Method::Load(program, "forward", allocator).error(), Error::kOutOfMemory)
        << "budget " << budget;
  }
}

TEST_F(MethodTest, RefusesUnknownMethodsAndKernels) {
  AlignedBytes bytes(Serialize(ScaleProgram()));
  BufferDataLoader loader(bytes.data(), bytes.size());
  Program program = std::move(Program::Load(loader).get());
  runtime::MallocAllocator allocator;
  EXPECT_EQ(Method::Load(program, "backward", allocator).error(), Error::kNotFound);

  TestProgram p = ScaleProgram();
  p.operators = {"no_such_kernel"};
  AlignedBytes unknown(Serialize(p));
  BufferDataLoader unknown_loader(unknown.data(), unknown.size());
  Program unknown_program = std::move(Program::Load(unknown_loader).get());
  EXPECT_EQ(Method::Load(unknown_program, "forward", allocator).error(), Error::kKernelNotFound);
}

TEST_F(MethodTest, KernelCheckGuardsArguments) {
  TestProgram p = ScaleProgram();
  p.values[3].tensor.sizes = {3};  // output smaller than the inputs
  AlignedBytes bytes(Serialize(p));
  BufferDataLoader loader(bytes.data(), bytes.size());
  Program program = std::move(Program::Load(loader).get());
  runtime::MallocAllocator allocator;
  EXPECT_EQ(Method::Load(program, "forward", allocator).error(), Error::kShapeMismatch);
}

TEST_F(MethodTest, RefusesWritesIntoConstants) {
  TestProgram p = ScaleProgram();
  p.instructions[0].args = {0, 1, 2, 1};  // output is the constant
  AlignedBytes bytes(Serialize(p));
  BufferDataLoader loader(bytes.data(), bytes.size());
  Program program = std::move(Program::Load(loader).get());
  runtime::MallocAllocator allocator;
  EXPECT_EQ(Method::Load(program, "forward", allocator).error(), Error::kInvalidProgram);
}

class RecordingTracer : public runtime::EventTracer {
 public:
  void BeginInstruction(size_t index, const char* name, bool is_delegate) override {
    events.push_back("begin " + std::to_string(index) + " " + name +
                     (is_delegate ? " delegate" : ""));
  }
  void EndInstruction(size_t index, Error status) override {
    events.push_back("end " + std::to_string(index) + " " + runtime::ErrorName(status));
  }
  std::vector<std::string> events;
};

TEST_F(MethodTest, EventTracerSeesEveryInstruction) {
  AlignedBytes bytes(Serialize(ScaleProgram()));
  BufferDataLoader loader(bytes.data(), bytes.size());
  Program program = std::move(Program::Load(loader).get());
  runtime::MallocAllocator allocator;
  RecordingTracer tracer;
  runtime::MethodOptions options;
  options.tracer = &tracer;
  Method method = std::move(Method::Load(program, "forward", allocator, options).get());
  ASSERT_EQ(method.Execute(), Error::kOk);
  EXPECT_EQ(tracer.events, (std::vector<std::string>{"begin 0 scale", "end 0 Ok"}));
}

// A backend that copies its first argument into its last and counts calls.
class CopyBackend : public runtime::Backend {
 public:
  runtime::Result<void*> Init(runtime::Span<const uint8_t> blob,
                              runtime::Span<const runtime::CompileSpecView>,
                              runtime::KernelArgs args, runtime::MemoryAllocator&) override {
    if (blob.size() < 4 || std::memcmp(blob.data(), "COPY", 4) != 0) return Error::kDelegateFailed;
    if (args.size() != 2 || !args[1]->is_tensor() || args[1]->to_tensor().is_constant()) {
      return Error::kInvalidProgram;
    }
    ++live;
    return static_cast<void*>(&live);
  }
  Error Execute(void*, runtime::KernelArgs args) override {
    ++executions;
    std::memcpy(args[1]->to_tensor().mutable_data(), args[0]->to_tensor().data(),
                args[1]->to_tensor().nbytes());
    return Error::kOk;
  }
  void Destroy(void*) override { --live; }
  uint32_t ReadOverrunBytes() const override { return read_overrun; }
  int live = 0;
  int executions = 0;
  uint32_t read_overrun = 0;
};

TEST_F(MethodTest, DelegatesInitRunAndAreDestroyed) {
  static CopyBackend backend;
  static const Error registered = runtime::RegisterBackend("CopyBackend", &backend);
  ASSERT_EQ(registered, Error::kOk);
  EXPECT_EQ(runtime::RegisterBackend("CopyBackend", &backend), Error::kInvalidArgument);

  TestProgram p = ScaleProgram();
  p.delegates = {TestDelegate{"CopyBackend", 1}};
  p.segments.push_back({'C', 'O', 'P', 'Y'});
  p.instructions.push_back(TestInstruction{true, 0, {3, 0}, "copy_back"});
  AlignedBytes bytes(Serialize(p));
  BufferDataLoader loader(bytes.data(), bytes.size());
  Program program = std::move(Program::Load(loader).get());
  {
    runtime::MallocAllocator allocator;
    auto method = Method::Load(program, "forward", allocator);
    ASSERT_TRUE(method.ok()) << runtime::ErrorName(method.error());
    EXPECT_EQ(backend.live, 1);
    EXPECT_TRUE(method->instruction_is_delegate(1));
    const float x[4] = {1, 1, 1, 1};
    ASSERT_EQ(method->SetInput(0, x, sizeof(x)), Error::kOk);
    ASSERT_EQ(method->Execute(), Error::kOk);
    EXPECT_EQ(backend.executions, 1);
    EXPECT_FLOAT_EQ(method->input(0).data_ptr<float>()[1], 6);  // (1 + 2) * 2 copied back
  }
  EXPECT_EQ(backend.live, 0);

  // A blob the backend refuses fails init and leaks nothing.
  p.segments[1] = {'B', 'A', 'D', '!'};
  AlignedBytes bad(Serialize(p));
  BufferDataLoader bad_loader(bad.data(), bad.size());
  Program bad_program = std::move(Program::Load(bad_loader).get());
  runtime::MallocAllocator allocator;
  EXPECT_EQ(Method::Load(bad_program, "forward", allocator).error(), Error::kDelegateFailed);
  EXPECT_EQ(backend.live, 0);

  // The program must leave at least the slack the backend reads past its tensors.
  p.segments[1] = {'C', 'O', 'P', 'Y'};
  backend.read_overrun = 16;
  for (uint32_t declared : {0u, 15u, 16u}) {
    p.delegates[0].read_overrun_bytes = declared;
    AlignedBytes slack(Serialize(p));
    BufferDataLoader slack_loader(slack.data(), slack.size());
    Program slack_program = std::move(Program::Load(slack_loader).get());
    EXPECT_EQ(Method::Load(slack_program, "forward", allocator).error(),
              declared >= 16 ? Error::kOk : Error::kInvalidProgram)
        << declared;
    EXPECT_EQ(backend.live, 0);
  }
  backend.read_overrun = 0;

  p.delegates[0].backend_id = "NoSuchBackend";
  AlignedBytes missing(Serialize(p));
  BufferDataLoader missing_loader(missing.data(), missing.size());
  Program missing_program = std::move(Program::Load(missing_loader).get());
  EXPECT_EQ(Method::Load(missing_program, "forward", allocator).error(), Error::kBackendNotFound);
}

// A backend that asks for `needed` bytes of scratch, fills them on every call (as a GEMM's
// blocks would) and records where the Method bound them.
class ScratchBackend : public runtime::Backend {
 public:
  runtime::Result<void*> Init(runtime::Span<const uint8_t>,
                              runtime::Span<const runtime::CompileSpecView>, runtime::KernelArgs,
                              runtime::MemoryAllocator&) override {
    bound = nullptr;
    return static_cast<void*>(this);
  }
  Error Execute(void*, runtime::KernelArgs args) override {
    if (bound == nullptr) return Error::kNotInitialized;
    std::memset(bound, 0x5a, needed);
    std::memcpy(args[1]->to_tensor().mutable_data(), args[0]->to_tensor().data(),
                args[1]->to_tensor().nbytes());
    return Error::kOk;
  }
  void Destroy(void*) override {}
  size_t ScratchBytes(void*) const override { return needed; }
  void BindScratch(void*, void* scratch) override { bound = static_cast<uint8_t*>(scratch); }
  size_t needed = 0;
  uint8_t* bound = nullptr;
};

// The Method binds the scratch the compiler planned when it covers what the backend asks
// (no allocation of its own), and falls back to a buffer of its own when the backend asks
// more (a runtime running more threads than the program was compiled for).
TEST_F(MethodTest, DelegatesUseTheirPlannedScratchWhenItIsLargeEnough) {
  static ScratchBackend backend;
  static const Error registered = runtime::RegisterBackend("ScratchBackend", &backend);
  ASSERT_EQ(registered, Error::kOk);
  TestProgram p = ScaleProgram();
  p.arena_sizes = {512};
  p.delegates = {TestDelegate{"ScratchBackend", 1}};
  p.segments.push_back({'S'});
  TestInstruction call{true, 0, {3, 0}, "scratchy"};
  call.has_scratch = true;
  call.scratch_offset = 128;
  call.scratch_bytes = 256;
  p.instructions.push_back(call);
  AlignedBytes bytes(Serialize(p));
  BufferDataLoader loader(bytes.data(), bytes.size());
  Program program = std::move(Program::Load(loader).get());
  alignas(64) static uint8_t arena[512];
  runtime::Span<uint8_t> arenas[] = {runtime::Span<uint8_t>(arena, sizeof(arena))};
  runtime::MethodOptions options;
  options.arenas = runtime::Span<const runtime::Span<uint8_t>>(arenas, 1);
  const float x[4] = {1, 1, 1, 1};

  auto load_and_run = [&](size_t needed, size_t* allocated) {
    backend.needed = needed;
    runtime::MallocAllocator allocator;
    auto method = Method::Load(program, "forward", allocator, options);
    EXPECT_TRUE(method.ok()) << runtime::ErrorName(method.error());
    if (!method.ok()) return;
    *allocated = allocator.allocated_bytes();
    ASSERT_EQ(method->SetInput(0, x, sizeof(x)), Error::kOk);
    ASSERT_EQ(method->Execute(), Error::kOk);
    EXPECT_FLOAT_EQ(method->input(0).data_ptr<float>()[1], 6);  // (1 + 2) * 2 copied back
  };
  size_t planned_allocated = 0, exact_allocated = 0, fallback_allocated = 0;
  load_and_run(200, &planned_allocated);
  EXPECT_EQ(backend.bound, arena + 128);
  load_and_run(256, &exact_allocated);
  EXPECT_EQ(backend.bound, arena + 128);
  EXPECT_EQ(exact_allocated, planned_allocated);
  load_and_run(257, &fallback_allocated);
  EXPECT_TRUE(backend.bound < arena || backend.bound >= arena + sizeof(arena));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(backend.bound) % 64, 0u);
  EXPECT_GE(fallback_allocated, planned_allocated + 257);

  // A program without the field (written before it existed) takes the fallback.
  p.instructions.back().has_scratch = false;
  p.instructions.back().scratch_bytes = 0;
  AlignedBytes old_bytes(Serialize(p));
  BufferDataLoader old_loader(old_bytes.data(), old_bytes.size());
  Program old_program = std::move(Program::Load(old_loader).get());
  backend.needed = 64;
  runtime::MallocAllocator allocator;
  auto method = Method::Load(old_program, "forward", allocator, options);
  ASSERT_TRUE(method.ok()) << runtime::ErrorName(method.error());
  EXPECT_TRUE(backend.bound < arena || backend.bound >= arena + sizeof(arena));
  ASSERT_EQ(method->SetInput(0, x, sizeof(x)), Error::kOk);
  EXPECT_EQ(method->Execute(), Error::kOk);
}

}  // namespace
}  // namespace torchir::testing
