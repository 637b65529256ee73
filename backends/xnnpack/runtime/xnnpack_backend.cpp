#include "backends/xnnpack/runtime/xnnpack_backend.h"

#include <pthreadpool.h>
#include <xnnpack.h>

#include <atomic>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>

#include "backends/common/shared_thread_pool.h"
#include "backends/xnnpack/runtime/node_definitions.h"
#include "backends/xnnpack/serialization/xnnpack_blob_generated.h"
#include "runtime/backend/backend.h"
#include "runtime/core/evalue.h"
#include "runtime/core/result.h"
#include "runtime/core/tensor.h"
#include "runtime/platform/platform.h"

namespace torchir::runtime::xnnpack {
namespace {

namespace fb = ::torchir::xnnpack;

constexpr uint32_t kBlobVersion = 1;
// The program's own bound on a tensor (2^62 bytes of float32); keeps every
// size computation below far from overflowing.
constexpr uint64_t kMaxNumel = uint64_t{1} << 60;
// Bounds the value and node tables so XNNPACK's uint32 ids never run out.
constexpr size_t kMaxTableSize = size_t{1} << 30;

#define BLOB_CHECK(cond, ...) \
  TORCHIR_CHECK_OR_RETURN(cond, Error::kInvalidProgram, "XnnpackBackend: " __VA_ARGS__)

// FlatBuffers verifies a vector's length alignment, not its elements'; the
// blob's uint64 / int64 / double vectors are read in place.
template <typename T>
bool ElementsAligned(const flatbuffers::Vector<T>* vector) {
  return vector == nullptr || vector->size() == 0 ||
         reinterpret_cast<uintptr_t>(vector->data()) % alignof(T) == 0;
}

template <typename T>
Span<const T> AsSpan(const flatbuffers::Vector<T>* vector) {
  return vector != nullptr && vector->size() > 0 ? Span<const T>(vector->data(), vector->size())
                                                 : Span<const T>();
}

// What Init returns as the handle (allocated from the Method's allocator).
struct Delegate {
  xnn_runtime_t runtime = nullptr;
  SharedThreadPool* pool = nullptr;  // nullptr when single-threaded
};

// One blob value bound to the delegate call.
struct BoundValue {
  ValueInfo info;
  const void* static_data = nullptr;  // info.is_static: a constant tensor or the blob's data
  void* external_data = nullptr;      // an external value: the argument tensor's memory
  uint32_t external_id = XNN_INVALID_VALUE_ID;
  uint32_t flags = 0;      // XNN_VALUE_FLAG_EXTERNAL_INPUT / _OUTPUT
  bool produced = false;   // written by a node checked so far
  uint32_t producer = 0;   // the node writing it (when produced)
  uint32_t num_reads = 0;  // input slots of nodes naming it
};

struct SubgraphDeleter {
  void operator()(xnn_subgraph* subgraph) const { xnn_delete_subgraph(subgraph); }
};
struct RuntimeDeleter {
  void operator()(xnn_runtime* runtime) const { xnn_delete_runtime(runtime); }
};

Error XnnFailure(const char* call, xnn_status status) {
  Log(LogLevel::kError, "XnnpackBackend: %s failed: %s", call, XnnStatusName(status));
  return status == xnn_status_out_of_memory ? Error::kOutOfMemory : Error::kDelegateFailed;
}

// Step 1: the FlatBuffer, its identifier and version, the argument count.
Error VerifyBlob(Span<const uint8_t> blob, size_t num_args, const fb::Graph** graph) {
  BLOB_CHECK(blob.data() != nullptr && blob.size() >= 8 &&
                 flatbuffers::BufferHasIdentifier(blob.data(), fb::GraphIdentifier()),
             "the blob is not an XNNPACK subgraph (identifier 'TXN1' missing)");
  BLOB_CHECK(reinterpret_cast<uintptr_t>(blob.data()) % 8 == 0, "the blob is not 8-byte aligned");
  flatbuffers::Verifier verifier(blob.data(), blob.size(), /*max_depth=*/64,
                                 /*max_tables=*/10000000);
  BLOB_CHECK(fb::VerifyGraphBuffer(verifier), "the blob fails FlatBuffers verification");
  *graph = fb::GetGraph(blob.data());
  BLOB_CHECK((*graph)->version() == kBlobVersion, "blob version %u, this runtime reads %u",
             (*graph)->version(), kBlobVersion);
  BLOB_CHECK((*graph)->num_arguments() == num_args,
             "the blob expects %u arguments, the delegate call passes %zu",
             (*graph)->num_arguments(), num_args);
  BLOB_CHECK((*graph)->values() == nullptr || (*graph)->values()->size() < kMaxTableSize,
             "too many values");
  BLOB_CHECK((*graph)->nodes() == nullptr || (*graph)->nodes()->size() < kMaxTableSize,
             "too many nodes");
  return Error::kOk;
}

#ifndef TORCHIR_STRIP_ERROR_MESSAGES
// "[1, 3, 224, 224]" for messages.
template <typename T>
void FormatShape(const T* dims, size_t rank, char* out, size_t size) {
  size_t used = static_cast<size_t>(std::snprintf(out, size, "["));
  for (size_t d = 0; d < rank && used < size; ++d) {
    used += static_cast<size_t>(std::snprintf(out + used, size - used, d == 0 ? "%lld" : ", %lld",
                                              static_cast<long long>(dims[d])));
  }
  if (used < size) std::snprintf(out + used, size - used, "]");
}
#endif

// The argument's tensor matches value `index` exactly: float32, contiguous,
// sizes equal to the value's dims.
Error CheckArgumentTensor(const BoundValue& value, size_t index, int32_t argument,
                          const EValue* arg) {
  BLOB_CHECK(arg != nullptr && arg->is_tensor(), "value %zu: argument %d is not a tensor", index,
             argument);
  const Tensor& tensor = arg->to_tensor();
  BLOB_CHECK(tensor.scalar_type() == ScalarType::kFloat32,
             "value %zu: argument %d is %s, not float32", index, argument,
             ScalarTypeName(tensor.scalar_type()));
  Span<const uint8_t> order = tensor.dim_order();
  for (size_t d = 0; d < order.size(); ++d) {
    BLOB_CHECK(order[d] == d, "value %zu: argument %d is not contiguous", index, argument);
  }
  bool same = tensor.dim() == value.info.rank;
  for (size_t d = 0; same && d < value.info.rank; ++d) {
    same = tensor.size(d) >= 0 && static_cast<uint64_t>(tensor.size(d)) == value.info.dims[d];
  }
  if (same) return Error::kOk;
#ifndef TORCHIR_STRIP_ERROR_MESSAGES
  char sizes[128], dims[128];
  FormatShape(tensor.sizes().data(), tensor.dim(), sizes, sizeof(sizes));
  FormatShape(value.info.dims, value.info.rank, dims, sizeof(dims));
  Log(LogLevel::kError, "XnnpackBackend: value %zu: argument %d is %s, the blob says %s", index,
      argument, sizes, dims);
#else
  (void)index;
  (void)argument;
#endif
  return Error::kInvalidProgram;
}

// Step 2: every value's dims, its argument or data, and its role.
Error BindValues(const fb::Graph& graph, KernelArgs args, BoundValue* values,
                 uint32_t* num_external) {
  const size_t num_values = graph.values() != nullptr ? graph.values()->size() : 0;
  std::unique_ptr<bool[]> used(new (std::nothrow) bool[args.size() + 1]());
  TORCHIR_CHECK_OR_RETURN(used != nullptr, Error::kOutOfMemory, "XnnpackBackend: out of memory");
  *num_external = 0;
  for (size_t i = 0; i < num_values; ++i) {
    const fb::Value& source = *graph.values()->Get(static_cast<flatbuffers::uoffset_t>(i));
    BoundValue& value = values[i];
    const flatbuffers::Vector<uint64_t>* dims = source.dims();
    const size_t rank = dims != nullptr ? dims->size() : 0;
    BLOB_CHECK(rank <= kMaxValueRank, "value %zu has rank %zu, XNNPACK takes at most %zu", i, rank,
               kMaxValueRank);
    BLOB_CHECK(ElementsAligned(dims), "value %zu: dims are misaligned", i);
    uint64_t numel = 1;
    for (size_t d = 0; d < rank; ++d) {
      const uint64_t size = dims->Get(static_cast<flatbuffers::uoffset_t>(d));
      // Empty values are refused: XNNPACK's operators are not uniformly defined on them.
      BLOB_CHECK(size >= 1 && size <= kMaxNumel, "value %zu: dim %zu is %llu", i, d,
                 static_cast<unsigned long long>(size));
      BLOB_CHECK(!__builtin_mul_overflow(numel, size, &numel) && numel <= kMaxNumel,
                 "value %zu: element count overflows", i);
      value.info.dims[d] = static_cast<size_t>(size);
    }
    value.info.rank = rank;
    value.info.numel = static_cast<size_t>(numel);

    const int32_t argument = source.argument();
    const flatbuffers::Vector<float>* data = source.data();
    const bool is_output = source.is_output();
    if (data != nullptr && data->size() > 0) {
      BLOB_CHECK(argument == -1 && !is_output,
                 "value %zu has data and is also an argument or an output", i);
      BLOB_CHECK(data->size() == numel, "value %zu has %u data elements for %llu", i, data->size(),
                 static_cast<unsigned long long>(numel));
      BLOB_CHECK(ElementsAligned(data), "value %zu: data is misaligned", i);
      value.info.is_static = true;
      value.static_data = data->data();
    } else if (argument == -1) {
      BLOB_CHECK(!is_output, "value %zu is an output but names no argument", i);
    } else {
      BLOB_CHECK(argument >= 0 && static_cast<size_t>(argument) < args.size(),
                 "value %zu: argument %d is out of range [-1, %zu)", i, argument, args.size());
      BLOB_CHECK(!used[argument], "value %zu: argument %d is bound to two values", i, argument);
      used[argument] = true;
      const EValue* arg = args[static_cast<size_t>(argument)];
      TORCHIR_RETURN_IF_ERROR(CheckArgumentTensor(value, i, argument, arg));
      Tensor& tensor = arg->to_tensor();
      if (tensor.is_constant()) {
        // Weights: read in place from the program's constant segment.
        BLOB_CHECK(!is_output, "value %zu is an output but argument %d is a constant", i, argument);
        value.info.is_static = true;
        value.static_data = tensor.data();
      } else {
        value.external_id = (*num_external)++;
        value.flags = is_output ? XNN_VALUE_FLAG_EXTERNAL_OUTPUT : XNN_VALUE_FLAG_EXTERNAL_INPUT;
        value.external_data = tensor.mutable_data();
      }
    }
  }
  return Error::kOk;
}

bool IsInternal(const BoundValue& value) { return !value.info.is_static && value.flags == 0; }

// Ops XNNPACK's xnn_subgraph_optimize fuses a following clamp into (src/subgraph.c of the
// 2022-02-16 snapshot): it narrows their output range to the intersection with the clamp's.
bool AbsorbsClamp(const char* op) {
  namespace P = ::torchir::xnnpack::node_params;
  for (const char* fusing :
       {P::Add2::kOp, P::AveragePooling2d::kOp, P::Clamp::kOp, P::Convolution2d::kOp,
        P::Divide::kOp, P::DepthwiseConvolution2d::kOp, P::FullyConnected::kOp, P::Multiply2::kOp,
        P::MaxPooling2d::kOp, P::Subtract::kOp}) {
    if (std::strcmp(op, fusing) == 0) return true;
  }
  return false;
}

// A double from the blob as XNNPACK's float (the definitions convert the same way).
float RangeBound(double v) {
  if (v > FLT_MAX) return INFINITY;
  if (v < -FLT_MAX) return -INFINITY;
  return static_cast<float>(v);
}

// The rules of XNNPACK's subgraph that its define calls do not check and its runtime asserts
// (or silently breaks) on, for the blob's nodes after CheckNodes. XNNPACK counts the reads of
// every value, deletes the internal values nobody reads, then fuses each clamp that is the
// only reader of its input into the node writing it:
//   - an internal value written but never read is deleted while its writer still writes it
//     (xnn_setup_runtime asserts output_data != NULL): every internal value must be read;
//   - a value no node names is refused (nothing the compiler writes, and XNNPACK would plan
//     or bind memory for it);
//   - a fused clamp narrows the writer's output range; an empty intersection reaches an
//     assert (output_min < output_max) in the operator's parameter setup;
//   - the internal values XNNPACK allocates (its planner sums their sizes in size_t
//     unchecked) must fit the delegate's memory budget: kOutOfMemory, before XNNPACK tries.
// `*memory_used` is then the internal values' bytes.
Error CheckDataflow(const fb::Graph& graph, const BoundValue* values, size_t num_values,
                    uint64_t memory_budget, uint64_t* memory_used) {
  uint64_t workspace = 0;
  for (size_t i = 0; i < num_values; ++i) {
    const BoundValue& value = values[i];
    BLOB_CHECK(value.num_reads > 0 || value.produced, "value %zu is used by no node", i);
    BLOB_CHECK(!IsInternal(value) || value.num_reads > 0,
               "value %zu is written by node %u but read by no node (XNNPACK would delete it)", i,
               value.producer);
    if (IsInternal(value)) {
      // XNNPACK rounds each internal value up to XNN_EXTRA_BYTES (16) and sums them in
      // size_t unchecked; numel < 2^60 and the budget keep the sum far from overflowing.
      const uint64_t bytes = (uint64_t{value.info.numel} * sizeof(float) + 15) & ~uint64_t{15};
      TORCHIR_CHECK_OR_RETURN(
          !__builtin_add_overflow(workspace, bytes, &workspace) && workspace <= memory_budget,
          Error::kOutOfMemory,
          "XnnpackBackend: the internal values need more than the "
          "delegate's XNNPACK memory budget of %llu bytes",
          static_cast<unsigned long long>(memory_budget));
    }
  }
  // Clamp fusion, replayed in node order: `range_owner[n]` is the node whose output range
  // node n's range ends up in (itself unless n is a clamp XNNPACK fuses away).
  const size_t num_nodes = graph.nodes() != nullptr ? graph.nodes()->size() : 0;
  std::unique_ptr<uint32_t[]> range_owner(new (std::nothrow) uint32_t[num_nodes + 1]);
  std::unique_ptr<float[]> range(new (std::nothrow) float[2 * num_nodes + 2]);
  TORCHIR_CHECK_OR_RETURN(range_owner != nullptr && range != nullptr, Error::kOutOfMemory,
                          "XnnpackBackend: out of memory");
  for (size_t n = 0; n < num_nodes; ++n) {
    const fb::Node& node = *graph.nodes()->Get(static_cast<flatbuffers::uoffset_t>(n));
    range_owner[n] = static_cast<uint32_t>(n);
    const bool has_range =
        AbsorbsClamp(node.op()->c_str()) && node.floats() != nullptr && node.floats()->size() >= 2;
    if (!has_range) continue;
    range[2 * n] = RangeBound(node.floats()->Get(0));
    range[2 * n + 1] = RangeBound(node.floats()->Get(1));
    if (std::strcmp(node.op()->c_str(), ::torchir::xnnpack::node_params::Clamp::kOp) != 0) {
      continue;
    }
    const BoundValue& input = values[node.inputs()->Get(0)];
    if (!IsInternal(input) || input.num_reads != 1 || !input.produced) continue;
    const fb::Node& writer = *graph.nodes()->Get(input.producer);
    if (!AbsorbsClamp(writer.op()->c_str())) continue;
    const uint32_t owner = range_owner[input.producer];
    float* owned = &range[2 * size_t{owner}];
    owned[0] = owned[0] > range[2 * n] ? owned[0] : range[2 * n];
    owned[1] = owned[1] < range[2 * n + 1] ? owned[1] : range[2 * n + 1];
    BLOB_CHECK(owned[0] < owned[1],
               "node %zu (clamp) fuses into node %u, leaving the empty output range [%g, %g]", n,
               owner, static_cast<double>(owned[0]), static_cast<double>(owned[1]));
    range_owner[n] = owner;
  }
  *memory_used = workspace;
  return Error::kOk;
}

// Step 3 (structure; each node's parameters and shapes are checked by its
// definition in step 4): known ops, counts, indices in range, and a dataflow
// XNNPACK can run without writing into inputs or constants or reading
// values nothing wrote.
Error CheckNodes(const fb::Graph& graph, BoundValue* values, size_t num_values,
                 uint64_t memory_budget, uint64_t* memory_used) {
  const size_t num_nodes = graph.nodes() != nullptr ? graph.nodes()->size() : 0;
  for (size_t n = 0; n < num_nodes; ++n) {
    const fb::Node& node = *graph.nodes()->Get(static_cast<flatbuffers::uoffset_t>(n));
    BLOB_CHECK(node.op() != nullptr, "node %zu has no op", n);
    const NodeDefinition* definition = FindNodeDefinition(node.op()->c_str(), node.op()->size());
    BLOB_CHECK(definition != nullptr, "node %zu: unknown op '%s'", n, node.op()->c_str());
    const size_t num_inputs = node.inputs() != nullptr ? node.inputs()->size() : 0;
    const size_t num_outputs = node.outputs() != nullptr ? node.outputs()->size() : 0;
    const size_t num_ints = node.ints() != nullptr ? node.ints()->size() : 0;
    const size_t num_floats = node.floats() != nullptr ? node.floats()->size() : 0;
    BLOB_CHECK(num_inputs >= definition->min_inputs && num_inputs <= definition->max_inputs,
               "node %zu (%s) has %zu inputs, expected %u to %u", n, definition->op, num_inputs,
               definition->min_inputs, definition->max_inputs);
    BLOB_CHECK(num_outputs == 1, "node %zu (%s) has %zu outputs, expected 1", n, definition->op,
               num_outputs);
    BLOB_CHECK(
        definition->ints == kVariableCount || num_ints == static_cast<size_t>(definition->ints),
        "node %zu (%s) has %zu ints, expected %d", n, definition->op, num_ints, definition->ints);
    BLOB_CHECK(num_floats == static_cast<size_t>(definition->floats),
               "node %zu (%s) has %zu floats, expected %d", n, definition->op, num_floats,
               definition->floats);
    BLOB_CHECK(ElementsAligned(node.ints()) && ElementsAligned(node.floats()),
               "node %zu (%s): parameters are misaligned", n, definition->op);
    for (size_t k = 0; k < num_inputs; ++k) {
      const uint32_t v = node.inputs()->Get(static_cast<flatbuffers::uoffset_t>(k));
      BLOB_CHECK(v < num_values, "node %zu (%s): input %zu is value %u of %zu", n, definition->op,
                 k, v, num_values);
      BoundValue& input = values[v];
      // Also refuses a node reading its own output (in place): it is not written yet.
      BLOB_CHECK(
          input.info.is_static || input.flags == XNN_VALUE_FLAG_EXTERNAL_INPUT || input.produced,
          "node %zu (%s) reads value %u before any node writes it", n, definition->op, v);
      ++input.num_reads;
    }
    const uint32_t out = node.outputs()->Get(0);
    BLOB_CHECK(out < num_values, "node %zu (%s): output is value %u of %zu", n, definition->op, out,
               num_values);
    BoundValue& output = values[out];
    BLOB_CHECK(!output.info.is_static && output.flags != XNN_VALUE_FLAG_EXTERNAL_INPUT,
               "node %zu (%s) writes value %u, a constant or an input", n, definition->op, out);
    BLOB_CHECK(!output.produced, "node %zu (%s) writes value %u, already written", n,
               definition->op, out);
    output.produced = true;
    output.producer = static_cast<uint32_t>(n);
  }
  // Outputs must be written, and so must internal values: each one's dims
  // are then checked by its producer's shape rule, never trusted as given.
  for (size_t i = 0; i < num_values; ++i) {
    const BoundValue& value = values[i];
    BLOB_CHECK(
        value.info.is_static || value.flags == XNN_VALUE_FLAG_EXTERNAL_INPUT || value.produced,
        "value %zu (%s) is never written", i,
        value.flags == XNN_VALUE_FLAG_EXTERNAL_OUTPUT ? "an output" : "internal");
  }
  return CheckDataflow(graph, values, num_values, memory_budget, memory_used);
}

// Step 4: defines the subgraph, creates the runtime and binds its external
// values once. On success `*runtime_out` owns the runtime.
Error BuildRuntime(const fb::Graph& graph, BoundValue* values, size_t num_values,
                   uint32_t num_external, uint64_t memory_budget, uint64_t memory_used,
                   pthreadpool_t pool, xnn_runtime_t* runtime_out) {
  xnn_subgraph_t raw_subgraph = nullptr;
  xnn_status status = xnn_create_subgraph(num_external, /*flags=*/0, &raw_subgraph);
  if (status != xnn_status_success) return XnnFailure("xnn_create_subgraph", status);
  std::unique_ptr<xnn_subgraph, SubgraphDeleter> subgraph(raw_subgraph);

  for (size_t i = 0; i < num_values; ++i) {
    BoundValue& value = values[i];
    status =
        xnn_define_tensor_value(subgraph.get(), xnn_datatype_fp32, value.info.rank, value.info.dims,
                                value.static_data, value.external_id, value.flags, &value.info.id);
    if (status != xnn_status_success) {
      Log(LogLevel::kError, "XnnpackBackend: value %zu: XNNPACK refused it: %s", i,
          XnnStatusName(status));
      return Error::kDelegateFailed;
    }
  }

  const size_t num_nodes = graph.nodes() != nullptr ? graph.nodes()->size() : 0;
  for (size_t n = 0; n < num_nodes; ++n) {
    const fb::Node& node = *graph.nodes()->Get(static_cast<flatbuffers::uoffset_t>(n));
    const NodeDefinition* definition = FindNodeDefinition(node.op()->c_str(), node.op()->size());
    NodeCall call;
    call.subgraph = subgraph.get();
    call.index = n;
    call.op = definition->op;
    call.num_inputs = node.inputs() != nullptr ? node.inputs()->size() : 0;
    for (size_t k = 0; k < call.num_inputs; ++k) {
      call.inputs[k] = &values[node.inputs()->Get(static_cast<flatbuffers::uoffset_t>(k))].info;
    }
    call.output = &values[node.outputs()->Get(0)].info;
    call.ints = AsSpan(node.ints());
    call.floats = AsSpan(node.floats());
    call.memory_used = &memory_used;
    call.memory_budget = memory_budget;
    TORCHIR_RETURN_IF_ERROR(definition->define(call));
  }

  xnn_runtime_t raw_runtime = nullptr;
  status = xnn_create_runtime_v2(subgraph.get(), pool, /*flags=*/0, &raw_runtime);
  if (status != xnn_status_success) return XnnFailure("xnn_create_runtime_v2", status);
  std::unique_ptr<xnn_runtime, RuntimeDeleter> runtime(raw_runtime);
  subgraph.reset();  // the runtime keeps what it needs

  std::unique_ptr<xnn_external_value[]> externals(new (std::nothrow)
                                                      xnn_external_value[num_external + 1]);
  TORCHIR_CHECK_OR_RETURN(externals != nullptr, Error::kOutOfMemory,
                          "XnnpackBackend: out of memory");
  for (size_t i = 0; i < num_values; ++i) {
    if (values[i].external_id == XNN_INVALID_VALUE_ID) continue;
    externals[values[i].external_id] =
        xnn_external_value{values[i].info.id, values[i].external_data};
  }
  status = xnn_setup_runtime(runtime.get(), num_external, externals.get());
  if (status != xnn_status_success) return XnnFailure("xnn_setup_runtime", status);
  *runtime_out = runtime.release();
  return Error::kOk;
}

class XnnpackBackend final : public Backend {
 public:
  // The XNNPACK memory budget of delegates initialised from now on.
  void SetMemoryBudget(uint64_t bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    memory_budget_ = bytes;
  }

