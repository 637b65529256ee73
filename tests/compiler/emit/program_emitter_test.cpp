// The .pte emitter, checked by reading its output back the way a loader does:
// decode the file header, verify the FlatBuffer, then follow value indices into
// arenas and segments.
#include "compiler/emit/program_emitter.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "compiler/dialect/delegate_call.h"
#include "compiler/dialect/edge_ops.h"
#include "compiler/dialect/kernel_arguments.h"
#include "compiler/emit/scalar_type.h"
#include "compiler/emit/segment_builder.h"
#include "flatbuffers/flatbuffers.h"
#include "schema/file_header.h"
#include "schema/program_generated.h"
#include "tests/support/graph_builder.h"

namespace torchir::emit {
namespace {

namespace fs = std::filesystem;
using testing::F32;
using testing::GraphBuilder;
using testing::I64;

constexpr double kInf = std::numeric_limits<double>::infinity();

std::vector<float> Ramp(size_t n, float start = 0.0f) {
  std::vector<float> values(n);
  for (size_t i = 0; i < n; ++i) values[i] = start + 0.25f * static_cast<float>(i);
  return values;
}

// A valid (if wasteful) plan: every graph input and node output at its own
// 64-byte aligned offset of arena 0.
void PlaceEverything(EmitInput& input) {
  uint64_t offset = 0;
  auto place = [&](const ir::Value* value) {
    input.placements[value] = {0, offset};
    offset += AlignUp(value->type().nbytes(), 64);
  };
  for (const ir::Value* value : input.graph->inputs()) place(value);
  for (const ir::Node* node : input.order) {
    for (const ir::Value* value : node->outputs()) place(value);
  }
  input.arena_sizes = {offset};
}

// The graph in its own node order, everything placed.
EmitInput InputFor(const ir::Graph& graph) {
  absl::Status valid = dialect::VerifyEdgeGraph(graph);
  EXPECT_TRUE(valid.ok()) << valid;
  EmitInput input;
  input.graph = &graph;
  for (const ir::Node* node : graph.nodes()) input.order.push_back(node);
  PlaceEverything(input);
  return input;
}

// An emitted file, read back.
struct Program {
  std::vector<uint8_t> file;
  pte::FileHeader header;
  const pte::Program* program = nullptr;
  const pte::Method* method = nullptr;

