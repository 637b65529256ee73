#include "backends/native/runtime/native_backend.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>

#include "backends/common/shared_thread_pool.h"
#include "backends/native/channel_scale.h"
#include "backends/native/convolution.h"
#include "backends/native/depthwise.h"
#include "backends/native/expand_depthwise.h"
#include "backends/native/gemm.h"
#include "backends/native/layer_norm.h"
#include "backends/native/packed_weights.h"
#include "backends/native/pooling.h"
#include "backends/native/serialization/delegate_scratch.h"
#include "backends/native/serialization/native_blob_generated.h"
#include "backends/native/softmax.h"
#include "backends/native/winograd.h"
#include "runtime/backend/backend.h"
#include "runtime/core/evalue.h"
#include "runtime/core/result.h"
#include "runtime/core/tensor.h"
#include "runtime/executor/event_tracer.h"
#include "runtime/platform/platform.h"

namespace torchir::runtime::native {
namespace {

namespace fb = ::torchir::native::fb;
using ::torchir::native::Activation;
using ::torchir::native::CausalSkip;
using ::torchir::native::Convolution2dShape;
using ::torchir::native::Epilogue;
using ::torchir::native::GemmConfig;
using ::torchir::native::PackedB;
using ::torchir::native::PackedDepthwise;
using ::torchir::native::PackedWinograd;

constexpr uint32_t kBlobVersion = 1;
// The program's own bound on a tensor; keeps every size product below far from overflowing.
constexpr uint64_t kMaxElements = uint64_t{1} << 40;
constexpr size_t kMaxNodes = 1 << 16;
// Below this many multiply-adds a node runs on the calling thread: ~10 us of work on one
// core, about what waking the pool's workers costs (and a busy machine may not schedule them
// for a whole tick: text_cnn's 2-thread calls took 24 ms instead of 3 us before this).
constexpr uint64_t kMinParallelMacs = uint64_t{1} << 21;
// Nodes whose time is memory's, not multiply-adds', go to the threads by what they move: a
// depthwise convolution or layer norm from this many output elements (they read what the node
// before wrote on both cores, and reading the other core's half from its cache is what costs
// most alone), a GEMM from this many bytes of packed weights (a classifier's 1 x K x N layer
// streams them for one row: mobilenet_v2's 1280 -> 1000 linear, 1.3 M multiply-adds and 5 MB,
// took 0.40 ms on one thread and 0.42 ms at 2 threads when it ran on the calling thread).
constexpr uint64_t kMinParallelElements = uint64_t{1} << 14;
constexpr uint64_t kMinParallelWeightBytes = uint64_t{1} << 20;

#define BLOB_CHECK(cond, ...) \
  TORCHIR_CHECK_OR_RETURN(cond, Error::kInvalidProgram, "NativeBackend: " __VA_ARGS__)

// One convolution, bound to its arguments' memory.
struct BoundConvolution {
  bool parallel;   // large enough for the thread pool
  bool depthwise;  // depthwise_weights, not weights
  Convolution2dShape shape;
  const float* input;
  PackedB weights;
  size_t groups;           // > 1: a grouped convolution with group_weights, not weights
  PackedB* group_weights;  // one per group (from the Method's allocator)
  PackedDepthwise depthwise_weights;
  const float* bias;
  float* output;
  Epilogue epilogue;
  bool winograd;  // winograd_weights, not weights: Winograd F(4x4 or 2x2, 3x3)
  PackedWinograd winograd_weights;
  // A 1x1 expansion run fused with the next node, its depthwise layer (ExpandDepthwise): output
  // is null here, and input null there.
  bool feeds_next;
  size_t trace_node;  // its position in the call's debug handle (NodeTracePositions)
};

// One matrix product of run-time operands, bound to its arguments' memory.
struct BoundMatmul {
  bool parallel;  // large enough for the thread pool
  size_t batch, m, k, n;
  bool b_shared;  // one B (k x n) for every batch
  const float* a;
  const float* b;
  float* output;
  // Strides in floats: element (p, i, j) of A at a[p a_batch_stride + i a_row_stride + j], of the
  // output likewise, of B at b[p b_batch_stride + i b_row_stride + j] (or + j b_row_stride + i
  // when b_transposed). Contiguous unless the blob says `strided`.
  size_t a_batch_stride, a_row_stride;
  size_t b_batch_stride, b_row_stride;
  bool b_transposed;
  size_t output_batch_stride, output_row_stride;
  bool merged;  // one B and uniform row strides: one GEMM over every batch's rows
  // A softmax over each output row after the product: output = softmax(where(mask, mask_fill,
  // softmax_scale * a b)).
  bool softmax;
  float softmax_scale;
  const uint8_t* mask;  // null: none; else mask_rows x n bytes, row r of the output reads
  size_t mask_rows;     // mask row r % mask_rows (m: every batch shares it; batch * m)
  float mask_fill;
  // Causal attention (native_blob.fbs): with softmax the mask is j > i + causal_offset, without
  // it A is zero there; the GEMM skips tiles accordingly.
  bool causal;
  size_t causal_offset;
  size_t trace_node;          // the product's position in the debug handle
  size_t softmax_trace_node;  // the softmax's (kNoTraceNode when the blob does not say)
};

// One layer norm, bound to its arguments' memory.
struct BoundLayerNorm {
  bool parallel;  // large enough for the thread pool
  size_t rows, cols;
  const float* input;
  const float* weight;  // null: 1
  const float* bias;    // null: 0
  float epsilon;
  float* output;
  size_t trace_node;  // its position in the call's debug handle
};

// One pooling, bound to its arguments' memory.
struct BoundPooling {
  bool parallel;                         // large enough for the thread pool
  bool global_average;                   // else max pooling over `shape`'s window
  ::torchir::native::Pool2dShape shape;  // global average: batch, height x width pixels, channels
  const float* input;
  float* output;
  size_t trace_node;  // its position in the call's debug handle
};

// One channel scaling (a squeeze-and-excitation's multiply), bound to its arguments' memory.
struct BoundChannelScale {
  bool parallel;  // large enough for the thread pool
  size_t batch, pixels, channels;
  const float* input;
  const float* scale;
  size_t scale_batch_stride;  // channels, or 0 when one scale serves every image
  float* output;
  size_t trace_node;  // its position in the call's debug handle
};

// What Init returns as the handle (from the Method's allocator).
struct Delegate {
  BoundConvolution* nodes = nullptr;
  size_t num_nodes = 0;
  BoundMatmul* matmuls = nullptr;
  size_t num_matmuls = 0;
  BoundLayerNorm* layer_norms = nullptr;
  size_t num_layer_norms = 0;
  BoundPooling* poolings = nullptr;
  size_t num_poolings = 0;
  BoundChannelScale* channel_scales = nullptr;
  size_t num_channel_scales = 0;
  GemmConfig config{};  // this CPU's blocking, for B packed at run time
  void* scratch = nullptr;
  size_t scratch_bytes = 0;
  void* packed_b = nullptr;  // matrix products: B packed on every call
  size_t packed_b_bytes = 0;
  SharedThreadPool* pool = nullptr;  // nullptr when single-threaded
};

// A node the debug handle does not name: timed, but not reported.
constexpr size_t kNoTraceNode = SIZE_MAX;

// Reports [begin_ns, end_ns] of debug node `node` to `trace` (null: not traced).
void ReportSpan(const DelegateTrace* trace, size_t node, uint64_t begin_ns, uint64_t end_ns) {
  if (trace != nullptr && node != kNoTraceNode) {
    trace->tracer->DelegateNodeEvent(trace->instruction, node, begin_ns, end_ns);
  }
}

// Reports [begin_ns, now] of debug node `node` to `trace` (null: not traced) and returns now.
uint64_t ReportNode(const DelegateTrace* trace, size_t node, uint64_t begin_ns) {
  if (trace == nullptr) return 0;
  const uint64_t end_ns = NowNanoseconds();
  ReportSpan(trace, node, begin_ns, end_ns);
  return end_ns;
}

// Where the blob's kernel nodes sit in the call's debug handle. The compiler names the Edge nodes
// a delegate took in its debug handle in the order of the blob's source_ops (one op each), so
// the k-th edge.convolution or edge.linear of source_ops is the blob's k-th convolution node,
// the k-th edge.matmul its k-th matrix product, the k-th edge.softmax the k-th product that has
// a softmax, the k-th edge.layer_norm its k-th layer norm. A blob without source_ops, or with
// fewer of an op than it has nodes, leaves the rest kNoTraceNode: they run, unreported.
void NodeTracePositions(const fb::Blob& blob, Delegate* delegate) {
  auto Is = [](const flatbuffers::String* op, const char* name) {
    const size_t length = std::strlen(name);
    return op->size() == length && std::equal(op->begin(), op->end(), name);
  };
  size_t convolutions = 0, matmuls = 0, softmaxes = 0, layer_norms = 0, poolings = 0, scales = 0;
  for (size_t i = 0; i < delegate->num_nodes; ++i) delegate->nodes[i].trace_node = kNoTraceNode;
  for (size_t i = 0; i < delegate->num_matmuls; ++i) {
    delegate->matmuls[i].trace_node = delegate->matmuls[i].softmax_trace_node = kNoTraceNode;
  }
  for (size_t i = 0; i < delegate->num_layer_norms; ++i) {
    delegate->layer_norms[i].trace_node = kNoTraceNode;
  }
  for (size_t i = 0; i < delegate->num_poolings; ++i)
    delegate->poolings[i].trace_node = kNoTraceNode;
  for (size_t i = 0; i < delegate->num_channel_scales; ++i) {
    delegate->channel_scales[i].trace_node = kNoTraceNode;
  }
  if (blob.source_ops() == nullptr) return;
  for (flatbuffers::uoffset_t k = 0; k < blob.source_ops()->size(); ++k) {
    const flatbuffers::String* op = blob.source_ops()->Get(k);
    if (op == nullptr) continue;
    if (Is(op, "edge.convolution") || Is(op, "edge.linear")) {
      if (convolutions < delegate->num_nodes) delegate->nodes[convolutions++].trace_node = k;
    } else if (Is(op, "edge.matmul")) {
      if (matmuls < delegate->num_matmuls) delegate->matmuls[matmuls++].trace_node = k;
    } else if (Is(op, "edge.softmax")) {
      while (softmaxes < delegate->num_matmuls && !delegate->matmuls[softmaxes].softmax) {
        ++softmaxes;
      }
      if (softmaxes < delegate->num_matmuls) delegate->matmuls[softmaxes++].softmax_trace_node = k;
    } else if (Is(op, "edge.layer_norm")) {
      if (layer_norms < delegate->num_layer_norms) {
        delegate->layer_norms[layer_norms++].trace_node = k;
      }
    } else if (Is(op, "edge.max_pool2d") || Is(op, "edge.mean")) {
      if (poolings < delegate->num_poolings) delegate->poolings[poolings++].trace_node = k;
    } else if (Is(op, "edge.mul")) {
      if (scales < delegate->num_channel_scales) {
        delegate->channel_scales[scales++].trace_node = k;
      }
    }
  }
}

Error VerifyBlob(Span<const uint8_t> blob, size_t num_args, const fb::Blob** out) {
  BLOB_CHECK(blob.data() != nullptr && blob.size() >= 8 &&
                 flatbuffers::BufferHasIdentifier(blob.data(), fb::BlobIdentifier()),
             "the blob is not a native delegate blob (identifier 'TNV1' missing)");
  BLOB_CHECK(reinterpret_cast<uintptr_t>(blob.data()) % 8 == 0, "the blob is not 8-byte aligned");
  flatbuffers::Verifier verifier(blob.data(), blob.size(), /*max_depth=*/16,
                                 /*max_tables=*/1000000);
  BLOB_CHECK(fb::VerifyBlobBuffer(verifier), "the blob fails FlatBuffers verification");
  const fb::Blob* parsed = fb::GetBlob(blob.data());
  BLOB_CHECK(parsed->version() == kBlobVersion, "blob version %u, this runtime reads %u",
             parsed->version(), kBlobVersion);
  BLOB_CHECK(parsed->num_arguments() == num_args,
             "the blob expects %u arguments, the delegate call passes %zu", parsed->num_arguments(),
             num_args);
  const size_t convolutions =
      parsed->convolutions() != nullptr ? parsed->convolutions()->size() : 0;
  const size_t matmuls =
      parsed->matrix_multiplies() != nullptr ? parsed->matrix_multiplies()->size() : 0;
  const size_t norms = parsed->layer_norms() != nullptr ? parsed->layer_norms()->size() : 0;
  const size_t pools = parsed->poolings() != nullptr ? parsed->poolings()->size() : 0;
  const size_t scales = parsed->channel_scales() != nullptr ? parsed->channel_scales()->size() : 0;
  const size_t nodes = convolutions + matmuls + norms + pools + scales;
  BLOB_CHECK(nodes > 0 && nodes <= kMaxNodes, "the blob has no nodes, or too many");
  *out = parsed;
  return Error::kOk;
}

// a * b into *out, false on overflow past kMaxElements.
bool Multiply(uint64_t a, uint64_t b, uint64_t* out) {
  return !__builtin_mul_overflow(a, b, out) && *out <= kMaxElements;
}

// The tensor at argument `index`: float32 (or uint8 for weights), contiguous, `elements` long.
Error ArgumentTensor(KernelArgs args, int32_t index, ScalarType type, const char* role, size_t node,
                     const Tensor** out) {
  BLOB_CHECK(index >= 0 && static_cast<size_t>(index) < args.size(),
             "node %zu: %s argument %d is out of range", node, role, index);
  const EValue* arg = args[static_cast<size_t>(index)];
  BLOB_CHECK(arg != nullptr && arg->is_tensor(), "node %zu: %s argument %d is not a tensor", node,
             role, index);
  const Tensor& tensor = arg->to_tensor();
  BLOB_CHECK(tensor.scalar_type() == type, "node %zu: %s argument %d is %s, not %s", node, role,
             index, ScalarTypeName(tensor.scalar_type()), ScalarTypeName(type));
  Span<const uint8_t> order = tensor.dim_order();
  for (size_t d = 0; d < order.size(); ++d) {
    BLOB_CHECK(order[d] == d, "node %zu: %s argument %d is not contiguous", node, role, index);
  }
  *out = &tensor;
  return Error::kOk;
}

// A float32 activation of exactly `elements` elements whose last dim is `channels`.
Error ActivationTensor(KernelArgs args, int32_t index, const char* role, size_t node,
                       uint64_t elements, uint64_t channels, const Tensor** out) {
  TORCHIR_RETURN_IF_ERROR(ArgumentTensor(args, index, ScalarType::kFloat32, role, node, out));
  const Tensor& tensor = **out;
  BLOB_CHECK(static_cast<uint64_t>(tensor.numel()) == elements && tensor.dim() >= 1 &&
                 static_cast<uint64_t>(tensor.size(tensor.dim() - 1)) == channels,
             "node %zu: %s argument %d has %lld elements, the node needs %llu with %llu channels "
             "last",
             node, role, index, static_cast<long long>(tensor.numel()),
             static_cast<unsigned long long>(elements), static_cast<unsigned long long>(channels));
  return Error::kOk;
}

// A float32 tensor that `batches` x `rows` x `cols` elements are read or written through
// strides in: element (p, i, j) at p batch_stride + i row_stride + j, rows no shorter than cols
// apart, the last one inside the tensor.
Error StridedTensor(KernelArgs args, int32_t index, const char* role, size_t node, uint64_t batches,
                    uint64_t rows, uint64_t cols, uint64_t batch_stride, uint64_t row_stride,
                    const Tensor** out) {
  TORCHIR_RETURN_IF_ERROR(ArgumentTensor(args, index, ScalarType::kFloat32, role, node, out));
  uint64_t last_batch, last_row, extent;
  BLOB_CHECK(row_stride >= cols && Multiply(batches - 1, batch_stride, &last_batch) &&
                 Multiply(rows - 1, row_stride, &last_row) &&
                 !__builtin_add_overflow(last_batch, last_row, &extent) &&
                 !__builtin_add_overflow(extent, cols, &extent) &&
                 extent <= static_cast<uint64_t>((*out)->numel()),
             "node %zu: %s argument %d (%lld elements) does not hold %llu x %llu x %llu elements "
             "at strides %llu, %llu",
             node, role, index, static_cast<long long>((*out)->numel()),
             static_cast<unsigned long long>(batches), static_cast<unsigned long long>(rows),
             static_cast<unsigned long long>(cols), static_cast<unsigned long long>(batch_stride),
             static_cast<unsigned long long>(row_stride));
  return Error::kOk;
}

// Whether the bytes of two tensors share an address.
bool Overlap(const Tensor& a, const Tensor& b) {
  const uintptr_t a_begin = reinterpret_cast<uintptr_t>(a.data());
  const uintptr_t b_begin = reinterpret_cast<uintptr_t>(b.data());
  return a_begin < b_begin + b.nbytes() && b_begin < a_begin + a.nbytes();
}

class NativeBackend final : public Backend {
 public:
  void SetNumThreads(uint32_t num_threads) {
    std::lock_guard<std::mutex> lock(mutex_);
    num_threads_ = num_threads;
  }