  // Thread count for delegates initialised from now on; delegates already initialised keep
  // their pool.
  void SetNumThreads(uint32_t num_threads) {
    std::lock_guard<std::mutex> lock(mutex_);
    num_threads_ = num_threads;
  }

  Result<void*> Init(Span<const uint8_t> blob, Span<const CompileSpecView> /*specs*/,
                     KernelArgs args, MemoryAllocator& allocator) override {
    const fb::Graph* graph = nullptr;
    TORCHIR_RETURN_IF_ERROR(VerifyBlob(blob, args.size(), &graph));
    const size_t num_values = graph->values() != nullptr ? graph->values()->size() : 0;
    // Scratch for init only; the delegate keeps none of it.
    std::unique_ptr<BoundValue[]> values(new (std::nothrow) BoundValue[num_values + 1]);
    TORCHIR_CHECK_OR_RETURN(values != nullptr, Error::kOutOfMemory,
                            "XnnpackBackend: out of memory for %zu values", num_values);
    uint32_t num_external = 0;
    TORCHIR_RETURN_IF_ERROR(BindValues(*graph, args, values.get(), &num_external));
    uint64_t memory_budget;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      memory_budget = memory_budget_;
    }
    uint64_t memory_used = 0;
    TORCHIR_RETURN_IF_ERROR(
        CheckNodes(*graph, values.get(), num_values, memory_budget, &memory_used));