  const uint8_t* SegmentData(uint32_t index) const {
    return file.data() + header.segment_base_offset + program->segments()->Get(index)->offset();
  }
  const pte::EValue* Value(int32_t index) const { return method->values()->Get(index); }
  const pte::Tensor* Tensor(int32_t index) const { return Value(index)->value_as_Tensor(); }
  const pte::Instruction* Instruction(size_t index) const {
    return method->instructions()->Get(static_cast<flatbuffers::uoffset_t>(index));
  }
  std::vector<std::string> Operators() const {
    std::vector<std::string> names;
    for (const pte::Operator* op : *method->operators()) names.push_back(op->name()->str());
    return names;
  }
};

// Checks the file layout and verifies the FlatBuffer; fills `out` on success.
::testing::AssertionResult ReadProgram(std::vector<uint8_t> file, Program* out) {
  out->file = std::move(file);
  const std::vector<uint8_t>& bytes = out->file;
  pte::FileHeader& header = out->header;
  if (bytes.size() < pte::kFileHeaderSize || !pte::DecodeFileHeader(bytes.data(), &header)) {
    return ::testing::AssertionFailure() << "no file header";
  }
  if (header.version != pte::kFileHeaderVersion || header.flatbuffer_offset != 64 ||
      header.file_size != bytes.size() ||
      header.flatbuffer_offset + header.flatbuffer_size > header.segment_base_offset ||
      header.segment_base_offset + header.segment_data_size != header.file_size) {
    return ::testing::AssertionFailure()
           << "inconsistent header: flatbuffer " << header.flatbuffer_offset << "+"
           << header.flatbuffer_size << ", segments " << header.segment_base_offset << "+"
           << header.segment_data_size << ", file " << header.file_size << " of " << bytes.size();
  }
  const uint8_t* flatbuffer = bytes.data() + header.flatbuffer_offset;
  if (!pte::ProgramBufferHasIdentifier(flatbuffer)) {
    return ::testing::AssertionFailure() << "no TIR1 identifier";
  }
  flatbuffers::Verifier verifier(flatbuffer, header.flatbuffer_size);
  if (!pte::VerifyProgramBuffer(verifier)) {
    return ::testing::AssertionFailure() << "the FlatBuffer fails verification";
  }
  out->program = pte::GetProgram(flatbuffer);
  if (out->program->version() != pte::kProgramVersion || out->program->methods()->size() != 1) {
    return ::testing::AssertionFailure() << "bad version or method count";
  }
  out->method = out->program->methods()->Get(0);
  for (const pte::Segment* segment : *out->program->segments()) {
    if (segment->offset() % pte::kSegmentAlignment != 0 ||
        segment->offset() + segment->size() > header.segment_data_size) {
      return ::testing::AssertionFailure()
             << "segment at " << segment->offset() << "+" << segment->size() << " misplaced";
    }
  }
  if (header.segment_base_offset % pte::kSegmentBaseAlignment != 0 ||
      (out->program->segments()->size() == 0 && header.segment_base_offset != header.file_size)) {
    return ::testing::AssertionFailure() << "segment base " << header.segment_base_offset;
  }
  return ::testing::AssertionSuccess();
}

std::vector<int32_t> Args(const pte::Instruction* instruction) {
  const flatbuffers::Vector<int32_t>* args =
      instruction->kind_type() == pte::InstructionKind::KernelCall
          ? instruction->kind_as_KernelCall()->args()
          : instruction->kind_as_DelegateCall()->args();
  return std::vector<int32_t>(args->begin(), args->end());
}

std::vector<int64_t> Sizes(const pte::Tensor* tensor) {
  return std::vector<int64_t>(tensor->sizes()->begin(), tensor->sizes()->end());
}

// Value `index` is `value`'s tensor: its dtype and sizes, and either its
// planned allocation or its bytes in a data segment.
void ExpectTensor(const Program& p, int32_t index, const ir::Value* value, const EmitInput& input) {
  SCOPED_TRACE("tensor " + value->name());
  const pte::Tensor* tensor = p.Tensor(index);
  ASSERT_NE(tensor, nullptr) << "value " << index << " is not a tensor";
  EXPECT_EQ(tensor->scalar_type(), *ToPteScalarType(value->dtype()));
  EXPECT_EQ(Sizes(tensor), value->sizes());
  ASSERT_NE(tensor->dim_order(), nullptr);
  EXPECT_EQ(tensor->dim_order()->size(), 0u);
  if (value->is_constant_like()) {
    ASSERT_NE(tensor->constant(), nullptr);
    EXPECT_EQ(tensor->allocation(), nullptr);
    const pte::ConstantData* constant = tensor->constant();
    EXPECT_EQ(constant->offset() % pte::kSegmentAlignment, 0u);
    const pte::Segment* segment = p.program->segments()->Get(constant->segment_index());
    ASSERT_LE(constant->offset() + value->data().size(), segment->size());
    EXPECT_EQ(std::memcmp(p.SegmentData(constant->segment_index()) + constant->offset(),
                          value->data().data(), value->data().size()),
              0);
  } else {
    ASSERT_NE(tensor->allocation(), nullptr);
    EXPECT_EQ(tensor->constant(), nullptr);
    const TensorPlacement& placement = input.placements.at(value);
    EXPECT_EQ(tensor->allocation()->arena_index(), placement.arena);
    EXPECT_EQ(tensor->allocation()->offset(), placement.offset);
  }
}

// The kernel call's arguments are the node's, slot by slot (kernel_arguments.h).
void ExpectArgsFollowSlots(const Program& p, const pte::Instruction* instruction,
                           const ir::Node& node, const EmitInput& input) {
  SCOPED_TRACE("node " + node.name());
  ASSERT_EQ(instruction->kind_type(), pte::InstructionKind::KernelCall);
  EXPECT_EQ(instruction->name()->str(), node.name());
  EXPECT_EQ(p.Operators().at(instruction->kind_as_KernelCall()->operator_index()),
            dialect::FindEdgeOp(node.op())->kernel);
  absl::StatusOr<std::vector<dialect::KernelArgumentSlot>> slots =
      dialect::KernelArgumentSlots(node);
  ASSERT_TRUE(slots.ok()) << slots.status();
  std::vector<int32_t> args = Args(instruction);
  ASSERT_EQ(args.size(), slots->size());
  for (size_t i = 0; i < args.size(); ++i) {
    const dialect::KernelArgumentSlot& slot = (*slots)[i];
    const pte::EValue* value = p.Value(args[i]);
    using Kind = dialect::KernelArgumentSlot::Kind;
    switch (slot.kind) {
      case Kind::kTensor:
        ExpectTensor(p, args[i], node.input(slot.first_input), input);
        break;
      case Kind::kTensorList: {
        ASSERT_EQ(value->value_type(), pte::Value::TensorList);
        const auto* items = value->value_as_TensorList()->items();
        ASSERT_EQ(items->size(), slot.count);
        for (size_t j = 0; j < slot.count; ++j) {
          ExpectTensor(p, items->Get(j), node.input(slot.first_input + j), input);
        }
        break;
      }
      case Kind::kAbsent:
        EXPECT_EQ(value->value_type(), pte::Value::Null);
        break;
      case Kind::kAttribute: {
        const ir::AttrValue& attr = *node.FindAttr(slot.attribute);
        switch (slot.attribute_kind) {
          case dialect::AttrKind::kInt:
            ASSERT_EQ(value->value_type(), pte::Value::Int) << slot.attribute;
            EXPECT_EQ(value->value_as_Int()->value(), attr.as_int());
            break;
          case dialect::AttrKind::kIntList: {
            ASSERT_EQ(value->value_type(), pte::Value::IntList) << slot.attribute;
            const auto* items = value->value_as_IntList()->items();
            EXPECT_EQ(std::vector<int64_t>(items->begin(), items->end()), attr.as_int_list());
            break;
          }
          case dialect::AttrKind::kDouble:
            ASSERT_EQ(value->value_type(), pte::Value::Double) << slot.attribute;
            EXPECT_EQ(value->value_as_Double()->value(), attr.as_double());
            break;
          case dialect::AttrKind::kBool:
            ASSERT_EQ(value->value_type(), pte::Value::Bool) << slot.attribute;
            EXPECT_EQ(value->value_as_Bool()->value(), attr.as_bool());
            break;
          case dialect::AttrKind::kDType:
            ASSERT_EQ(value->value_type(), pte::Value::ScalarTypeValue) << slot.attribute;
            EXPECT_EQ(value->value_as_ScalarTypeValue()->value(),
                      *ToPteScalarType(attr.as_dtype()));
            break;
          case dialect::AttrKind::kString:
            ASSERT_EQ(value->value_type(), pte::Value::String) << slot.attribute;
            EXPECT_EQ(value->value_as_String()->value()->str(), attr.as_string());
            break;
        }
        break;
      }
      case Kind::kOutput:
        ExpectTensor(p, args[i], node.output(slot.output_index), input);
        break;
    }
  }
}

// x -> convolution (no bias) -> reshape -> linear (bias), fused clamp bounds at +-inf.
struct ConvNet {
  std::unique_ptr<ir::Graph> graph;
  ir::Value *x, *w, *lw, *lb, *conv, *flat, *out;
};

ConvNet BuildConvNet() {
  ConvNet net;
  GraphBuilder b;
  net.x = b.Input("x", F32({1, 3, 4, 4}));
  net.w = b.Weight("w", F32({2, 3, 3, 3}), Ramp(54));
  net.lw = b.Weight("fc.weight", F32({5, 8}), Ramp(40, -3.0f));
  net.lb = b.Weight("fc.bias", F32({5}), Ramp(5, 7.0f));
  net.conv = b.Op("edge.convolution", {net.x, net.w})
                 .Attr("stride", {1, 1})
                 .Attr("padding", {0, 0})
                 .Attr("dilation", {1, 1})
                 .Attr("groups", 1)
                 .Attr("output_min", -kInf)
                 .Attr("output_max", kInf)
                 .Out(F32({1, 2, 2, 2}));
  net.flat = b.Op("edge.reshape", {net.conv}).Attr("shape", {1, 8}).Out(F32({1, 8}));
  net.out = b.Op("edge.linear", {net.flat, net.lw, net.lb})
                .Attr("output_min", -kInf)
                .Attr("output_max", kInf)
                .Out(F32({1, 5}));
  b.Output(net.out);
  net.graph = b.Build();
  return net;
}

absl::StatusOr<Program> Emit(const EmitInput& input, EmitStats* stats = nullptr) {
  absl::StatusOr<std::vector<uint8_t>> bytes = EmitProgram(input, stats);
  if (!bytes.ok()) return bytes.status();
  Program program;
  ::testing::AssertionResult read = ReadProgram(std::move(*bytes), &program);
  if (!read) return absl::InternalError(read.message());
  return program;
}

TEST(ProgramEmitterTest, TheFileIsAHeaderAVerifiedFlatBufferAndPageAlignedSegments) {
  ConvNet net = BuildConvNet();
  EmitInput input = InputFor(*net.graph);
  EmitStats stats;
  absl::StatusOr<Program> p = Emit(input, &stats);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->header.flatbuffer_size, stats.flatbuffer_bytes);
  EXPECT_EQ(p->header.file_size, stats.file_bytes);
  EXPECT_EQ(p->header.segment_base_offset % pte::kSegmentBaseAlignment, 0u);
  EXPECT_EQ(p->program->segments()->size(), 1u);  // the constants
  EXPECT_EQ(stats.segment_count, 1u);
  EXPECT_EQ(p->method->name()->str(), "forward");
  // Everything between the FlatBuffer and the segment base is zero padding.
  for (uint64_t i = 64 + p->header.flatbuffer_size; i < p->header.segment_base_offset; ++i) {
    ASSERT_EQ(p->file[i], 0) << "at " << i;
  }
}

TEST(ProgramEmitterTest, KernelCallsFollowTheKernelArgumentSlots) {
  ConvNet net = BuildConvNet();
  EmitInput input = InputFor(*net.graph);
  EmitStats stats;
  absl::StatusOr<Program> p = Emit(input, &stats);
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_EQ(p->method->instructions()->size(), 3u);
  EXPECT_EQ(stats.instruction_count, 3u);
  for (size_t i = 0; i < input.order.size(); ++i) {
    ExpectArgsFollowSlots(*p, p->Instruction(i), *input.order[i], input);
  }
  EXPECT_EQ(p->Operators(), (std::vector<std::string>{"convolution", "reshape", "linear"}));
  EXPECT_EQ(stats.operator_count, 3u);

  // convolution(input, weight, bias=absent, stride, padding, dilation, groups, min, max, out)
  std::vector<int32_t> conv = Args(p->Instruction(0));
  ASSERT_EQ(conv.size(), 10u);
  EXPECT_EQ(p->Value(conv[2])->value_type(), pte::Value::Null);
  EXPECT_EQ(conv[3], conv[5]) << "stride and dilation are both [1, 1]: one shared value";
  EXPECT_NE(conv[3], conv[4]) << "padding [0, 0] differs";
  EXPECT_TRUE(std::isinf(p->Value(conv[7])->value_as_Double()->value()));
  // The linear's clamp bounds are the convolution's values, not copies.
  std::vector<int32_t> linear = Args(p->Instruction(2));
  ASSERT_EQ(linear.size(), 6u);
  EXPECT_EQ(linear[3], conv[7]);
  EXPECT_EQ(linear[4], conv[8]);
  // The reshape reads the convolution's output value.
  EXPECT_EQ(Args(p->Instruction(1))[0], conv[9]);
}

TEST(ProgramEmitterTest, SignatureNamesTheGraphsInputsAndOutputs) {
  ConvNet net = BuildConvNet();
  EmitInput input = InputFor(*net.graph);
  absl::StatusOr<Program> p = Emit(input);
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_EQ(p->method->inputs()->size(), 1u);
  ASSERT_EQ(p->method->outputs()->size(), 1u);
  EXPECT_EQ(p->method->inputs()->Get(0), 0) << "graph inputs come first";
  ExpectTensor(*p, p->method->inputs()->Get(0), net.x, input);
  ExpectTensor(*p, p->method->outputs()->Get(0), net.out, input);
  EXPECT_EQ(p->method->input_names()->Get(0)->str(), "x");
  EXPECT_EQ(p->method->output_names()->Get(0)->str(), net.out->name());
  ASSERT_EQ(p->method->arena_sizes()->size(), 1u);
  EXPECT_EQ(p->method->arena_sizes()->Get(0), input.arena_sizes[0]);
}

TEST(ProgramEmitterTest, SignatureNamesCanComeFromTheExportedModel) {
  ConvNet net = BuildConvNet();
  EmitInput input = InputFor(*net.graph);
  input.input_names = {"image"};
  input.output_names = {"logits"};
  absl::StatusOr<Program> p = Emit(input);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->method->input_names()->Get(0)->str(), "image");
  EXPECT_EQ(p->method->output_names()->Get(0)->str(), "logits");
  input.output_names = {"logits", "extra"};
  absl::StatusOr<std::vector<uint8_t>> mismatched = EmitProgram(input);
  ASSERT_FALSE(mismatched.ok());
  EXPECT_EQ(mismatched.status().message(), "2 output names for 1 graph outputs");
}