  Result<void*> Init(Span<const uint8_t> blob, Span<const CompileSpecView> /*specs*/,
                     KernelArgs args, MemoryAllocator& allocator) override {
    const fb::Blob* parsed = nullptr;
    TORCHIR_RETURN_IF_ERROR(VerifyBlob(blob, args.size(), &parsed));
    uint32_t num_threads;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      num_threads = num_threads_;
    }
    Delegate* delegate = allocator.AllocateArray<Delegate>(1);
    TORCHIR_CHECK_OR_RETURN(delegate != nullptr, Error::kOutOfMemory,
                            "NativeBackend: out of memory for the delegate");
    *delegate = Delegate();
    TORCHIR_CHECK_OR_RETURN(::torchir::native::GetGemmConfig(
                                ::torchir::native::CurrentKernelTarget(), &delegate->config),
                            Error::kNotSupported, "NativeBackend: no GEMM blocking for this CPU");
    delegate->num_nodes = parsed->convolutions() != nullptr ? parsed->convolutions()->size() : 0;
    delegate->nodes = allocator.AllocateArray<BoundConvolution>(delegate->num_nodes + 1);
    delegate->num_matmuls =
        parsed->matrix_multiplies() != nullptr ? parsed->matrix_multiplies()->size() : 0;
    delegate->matmuls = allocator.AllocateArray<BoundMatmul>(delegate->num_matmuls + 1);
    delegate->num_layer_norms =
        parsed->layer_norms() != nullptr ? parsed->layer_norms()->size() : 0;
    delegate->layer_norms = allocator.AllocateArray<BoundLayerNorm>(delegate->num_layer_norms + 1);
    delegate->num_poolings = parsed->poolings() != nullptr ? parsed->poolings()->size() : 0;
    delegate->poolings = allocator.AllocateArray<BoundPooling>(delegate->num_poolings + 1);
    delegate->num_channel_scales =
        parsed->channel_scales() != nullptr ? parsed->channel_scales()->size() : 0;
    delegate->channel_scales =
        allocator.AllocateArray<BoundChannelScale>(delegate->num_channel_scales + 1);
    TORCHIR_CHECK_OR_RETURN(delegate->nodes != nullptr && delegate->matmuls != nullptr &&
                                delegate->layer_norms != nullptr && delegate->poolings != nullptr &&
                                delegate->channel_scales != nullptr,
                            Error::kOutOfMemory, "NativeBackend: out of memory for %zu nodes",
                            delegate->num_nodes + delegate->num_matmuls +
                                delegate->num_layer_norms + delegate->num_poolings +
                                delegate->num_channel_scales);
    // The kernels block for this CPU (mr, mc) whatever the weights were packed for: their
    // scratch is sized with its configuration.
    const GemmConfig& here = delegate->config;
    for (size_t i = 0; i < delegate->num_nodes; ++i) {
      const fb::Convolution& node =
          *parsed->convolutions()->Get(static_cast<flatbuffers::uoffset_t>(i));
      const bool fed = i > 0 && delegate->nodes[i - 1].feeds_next;
      TORCHIR_RETURN_IF_ERROR(Bind(node, i, fed, args, here, allocator, &delegate->nodes[i]));
      if (fed) {
        TORCHIR_RETURN_IF_ERROR(CheckFusedPair(delegate->nodes[i - 1], delegate->nodes[i], i));
      }
    }
    BLOB_CHECK(delegate->num_nodes == 0 || !delegate->nodes[delegate->num_nodes - 1].feeds_next,
               "node %zu: feeds a next node that is not there", delegate->num_nodes - 1);
    for (size_t i = 0; i < delegate->num_matmuls; ++i) {
      const fb::MatrixMultiply& node =
          *parsed->matrix_multiplies()->Get(static_cast<flatbuffers::uoffset_t>(i));
      TORCHIR_RETURN_IF_ERROR(
          BindMatmul(node, delegate->num_nodes + i, args, &delegate->matmuls[i]));
    }
    for (size_t i = 0; i < delegate->num_layer_norms; ++i) {
      const fb::LayerNorm& node =
          *parsed->layer_norms()->Get(static_cast<flatbuffers::uoffset_t>(i));
      TORCHIR_RETURN_IF_ERROR(BindLayerNorm(node, delegate->num_nodes + delegate->num_matmuls + i,
                                            args, &delegate->layer_norms[i]));
    }
    for (size_t i = 0; i < delegate->num_poolings; ++i) {
      const fb::Pooling& node = *parsed->poolings()->Get(static_cast<flatbuffers::uoffset_t>(i));
      TORCHIR_RETURN_IF_ERROR(BindPooling(
          node, delegate->num_nodes + delegate->num_matmuls + delegate->num_layer_norms + i, args,
          &delegate->poolings[i]));
    }
    for (size_t i = 0; i < delegate->num_channel_scales; ++i) {
      const fb::ChannelScale& node =
          *parsed->channel_scales()->Get(static_cast<flatbuffers::uoffset_t>(i));
      TORCHIR_RETURN_IF_ERROR(BindChannelScale(node,
                                               delegate->num_nodes + delegate->num_matmuls +
                                                   delegate->num_layer_norms +
                                                   delegate->num_poolings + i,
                                               args, &delegate->channel_scales[i]));
    }
    NodeTracePositions(*parsed, delegate);
    // The GEMM's scratch, then B packed at run time, in the scratch the Method binds
    // (BindScratch); the compiler planned it with the same function (delegate_scratch.h).
    const ::torchir::native::DelegateScratchLayout scratch =
        ::torchir::native::ComputeDelegateScratch(*parsed, here, num_threads);
    delegate->scratch_bytes = scratch.gemm_bytes;
    delegate->packed_b_bytes = scratch.packed_b_bytes;
    const Error pool_error = AcquireSharedThreadPool(num_threads, &delegate->pool);
    TORCHIR_CHECK_OR_RETURN(pool_error == Error::kOk, pool_error,
                            "NativeBackend: cannot create a pool of %u threads", num_threads);
    return static_cast<void*>(delegate);
  }