    Delegate* delegate = allocator.AllocateArray<Delegate>(1);
    TORCHIR_CHECK_OR_RETURN(delegate != nullptr, Error::kOutOfMemory,
                            "XnnpackBackend: out of memory for the delegate");
    uint32_t num_threads;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      num_threads = num_threads_;
    }
    SharedThreadPool* pool = nullptr;
    const Error pool_error = AcquireSharedThreadPool(num_threads, &pool);
    TORCHIR_CHECK_OR_RETURN(pool_error == Error::kOk, pool_error,
                            "XnnpackBackend: cannot create a pool of %u threads", num_threads);
    Error error =
        BuildRuntime(*graph, values.get(), num_values, num_external, memory_budget, memory_used,
                     pool != nullptr ? pool->get() : nullptr, &delegate->runtime);
    if (error != Error::kOk) {
      if (pool != nullptr) pool->Unref();
      return error;
    }
    delegate->pool = pool;
    return static_cast<void*>(delegate);
  }

  Error Execute(void* handle, KernelArgs /*args*/) override {
    // The arguments' memory was bound at init and never moves.
    const xnn_status status = xnn_invoke_runtime(static_cast<Delegate*>(handle)->runtime);
    return status == xnn_status_success ? Error::kOk : XnnFailure("xnn_invoke_runtime", status);
  }