TEST(ProgramEmitterTest, ConstantsAreAlignedCopiesOfTheWeightsInOneSegment) {
  ConvNet net = BuildConvNet();
  EmitInput input = InputFor(*net.graph);
  EmitStats stats;
  absl::StatusOr<Program> p = Emit(input, &stats);
  ASSERT_TRUE(p.ok()) << p.status();
  std::set<uint64_t> offsets;
  size_t constants = 0;
  for (const pte::EValue* value : *p->method->values()) {
    const pte::Tensor* tensor = value->value_as_Tensor();
    if (tensor == nullptr || tensor->constant() == nullptr) continue;
    ++constants;
    EXPECT_EQ(tensor->constant()->segment_index(), 0u);
    EXPECT_EQ(tensor->constant()->offset() % 64, 0u);
    offsets.insert(tensor->constant()->offset());
  }
  EXPECT_EQ(constants, 3u);
  EXPECT_EQ(offsets.size(), 3u);
  // ExpectTensor compares each constant's bytes with its weight's.
  for (const ir::Value* weight : {net.w, net.lw, net.lb}) {
    std::vector<int32_t> args = Args(p->Instruction(weight == net.w ? 0 : 2));
    ExpectTensor(*p, args[weight == net.lb ? 2 : 1], weight, input);
  }
  EXPECT_EQ(stats.constant_bytes, p->program->segments()->Get(0)->size());
}