  Error Execute(void* handle, KernelArgs /*args*/) override {
    return Run(*static_cast<const Delegate*>(handle), nullptr);
  }

  // Each node timed and reported under its debug-handle position: a convolution or layer norm
  // once, a matrix product once per batch run in turn (its GEMM, then its softmax under the
  // softmax's position), or once whole when its batches are shared among threads.
  Error ExecuteTraced(void* handle, KernelArgs /*args*/, const DelegateTrace& trace) override {
    return Run(*static_cast<const Delegate*>(handle), &trace);
  }

  size_t ScratchBytes(void* handle) const override {
    const Delegate& delegate = *static_cast<const Delegate*>(handle);
    return delegate.scratch_bytes + delegate.packed_b_bytes;
  }

  void BindScratch(void* handle, void* scratch) override {
    Delegate& delegate = *static_cast<Delegate*>(handle);
    delegate.scratch = scratch;
    delegate.packed_b = static_cast<uint8_t*>(scratch) + delegate.scratch_bytes;
  }

  void Destroy(void* handle) override {
    Delegate* delegate = static_cast<Delegate*>(handle);
    if (delegate == nullptr) return;
    if (delegate->pool != nullptr) delegate->pool->Unref();
    *delegate = Delegate();  // its memory belongs to the Method's allocator
  }

