// Test support for the XNNPACK delegate, independent of the compiler: blobs
// built by hand with the schema's FlatBuffers builder, delegate-call
// arguments built as runtime Tensors/EValues, the delegate run through the
// registered backend, and portable kernels as the reference.
//
//   BlobGraph blob;
//   uint32_t x = blob.Value({1, 4}, /*argument=*/0);
//   uint32_t y = blob.Value({1, 4}, /*argument=*/1, /*is_output=*/true);
//   blob.Node("abs", {x}, y);
//   DelegateArgs args;
//   args.Add({1, 4}, {-1, 2, -3, 4});
//   args.Add({1, 4});
//   ASSERT_EQ(RunDelegate(blob, args), Error::kOk);   // args.Values(1) == {1, 2, 3, 4}
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/core/error.h"
#include "runtime/core/evalue.h"
#include "runtime/core/tensor.h"
#include "runtime/executor/memory_allocator.h"
#include "runtime/kernel/kernel.h"

namespace torchir::testing::xnnpack {

// One blob value / node, as xnnpack_blob.fbs has them.
struct BlobValue {
  std::vector<uint64_t> dims;
  int32_t argument = -1;
  bool is_output = false;
  std::vector<float> data;
};

struct BlobNode {
  std::string op;
  std::vector<uint32_t> inputs;
  std::vector<uint32_t> outputs;
  std::vector<int64_t> ints;
  std::vector<double> floats;
};

struct BlobGraph {
  uint32_t version = 1;
  // Unless set, one more than the largest argument any value names.
  int64_t num_arguments = -1;
  std::vector<BlobValue> values;
  std::vector<BlobNode> nodes;

  // Adds a value; returns its index.
  uint32_t Value(std::vector<uint64_t> dims, int32_t argument = -1, bool is_output = false);
  // Adds a blob-local constant.
  uint32_t Constant(std::vector<uint64_t> dims, std::vector<float> data);
  // Adds a node with one output.
  BlobNode& Node(std::string op, std::vector<uint32_t> inputs, uint32_t output,
                 std::vector<int64_t> ints = {}, std::vector<double> floats = {});
};

// The blob's bytes (identifier "TXN1").
std::vector<uint8_t> Serialize(const BlobGraph& graph);

// Bytes in 64-byte aligned storage with 64 zero bytes after them (a program
// segment is laid out so).
class AlignedBytes {
 public:
  explicit AlignedBytes(const std::vector<uint8_t>& bytes);
  const uint8_t* data() const { return reinterpret_cast<const uint8_t*>(storage_.get()); }
  size_t size() const { return size_; }

 private:
  struct alignas(64) Line {
    uint8_t bytes[64];
  };
  std::unique_ptr<Line[]> storage_;
  size_t size_;
};

// The arguments of one delegate call: tensors (float32 unless given) owning
// their bytes, with XNN_EXTRA_BYTES of readable slack after each (the memory
// planner reserves it too), or non-tensor values.
class DelegateArgs {
 public:
  DelegateArgs() = default;
  DelegateArgs(const DelegateArgs&) = delete;
  DelegateArgs& operator=(const DelegateArgs&) = delete;

  // Adds a tensor argument; zeros when `values` is empty. Returns its index.
  size_t Add(std::vector<int64_t> sizes, std::vector<float> values = {}, bool constant = false);
  // A constant (weights) argument.
  size_t AddConstant(std::vector<int64_t> sizes, std::vector<float> values) {
    return Add(std::move(sizes), std::move(values), /*constant=*/true);
  }
  // A tensor of another dtype, or with a dim order.
  size_t AddTyped(std::vector<int64_t> sizes, runtime::ScalarType type,
                  std::vector<uint8_t> dim_order = {});
  size_t AddInt(int64_t value);

  runtime::KernelArgs args() const;
  size_t size() const { return items_.size(); }
  runtime::Tensor& tensor(size_t i) { return items_[i]->tensor; }
  std::vector<float> Values(size_t i) const;
  void Set(size_t i, const std::vector<float>& values);

 private:
  struct Item {
    std::vector<int64_t> sizes;
    std::vector<uint8_t> dim_order;
    std::unique_ptr<uint64_t[]> storage;
    runtime::Tensor tensor;
    runtime::EValue value;
  };
  std::vector<std::unique_ptr<Item>> items_;
  std::vector<runtime::EValue*> pointers_;
};

// Registers the XNNPACK backend with `num_threads` and the portable kernels
// (both idempotent); silences the runtime's log unless TORCHIR_TEST_LOG is set.
void SetUpBackends(uint32_t num_threads);

// Inits the registered XNNPACK backend on `blob`, executes it `runs` times,
// destroys it. Returns the first error.
runtime::Error RunDelegate(const BlobGraph& blob, DelegateArgs& args, int runs = 1);
runtime::Error RunDelegateBytes(const std::vector<uint8_t>& blob, DelegateArgs& args, int runs = 1);
// Same with an allocator of the test's choice.
runtime::Error RunDelegateBytes(const std::vector<uint8_t>& blob, DelegateArgs& args,
                                runtime::MemoryAllocator& allocator, int runs);

// One argument of a portable kernel call.
struct KernelArg {
  enum class Kind { kTensor, kNone, kInt, kDouble, kBool, kIntList };
  Kind kind = Kind::kNone;
  size_t tensor = 0;  // index into the DelegateArgs given to RunPortable
  int64_t i = 0;
  double d = 0;
  std::vector<int64_t> ints;

  static KernelArg Tensor(size_t index) {
    KernelArg a;
    a.kind = Kind::kTensor;
    a.tensor = index;
    return a;
  }
  static KernelArg None() { return KernelArg(); }
  static KernelArg Int(int64_t v) {
    KernelArg a;
    a.kind = Kind::kInt;
    a.i = v;
    return a;
  }
  static KernelArg Double(double v) {
    KernelArg a;
    a.kind = Kind::kDouble;
    a.d = v;
    return a;
  }
  static KernelArg Bool(bool v) {
    KernelArg a;
    a.kind = Kind::kBool;
    a.i = v;
    return a;
  }
  static KernelArg Ints(std::vector<int64_t> v) {
    KernelArg a;
    a.kind = Kind::kIntList;
    a.ints = std::move(v);
    return a;
  }
};

// Runs the portable kernel `name` (check, then run) on `args`, whose tensors
// are taken from `tensors`.
runtime::Error RunPortable(const char* name, const std::vector<KernelArg>& args,
                           DelegateArgs& tensors);

// Uniform floats in [low, high).
std::vector<float> RandomFloats(size_t count, uint32_t seed, float low = -1, float high = 1);

// Layout changes between PyTorch's and XNNPACK's.
std::vector<float> NchwToNhwc(const std::vector<float>& x, int64_t n, int64_t c, int64_t h,
                              int64_t w);
std::vector<float> NhwcToNchw(const std::vector<float>& x, int64_t n, int64_t h, int64_t w,
                              int64_t c);
// [O, I, kh, kw] -> [O, kh, kw, I] (convolution filters).
std::vector<float> OihwToOhwi(const std::vector<float>& x, int64_t o, int64_t i, int64_t kh,
                              int64_t kw);
// Depthwise: PyTorch [C*m, 1, kh, kw] -> XNNPACK [1, kh, kw, C*m].
std::vector<float> DepthwiseFilter(const std::vector<float>& x, int64_t channels, int64_t kh,
                                   int64_t kw);

// Largest |a - b|, or infinity when the sizes differ.
float MaxAbsDiff(const std::vector<float>& a, const std::vector<float>& b);

}  // namespace torchir::testing::xnnpack