TEST(ProgramEmitterTest, IdenticalConstantBytesAreStoredOnce) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({4}));
  ir::Value* c1 = b.Constant("c1", F32({4}), std::vector<float>{1, 2, 3, 4});
  ir::Value* c2 = b.Weight("c2", F32({2, 2}), std::vector<float>{1, 2, 3, 4});
  ir::Value* c3 = b.Constant("c3", F32({4}), std::vector<float>{1, 2, 3, 5});
  ir::Value* a = b.Op("edge.add", {x, c1}).Out(F32({4}));
  ir::Value* m = b.Op("edge.mul", {a, c3}).Out(F32({4}));
  b.Output(m);
  b.Output(c2);  // a constant output: emitted as a constant tensor
  std::unique_ptr<ir::Graph> graph = b.Build();
  EmitInput input = InputFor(*graph);
  absl::StatusOr<Program> p = Emit(input);
  ASSERT_TRUE(p.ok()) << p.status();
  const pte::Tensor* t1 = p->Tensor(Args(p->Instruction(0))[1]);
  const pte::Tensor* t2 = p->Tensor(p->method->outputs()->Get(1));
  const pte::Tensor* t3 = p->Tensor(Args(p->Instruction(1))[1]);
  ASSERT_TRUE(t1 && t2 && t3);
  EXPECT_EQ(t1->constant()->offset(), t2->constant()->offset());
  EXPECT_NE(t1->constant()->offset(), t3->constant()->offset());
  EXPECT_EQ(Sizes(t2), (std::vector<int64_t>{2, 2})) << "shared bytes, own shape";
  EXPECT_EQ(p->program->segments()->Get(0)->size(), 64u + 16u);
  ExpectTensor(*p, p->method->outputs()->Get(1), c2, input);
}