 private:
  // The nodes in order; `trace` null: untimed.
  static Error Run(const Delegate& delegate, const DelegateTrace* trace) {
    // The arguments' memory was bound at init and never moves.
    TORCHIR_CHECK_OR_RETURN(
        delegate.scratch != nullptr || delegate.scratch_bytes + delegate.packed_b_bytes == 0,
        Error::kNotInitialized, "NativeBackend: executed before its scratch was bound");
    pthreadpool_t pool = delegate.pool != nullptr ? delegate.pool->get() : nullptr;
    for (size_t i = 0; i < delegate.num_nodes; ++i) {
      const BoundConvolution& node = delegate.nodes[i];
      pthreadpool_t node_pool = node.parallel ? pool : nullptr;
      const uint64_t begin_ns = trace != nullptr ? NowNanoseconds() : 0;
      if (node.feeds_next) {
        // Init checked that node i + 1 is the depthwise layer over this expansion.
        const BoundConvolution& next = delegate.nodes[i + 1];
        ::torchir::native::ExpandDepthwiseCall call;
        call.expand = node.shape;
        call.input = node.input;
        call.expand_weights = &node.weights;
        call.expand_bias = node.bias;
        call.expand_epilogue = node.epilogue;
        call.depthwise = next.shape;
        if (next.depthwise) {
          call.depthwise_weights = &next.depthwise_weights;
        } else {
          call.depthwise_weights = nullptr;
          call.groups = next.groups;
          call.group_weights = next.group_weights;
        }
        call.depthwise_bias = next.bias;
        call.depthwise_epilogue = next.epilogue;
        call.output = next.output;
        uint64_t phase_ns[2] = {0, 0};
        if (trace != nullptr) call.phase_ns = phase_ns;
        TORCHIR_RETURN_IF_ERROR(
            ::torchir::native::ExpandDepthwise(call, delegate.scratch, delegate.scratch_bytes,
                                               node.parallel || next.parallel ? pool : nullptr));
        if (trace != nullptr) {
          // Each node its share of the call, by the time the bands spent in each layer.
          const uint64_t end_ns = NowNanoseconds();
          const uint64_t phases = phase_ns[0] + phase_ns[1];
          const double share =
              phases == 0 ? 0.0 : static_cast<double>(phase_ns[0]) / static_cast<double>(phases);
          const uint64_t split =
              begin_ns + static_cast<uint64_t>(static_cast<double>(end_ns - begin_ns) * share);
          ReportSpan(trace, node.trace_node, begin_ns, split);
          ReportSpan(trace, next.trace_node, split, end_ns);
        }
        ++i;
        continue;
      }
      const Error error =
          node.winograd ? ::torchir::native::WinogradConvolution2d(
                              node.shape, node.input, node.winograd_weights, node.bias, node.output,
                              node.epilogue, delegate.scratch, delegate.scratch_bytes, node_pool)
          : node.depthwise ? ::torchir::native::DepthwiseConvolution2d(
                                 node.shape, node.input, node.depthwise_weights, node.bias,
                                 node.output, node.epilogue, node_pool)
          : node.groups > 1
              ? ::torchir::native::GroupedConvolution2d(
                    node.shape, node.groups, node.input, node.group_weights, node.bias, node.output,
                    node.epilogue, delegate.scratch, delegate.scratch_bytes, node_pool)
              : ::torchir::native::Convolution2d(node.shape, node.input, node.weights, node.bias,
                                                 node.output, node.epilogue, delegate.scratch,
                                                 delegate.scratch_bytes, node_pool);
      if (error != Error::kOk) return error;
      ReportNode(trace, node.trace_node, begin_ns);
    }
    for (size_t i = 0; i < delegate.num_matmuls; ++i) {
      const BoundMatmul& node = delegate.matmuls[i];
      TORCHIR_RETURN_IF_ERROR(RunMatmul(delegate, node, node.parallel ? pool : nullptr, trace));
    }
    for (size_t i = 0; i < delegate.num_layer_norms; ++i) {
      const BoundLayerNorm& node = delegate.layer_norms[i];
      const uint64_t begin_ns = trace != nullptr ? NowNanoseconds() : 0;
      TORCHIR_RETURN_IF_ERROR(
          ::torchir::native::LayerNorm(node.rows, node.cols, node.input, node.weight, node.bias,
                                       node.epsilon, node.output, node.parallel ? pool : nullptr));
      ReportNode(trace, node.trace_node, begin_ns);
    }
    for (size_t i = 0; i < delegate.num_poolings; ++i) {
      const BoundPooling& node = delegate.poolings[i];
      pthreadpool_t node_pool = node.parallel ? pool : nullptr;
      const uint64_t begin_ns = trace != nullptr ? NowNanoseconds() : 0;
      const ::torchir::native::Pool2dShape& shape = node.shape;
      TORCHIR_RETURN_IF_ERROR(
          node.global_average
              ? ::torchir::native::GlobalAveragePool(
                    shape.batch, shape.input_height * shape.input_width, shape.channels, node.input,
                    node.output, node_pool)
              : ::torchir::native::MaxPool2d(shape, node.input, node.output, node_pool));
      ReportNode(trace, node.trace_node, begin_ns);
    }
    for (size_t i = 0; i < delegate.num_channel_scales; ++i) {
      const BoundChannelScale& node = delegate.channel_scales[i];
      const uint64_t begin_ns = trace != nullptr ? NowNanoseconds() : 0;
      TORCHIR_RETURN_IF_ERROR(::torchir::native::ScaleChannels(
          node.batch, node.pixels, node.channels, node.input, node.scale, node.scale_batch_stride,
          node.output, node.parallel ? pool : nullptr));
      ReportNode(trace, node.trace_node, begin_ns);
    }
    return Error::kOk;
  }

  // Batches [begin, end) of a product: B packed into `packed_b` for each batch (once when
  // shared), then the GEMM, whose blocks are in `scratch`, then the fused softmax on the rows
  // just written (still in cache).
  static Error RunMatmulBatches(const Delegate& delegate, const BoundMatmul& node, size_t begin,
                                size_t end, void* scratch, size_t scratch_bytes, void* packed_b,
                                size_t packed_b_bytes, pthreadpool_t pool,
                                const DelegateTrace* trace = nullptr) {
    const size_t rows = node.merged ? node.batch * node.m : node.m;
    PackedB packed;
    for (size_t b = begin; b < end; ++b) {
      uint64_t begin_ns = trace != nullptr ? NowNanoseconds() : 0;
      if (!node.b_shared || b == begin) {
        const float* b_batch = node.b + (node.b_shared ? 0 : b * node.b_batch_stride);
        TORCHIR_RETURN_IF_ERROR(
            node.b_transposed
                ? ::torchir::native::PackBTransposed(delegate.config, node.k, node.n, b_batch,
                                                     node.b_row_stride, packed_b, packed_b_bytes)
                : ::torchir::native::PackB(delegate.config, node.k, node.n, b_batch,
                                           node.b_row_stride, packed_b, packed_b_bytes));
        TORCHIR_RETURN_IF_ERROR(::torchir::native::ViewPackedB(packed_b, packed_b_bytes, &packed));
      }
      float* output = node.output + b * node.output_batch_stride;
      // Rows merged across batches do not count from each batch's row 0: no skipping then.
      CausalSkip causal;
      if (node.causal && !node.merged) {
        causal.kind = node.softmax ? CausalSkip::Kind::kColumns : CausalSkip::Kind::kDepth;
        causal.offset = node.causal_offset;
      }
      TORCHIR_RETURN_IF_ERROR(::torchir::native::Gemm(
          rows, node.a + b * node.a_batch_stride, node.a_row_stride, packed, nullptr, output,
          node.output_row_stride, Epilogue(), scratch, scratch_bytes, pool, causal));
      begin_ns = ReportNode(trace, node.trace_node, begin_ns);
      if (node.softmax && node.causal) {
        TORCHIR_RETURN_IF_ERROR(::torchir::native::CausalSoftmax(
            rows, node.n, output, node.softmax_scale, node.m, node.causal_offset, output, pool));
        ReportNode(trace, node.softmax_trace_node, begin_ns);
      } else if (node.softmax) {
        // The mask rows of this batch's first row (b m is a multiple of m).
        const uint8_t* mask =
            node.mask != nullptr ? node.mask + (b * node.m % node.mask_rows) * node.n : nullptr;
        TORCHIR_RETURN_IF_ERROR(::torchir::native::Softmax(rows, node.n, output, node.softmax_scale,
                                                           mask, node.mask_rows, node.mask_fill,
                                                           output, pool));
        ReportNode(trace, node.softmax_trace_node, begin_ns);
      }
    }
    return Error::kOk;
  }

  // One task of a product whose batches are shared among threads (MatmulBatchTasks).
  struct BatchTasks {
    const Delegate* delegate;
    const BoundMatmul* node;
    size_t per_task;             // batches
    size_t gemm_slot_bytes;      // each task's GEMM blocks
    size_t packed_b_slot_bytes;  // each task's packed B
    std::atomic<int> error;      // the first task's error, as an int; kOk when none
  };

  static void RunBatchTask(void* context, size_t task) {
    BatchTasks& tasks = *static_cast<BatchTasks*>(context);
    const BoundMatmul& node = *tasks.node;
    const size_t begin = task * tasks.per_task;
    const size_t end = begin + tasks.per_task < node.batch ? begin + tasks.per_task : node.batch;
    const Error error = RunMatmulBatches(
        *tasks.delegate, node, begin, end,
        static_cast<uint8_t*>(tasks.delegate->scratch) + task * tasks.gemm_slot_bytes,
        tasks.gemm_slot_bytes,
        static_cast<uint8_t*>(tasks.delegate->packed_b) + task * tasks.packed_b_slot_bytes,
        tasks.packed_b_slot_bytes, nullptr);
    int expected = static_cast<int>(Error::kOk);
    if (error != Error::kOk) tasks.error.compare_exchange_strong(expected, static_cast<int>(error));
  }