  // XNNPACK's micro-kernels read up to XNN_EXTRA_BYTES past their operands.
  uint32_t ReadOverrunBytes() const override { return XNN_EXTRA_BYTES; }

  void Destroy(void* handle) override {
    Delegate* delegate = static_cast<Delegate*>(handle);
    if (delegate == nullptr) return;
    if (delegate->runtime != nullptr) xnn_delete_runtime(delegate->runtime);
    if (delegate->pool != nullptr) delegate->pool->Unref();
    *delegate = Delegate();  // its memory belongs to the Method's allocator
  }

 private:
  std::mutex mutex_;
  uint32_t num_threads_ = 1;
  uint64_t memory_budget_ = XnnpackOptions().max_memory_bytes;
};

// The backend is never destroyed: the registry points at it, and a Method
// that outlives static destruction (a global) still calls Destroy.
alignas(XnnpackBackend) unsigned char g_backend_storage[sizeof(XnnpackBackend)];
XnnpackBackend* g_backend = nullptr;

}  // namespace

Error RegisterXnnpackBackend(const XnnpackOptions& options) {
  TORCHIR_CHECK_OR_RETURN(options.num_threads >= 1, Error::kInvalidArgument,
                          "XnnpackBackend: num_threads must be at least 1");
  TORCHIR_CHECK_OR_RETURN(options.max_memory_bytes >= 1, Error::kInvalidArgument,
                          "XnnpackBackend: max_memory_bytes must be at least 1");
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  if (g_backend == nullptr) {
    const xnn_status status = xnn_initialize(/*allocator=*/nullptr);
    TORCHIR_CHECK_OR_RETURN(status == xnn_status_success, Error::kNotSupported,
                            "XnnpackBackend: xnn_initialize failed: %s", XnnStatusName(status));
    XnnpackBackend* backend = new (g_backend_storage) XnnpackBackend();
    const Error error = RegisterBackend(kXnnpackBackendId, backend);
    if (error != Error::kOk) {
      backend->~XnnpackBackend();
      return error;
    }
    g_backend = backend;
  }
  g_backend->SetNumThreads(options.num_threads);
  g_backend->SetMemoryBudget(options.max_memory_bytes);
  return Error::kOk;
}

}  // namespace torchir::runtime::xnnpack