TEST(ProgramEmitterTest, ConcatenateTakesOneTensorListValue) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({1, 2}));
  ir::Value* y = b.Input("y", F32({1, 3}));
  ir::Value* c = b.Constant("c", F32({1, 1}), std::vector<float>{9});
  ir::Value* cat = b.Op("edge.concatenate", {x, c, y}).Attr("dim", 1).Out(F32({1, 6}));
  b.Output(cat);
  std::unique_ptr<ir::Graph> graph = b.Build();
  EmitInput input = InputFor(*graph);
  absl::StatusOr<Program> p = Emit(input);
  ASSERT_TRUE(p.ok()) << p.status();
  std::vector<int32_t> args = Args(p->Instruction(0));
  ASSERT_EQ(args.size(), 3u);  // tensors, dim, out
  const pte::TensorList* list = p->Value(args[0])->value_as_TensorList();
  ASSERT_NE(list, nullptr);
  EXPECT_EQ(
      std::vector<int32_t>(list->items()->begin(), list->items()->end()),
      (std::vector<int32_t>{p->method->inputs()->Get(0), args[0] - 1, p->method->inputs()->Get(1)}))
      << "x, the constant (added just before the list), y";
  ExpectArgsFollowSlots(*p, p->Instruction(0), *input.order[0], input);
}

TEST(ProgramEmitterTest, EachKernelNameIsListedOnceInFirstUseOrder) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({4}));
  ir::Value* a = b.Op("edge.add", {x, x}).Out(F32({4}));
  ir::Value* m = b.Op("edge.mul", {a, x}).Out(F32({4}));
  ir::Value* a2 = b.Op("edge.add", {m, a}).Out(F32({4}));
  ir::Value* n = b.Op("edge.neg", {a2}).Out(F32({4}));
  b.Output(n);
  std::unique_ptr<ir::Graph> graph = b.Build();
  absl::StatusOr<Program> p = Emit(InputFor(*graph));
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->Operators(), (std::vector<std::string>{"add", "mul", "neg"}));
  std::vector<uint32_t> indices;
  for (const pte::Instruction* instruction : *p->method->instructions()) {
    indices.push_back(instruction->kind_as_KernelCall()->operator_index());
  }
  EXPECT_EQ(indices, (std::vector<uint32_t>{0, 1, 0, 2}));
}

TEST(ProgramEmitterTest, DTypeAttributesAndTensorTypesUseTheFormatsScalarTypes) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({3}));
  ir::Value* y =
      b.Op("edge.cast", {x}).Attr("dtype", ir::AttrValue::OfDType(ir::DType::kInt64)).Out(I64({3}));
  b.Output(y);
  std::unique_ptr<ir::Graph> graph = b.Build();
  EmitInput input = InputFor(*graph);
  absl::StatusOr<Program> p = Emit(input);
  ASSERT_TRUE(p.ok()) << p.status();
  std::vector<int32_t> args = Args(p->Instruction(0));
  ASSERT_EQ(args.size(), 3u);
  ASSERT_EQ(p->Value(args[1])->value_type(), pte::Value::ScalarTypeValue);
  EXPECT_EQ(p->Value(args[1])->value_as_ScalarTypeValue()->value(), pte::ScalarType::Int64);
  EXPECT_EQ(p->Tensor(args[0])->scalar_type(), pte::ScalarType::Float32);
  EXPECT_EQ(p->Tensor(args[2])->scalar_type(), pte::ScalarType::Int64);
  ExpectArgsFollowSlots(*p, p->Instruction(0), *input.order[0], input);
}

