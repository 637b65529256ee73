// Hand-built .pte programs for runtime tests, independent of the compiler:
// a description of values and instructions, serialised with the schema's
// FlatBuffers builder and the file header. Tests corrupt these on purpose.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/core/scalar_type.h"

namespace torchir::testing {

struct TestTensor {
  runtime::ScalarType type = runtime::ScalarType::kFloat32;
  std::vector<int64_t> sizes;
  std::vector<uint8_t> dim_order;
  bool constant = false;
  uint32_t index = 0;   // segment index or arena index
  uint64_t offset = 0;  // within the segment or arena
};

// One value: exactly one member is used, chosen by `kind`.
struct TestValue {
  enum class Kind { kNull, kInt, kDouble, kBool, kString, kIntList, kScalarType, kTensor, kTensorList };
  Kind kind = Kind::kNull;
  int64_t i = 0;
  double d = 0;
  std::string s;
  std::vector<int64_t> ints;
  std::vector<int32_t> items;
  runtime::ScalarType type = runtime::ScalarType::kFloat32;
  TestTensor tensor;

  static TestValue Tensor(TestTensor t) { TestValue v; v.kind = Kind::kTensor; v.tensor = t; return v; }
  static TestValue Int(int64_t x) { TestValue v; v.kind = Kind::kInt; v.i = x; return v; }
  static TestValue Double(double x) { TestValue v; v.kind = Kind::kDouble; v.d = x; return v; }
  static TestValue Null() { return TestValue(); }
};

struct TestInstruction {
  bool delegate = false;
  uint32_t index = 0;  // operator or delegate index
  std::vector<int32_t> args;
  std::string name;
  std::vector<std::string> debug_nodes;  // empty: none written (as older programs)
  // A delegate call's planned scratch (DelegateCall.scratch): written when has_scratch.
  bool has_scratch = false;
  uint32_t scratch_arena = 0;
  uint64_t scratch_offset = 0;
  uint64_t scratch_bytes = 0;
};

struct TestDelegate {
  std::string backend_id;
  uint32_t segment_index = 0;
  uint32_t read_overrun_bytes = 0;
};

struct TestProgram {
  uint32_t header_version = 1;
  uint32_t program_version = 1;
  std::vector<TestValue> values;
  std::vector<int32_t> inputs, outputs;
  std::vector<std::string> input_names, output_names;
  std::vector<TestInstruction> instructions;
  std::vector<std::string> operators;
  std::vector<TestDelegate> delegates;
  std::vector<uint64_t> arena_sizes;
  std::vector<std::vector<uint8_t>> segments;
};

// Serialises `program` into .pte bytes laid out as the emitter writes them.
std::vector<uint8_t> Serialize(const TestProgram& program);

// A float32 program: y = scale(x, c, 2.0) with x, y float32[4] planned in
// arena 0 and c a constant float32[4] in segment 0, using the test kernel
// "test_scale" (out = (a + b) * factor), registered by RegisterTestKernels().
TestProgram ScaleProgram();

// Registers "test_scale" (idempotent).
void RegisterTestKernels();

// Bytes copied into 64-byte aligned storage (as a mapped file would be).
class AlignedBytes {
 public:
  explicit AlignedBytes(const std::vector<uint8_t>& bytes);
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  std::vector<uint64_t> storage_;
  const uint8_t* data_;
  size_t size_;
};

}  // namespace torchir::testing