  // Attention's heads are batches of independent products: with a pool they go to the threads
  // whole (each packs its own B) when MatmulBatchTasks says so, else one after another with
  // each GEMM shared among the threads.
  static Error RunMatmul(const Delegate& delegate, const BoundMatmul& node, pthreadpool_t pool,
                         const DelegateTrace* trace) {
    const size_t threads = pool == nullptr ? 1 : pthreadpool_get_threads_count(pool);
    size_t tasks = ::torchir::native::MatmulBatchTasks(node.batch, node.b_shared, threads);
    if (tasks > 1) {
      // The scratch was sized for this many tasks unless the Method's fell short of the plan
      // and a smaller shared buffer came instead: then fewer tasks, or none.
      const size_t gemm_slot = ::torchir::native::GemmScratchBytes(delegate.config, node.m, 1);
      const size_t b_slot =
          ::torchir::native::MatmulPackedBSlotBytes(delegate.config, node.k, node.n);
      if (delegate.scratch_bytes / gemm_slot < tasks) tasks = delegate.scratch_bytes / gemm_slot;
      if (delegate.packed_b_bytes / b_slot < tasks) tasks = delegate.packed_b_bytes / b_slot;
      if (tasks > 1) {
        const size_t per_task = (node.batch + tasks - 1) / tasks;
        BatchTasks shared{&delegate, &node,  per_task,
                          gemm_slot, b_slot, {static_cast<int>(Error::kOk)}};
        const size_t used = (node.batch + shared.per_task - 1) / shared.per_task;
        const uint64_t begin_ns = trace != nullptr ? NowNanoseconds() : 0;
        pthreadpool_parallelize_1d(pool, &RunBatchTask, &shared, used, 0);
        // The tasks run on the pool's threads: the whole product (softmax included) at once.
        ReportNode(trace, node.trace_node, begin_ns);
        return static_cast<Error>(shared.error.load());
      }
    }
    return RunMatmulBatches(delegate, node, 0, node.merged ? 1 : node.batch, delegate.scratch,
                            delegate.scratch_bytes, delegate.packed_b, delegate.packed_b_bytes,
                            pool, trace);
  }

  static Error BindMatmul(const fb::MatrixMultiply& node, size_t index, KernelArgs args,
                          BoundMatmul* bound) {
    bound->batch = node.batch();
    bound->m = node.m();
    bound->k = node.k();
    bound->n = node.n();
    bound->b_shared = node.b_shared();
    BLOB_CHECK(bound->batch >= 1 && bound->m >= 1 && bound->k >= 1 && bound->n >= 1,
               "node %zu: a size is zero", index);
    uint64_t a_elements, b_elements, out_elements;
    BLOB_CHECK(Multiply(bound->batch, bound->m, &a_elements) &&
                   Multiply(a_elements, bound->n, &out_elements) &&
                   Multiply(a_elements, bound->k, &a_elements) &&
                   Multiply(bound->b_shared ? 1 : bound->batch, bound->k, &b_elements) &&
                   Multiply(b_elements, bound->n, &b_elements),
               "node %zu: sizes overflow", index);
    const Tensor* a = nullptr;
    const Tensor* b = nullptr;
    const Tensor* output = nullptr;
    const size_t b_batches = bound->b_shared ? 1 : bound->batch;
    if (node.strided()) {
      bound->a_batch_stride = node.a_batch_stride();
      bound->a_row_stride = node.a_row_stride();
      bound->b_batch_stride = node.b_batch_stride();
      bound->b_row_stride = node.b_row_stride();
      bound->b_transposed = node.b_transposed();
      bound->output_batch_stride = node.output_batch_stride();
      bound->output_row_stride = node.output_row_stride();
      TORCHIR_RETURN_IF_ERROR(StridedTensor(args, node.a(), "a", index, bound->batch, bound->m,
                                            bound->k, bound->a_batch_stride, bound->a_row_stride,
                                            &a));
      TORCHIR_RETURN_IF_ERROR(StridedTensor(args, node.b(), "b", index, b_batches,
                                            bound->b_transposed ? bound->n : bound->k,
                                            bound->b_transposed ? bound->k : bound->n,
                                            bound->b_batch_stride, bound->b_row_stride, &b));
      TORCHIR_RETURN_IF_ERROR(StridedTensor(args, node.output(), "output", index, bound->batch,
                                            bound->m, bound->n, bound->output_batch_stride,
                                            bound->output_row_stride, &output));
      // Each batch's output rows apart from the others': stacked, or side by side within rows.
      const uint64_t ob = bound->output_batch_stride, orow = bound->output_row_stride;
      BLOB_CHECK(bound->batch == 1 || ob >= (bound->m - 1) * orow + bound->n ||
                     (ob >= bound->n && (bound->batch - 1) * ob + bound->n <= orow),
                 "node %zu: output batches overlap (batch stride %llu, row stride %llu)", index,
                 static_cast<unsigned long long>(ob), static_cast<unsigned long long>(orow));
    } else {
      bound->a_batch_stride = bound->m * bound->k;
      bound->a_row_stride = bound->k;
      bound->b_batch_stride = bound->k * bound->n;
      bound->b_row_stride = bound->n;
      bound->b_transposed = false;
      bound->output_batch_stride = bound->m * bound->n;
      bound->output_row_stride = bound->n;
      TORCHIR_RETURN_IF_ERROR(
          ActivationTensor(args, node.a(), "a", index, a_elements, bound->k, &a));
      TORCHIR_RETURN_IF_ERROR(
          ActivationTensor(args, node.b(), "b", index, b_elements, bound->n, &b));
      TORCHIR_RETURN_IF_ERROR(
          ActivationTensor(args, node.output(), "output", index, out_elements, bound->n, &output));
    }
    bound->merged = bound->b_shared && bound->a_batch_stride == bound->m * bound->a_row_stride &&
                    bound->output_batch_stride == bound->m * bound->output_row_stride;
    BLOB_CHECK(!output->is_constant(), "node %zu: output argument %d is a constant", index,
               node.output());
    // B is packed and A copied block by block while the output is written.
    BLOB_CHECK(!Overlap(*output, *a) && !Overlap(*output, *b),
               "node %zu: output argument %d overlaps an operand", index, node.output());
    uint64_t macs;
    bound->parallel = Multiply(out_elements, bound->k, &macs) ? macs >= kMinParallelMacs : true;
    bound->a = a->data_ptr<float>();
    bound->b = b->data_ptr<float>();
    bound->output = output->mutable_data_ptr<float>();
    bound->softmax = node.softmax();
    bound->softmax_scale = node.softmax_scale();
    bound->mask_fill = node.softmax_mask_fill();
    bound->mask = nullptr;
    bound->mask_rows = 0;
    BLOB_CHECK(node.softmax() || node.softmax_mask() < 0,
               "node %zu: a softmax mask without a softmax", index);
    bound->causal = node.causal();
    bound->causal_offset = node.causal_offset();
    BLOB_CHECK(!node.causal() || node.softmax_mask() < 0,
               "node %zu: a causal softmax with a mask argument as well", index);
    BLOB_CHECK(!node.softmax() || (bound->output_row_stride == bound->n &&
                                   bound->output_batch_stride == bound->m * bound->n),
               "node %zu: a softmax over strided output rows", index);
    if (node.softmax_mask() >= 0) {
      // m x n bytes shared by every batch, or one m x n mask per batch.
      const Tensor* mask = nullptr;
      TORCHIR_RETURN_IF_ERROR(
          ArgumentTensor(args, node.softmax_mask(), ScalarType::kBool, "mask", index, &mask));
      const uint64_t elements = static_cast<uint64_t>(mask->numel());
      BLOB_CHECK(elements == bound->m * bound->n || elements == out_elements,
                 "node %zu: mask argument %d has %lld elements, the node needs %llu or %llu", index,
                 node.softmax_mask(), static_cast<long long>(elements),
                 static_cast<unsigned long long>(bound->m * bound->n),
                 static_cast<unsigned long long>(out_elements));
      BLOB_CHECK(!Overlap(*output, *mask), "node %zu: output argument %d overlaps the mask", index,
                 node.output());
      bound->mask = mask->data_ptr<uint8_t>();
      bound->mask_rows = elements / bound->n;
    }
    return Error::kOk;
  }

  static Error BindLayerNorm(const fb::LayerNorm& node, size_t index, KernelArgs args,
                             BoundLayerNorm* bound) {
    bound->rows = node.rows();
    bound->cols = node.cols();
    bound->epsilon = node.epsilon();
    BLOB_CHECK(bound->rows >= 1 && bound->cols >= 1, "node %zu: a size is zero", index);
    BLOB_CHECK(bound->epsilon >= 0.0f, "node %zu: epsilon %g is negative or NaN", index,
               static_cast<double>(bound->epsilon));
    uint64_t elements;
    BLOB_CHECK(Multiply(bound->rows, bound->cols, &elements), "node %zu: sizes overflow", index);
    const Tensor* input = nullptr;
    const Tensor* output = nullptr;
    TORCHIR_RETURN_IF_ERROR(
        ActivationTensor(args, node.input(), "input", index, elements, bound->cols, &input));
    TORCHIR_RETURN_IF_ERROR(
        ActivationTensor(args, node.output(), "output", index, elements, bound->cols, &output));
    BLOB_CHECK(!output->is_constant(), "node %zu: output argument %d is a constant", index,
               node.output());
    // Each row is read whole before it is written: the same bytes are an in-place norm, any
    // other overlap reads rows already written.
    BLOB_CHECK(input->data() == output->data() || !Overlap(*output, *input),
               "node %zu: output argument %d overlaps input argument %d", index, node.output(),
               node.input());
    const float* affine[2] = {nullptr, nullptr};
    const int32_t affine_index[2] = {node.weight(), node.bias()};
    const char* affine_role[2] = {"weight", "bias"};
    for (size_t i = 0; i < 2; ++i) {
      if (affine_index[i] == -1) continue;
      const Tensor* tensor = nullptr;
      TORCHIR_RETURN_IF_ERROR(ActivationTensor(args, affine_index[i], affine_role[i], index,
                                               bound->cols, bound->cols, &tensor));
      BLOB_CHECK(!Overlap(*output, *tensor), "node %zu: output argument %d overlaps %s argument %d",
                 index, node.output(), affine_role[i], affine_index[i]);
      affine[i] = tensor->data_ptr<float>();
    }
    // Shared among the threads from kMinParallelElements, far less work than a product's
    // threshold. On encoder_small at 2 threads (torchir-run --profile, 3 alternated rounds) its
    // 9 layer norms of 128 x 256 took 0.114-0.117 ms on the calling thread, 0.067-0.073 ms
    // shared.
    bound->parallel = elements >= kMinParallelElements;
    bound->input = input->data_ptr<float>();
    bound->weight = affine[0];
    bound->bias = affine[1];
    bound->output = output->mutable_data_ptr<float>();
    return Error::kOk;
  }

