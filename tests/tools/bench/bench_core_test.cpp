// The runtime-only pieces of torchir-bench: the .safetensors reader (an
// untrusted-file parser), latency percentiles, the command line, the
// instruction recorder and the Chrome trace it feeds.
#include <cstring>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/executor/data_loader.h"
#include "runtime/executor/memory_allocator.h"
#include "runtime/executor/method.h"
#include "runtime/executor/program.h"
#include "runtime/platform/platform.h"
#include "tests/runtime/executor/test_program.h"
#include "tools/bench/bench_options.h"
#include "tools/bench/chrome_trace.h"
#include "tools/bench/instruction_recorder.h"
#include "tools/bench/latency_stats.h"
#include "tools/bench/method_io.h"
#include "tools/bench/profile_table.h"
#include "tools/bench/safetensors_reader.h"

namespace torchir::bench {
namespace {

using ::testing::HasSubstr;

// A .safetensors file: the 8-byte size, `header`, then `data`.
std::vector<uint8_t> File(const std::string& header, const std::vector<uint8_t>& data = {}) {
  std::vector<uint8_t> bytes(8);
  uint64_t size = header.size();
  for (int i = 0; i < 8; ++i) bytes[static_cast<size_t>(i)] = static_cast<uint8_t>(size >> (8 * i));
  bytes.insert(bytes.end(), header.begin(), header.end());
  bytes.insert(bytes.end(), data.begin(), data.end());
  return bytes;
}

// The parse error for `bytes`, or "" when it parsed.
std::string ParseError(const std::vector<uint8_t>& bytes) {
  SafetensorsFile file;
  std::string error;
  return file.Parse(bytes, "t.safetensors", &error) ? "" : error;
}

TEST(SafetensorsReaderTest, ReadsTensorsAndSkipsMetadata) {
  std::vector<uint8_t> data(8 + 4);
  const float values[2] = {1.5f, -2.0f};
  std::memcpy(data.data(), values, 8);
  data[8] = 7;
  SafetensorsFile file;
  std::string error;
  ASSERT_TRUE(file.Parse(File(R"({"__metadata__": {"format": "pt", "nested": [1, {"a": null}]},
      "x": {"dtype": "F32", "shape": [1, 2], "data_offsets": [0, 8]},
      "n\u00e9\"q": {"dtype": "I32", "shape": [], "data_offsets": [8, 12]}}  )",
                              data),
                         "t", &error))
      << error;
  ASSERT_EQ(file.tensors().size(), 2u);
  const SafetensorsTensor* x = file.Find("x");
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(x->dtype, runtime::ScalarType::kFloat32);
  EXPECT_EQ(x->shape, (std::vector<int64_t>{1, 2}));
  ASSERT_EQ(x->nbytes, 8u);
  float second = 0;  // the data may sit at any alignment after the header
  std::memcpy(&second, x->data + 4, 4);
  EXPECT_EQ(second, -2.0f);
  const SafetensorsTensor* scalar = file.Find("n\xc3\xa9\"q");  // escapes decoded
  ASSERT_NE(scalar, nullptr);
  EXPECT_EQ(scalar->dtype, runtime::ScalarType::kInt32);
  EXPECT_TRUE(scalar->shape.empty());
  EXPECT_EQ(scalar->data[0], 7);
}