TEST(ProgramEmitterTest, EveryDTypeMapsToTheScalarTypeOfTheSameName) {
  std::set<pte::ScalarType> seen;
  for (int i = 0; i < ir::kNumDTypes; ++i) {
    auto dtype = static_cast<ir::DType>(i);
    std::optional<pte::ScalarType> scalar_type = ToPteScalarType(dtype);
    ASSERT_TRUE(scalar_type.has_value()) << ir::DTypeName(dtype);
    seen.insert(*scalar_type);
    // "float8_e4m3fn" and "Float8E4M3FN" name the same type.
    std::string ours(ir::DTypeName(dtype)), theirs(pte::EnumNameScalarType(*scalar_type));
    ours.erase(std::remove(ours.begin(), ours.end(), '_'), ours.end());
    std::transform(theirs.begin(), theirs.end(), theirs.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    EXPECT_EQ(ours, theirs);
  }
  EXPECT_EQ(seen.size(), static_cast<size_t>(ir::kNumDTypes));
}

TEST(ProgramEmitterTest, ADelegateCallNodeBecomesADelegateCallWithItsBlobSegment) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({2, 2}));
  ir::Value* w = b.Weight("w", F32({2}), std::vector<float>{1, 2});
  std::vector<ir::Value*> delegated = b.Op(dialect::kDelegateCallOp, {x})
                                          .Name("xnnpack_0")
                                          .Attr(dialect::kDelegateIndexAttr, 0)
                                          .Outs({F32({2, 2}), F32({2})});
  ir::Value* sum = b.Op("edge.add", {delegated[1], w}).Out(F32({2}));
  b.Output(delegated[0]);
  b.Output(sum);
  std::unique_ptr<ir::Graph> graph = b.Build();
  EmitInput input;
  input.graph = graph.get();
  for (const ir::Node* node : graph->nodes()) input.order.push_back(node);
  PlaceEverything(input);
  std::vector<uint8_t> blob(100);
  for (size_t i = 0; i < blob.size(); ++i) blob[i] = static_cast<uint8_t>(i * 3 + 1);
  input.delegates.push_back({"XnnpackBackend", {{"threads", {2, 0}}}, blob});
  EmitStats stats;
  absl::StatusOr<Program> p = Emit(input, &stats);
  ASSERT_TRUE(p.ok()) << p.status();

  const pte::Instruction* call = p->Instruction(0);
  ASSERT_EQ(call->kind_type(), pte::InstructionKind::DelegateCall);
  EXPECT_EQ(call->name()->str(), "xnnpack_0");
  EXPECT_EQ(call->kind_as_DelegateCall()->delegate_index(), 0u);
  std::vector<int32_t> args = Args(call);
  ASSERT_EQ(args.size(), 3u) << "the input, then the two outputs";
  ExpectTensor(*p, args[0], x, input);
  ExpectTensor(*p, args[1], delegated[0], input);
  ExpectTensor(*p, args[2], delegated[1], input);
  EXPECT_EQ(p->Operators(), (std::vector<std::string>{"add"}))
      << "a delegate call lists no operator";

  ASSERT_EQ(p->method->delegates()->size(), 1u);
  const pte::BackendDelegate* delegate = p->method->delegates()->Get(0);
  EXPECT_EQ(delegate->backend_id()->str(), "XnnpackBackend");
  ASSERT_EQ(delegate->compile_specs()->size(), 1u);
  EXPECT_EQ(delegate->compile_specs()->Get(0)->key()->str(), "threads");
  EXPECT_EQ(delegate->compile_specs()->Get(0)->value()->size(), 2u);
  // Segment 0 holds the constants, the blob comes after it.
  ASSERT_EQ(p->program->segments()->size(), 2u);
  EXPECT_EQ(delegate->segment_index(), 1u);
  const pte::Segment* segment = p->program->segments()->Get(1);
  ASSERT_EQ(segment->size(), blob.size());
  EXPECT_EQ(std::memcmp(p->SegmentData(1), blob.data(), blob.size()), 0);
  EXPECT_EQ(stats.delegate_bytes, blob.size());
  EXPECT_EQ(stats.segment_count, 2u);
}

// The debug handle: the node names each instruction came from, for traces.
std::vector<std::string> DebugNodes(const pte::Instruction* instruction) {
  std::vector<std::string> names;
  if (instruction->debug_nodes() == nullptr) return names;
  for (const flatbuffers::String* name : *instruction->debug_nodes()) names.push_back(name->str());
  return names;
}

TEST(ProgramEmitterTest, EveryInstructionRecordsTheNodesItCameFrom) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({2, 2}));
  ir::Value* w = b.Weight("w", F32({2}), std::vector<float>{1, 2});
  std::vector<ir::Value*> delegated = b.Op(dialect::kDelegateCallOp, {x})
                                          .Name("xnnpack_0")
                                          .Attr(dialect::kDelegateIndexAttr, 0)
                                          .Outs({F32({2, 2}), F32({2})});
  ir::Value* sum = b.Op("edge.add", {delegated[1], w}).Name("add_bias").Out(F32({2}));
  b.Output(delegated[0]);
  b.Output(sum);
  std::unique_ptr<ir::Graph> graph = b.Build();
  EmitInput input;
  input.graph = graph.get();
  for (const ir::Node* node : graph->nodes()) input.order.push_back(node);
  PlaceEverything(input);
  DelegatePayload payload{"XnnpackBackend", {}, std::vector<uint8_t>(8, 1)};
  payload.node_names = {"conv2d", "hardtanh_", "mean"};
  input.delegates.push_back(payload);
  absl::StatusOr<Program> p = Emit(input, nullptr);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(DebugNodes(p->Instruction(0)),
            (std::vector<std::string>{"conv2d", "hardtanh_", "mean"}))
      << "a delegate call lists the nodes its delegate took";
  EXPECT_EQ(DebugNodes(p->Instruction(1)), (std::vector<std::string>{"add_bias"}))
      << "a kernel call names its node";

  // Without the list the delegate call names its own node.
  input.delegates[0].node_names.clear();
  p = Emit(input, nullptr);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(DebugNodes(p->Instruction(0)), (std::vector<std::string>{"xnnpack_0"}));
}