  static Error BindPooling(const fb::Pooling& node, size_t index, KernelArgs args,
                           BoundPooling* bound) {
    BLOB_CHECK(node.kind() == fb::PoolingKind::Max || node.kind() == fb::PoolingKind::GlobalAverage,
               "node %zu: unknown pooling kind %u", index, static_cast<unsigned>(node.kind()));
    bound->global_average = node.kind() == fb::PoolingKind::GlobalAverage;
    ::torchir::native::Pool2dShape& shape = bound->shape;
    shape = ::torchir::native::GlobalPool2dShape(node.batch(), node.input_height(),
                                                 node.input_width(), node.channels());
    if (!bound->global_average) {
      shape.output_height = node.output_height();
      shape.output_width = node.output_width();
      shape.kernel_height = node.kernel_height();
      shape.kernel_width = node.kernel_width();
      shape.stride_height = node.stride_height();
      shape.stride_width = node.stride_width();
      shape.dilation_height = node.dilation_height();
      shape.dilation_width = node.dilation_width();
      shape.padding_top = node.padding_top();
      shape.padding_left = node.padding_left();
    }
    uint64_t input_elements, output_elements;
    BLOB_CHECK(::torchir::native::CheckPool2dShape(shape) == Error::kOk &&
                   Multiply(shape.batch, shape.input_height, &input_elements) &&
                   Multiply(input_elements, shape.input_width, &input_elements) &&
                   Multiply(input_elements, shape.channels, &input_elements) &&
                   Multiply(shape.batch, shape.output_height, &output_elements) &&
                   Multiply(output_elements, shape.output_width, &output_elements) &&
                   Multiply(output_elements, shape.channels, &output_elements),
               "node %zu: invalid pooling geometry", index);
    const Tensor* input = nullptr;
    const Tensor* output = nullptr;
    TORCHIR_RETURN_IF_ERROR(ActivationTensor(args, node.input(), "input", index, input_elements,
                                             shape.channels, &input));
    TORCHIR_RETURN_IF_ERROR(ActivationTensor(args, node.output(), "output", index, output_elements,
                                             shape.channels, &output));
    BLOB_CHECK(!output->is_constant(), "node %zu: output argument %d is a constant", index,
               node.output());
    BLOB_CHECK(!Overlap(*output, *input), "node %zu: output argument %d overlaps input argument %d",
               index, node.output(), node.input());
    // Memory's work, not arithmetic's: shared like a depthwise convolution, by what it reads.
    bound->parallel = input_elements >= kMinParallelElements * 4;
    bound->input = input->data_ptr<float>();
    bound->output = output->mutable_data_ptr<float>();
    return Error::kOk;
  }

  static Error BindChannelScale(const fb::ChannelScale& node, size_t index, KernelArgs args,
                                BoundChannelScale* bound) {
    uint64_t elements, scale_elements;
    BLOB_CHECK(
        node.batch() > 0 && node.pixels() > 0 && node.channels() > 0 &&
            Multiply(node.batch(), node.pixels(), &elements) &&
            Multiply(elements, node.channels(), &elements) &&
            Multiply(node.shared_scale() ? 1 : node.batch(), node.channels(), &scale_elements),
        "node %zu: invalid channel scale geometry", index);
    const Tensor* input = nullptr;
    const Tensor* scale = nullptr;
    const Tensor* output = nullptr;
    TORCHIR_RETURN_IF_ERROR(
        ActivationTensor(args, node.input(), "input", index, elements, node.channels(), &input));
    TORCHIR_RETURN_IF_ERROR(ActivationTensor(args, node.scale(), "scale", index, scale_elements,
                                             node.channels(), &scale));
    TORCHIR_RETURN_IF_ERROR(
        ActivationTensor(args, node.output(), "output", index, elements, node.channels(), &output));
    BLOB_CHECK(!output->is_constant(), "node %zu: output argument %d is a constant", index,
               node.output());
    // In place is fine (each element is read before it is written, by the same lane); any
    // other overlap is not.
    BLOB_CHECK(output->data() == input->data() || !Overlap(*output, *input),
               "node %zu: output argument %d overlaps input argument %d", index, node.output(),
               node.input());
    BLOB_CHECK(!Overlap(*output, *scale), "node %zu: output argument %d overlaps scale argument %d",
               index, node.output(), node.scale());
    bound->batch = node.batch();
    bound->pixels = node.pixels();
    bound->channels = node.channels();
    bound->scale_batch_stride = node.shared_scale() ? 0 : node.channels();
    // Memory's work, shared like a pooling, by what it reads.
    bound->parallel = elements >= kMinParallelElements * 4;
    bound->input = input->data_ptr<float>();
    bound->scale = scale->data_ptr<float>();
    bound->output = output->mutable_data_ptr<float>();
    return Error::kOk;
  }

  // Step 2 and 3 for one node.
  // An expansion and the depthwise node it feeds (`index`): the fused kernel's geometry, and its
  // output apart from its input (the expanded tensor between them is the kernel's own).
  static Error CheckFusedPair(const BoundConvolution& expand, const BoundConvolution& depthwise,
                              size_t index) {
    BLOB_CHECK(::torchir::native::CheckExpandDepthwise(
                   expand.shape, depthwise.shape, depthwise.depthwise ? 0 : depthwise.groups) ==
                   Error::kOk,
               "node %zu: not a depthwise or grouped convolution over the 1x1 expansion that "
               "feeds it (node %zu)",
               index, index - 1);
    const Convolution2dShape& e = expand.shape;
    const Convolution2dShape& d = depthwise.shape;
    const uintptr_t in = reinterpret_cast<uintptr_t>(expand.input);
    const uintptr_t out = reinterpret_cast<uintptr_t>(depthwise.output);
    // Both sizes passed CheckConvolution2dShape (no overflow in bytes).
    const size_t in_bytes =
        e.batch * e.input_height * e.input_width * e.input_channels * sizeof(float);
    const size_t out_bytes =
        d.batch * d.output_height() * d.output_width() * d.output_channels * sizeof(float);
    BLOB_CHECK(in + in_bytes <= out || out + out_bytes <= in,
               "node %zu: output overlaps the input of node %zu, which feeds it", index, index - 1);
    return Error::kOk;
  }