TEST(SafetensorsReaderTest, RejectsEveryMalformedFileWithAReason) {
  const std::string ok = R"({"x": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}})";
  ASSERT_EQ(ParseError(File(ok, std::vector<uint8_t>(8))), "");
  EXPECT_THAT(ParseError({1, 2, 3}), HasSubstr("shorter than its 8-byte header size"));
  std::vector<uint8_t> long_header = File(ok, std::vector<uint8_t>(8));
  long_header[0] = 0xff;
  long_header[5] = 0x01;
  EXPECT_THAT(ParseError(long_header), HasSubstr("runs past the end"));
  EXPECT_THAT(ParseError(File(ok, std::vector<uint8_t>(4))),
              HasSubstr("data_offsets outside the file"));
  EXPECT_THAT(ParseError(File(R"({"x": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}})",
                              std::vector<uint8_t>(8))),
              HasSubstr("holds 8 bytes, its dtype and shape need 12"));
  EXPECT_THAT(ParseError(File(R"({"x": {"dtype": "Q7", "shape": [2], "data_offsets": [0, 8]}})",
                              std::vector<uint8_t>(8))),
              HasSubstr("unknown dtype 'Q7'"));
  EXPECT_THAT(ParseError(File(R"({"x": {"dtype": "F32", "shape": [2]}})")),
              HasSubstr("needs dtype, shape and two data_offsets"));
  EXPECT_THAT(ParseError(File(R"({"x": {"dtype": "F32", "shape": [-2], "data_offsets": [0, 8]}})")),
              HasSubstr("non-negative integer"));
  EXPECT_THAT(ParseError(File(R"({"x": {"dtype": "F32", "shape": [99999999999999999999], )"
                              R"("data_offsets": [0, 8]}})")),
              HasSubstr("integer too large"));
  EXPECT_THAT(ParseError(File(R"({"x": {"dtype": "F32", "shape": [4294967296, 4294967296, 16], )"
                              R"("data_offsets": [0, 0]}})")),
              HasSubstr("too large"));
  EXPECT_THAT(ParseError(File(ok.substr(0, ok.size() - 1), std::vector<uint8_t>(8))),
              HasSubstr("expected '}'"));
  EXPECT_THAT(ParseError(File(ok + "x", std::vector<uint8_t>(8))), HasSubstr("text after"));
  EXPECT_THAT(ParseError(File(R"({"x": {"dtype": "F32", "shape": [0], "data_offsets": [0, 0]}, )"
                              R"("x": {"dtype": "F32", "shape": [0], "data_offsets": [0, 0]}})")),
              HasSubstr("appears twice"));
  EXPECT_THAT(ParseError(File(R"({"__metadata__": )" + std::string(100, '[') +
                              std::string(100, ']') + "}")),
              HasSubstr("nested too deeply"));
  EXPECT_THAT(ParseError(File("{\"x\x01\": 1}")), HasSubstr("control character"));
  EXPECT_THAT(ParseError(File(R"({"unterminated)")), HasSubstr("unterminated string"));
}

TEST(SafetensorsReaderTest, SurvivesEveryTruncationAndByteFlip) {
  const std::vector<uint8_t> bytes = File(
      R"({"__metadata__": {"k": "v"}, "x": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}})",
      std::vector<uint8_t>(8, 1));
  for (size_t length = 0; length < bytes.size(); ++length) {
    EXPECT_NE(ParseError(std::vector<uint8_t>(bytes.begin(), bytes.begin() + length)), "")
        << "prefix of " << length << " bytes parsed";
  }
  for (size_t i = 0; i < bytes.size(); ++i) {
    for (uint8_t mask : {0x01, 0x20, 0x80, 0xff}) {
      std::vector<uint8_t> flipped = bytes;
      flipped[i] ^= mask;
      SafetensorsFile file;
      std::string error;
      if (!file.Parse(flipped, "t", &error)) continue;
      for (const SafetensorsTensor& t : file.tensors()) {
        ASSERT_LE(t.nbytes, flipped.size());
        unsigned sum = 0;  // reads every byte the view claims (ASan builds catch overreads)
        for (size_t k = 0; k < t.nbytes; ++k) sum += t.data[k];
        EXPECT_LE(sum, 255u * t.nbytes);
      }
    }
  }
}

TEST(LatencyStatsTest, NearestRankPercentiles) {
  std::vector<double> seconds;
  for (int i = 100; i >= 1; --i) seconds.push_back(i);
  LatencySummary s = Summarize(seconds);
  EXPECT_EQ(s.min, 1);
  EXPECT_EQ(s.p50, 50);
  EXPECT_EQ(s.p90, 90);
  EXPECT_EQ(s.p99, 99);
  EXPECT_EQ(s.max, 100);
  EXPECT_DOUBLE_EQ(s.mean, 50.5);
  EXPECT_EQ(Summarize({3.0}).p99, 3.0);
  EXPECT_EQ(Summarize({}).max, 0.0);
}

// Parses `args` (argv[0] added); "" when accepted.
std::string OptionsError(std::vector<const char*> args, BenchOptions* options) {
  args.insert(args.begin(), "torchir-bench");
  std::string error;
  return ParseBenchOptions(static_cast<int>(args.size()), args.data(), options, &error) ? ""
                                                                                        : error;
}

TEST(BenchOptionsTest, ParsesEveryFlagInBothSpellings) {
  BenchOptions o;
  ASSERT_EQ(OptionsError({"m.pte", "--iterations=7", "--warmup", "0", "--threads", "2", "--trace",
                          "t.json", "--profile", "--expected", "e.safetensors", "--atol", "0.5",
                          "--seed=9", "--json", "s.json"},
                         &o),
            "");
  EXPECT_EQ(o.program, "m.pte");
  EXPECT_EQ(o.iterations, 7);
  EXPECT_EQ(o.warmup, 0);
  EXPECT_EQ(o.threads, 2u);
  EXPECT_EQ(o.trace, "t.json");
  EXPECT_TRUE(o.profile);
  EXPECT_EQ(o.atol, 0.5);
  EXPECT_EQ(o.seed, 9u);
  EXPECT_EQ(o.json, "s.json");
}

TEST(BenchOptionsTest, EachUsageErrorNamesTheCulprit) {
  BenchOptions o;
  EXPECT_THAT(OptionsError({}, &o), HasSubstr("no program given"));
  EXPECT_THAT(OptionsError({"m.pte", "--iterations", "x"}, &(o = {})), HasSubstr("--iterations"));
  EXPECT_THAT(OptionsError({"m.pte", "--threads", "0"}, &(o = {})), HasSubstr("--threads"));
  EXPECT_THAT(OptionsError({"m.pte", "--atol", "-1"}, &(o = {})), HasSubstr("--atol"));
  EXPECT_THAT(OptionsError({"m.pte", "--trace"}, &(o = {})), HasSubstr("--trace needs a value"));
  EXPECT_THAT(OptionsError({"m.pte", "--nope"}, &(o = {})), HasSubstr("unknown option --nope"));
  EXPECT_THAT(OptionsError({"m.pte", "--profile=yes"}, &(o = {})), HasSubstr("takes no value"));
  EXPECT_THAT(OptionsError({"a.pte", "b.pte"}, &(o = {})), HasSubstr("one program only"));
  EXPECT_THAT(OptionsError({"m.pte", "--inputs", "i", "--seed", "1"}, &(o = {})),
              HasSubstr("--seed"));
}

class TraceTest : public ::testing::Test {
 protected:
  void SetUp() override { testing::RegisterTestKernels(); }
};

// ScaleProgram with these debug nodes on its one instruction, loaded (members in load order).
struct ScaleMethod {
  explicit ScaleMethod(std::vector<std::string> debug_nodes)
      : bytes(Serialized(std::move(debug_nodes))),
        loader(bytes.data(), bytes.size()),
        program(std::move(runtime::Program::Load(loader).get())),
        method(std::move(runtime::Method::Load(program, "forward", allocator).get())) {}
  static std::vector<uint8_t> Serialized(std::vector<std::string> debug_nodes) {
    testing::TestProgram source = testing::ScaleProgram();
    source.instructions[0].debug_nodes = std::move(debug_nodes);
    return testing::Serialize(source);
  }
  testing::AlignedBytes bytes;
  runtime::BufferDataLoader loader;
  runtime::Program program;
  runtime::MallocAllocator allocator;
  runtime::Method method;
};

TEST_F(TraceTest, OneEventPerInstructionOfEachTracedIterationNamingItsNodes) {
  ScaleMethod scale({"scale", "relu_fused"});
  runtime::Method& method = scale.method;
  const InputBytes inputs = RandomInputs(method, 1);
  ASSERT_EQ(inputs.size(), 1u);
  ASSERT_EQ(inputs[0].size(), 16u);

  InstructionRecorder recorder(method.num_instructions(), /*traced_iterations=*/2);
  method.set_event_tracer(&recorder);
  for (uint32_t i = 0; i < 3; ++i) {
    recorder.BeginIteration(i, /*record_events=*/i >= 1);
    ASSERT_EQ(ApplyInputs(method, inputs), runtime::Error::kOk);
    ASSERT_EQ(method.Execute(), runtime::Error::kOk);
  }
  ASSERT_EQ(recorder.events().size(), 2u) << "iterations 1 and 2, one instruction each";
  EXPECT_EQ(recorder.events()[0].iteration, 1u);
  EXPECT_EQ(recorder.events()[1].iteration, 2u);
  EXPECT_EQ(recorder.totals().size(), 1u);
  // A delegate node event beyond the reservation is dropped, never stored.
  recorder.DelegateNodeEvent(0, 1, 5, 6);
  EXPECT_EQ(recorder.dropped_events(), 1u);

  const std::string trace = ChromeTraceJson(method, recorder.events(), "scale.pte");
  EXPECT_THAT(trace, HasSubstr("\"traceEvents\": ["));
  EXPECT_THAT(trace, HasSubstr("{\"name\": \"scale\", \"cat\": \"kernel\", \"ph\": \"X\""));
  EXPECT_THAT(trace, HasSubstr("\"op\": \"test_scale\", \"nodes\": [\"scale\", \"relu_fused\"]"));
  EXPECT_THAT(trace, HasSubstr("\"name\": \"iteration 2\", \"cat\": \"iteration\""));
  EXPECT_THAT(trace, HasSubstr("\"ts\": 0.000"));
  EXPECT_EQ(trace.find("\"iteration\": 0"), std::string::npos) << "iteration 0 was not traced";
}

TEST_F(TraceTest, DelegateNodeEventsAreNamedFromTheDebugHandle) {
  ScaleMethod scale({"conv", "relu"});
  runtime::Method& method = scale.method;
  InstructionRecorder recorder(1, 1, /*node_event_capacity=*/2);
  recorder.BeginIteration(0, true);
  // What a backend that times its nodes would report inside the call.
  recorder.BeginInstruction(0, "scale", true);
  recorder.DelegateNodeEvent(0, 0, 1000, 3000);
  recorder.DelegateNodeEvent(0, 1, 3000, 2000);  // a clock that went back: clamped
  recorder.EndInstruction(0, runtime::Error::kOk);
  ASSERT_EQ(recorder.events().size(), 3u);
  EXPECT_EQ(recorder.events()[1].end_ns, recorder.events()[1].begin_ns);
  const std::string trace = ChromeTraceJson(method, recorder.events(), "p.pte");
  EXPECT_THAT(trace, HasSubstr("{\"name\": \"conv\", \"cat\": \"delegate_node\""));
  EXPECT_THAT(trace, HasSubstr("{\"name\": \"relu\", \"cat\": \"delegate_node\""));
  EXPECT_THAT(trace, HasSubstr("\"node_index\": 1"));
}

// Node events add up per (instruction, node) once sized, traced or not; the profile lists a
// call's nodes under it when two or more were timed, with their share of the call.
TEST_F(TraceTest, NodeTotalsAddUpAndTheProfileListsThemUnderTheirCall) {
  ScaleMethod scale({"matmul", "softmax"});
  runtime::Method& method = scale.method;
  ASSERT_EQ(DebugNodeCounts(method), (std::vector<size_t>{2}));
  InstructionRecorder recorder(1, 0);
  recorder.SizeNodeTotals(DebugNodeCounts(method));
  recorder.BeginIteration(0, false);
  recorder.DelegateNodeEvent(0, 0, 1000, 3000);
  recorder.DelegateNodeEvent(0, 1, 3000, 4000);
  recorder.DelegateNodeEvent(0, 0, 5000, 7000);
  recorder.DelegateNodeEvent(0, 2, 0, 9000);  // past the debug handle: ignored
  recorder.DelegateNodeEvent(1, 0, 0, 9000);  // past the instructions: ignored
  ASSERT_EQ(recorder.node_totals().size(), 1u);
  EXPECT_EQ(recorder.node_totals()[0], (std::vector<uint64_t>{4000, 1000}));
  EXPECT_TRUE(recorder.events().empty()) << "not recording";

  auto print = [&](const std::vector<std::vector<uint64_t>>* nodes) {
    std::FILE* file = std::tmpfile();
    PrintProfile(file, method, {10000}, 2, nodes);
    std::rewind(file);
    std::string text;
    char buffer[512];
    while (std::fgets(buffer, sizeof(buffer), file) != nullptr) text += buffer;
    std::fclose(file);
    return text;
  };
  const std::string table = print(&recorder.node_totals());
  EXPECT_THAT(table, HasSubstr("- matmul"));
  EXPECT_THAT(table, HasSubstr("0.002 ms   40.0% of the call"));
  EXPECT_THAT(table, HasSubstr("- softmax"));
  EXPECT_THAT(table, HasSubstr("0.001 ms   10.0% of the call"));
  EXPECT_EQ(print(nullptr).find("of the call"), std::string::npos);
  const std::vector<std::vector<uint64_t>> one = {{4000, 0}};
  EXPECT_EQ(print(&one).find("- matmul"), std::string::npos) << "one timed node is the call";
}

}  // namespace
}  // namespace torchir::bench