TEST(ProgramEmitterTest, OutputsMayBeGraphInputsOrConstantsWithoutAnyNode) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({3}));
  ir::Value* c = b.Constant("c", F32({2}), std::vector<float>{4, 5});
  b.Output(x);
  b.Output(c);
  std::unique_ptr<ir::Graph> graph = b.Build();
  EmitInput input = InputFor(*graph);
  absl::StatusOr<Program> p = Emit(input);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->method->instructions()->size(), 0u);
  EXPECT_EQ(p->method->outputs()->Get(0), p->method->inputs()->Get(0));
  ExpectTensor(*p, p->method->outputs()->Get(1), c, input);
  EXPECT_EQ(p->method->output_names()->Get(1)->str(), "c");
}

TEST(ProgramEmitterTest, WithoutConstantsOrDelegatesThereAreNoSegments) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({3}));
  b.Output(b.Op("edge.neg", {x}).Out(F32({3})));
  std::unique_ptr<ir::Graph> graph = b.Build();
  absl::StatusOr<Program> p = Emit(InputFor(*graph));
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->program->segments()->size(), 0u);
  EXPECT_EQ(p->header.segment_base_offset, p->file.size()) << "the file ends at the base";
  EXPECT_EQ(p->header.segment_base_offset % pte::kSegmentBaseAlignment, 0u);
  EXPECT_EQ(p->header.segment_data_size, 0u);
}

TEST(ProgramEmitterTest, TheSameInputGivesTheSameBytes) {
  // Two separately built graphs: different pointers, same content.
  ConvNet first = BuildConvNet();
  ConvNet second = BuildConvNet();
  absl::StatusOr<std::vector<uint8_t>> a = EmitProgram(InputFor(*first.graph));
  absl::StatusOr<std::vector<uint8_t>> again = EmitProgram(InputFor(*first.graph));
  absl::StatusOr<std::vector<uint8_t>> b = EmitProgram(InputFor(*second.graph));
  ASSERT_TRUE(a.ok() && again.ok() && b.ok());
  EXPECT_TRUE(*a == *again);
  EXPECT_TRUE(*a == *b);
}

TEST(ProgramEmitterTest, InstructionsFollowTheGivenOrder) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({4}));
  ir::Value* n = b.Op("edge.neg", {x}).Out(F32({4}));
  ir::Value* a = b.Op("edge.abs", {x}).Out(F32({4}));
  b.Output(b.Op("edge.add", {n, a}).Out(F32({4})));
  std::unique_ptr<ir::Graph> graph = b.Build();
  EmitInput input = InputFor(*graph);
  std::swap(input.order[0], input.order[1]);  // abs before neg: still topological
  absl::StatusOr<Program> p = Emit(input);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->Instruction(0)->name()->str(), "abs");
  EXPECT_EQ(p->Instruction(1)->name()->str(), "neg");
  EXPECT_EQ(p->Operators(), (std::vector<std::string>{"abs", "neg", "add"}));
}

// ---- Errors ----------------------------------------------------------------------

std::string EmitError(const EmitInput& input) {
  absl::StatusOr<std::vector<uint8_t>> bytes = EmitProgram(input);
  EXPECT_FALSE(bytes.ok());
  return bytes.ok() ? "" : std::string(bytes.status().message());
}

TEST(ProgramEmitterErrorsTest, ATensorWithoutPlacementIsNamed) {
  ConvNet net = BuildConvNet();
  EmitInput input = InputFor(*net.graph);
  input.placements.erase(net.flat);
  EXPECT_EQ(EmitError(input), "tensor '" + net.flat->name() + "' (output of node '" +
                                  net.flat->producer()->name() + "') has no memory placement");
}

TEST(ProgramEmitterErrorsTest, ATensorBeyondItsArenaIsRejected) {
  ConvNet net = BuildConvNet();
  EmitInput input = InputFor(*net.graph);
  input.placements[net.out].offset = input.arena_sizes[0] - 8;  // 20 bytes from 8 before the end
  std::string error = EmitError(input);
  EXPECT_NE(error.find("does not fit in arena 0"), std::string::npos) << error;
  EXPECT_NE(error.find(net.out->name()), std::string::npos) << error;
  input.placements[net.out] = {0, std::numeric_limits<uint64_t>::max() - 4};  // no wrap-around
  EXPECT_NE(EmitError(input).find("does not fit"), std::string::npos);
  input.placements[net.out] = {3, 0};
  EXPECT_NE(EmitError(input).find("is placed in arena 3 of 1"), std::string::npos);
}

TEST(ProgramEmitterErrorsTest, AWeightWithoutBytesIsRejected) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({2}));
  ir::Value* w = b.Weight("w", F32({2}));  // unbound
  b.Output(b.Op("edge.add", {x, w}).Out(F32({2})));
  std::unique_ptr<ir::Graph> graph = b.Build();
  EXPECT_EQ(EmitError(InputFor(*graph)),
            "node 'add' (edge.add): tensor 'w' (weight) has no value (give --weights)");
}

TEST(ProgramEmitterErrorsTest, TheOrderMustHoldEveryNodeOnceProducersFirst) {
  ConvNet net = BuildConvNet();
  EmitInput input = InputFor(*net.graph);
  EmitInput missing = input;
  missing.order.pop_back();
  EXPECT_NE(EmitError(missing).find("the execution order has 2 nodes, the graph 3"),
            std::string::npos);
  EmitInput twice = input;
  twice.order[2] = twice.order[0];
  EXPECT_NE(EmitError(twice).find("appears twice"), std::string::npos);
  EmitInput reversed = input;
  std::reverse(reversed.order.begin(), reversed.order.end());
  EXPECT_NE(EmitError(reversed).find("before the execution order runs its producer"),
            std::string::npos);
  EmitInput nothing;
  EXPECT_FALSE(EmitProgram(nothing).ok());
}