  static Error Bind(const fb::Convolution& node, size_t index, bool fed, KernelArgs args,
                    const GemmConfig& here, MemoryAllocator& allocator, BoundConvolution* bound) {
    Convolution2dShape& shape = bound->shape;
    shape = ::torchir::native::BlobConvolutionShape(node);
    BLOB_CHECK(::torchir::native::CheckConvolution2dShape(shape) == Error::kOk,
               "node %zu: invalid convolution geometry", index);
    bound->depthwise = node.depthwise();
    bound->winograd = node.winograd();
    BLOB_CHECK(!bound->winograd || (!bound->depthwise && ::torchir::native::WinogradApplies(shape)),
               "node %zu: Winograd on a convolution that is not 3x3, stride 1, dilation 1", index);
    BLOB_CHECK(!bound->depthwise || shape.input_channels == shape.output_channels,
               "node %zu: a depthwise convolution with %zu input and %zu output channels", index,
               shape.input_channels, shape.output_channels);
    // Blobs written before grouped convolutions hold 0: ungrouped.
    bound->groups = node.groups() == 0 ? 1 : node.groups();
    bound->group_weights = nullptr;
    BLOB_CHECK(bound->groups == 1 || (!bound->depthwise && bound->groups <= shape.input_channels &&
                                      shape.input_channels % bound->groups == 0 &&
                                      shape.output_channels % bound->groups == 0),
               "node %zu: %zu groups do not divide %zu input and %zu output channels%s", index,
               bound->groups, shape.input_channels, shape.output_channels,
               bound->depthwise ? " (or the node is depthwise)" : "");
    BLOB_CHECK(!bound->winograd || ::torchir::native::WinogradTileSupported(node.winograd_tile()),
               "node %zu: Winograd output tile %u (2 or 4 expected)", index,
               static_cast<unsigned>(node.winograd_tile()));
    const uint64_t in_channels = shape.input_channels, out_channels = shape.output_channels;
    uint64_t input_elements, output_elements, kernel_rows;
    BLOB_CHECK(Multiply(shape.batch, shape.input_height, &input_elements) &&
                   Multiply(input_elements, shape.input_width, &input_elements) &&
                   Multiply(input_elements, in_channels, &input_elements) &&
                   Multiply(shape.batch, shape.output_height(), &output_elements) &&
                   Multiply(output_elements, shape.output_width(), &output_elements) &&
                   Multiply(output_elements, out_channels, &output_elements) &&
                   Multiply(shape.kernel_height, shape.kernel_width, &kernel_rows) &&
                   Multiply(kernel_rows, in_channels / bound->groups, &kernel_rows),
               "node %zu: sizes overflow", index);

    bound->feeds_next = node.feeds_next();
    BLOB_CHECK(!bound->feeds_next || (!bound->depthwise && !bound->winograd && bound->groups == 1 &&
                                      node.output() == -1 && node.residual() == -1),
               "node %zu: feeds the next node, so it must be an ungrouped convolution without an "
               "output or residual argument",
               index);
    BLOB_CHECK(!fed || ((bound->depthwise || (bound->groups > 1 && !bound->winograd)) &&
                        node.input() == -1 && node.residual() == -1),
               "node %zu: fed by node %zu, so it must be depthwise or grouped, without an input or "
               "residual argument",
               index, index - 1);
    BLOB_CHECK(!shape.input_channels_first ||
                   (!bound->depthwise && !bound->winograd && !bound->feeds_next && !fed),
               "node %zu: an NCHW input on a depthwise, Winograd or fused convolution", index);
    const Tensor* input = nullptr;
    const Tensor* output = nullptr;
    if (!fed) {
      if (shape.input_channels_first) {
        TORCHIR_RETURN_IF_ERROR(
            ArgumentTensor(args, node.input(), ScalarType::kFloat32, "input", index, &input));
        const auto size = [input](size_t d) { return static_cast<uint64_t>(input->size(d)); };
        BLOB_CHECK(input->dim() == 4 && size(0) == shape.batch && size(1) == in_channels &&
                       size(2) == shape.input_height && size(3) == shape.input_width,
                   "node %zu: input argument %d is not [%zu, %llu, %zu, %zu] (NCHW)", index,
                   node.input(), shape.batch, static_cast<unsigned long long>(in_channels),
                   shape.input_height, shape.input_width);
      } else {
        TORCHIR_RETURN_IF_ERROR(ActivationTensor(args, node.input(), "input", index, input_elements,
                                                 in_channels, &input));
      }
    }
    if (!bound->feeds_next) {
      TORCHIR_RETURN_IF_ERROR(ActivationTensor(args, node.output(), "output", index,
                                               output_elements, out_channels, &output));
      BLOB_CHECK(!output->is_constant(), "node %zu: output argument %d is a constant", index,
                 node.output());
    }
    // The kernels write the output while they read the input (in blocks, on several threads).
    BLOB_CHECK(input == nullptr || output == nullptr || !Overlap(*output, *input),
               "node %zu: output argument %d overlaps input argument %d", index, node.output(),
               node.input());
    const Tensor* weights = nullptr;
    TORCHIR_RETURN_IF_ERROR(
        ArgumentTensor(args, node.weights(), ScalarType::kUInt8, "weights", index, &weights));
    // Checked once here and read in place at every run: bytes in an arena could change after.
    BLOB_CHECK(weights->is_constant(), "node %zu: weights argument %d is not a constant", index,
               node.weights());
    // A uint8 constant may start at any byte; the kernels read the packed floats in place.
    BLOB_CHECK(reinterpret_cast<uintptr_t>(weights->data()) % alignof(float) == 0,
               "node %zu: weights argument %d is not %zu-byte aligned", index, node.weights(),
               alignof(float));
    NoteUnalignedWeights(weights->data());
    if (bound->winograd) {
      const Error view = ::torchir::native::ViewPackedWinograd(
          weights->data_ptr<uint8_t>(), weights->nbytes(), &bound->winograd_weights);
      BLOB_CHECK(view == Error::kOk, "node %zu: the packed Winograd weights are invalid (%s)",
                 index, ErrorName(view));
      const PackedWinograd& packed = bound->winograd_weights;
      BLOB_CHECK(packed.input_channels == in_channels && packed.output_channels == out_channels,
                 "node %zu: Winograd weights are for %zu -> %zu channels, the node needs %llu -> "
                 "%llu",
                 index, packed.input_channels, packed.output_channels,
                 static_cast<unsigned long long>(in_channels),
                 static_cast<unsigned long long>(out_channels));
      BLOB_CHECK(packed.groups == bound->groups,
                 "node %zu: Winograd weights for %zu group(s), the node has %zu", index,
                 packed.groups, bound->groups);
      // The scratch was planned for the blob's tile.
      BLOB_CHECK(packed.output_tile == node.winograd_tile(),
                 "node %zu: Winograd weights of output tile %zu, the node says %u", index,
                 packed.output_tile, static_cast<unsigned>(node.winograd_tile()));
      TORCHIR_RETURN_IF_ERROR(
          RepackWinogradIfNeeded(index, here, allocator, &bound->winograd_weights));
    } else if (bound->depthwise) {
      const Error view = ::torchir::native::ViewPackedDepthwise(
          weights->data_ptr<uint8_t>(), weights->nbytes(), &bound->depthwise_weights);
      BLOB_CHECK(view == Error::kOk, "node %zu: the packed depthwise weights are invalid (%s)",
                 index, ErrorName(view));
      const PackedDepthwise& packed = bound->depthwise_weights;
      BLOB_CHECK(packed.kernel_height == shape.kernel_height &&
                     packed.kernel_width == shape.kernel_width && packed.channels == in_channels,
                 "node %zu: depthwise weights are %zux%zu over %zu channels, the node needs "
                 "%zux%zu over %llu",
                 index, packed.kernel_height, packed.kernel_width, packed.channels,
                 shape.kernel_height, shape.kernel_width,
                 static_cast<unsigned long long>(in_channels));
      kernel_rows = shape.kernel_height * shape.kernel_width;  // MACs per output element
    } else if (bound->groups > 1) {
      bound->group_weights = allocator.AllocateArray<PackedB>(bound->groups);
      TORCHIR_CHECK_OR_RETURN(bound->group_weights != nullptr, Error::kOutOfMemory,
                              "NativeBackend: out of memory for node %zu's %zu groups", index,
                              bound->groups);
      const Error view = ::torchir::native::ViewPackedGroupedWeights(
          weights->data_ptr<uint8_t>(), weights->nbytes(), shape, bound->groups,
          bound->group_weights);
      BLOB_CHECK(view == Error::kOk,
                 "node %zu: the packed weights of %zu groups are invalid or not %llu x %llu each "
                 "(%s)",
                 index, bound->groups, static_cast<unsigned long long>(kernel_rows),
                 static_cast<unsigned long long>(out_channels / bound->groups), ErrorName(view));
      for (size_t g = 0; g < bound->groups; ++g) {
        TORCHIR_RETURN_IF_ERROR(RepackIfNeeded(index, here, out_channels / bound->groups, allocator,
                                               &bound->group_weights[g]));
      }
    } else {
      const Error view = ::torchir::native::ViewPackedB(weights->data_ptr<uint8_t>(),
                                                        weights->nbytes(), &bound->weights);
      BLOB_CHECK(view == Error::kOk, "node %zu: the packed weights are invalid (%s)", index,
                 ErrorName(view));
      BLOB_CHECK(bound->weights.k == kernel_rows && bound->weights.n == out_channels,
                 "node %zu: weights are %zu x %zu, the node needs %llu x %llu", index,
                 bound->weights.k, bound->weights.n, static_cast<unsigned long long>(kernel_rows),
                 static_cast<unsigned long long>(out_channels));
      TORCHIR_RETURN_IF_ERROR(
          RepackIfNeeded(index, here, /*group_output_channels=*/0, allocator, &bound->weights));
    }
    bound->bias = nullptr;
    if (node.bias() != -1) {
      const Tensor* bias = nullptr;
      TORCHIR_RETURN_IF_ERROR(
          ActivationTensor(args, node.bias(), "bias", index, out_channels, out_channels, &bias));
      BLOB_CHECK(output == nullptr || !Overlap(*output, *bias),
                 "node %zu: output argument %d overlaps bias argument %d", index, node.output(),
                 node.bias());
      bound->bias = bias->data_ptr<float>();
    }
    Epilogue epilogue;
    switch (node.activation()) {
      case fb::Activation::None:
        epilogue.activation = Activation::kNone;
        break;
      case fb::Activation::Relu:
        epilogue.activation = Activation::kRelu;
        break;
      case fb::Activation::Clamp:
        BLOB_CHECK(node.output_min() <= node.output_max(), "node %zu: empty clamp range", index);
        epilogue.activation = Activation::kClamp;
        epilogue.min = node.output_min();
        epilogue.max = node.output_max();
        break;
      case fb::Activation::Gelu:
        epilogue.activation = Activation::kGelu;
        break;
      case fb::Activation::GeluTanh:
        epilogue.activation = Activation::kGeluTanh;
        break;
      case fb::Activation::Hardswish:
        epilogue.activation = Activation::kHardswish;
        break;
      case fb::Activation::Silu:
        epilogue.activation = Activation::kSilu;
        break;
      case fb::Activation::Sigmoid:
        epilogue.activation = Activation::kSigmoid;
        break;
      case fb::Activation::Hardsigmoid:
        epilogue.activation = Activation::kHardsigmoid;
        break;
      default:
        BLOB_CHECK(false, "node %zu: unknown activation %u", index,
                   static_cast<unsigned>(node.activation()));
    }
    if (node.residual() != -1) {
      const Tensor* residual = nullptr;
      TORCHIR_RETURN_IF_ERROR(ActivationTensor(args, node.residual(), "residual", index,
                                               output_elements, out_channels, &residual));
      // Each tile reads its residual before it writes the output: the same bytes are an
      // in-place add, any other overlap reads rows already written.
      BLOB_CHECK(residual->data() == output->data() || !Overlap(*output, *residual),
                 "node %zu: output argument %d overlaps residual argument %d", index, node.output(),
                 node.residual());
      epilogue.residual = residual->data_ptr<float>();
      epilogue.residual_stride = out_channels;
    }
    uint64_t macs;
    bound->parallel =
        bound->depthwise
            ? output_elements >= kMinParallelElements
            : (Multiply(output_elements, kernel_rows, &macs) ? macs >= kMinParallelMacs : true) ||
                  weights->nbytes() >= kMinParallelWeightBytes;
    bound->epilogue = epilogue;
    bound->input = input != nullptr ? input->data_ptr<float>() : nullptr;
    bound->output = output != nullptr ? output->mutable_data_ptr<float>() : nullptr;
    return Error::kOk;
  }

