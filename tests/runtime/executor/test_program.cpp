#include "tests/runtime/executor/test_program.h"

#include <algorithm>
#include <cstring>

#include "runtime/kernel/kernel_registry.h"
#include "runtime/core/result.h"
#include "schema/file_header.h"
#include "schema/program_generated.h"

namespace torchir::testing {

std::vector<uint8_t> Serialize(const TestProgram& p) {
  flatbuffers::FlatBufferBuilder b;
  b.ForceDefaults(true);
  std::vector<flatbuffers::Offset<pte::EValue>> values;
  for (const TestValue& v : p.values) {
    flatbuffers::Offset<void> value;
    pte::Value type = pte::Value::Null;
    switch (v.kind) {
      case TestValue::Kind::kNull: value = pte::CreateNull(b).Union(); break;
      case TestValue::Kind::kInt:
        type = pte::Value::Int; value = pte::CreateInt(b, v.i).Union(); break;
      case TestValue::Kind::kDouble:
        type = pte::Value::Double; value = pte::CreateDouble(b, v.d).Union(); break;
      case TestValue::Kind::kBool:
        type = pte::Value::Bool; value = pte::CreateBool(b, v.i != 0).Union(); break;
      case TestValue::Kind::kString:
        type = pte::Value::String; value = pte::CreateString(b, b.CreateString(v.s)).Union(); break;
      case TestValue::Kind::kIntList:
        type = pte::Value::IntList; value = pte::CreateIntList(b, b.CreateVector(v.ints)).Union(); break;
      case TestValue::Kind::kScalarType:
        type = pte::Value::ScalarTypeValue;
        value = pte::CreateScalarTypeValue(b, static_cast<pte::ScalarType>(v.type)).Union();
        break;
      case TestValue::Kind::kTensorList:
        type = pte::Value::TensorList;
        value = pte::CreateTensorList(b, b.CreateVector(v.items)).Union();
        break;
      case TestValue::Kind::kTensor: {
        type = pte::Value::Tensor;
        const TestTensor& t = v.tensor;
        auto sizes = b.CreateVector(t.sizes);
        auto order = b.CreateVector(t.dim_order);
        flatbuffers::Offset<pte::ConstantData> constant;
        flatbuffers::Offset<pte::Allocation> allocation;
        if (t.constant) {
          constant = pte::CreateConstantData(b, t.index, t.offset);
        } else {
          allocation = pte::CreateAllocation(b, t.index, t.offset);
        }
        value = pte::CreateTensor(b, static_cast<pte::ScalarType>(t.type), sizes, order, constant,
                                  allocation)
                    .Union();
        break;
      }
    }
    values.push_back(pte::CreateEValue(b, type, value));
  }
  std::vector<flatbuffers::Offset<pte::Instruction>> instructions;
  for (const TestInstruction& in : p.instructions) {
    auto args = b.CreateVector(in.args);
    auto name = b.CreateString(in.name);
    auto debug_nodes = in.debug_nodes.empty() ? 0 : b.CreateVectorOfStrings(in.debug_nodes);
    if (in.delegate) {
      instructions.push_back(pte::CreateInstruction(
          b, pte::InstructionKind::DelegateCall,
          pte::CreateDelegateCall(
              b, in.index, args,
              in.has_scratch ? pte::CreateAllocation(b, in.scratch_arena, in.scratch_offset) : 0,
              in.scratch_bytes)
              .Union(),
          name, /*macs=*/0, debug_nodes));
    } else {
      instructions.push_back(pte::CreateInstruction(
          b, pte::InstructionKind::KernelCall, pte::CreateKernelCall(b, in.index, args).Union(),
          name, /*macs=*/0, debug_nodes));
    }
  }
  std::vector<flatbuffers::Offset<pte::Operator>> operators;
  for (const std::string& op : p.operators) {
    operators.push_back(pte::CreateOperator(b, b.CreateString(op)));
  }
  std::vector<flatbuffers::Offset<pte::BackendDelegate>> delegates;
  for (const TestDelegate& d : p.delegates) {
    delegates.push_back(pte::CreateBackendDelegate(b, b.CreateString(d.backend_id), 0,
                                                   d.segment_index, d.read_overrun_bytes));
  }
  auto method = pte::CreateMethod(
      b, b.CreateString("forward"), b.CreateVector(values), b.CreateVector(p.inputs),
      b.CreateVector(p.outputs), b.CreateVectorOfStrings(p.input_names),
      b.CreateVectorOfStrings(p.output_names), b.CreateVector(instructions),
      b.CreateVector(operators), b.CreateVector(delegates), b.CreateVector(p.arena_sizes));
  std::vector<flatbuffers::Offset<pte::Segment>> segments;
  uint64_t offset = 0;
  for (const auto& segment : p.segments) {
    segments.push_back(pte::CreateSegment(b, offset, segment.size()));
    offset += (segment.size() + 63) / 64 * 64;
  }
  std::vector<flatbuffers::Offset<pte::Method>> methods = {method};
  auto program = pte::CreateProgram(b, p.program_version, b.CreateVector(methods),
                                    b.CreateVector(segments));
  pte::FinishProgramBuffer(b, program);

  pte::FileHeader header;
  header.version = p.header_version;
  header.flatbuffer_size = b.GetSize();
  header.segment_base_offset =
      (pte::kFileHeaderSize + header.flatbuffer_size + pte::kSegmentBaseAlignment - 1) /
      pte::kSegmentBaseAlignment * pte::kSegmentBaseAlignment;
  header.segment_data_size = offset;
  header.file_size = header.segment_base_offset + offset;
  std::vector<uint8_t> bytes(std::max<uint64_t>(header.file_size, pte::kFileHeaderSize), 0);
  pte::EncodeFileHeader(header, bytes.data());
  std::memcpy(bytes.data() + pte::kFileHeaderSize, b.GetBufferPointer(), b.GetSize());
  uint64_t at = header.segment_base_offset;
  for (const auto& segment : p.segments) {
    if (!segment.empty()) std::memcpy(bytes.data() + at, segment.data(), segment.size());
    at += (segment.size() + 63) / 64 * 64;
  }
  return bytes;
}

TestProgram ScaleProgram() {
  TestProgram p;
  TestTensor x{runtime::ScalarType::kFloat32, {4}, {}, false, 0, 0};
  TestTensor c{runtime::ScalarType::kFloat32, {4}, {}, true, 0, 0};
  TestTensor y{runtime::ScalarType::kFloat32, {4}, {}, false, 0, 64};
  p.values = {TestValue::Tensor(x), TestValue::Tensor(c), TestValue::Double(2.0),
              TestValue::Tensor(y)};
  p.inputs = {0};
  p.outputs = {3};
  p.input_names = {"x"};
  p.output_names = {"y"};
  p.operators = {"test_scale"};
  p.instructions = {TestInstruction{false, 0, {0, 1, 2, 3}, "scale"}};
  p.arena_sizes = {128};
  std::vector<uint8_t> constant(16);
  const float values[4] = {1, 2, 3, 4};
  std::memcpy(constant.data(), values, 16);
  p.segments = {constant};
  return p;
}

namespace {

using runtime::Error;
using runtime::KernelArgs;

Error CheckScale(KernelArgs args) {
  TORCHIR_CHECK_OR_RETURN(args.size() == 4, Error::kInvalidProgram, "test_scale: 4 args");
  for (size_t i : {0, 1, 3}) {
    TORCHIR_CHECK_OR_RETURN(args[i]->is_tensor() &&
                                args[i]->to_tensor().scalar_type() == runtime::ScalarType::kFloat32,
                            Error::kInvalidType, "test_scale: float tensors");
  }
  TORCHIR_CHECK_OR_RETURN(args[2]->is_double(), Error::kInvalidType, "test_scale: factor");
  const int64_t n = args[3]->to_tensor().numel();
  TORCHIR_CHECK_OR_RETURN(args[0]->to_tensor().numel() == n && args[1]->to_tensor().numel() == n,
                          Error::kShapeMismatch, "test_scale: sizes");
  return Error::kOk;
}

Error RunScale(runtime::KernelContext&, KernelArgs args) {
  const float* a = args[0]->to_tensor().data_ptr<float>();
  const float* b = args[1]->to_tensor().data_ptr<float>();
  const float factor = static_cast<float>(args[2]->to_double());
  float* out = args[3]->to_tensor().mutable_data_ptr<float>();
  for (int64_t i = 0; i < args[3]->to_tensor().numel(); ++i) out[i] = (a[i] + b[i]) * factor;
  return Error::kOk;
}

}  // namespace

void RegisterTestKernels() {
  static const runtime::Kernel kernels[] = {{"test_scale", CheckScale, RunScale}};
  static const Error registered = runtime::RegisterKernels(kernels);
  (void)registered;
}

AlignedBytes::AlignedBytes(const std::vector<uint8_t>& bytes)
    : storage_(bytes.size() / 8 + 16), size_(bytes.size()) {
  uintptr_t base = reinterpret_cast<uintptr_t>(storage_.data());
  uint8_t* aligned = reinterpret_cast<uint8_t*>((base + 63) & ~uintptr_t{63});
  if (!bytes.empty()) std::memcpy(aligned, bytes.data(), bytes.size());
  data_ = aligned;
}

}  // namespace torchir::testing
