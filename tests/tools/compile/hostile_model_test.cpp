// A corpus of hostile one-node models: attribute values and shapes near the
// limits of int64 that once overflowed the compiler's arithmetic (undefined
// behaviour) or compiled into absurd programs. Each must make torchir-compile
// exit 1 with exactly one "error:" line naming the node or tensor, and leave no
// output file.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tests/support/run_command.h"

namespace torchir {
namespace {

namespace fs = std::filesystem;

constexpr int64_t kMax = INT64_MAX;
constexpr int64_t kMin = INT64_MIN;
constexpr int64_t kHalfMax = (int64_t{1} << 61) - 1;

struct Meta {
  std::string name;
  std::vector<int64_t> shape;
  std::string dtype = "float32";
};

std::string MetaJson(const Meta& meta, bool produced_by_input) {
  std::string json =
      absl::StrCat(R"({"name": ")", meta.name, R"(", "shape": [)", absl::StrJoin(meta.shape, ", "),
                   R"(], "dtype": ")", meta.dtype, R"(")");
  if (produced_by_input) {
    absl::StrAppend(&json, R"(, "producer_node": ")", meta.name, R"(", "producer_output_idx": 0)");
  }
  return json + "}";
}

// A model whose graph inputs feed one node `op` (named "hostile") with `attrs`
// (a JSON object body), returning `output` as the graph output "y".
std::string OneNodeModel(const std::vector<Meta>& inputs, const std::string& op,
                         const std::string& attrs, const Meta& output) {
  std::vector<std::string> graph_inputs, node_inputs;
  for (const Meta& input : inputs) {
    graph_inputs.push_back(MetaJson(input, false));
    node_inputs.push_back(MetaJson(input, true));
  }
  return absl::StrCat(R"({"model_name": "Hostile", "pytorch_version": "2.8.0",
  "graph_inputs": [)",
                      absl::StrJoin(graph_inputs, ", "), R"(],
  "graph_outputs": [)",
                      MetaJson(output, false), R"(],
  "weights": [], "weight_name_mapping": {},
  "nodes": [{"name": "hostile", "op_type": ")",
                      op, R"(", "inputs": [)", absl::StrJoin(node_inputs, ", "),
                      R"(], "outputs": [)", MetaJson(output, false), R"(], "attrs": {)", attrs,
                      "}}]}");
}

struct HostileCase {
  std::string name;
  std::string model;
  std::string expected;  // a piece of the error line besides the node or tensor name
  std::string names = "'hostile'";
};

std::string Conv(const std::string& stride, const std::string& padding, const std::string& dilation,
                 std::vector<int64_t> weight = {1, 1, 3, 3}) {
  return OneNodeModel({{"x", {1, 1, 8, 8}}, {"w", weight}}, "aten.conv2d.default",
                      absl::StrCat(R"("stride": )", stride, R"(, "padding": )", padding,
                                   R"(, "dilation": )", dilation, R"(, "groups": 1)"),
                      {"y", {1, 1, 6, 6}});
}

std::string Pool(const std::string& op, const std::string& attrs) {
  return OneNodeModel({{"x", {1, 1, 8, 8}}}, op, attrs, {"y", {1, 1, 4, 4}});
}

std::string MaxPool(const std::string& kernel, const std::string& stride,
                    const std::string& padding, const std::string& dilation = "[1, 1]") {
  return Pool(
      "aten.max_pool2d.default",
      absl::StrCat(R"("kernel_size": )", kernel, R"(, "stride": )", stride, R"(, "padding": )",
                   padding, R"(, "dilation": )", dilation, R"(, "ceil_mode": true)"));
}

std::string Slice(int64_t start, int64_t end, int64_t step, std::vector<int64_t> out) {
  return OneNodeModel(
      {{"x", {4, 6}}}, "aten.slice.Tensor",
      absl::StrCat(R"("dim": 1, "start": )", start, R"(, "end": )", end, R"(, "step": )", step),
      {"y", std::move(out)});
}

std::string View(const std::string& size, std::vector<int64_t> out) {
  return OneNodeModel({{"x", {2, 6}}}, "aten.view.default", absl::StrCat(R"("size": )", size),
                      {"y", std::move(out)});
}

std::string Pad(const std::string& pad, std::vector<int64_t> out) {
  return OneNodeModel({{"x", {1, 4}}}, "aten.constant_pad_nd.default",
                      absl::StrCat(R"("pad": )", pad, R"(, "value": 0.0)"), {"y", std::move(out)});
}

std::string I(int64_t v) { return std::to_string(v); }

std::vector<HostileCase> Corpus() {
  const std::string max = I(kMax), min = I(kMin), big = I(int64_t{1} << 62);
  return {
      {"conv_padding_max", Conv("[1, 1]", "[" + max + ", 0]", "[1, 1]"), "padding[0]"},
      {"conv_padding_2p62", Conv("[1, 1]", "[" + big + ", 0]", "[1, 1]"), "padding[0]"},
      {"conv_padding_min", Conv("[1, 1]", "[0, " + min + "]", "[1, 1]"), "padding[1]"},
      {"conv_dilation_max", Conv("[1, 1]", "[0, 0]", "[" + max + ", 1]"), "dilation[0]"},
      {"conv_dilation_zero", Conv("[1, 1]", "[0, 0]", "[1, 0]"), "dilation[1]"},
      {"conv_stride_zero", Conv("[0, 1]", "[0, 0]", "[1, 1]"), "stride[0]"},
      {"conv_stride_min", Conv("[1, " + min + "]", "[0, 0]", "[1, 1]"), "stride[1]"},
      {"conv_kernel_huge_dilated",
       Conv("[1, 1]", "[0, 0]", "[" + I(int64_t{1} << 40) + ", 1]", {1, 1, int64_t{1} << 30, 1}),
       "dilation[0]"},
      {"maxpool_kernel_max", MaxPool("[" + max + ", 2]", "[2, 2]", "[0, 0]"), "kernel_size[0]"},
      {"maxpool_kernel_min", MaxPool("[" + min + ", 2]", "[2, 2]", "[0, 0]"), "kernel_size[0]"},
      {"maxpool_stride_max_padding_max", MaxPool("[2, 2]", "[" + max + ", 2]", "[" + max + ", 0]"),
       "padding[0]"},
      {"maxpool_dilation_max", MaxPool("[2, 2]", "[2, 2]", "[0, 0]", "[1, " + max + "]"),
       "dilation[1]"},
      {"avgpool_padding_max",
       Pool("aten.avg_pool2d.default",
            R"("kernel_size": [2, 2], "stride": [2, 2], "padding": [0, )" + max +
                R"(], "ceil_mode": true, "count_include_pad": true, "divisor_override": null)"),
       "padding[1]"},
      {"slice_step_zero", Slice(0, 6, 0, {4, 6}), "step 0"},
      {"slice_step_min", Slice(0, 6, kMin, {4, 6}), "step"},
      // A huge step is legal (one element); a wrong recorded shape is not.
      {"slice_step_max_wrong_meta", Slice(0, 6, kMax, {4, 6}), "float32[4, 1]"},
      {"view_two_minus_one", View("[-1, -1]", {3, 4}), "more than one -1"},
      {"view_negative", View("[-5, 2]", {12}), "is negative"},
      {"view_wrong_count", View("[5, 5]", {3, 4}), "holds 25 elements"},
      {"view_overflow", View("[" + max + ", " + max + "]", {3, 4}), "overflows"},
      {"view_disagrees_with_meta", View("[3, 4]", {4, 3}), "recorded as"},
      {"view_minus_one_with_zero", View("[0, -1]", {3, 4}), "does not fit 12 elements"},
      {"pad_huge", Pad("[" + big + ", " + big + "]", {1, 4}), "pad[0]"},
      {"pad_max", Pad("[" + max + ", 1]", {1, 4}), "overflow"},
      {"pad_min", Pad("[" + min + ", 0]", {1, 4}), "pad[0]"},
      {"pad_removes_all", Pad("[-3, -3]", {1, 0}), "remove more than dim 1"},
      {"cat_overflow",
       // Five inputs of 2^61 - 1 bytes each: valid alone, their sum overflows int64.
       OneNodeModel({{"a", {kHalfMax}, "bool"},
                     {"b", {kHalfMax}, "bool"},
                     {"c", {kHalfMax}, "bool"},
                     {"d", {kHalfMax}, "bool"},
                     {"e", {kHalfMax}, "bool"}},
                    "aten.cat.default", R"("dim": 0, "_tensor_list_sizes": [5])",
                    {"y", {1}, "bool"}),
       "overflow"},
      {"expand_numel_overflow",
       OneNodeModel({{"x", {1, 1}}}, "aten.expand.default", R"("size": [4294967296, 4294967296])",
                    {"y", {4294967296, 4294967296}}),
       "element count overflows", "'y'"},
      {"input_bytes_overflow",
       // 2^60 elements of 8 bytes: the count fits int64, the bytes exceed 2^62.
       OneNodeModel({{"x", {int64_t{1} << 60}, "float64"}}, "aten.sum.default", "",
                    {"y", {}, "float64"}),
       "2^62 bytes", "'x'"},
      {"input_terabytes",
       OneNodeModel({{"x", {int64_t{1} << 20, int64_t{1} << 20}}}, "aten.relu.default", "",
                    {"y", {int64_t{1} << 20, int64_t{1} << 20}}),
       "--max-memory", "'x'"},
  };
}

class HostileModelTest : public ::testing::TestWithParam<HostileCase> {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / ("torchir_hostile_" + GetParam().name);
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  fs::path dir_;
};

TEST_P(HostileModelTest, IsRefusedWithOneErrorLine) {
  const HostileCase& c = GetParam();
  const fs::path model = dir_ / "model.json";
  std::ofstream(model) << c.model;
  const fs::path output = dir_ / "model.pte";
  testing::CommandResult run =
      testing::RunCommand(absl::StrCat("'", TORCHIR_COMPILE_BINARY, "' '", model.string(), "' -o '",
                                       output.string(), "'"),
                          dir_.string());
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_EQ(run.err.rfind("error: ", 0), 0u) << run.err;
  size_t error_lines = 0;
  for (size_t at = run.err.find("error:"); at != std::string::npos;
       at = run.err.find("error:", at + 1)) {
    ++error_lines;
  }
  EXPECT_EQ(error_lines, 1u) << run.err;
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
  EXPECT_NE(run.err.find(c.names), std::string::npos) << run.err;
  EXPECT_NE(run.err.find(c.expected), std::string::npos) << run.err;
  EXPECT_EQ(run.err.find("runtime error"), std::string::npos) << run.err;  // UBSan's report
  EXPECT_FALSE(fs::exists(output));
}

INSTANTIATE_TEST_SUITE_P(Corpus, HostileModelTest, ::testing::ValuesIn(Corpus()),
                         [](const ::testing::TestParamInfo<HostileCase>& info) {
                           return info.param.name;
                         });

// The same numbers within ATen's rules compile: a slice step of INT64_MAX takes
// one element, and --max-memory raises the limit a terabyte-sized input hits.
TEST(HostileModelLimits, LegalExtremesCompile) {
  const fs::path dir = fs::path(::testing::TempDir()) / "torchir_hostile_legal";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "slice.json") << Slice(1, 6, kMax, {4, 1});
  testing::CommandResult slice = testing::RunCommand(
      absl::StrCat("'", TORCHIR_COMPILE_BINARY, "' '", (dir / "slice.json").string(), "' -o '",
                   (dir / "slice.pte").string(), "'"),
      dir.string());
  EXPECT_EQ(slice.exit_code, 0) << slice.err;
  EXPECT_TRUE(fs::exists(dir / "slice.pte"));

  // 64 KiB in and 64 KiB out: refused under 100 KiB, accepted under 1 MiB.
  std::ofstream(dir / "relu.json")
      << OneNodeModel({{"x", {128, 128}}}, "aten.relu.default", "", {"y", {128, 128}});
  const std::string compile =
      absl::StrCat("'", TORCHIR_COMPILE_BINARY, "' '", (dir / "relu.json").string(), "' -o '",
                   (dir / "relu.pte").string(), "' --max-memory ");
  testing::CommandResult small = testing::RunCommand(compile + "100K", dir.string());
  EXPECT_EQ(small.exit_code, 1) << small.err;
  EXPECT_NE(small.err.find("more than the limit of 100.0 KiB"), std::string::npos) << small.err;
  EXPECT_FALSE(fs::exists(dir / "relu.pte"));
  testing::CommandResult enough = testing::RunCommand(compile + "1M", dir.string());
  EXPECT_EQ(enough.exit_code, 0) << enough.err;
  testing::CommandResult nonsense = testing::RunCommand(compile + "lots", dir.string());
  EXPECT_EQ(nonsense.exit_code, 2) << nonsense.err;
  EXPECT_NE(nonsense.err.find("--max-memory: 'lots' is not a size"), std::string::npos)
      << nonsense.err;
}

}  // namespace
}  // namespace torchir