TEST(ProgramEmitterErrorsTest, ADelegateIndexOutOfRangeIsRejected) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({2}));
  b.Output(b.Op(dialect::kDelegateCallOp, {x}).Attr(dialect::kDelegateIndexAttr, 1).Out(F32({2})));
  std::unique_ptr<ir::Graph> graph = b.Build();
  EmitInput input;
  input.graph = graph.get();
  input.order = {graph->first_node()};
  PlaceEverything(input);
  input.delegates.resize(1);
  EXPECT_NE(EmitError(input).find("delegate_index 1 is out of range (1 delegates)"),
            std::string::npos);
}

TEST(ProgramEmitterErrorsTest, AttributesOfTheWrongKindAreRejected) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({2}));
  b.Output(b.Op("edge.softmax", {x}).Attr("dim", 0.5).Out(F32({2})));
  std::unique_ptr<ir::Graph> graph = b.Build();
  EmitInput input;
  input.graph = graph.get();
  input.order = {graph->first_node()};
  PlaceEverything(input);
  EXPECT_EQ(EmitError(input),
            "node 'softmax' (edge.softmax): attribute 'dim' is float, the op takes int");
}

// ---- WriteFileAtomically -----------------------------------------------------------

class WriteFileAtomicallyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("emit_write_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code error;
    fs::permissions(dir_, fs::perms::owner_all, error);
    fs::remove_all(dir_, error);
  }
  std::vector<std::string> Entries(const fs::path& dir) const {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir)) {
      names.push_back(entry.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
  }
  static std::vector<uint8_t> ReadAll(const fs::path& path) {
    std::ifstream file(path, std::ios::binary);
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(file), {});
  }
  fs::path dir_;
};

TEST_F(WriteFileAtomicallyTest, WritesAndOverwritesWithoutLeavingTemporaries) {
  fs::path path = dir_ / "model.pte";
  std::vector<uint8_t> first(5000, 7), second = {1, 2, 3};
  ASSERT_TRUE(WriteFileAtomically(path.string(), first).ok());
  EXPECT_EQ(ReadAll(path), first);
  ASSERT_TRUE(WriteFileAtomically(path.string(), second).ok());
  EXPECT_EQ(ReadAll(path), second);
  EXPECT_EQ(Entries(dir_), (std::vector<std::string>{"model.pte"}));
}

TEST_F(WriteFileAtomicallyTest, ANonexistentDirectoryFailsAndCreatesNothing) {
  fs::path path = dir_ / "missing" / "model.pte";
  absl::Status status = WriteFileAtomically(path.string(), {1, 2, 3});
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find(path.string()), std::string::npos) << status;
  EXPECT_TRUE(Entries(dir_).empty());
}

TEST_F(WriteFileAtomicallyTest, AFileInPlaceOfTheDirectoryFails) {
  std::ofstream(dir_ / "plain") << "x";
  EXPECT_FALSE(WriteFileAtomically((dir_ / "plain" / "model.pte").string(), {1}).ok());
  EXPECT_EQ(Entries(dir_), (std::vector<std::string>{"plain"}));
}

TEST_F(WriteFileAtomicallyTest, ADirectoryAtThePathIsNotReplaced) {
  fs::create_directories(dir_ / "model.pte");
  EXPECT_FALSE(WriteFileAtomically((dir_ / "model.pte").string(), {1}).ok());
  EXPECT_EQ(Entries(dir_), (std::vector<std::string>{"model.pte"})) << "no temporary left";
  EXPECT_TRUE(fs::is_directory(dir_ / "model.pte"));
}

TEST_F(WriteFileAtomicallyTest, ADirectoryNobodyMayCreateFilesInFails) {
  // /proc refuses new files even to root, for whom permission bits do not count.
  const std::string path = "/proc/torchir_emit_test.pte";
  absl::Status status = WriteFileAtomically(path, {1, 2, 3});
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find(path), std::string::npos) << status;
  EXPECT_FALSE(fs::exists(path));
}

TEST_F(WriteFileAtomicallyTest, ANonWritableDirectoryFailsAndKeepsTheOldFile) {
  if (::geteuid() == 0) GTEST_SKIP() << "root writes into read-only directories";
  fs::path path = dir_ / "model.pte";
  ASSERT_TRUE(WriteFileAtomically(path.string(), {9, 9}).ok());
  fs::permissions(dir_, fs::perms::owner_read | fs::perms::owner_exec);
  EXPECT_FALSE(WriteFileAtomically(path.string(), {1, 2, 3}).ok());
  fs::permissions(dir_, fs::perms::owner_all);
  EXPECT_EQ(ReadAll(path), (std::vector<uint8_t>{9, 9}));
  EXPECT_EQ(Entries(dir_), (std::vector<std::string>{"model.pte"}));
}

}  // namespace
}  // namespace torchir::emit