  // Segments are 64-byte aligned inside a .pte, so packed weights are too wherever the program
  // starts on a 64-byte boundary (a mapped file does). From a buffer that does not, every vector
  // load of a panel crosses a cache line: correct, but slower (16 bytes off: mobilenet_v2 took
  // 1.01-1.05x its time at 1 thread on Zen 4, resnet50 about the same). Said once per process.
  static void NoteUnalignedWeights(const void* data) {
    if (reinterpret_cast<uintptr_t>(data) % ::torchir::native::kPackedBAlignment == 0) return;
    static std::atomic<bool> said{false};
    if (!said.exchange(true)) {
      Log(LogLevel::kInfo,
          "NativeBackend: packed weights at %p are not %zu-byte aligned, so the kernels read "
          "them more slowly: load the program from a %zu-byte aligned buffer, or map the file",
          data, ::torchir::native::kPackedBAlignment, ::torchir::native::kPackedBAlignment);
    }
  }

  // Step 3: weights packed for another blocking than this CPU's are unpacked and packed
  // again, once, into the Method's memory. `here` is this CPU's blocking. A grouped filter
  // (group_output_channels > 0) runs from any panel width IsGroupPanelWidth accepts and is
  // repacked to GroupPanelWidth; any other filter needs `here` exactly.
  static Error RepackIfNeeded(size_t index, const GemmConfig& here, size_t group_output_channels,
                              MemoryAllocator& allocator, PackedB* weights) {
    const ::torchir::native::KernelTarget target = here.target;
    const bool width =
        group_output_channels == 0
            ? here.nr == weights->config.nr
            : ::torchir::native::IsGroupPanelWidth(here, group_output_channels, weights->config.nr);
    if (here.kc == weights->config.kc && width) return Error::kOk;
    // Said once per process: every delegate of such a program repacks.
    static std::atomic<bool> said{false};
    if (!said.exchange(true)) {
      Log(LogLevel::kInfo,
          "NativeBackend: weights packed for %s, this CPU runs %s kernels: repacking them at "
          "init (compile with --target %s to avoid it)",
          ::torchir::native::KernelTargetName(weights->config.target),
          ::torchir::native::KernelTargetName(target), ::torchir::native::KernelTargetName(target));
    }
    std::unique_ptr<float[]> plain(new (std::nothrow) float[weights->k * weights->n]);
    TORCHIR_CHECK_OR_RETURN(plain != nullptr, Error::kOutOfMemory,
                            "NativeBackend: out of memory repacking node %zu", index);
    TORCHIR_RETURN_IF_ERROR(::torchir::native::UnpackB(*weights, plain.get(), weights->n));
    GemmConfig packing = here;
    if (group_output_channels != 0) {
      packing.nr = ::torchir::native::GroupPanelWidth(here, group_output_channels);
    }
    const size_t bytes = ::torchir::native::PackedBBytes(packing, weights->k, weights->n);
    void* packed = allocator.Allocate(bytes, ::torchir::native::kPackedBAlignment);
    TORCHIR_CHECK_OR_RETURN(packed != nullptr, Error::kOutOfMemory,
                            "NativeBackend: out of memory repacking node %zu", index);
    TORCHIR_RETURN_IF_ERROR(::torchir::native::PackB(packing, weights->k, weights->n, plain.get(),
                                                     weights->n, packed, bytes));
    return ::torchir::native::ViewPackedB(packed, bytes, weights);
  }

  // Step 3 for Winograd weights: each of the 36 matrices unpacked and packed again, once.
  static Error RepackWinogradIfNeeded(size_t index, const GemmConfig& here,
                                      MemoryAllocator& allocator, PackedWinograd* weights) {
    if (here.nr == weights->config.nr && here.kc == weights->config.kc) return Error::kOk;
    static std::atomic<bool> said{false};
    if (!said.exchange(true)) {
      Log(LogLevel::kInfo,
          "NativeBackend: Winograd weights packed for %s, this CPU runs %s kernels: repacking "
          "them at init (compile with --target %s to avoid it)",
          ::torchir::native::KernelTargetName(weights->config.target),
          ::torchir::native::KernelTargetName(here.target),
          ::torchir::native::KernelTargetName(here.target));
    }
    std::unique_ptr<float[]> plain(
        new (std::nothrow) float[weights->input_channels * weights->output_channels]);
    const size_t bytes = ::torchir::native::RepackedWinogradBytes(*weights, here);
    void* packed =
        bytes == 0 ? nullptr : allocator.Allocate(bytes, ::torchir::native::kPackedBAlignment);
    TORCHIR_CHECK_OR_RETURN(plain != nullptr && packed != nullptr, Error::kOutOfMemory,
                            "NativeBackend: out of memory repacking node %zu", index);
    TORCHIR_RETURN_IF_ERROR(
        ::torchir::native::RepackWinogradWeights(*weights, here, plain.get(), packed, bytes));
    return ::torchir::native::ViewPackedWinograd(packed, bytes, weights);
  }

  std::mutex mutex_;
  uint32_t num_threads_ = 1;
};

// The backend is never destroyed: the registry points at it, and a Method that outlives
// static destruction (a global) still calls Destroy.
alignas(NativeBackend) unsigned char g_backend_storage[sizeof(NativeBackend)];
NativeBackend* g_backend = nullptr;

}  // namespace

Error RegisterNativeBackend(const NativeOptions& options) {
  TORCHIR_CHECK_OR_RETURN(options.num_threads >= 1, Error::kInvalidArgument,
                          "NativeBackend: num_threads must be at least 1");
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  if (g_backend == nullptr) {
    NativeBackend* backend = new (g_backend_storage) NativeBackend();
    const Error error = RegisterBackend(kNativeBackendId, backend);
    if (error != Error::kOk) {
      backend->~NativeBackend();
      return error;
    }
    g_backend = backend;
  }
  g_backend->SetNumThreads(options.num_threads);
  return Error::kOk;
}

Error LimitNativeKernels(const char* widest) {
  ::torchir::native::KernelTarget target;
  // Not logged: the caller names its own flag or setting (NativeKernelNames lists the names).
  if (!::torchir::native::KernelTargetFromName(widest, &target)) return Error::kInvalidArgument;
  return ::torchir::native::LimitKernelTarget(target, nullptr);
}

const char* NativeKernelNames() { return ::torchir::native::KernelTargetNameList(); }

const char* NativeKernelsInUse() {
  return ::torchir::native::KernelTargetName(::torchir::native::CurrentKernelTarget());
}

}  // namespace torchir::runtime::native
