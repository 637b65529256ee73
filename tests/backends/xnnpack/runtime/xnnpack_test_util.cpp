#include "tests/backends/xnnpack/runtime/xnnpack_test_util.h"

#include <xnnpack.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>

#include "backends/xnnpack/runtime/xnnpack_backend.h"
#include "backends/xnnpack/serialization/xnnpack_blob_generated.h"
#include "flatbuffers/flatbuffers.h"
#include "runtime/backend/backend.h"
#include "runtime/kernel/kernel_registry.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/platform/platform.h"

namespace torchir::testing::xnnpack {

namespace fb = ::torchir::xnnpack;
using runtime::Error;

uint32_t BlobGraph::Value(std::vector<uint64_t> dims, int32_t argument, bool is_output) {
  values.push_back(BlobValue{std::move(dims), argument, is_output, {}});
  return static_cast<uint32_t>(values.size() - 1);
}

uint32_t BlobGraph::Constant(std::vector<uint64_t> dims, std::vector<float> data) {
  values.push_back(BlobValue{std::move(dims), -1, false, std::move(data)});
  return static_cast<uint32_t>(values.size() - 1);
}

BlobNode& BlobGraph::Node(std::string op, std::vector<uint32_t> inputs, uint32_t output,
                          std::vector<int64_t> ints, std::vector<double> floats) {
  nodes.push_back(
      BlobNode{std::move(op), std::move(inputs), {output}, std::move(ints), std::move(floats)});
  return nodes.back();
}

std::vector<uint8_t> Serialize(const BlobGraph& graph) {
  flatbuffers::FlatBufferBuilder builder;
  builder.ForceDefaults(true);
  std::vector<flatbuffers::Offset<fb::Value>> values;
  int64_t num_arguments = 0;
  for (const BlobValue& v : graph.values) {
    values.push_back(fb::CreateValueDirect(builder, &v.dims, v.argument, v.is_output,
                                           v.data.empty() ? nullptr : &v.data));
    if (v.argument + 1 > num_arguments) num_arguments = v.argument + 1;
  }
  std::vector<flatbuffers::Offset<fb::Node>> nodes;
  for (const BlobNode& n : graph.nodes) {
    nodes.push_back(
        fb::CreateNodeDirect(builder, n.op.c_str(), &n.inputs, &n.outputs, &n.ints, &n.floats));
  }
  if (graph.num_arguments >= 0) num_arguments = graph.num_arguments;
  std::vector<flatbuffers::Offset<flatbuffers::String>> source_ops;
  auto root = fb::CreateGraphDirect(builder, graph.version, &values, &nodes,
                                    static_cast<uint32_t>(num_arguments), &source_ops, 0);
  fb::FinishGraphBuffer(builder, root);
  return std::vector<uint8_t>(builder.GetBufferPointer(),
                              builder.GetBufferPointer() + builder.GetSize());
}

AlignedBytes::AlignedBytes(const std::vector<uint8_t>& bytes)
    : storage_(new Line[bytes.size() / 64 + 2]()), size_(bytes.size()) {
  if (!bytes.empty()) std::memcpy(storage_.get(), bytes.data(), bytes.size());
}

size_t DelegateArgs::Add(std::vector<int64_t> sizes, std::vector<float> values, bool constant) {
  const size_t index = AddTyped(std::move(sizes), runtime::ScalarType::kFloat32);
  Item& item = *items_[index];
  item.tensor.set_constant(constant);
  if (!values.empty()) Set(index, values);
  return index;
}

size_t DelegateArgs::AddTyped(std::vector<int64_t> sizes, runtime::ScalarType type,
                              std::vector<uint8_t> dim_order) {
  auto item = std::make_unique<Item>();
  item->sizes = std::move(sizes);
  item->dim_order = std::move(dim_order);
  size_t numel = 1;
  for (int64_t s : item->sizes) numel *= static_cast<size_t>(s);
  const size_t bytes = numel * runtime::ElementSize(type) + XNN_EXTRA_BYTES;
  item->storage.reset(new uint64_t[bytes / 8 + 1]());
  item->tensor =
      runtime::Tensor(type, runtime::Span<const int64_t>(item->sizes.data(), item->sizes.size()),
                      runtime::Span<const uint8_t>(item->dim_order.data(), item->dim_order.size()),
                      item->storage.get());
  item->value = runtime::EValue::FromTensor(&item->tensor);
  items_.push_back(std::move(item));
  pointers_.push_back(&items_.back()->value);
  return items_.size() - 1;
}

size_t DelegateArgs::AddInt(int64_t value) {
  auto item = std::make_unique<Item>();
  item->value = runtime::EValue::FromInt(value);
  items_.push_back(std::move(item));
  pointers_.push_back(&items_.back()->value);
  return items_.size() - 1;
}

runtime::KernelArgs DelegateArgs::args() const {
  return runtime::KernelArgs(pointers_.data(), pointers_.size());
}

std::vector<float> DelegateArgs::Values(size_t i) const {
  const runtime::Tensor& t = items_[i]->tensor;
  const float* data = t.data_ptr<float>();
  return std::vector<float>(data, data + t.numel());
}

void DelegateArgs::Set(size_t i, const std::vector<float>& values) {
  runtime::Tensor& t = items_[i]->tensor;
  if (values.size() != static_cast<size_t>(t.numel())) std::abort();  // a broken test
  std::memcpy(t.mutable_data(), values.data(), values.size() * sizeof(float));
}

void SetUpBackends(uint32_t num_threads) {
  if (std::getenv("TORCHIR_TEST_LOG") == nullptr) {
    runtime::SetLogHook([](runtime::LogLevel, const char*) {});
  }
  if (runtime::xnnpack::RegisterXnnpackBackend({num_threads}) != Error::kOk) std::abort();
  if (runtime::portable::RegisterPortableKernels() != Error::kOk) std::abort();
}

Error RunDelegate(const BlobGraph& blob, DelegateArgs& args, int runs) {
  return RunDelegateBytes(Serialize(blob), args, runs);
}

Error RunDelegateBytes(const std::vector<uint8_t>& blob, DelegateArgs& args, int runs) {
  runtime::MallocAllocator allocator;
  return RunDelegateBytes(blob, args, allocator, runs);
}

Error RunDelegateBytes(const std::vector<uint8_t>& blob, DelegateArgs& args,
                       runtime::MemoryAllocator& allocator, int runs) {
  runtime::Backend* backend = runtime::FindBackend(
      runtime::xnnpack::kXnnpackBackendId, std::strlen(runtime::xnnpack::kXnnpackBackendId));
  if (backend == nullptr) return Error::kBackendNotFound;
  AlignedBytes bytes(blob);
  runtime::Result<void*> handle =
      backend->Init(runtime::Span<const uint8_t>(bytes.data(), bytes.size()),
                    runtime::Span<const runtime::CompileSpecView>(), args.args(), allocator);
  if (!handle.ok()) return handle.error();
  Error error = Error::kOk;
  for (int i = 0; i < runs && error == Error::kOk; ++i) {
    error = backend->Execute(handle.get(), args.args());
  }
  backend->Destroy(handle.get());
  return error;
}

Error RunPortable(const char* name, const std::vector<KernelArg>& args, DelegateArgs& tensors) {
  const runtime::Kernel* kernel = runtime::FindKernel(name, std::strlen(name));
  if (kernel == nullptr) return Error::kKernelNotFound;
  std::vector<runtime::EValue> values(args.size());
  std::vector<runtime::EValue*> pointers;
  for (size_t i = 0; i < args.size(); ++i) {
    const KernelArg& a = args[i];
    switch (a.kind) {
      case KernelArg::Kind::kTensor:
        values[i] = runtime::EValue::FromTensor(&tensors.tensor(a.tensor));
        break;
      case KernelArg::Kind::kNone:
        break;
      case KernelArg::Kind::kInt:
        values[i] = runtime::EValue::FromInt(a.i);
        break;
      case KernelArg::Kind::kDouble:
        values[i] = runtime::EValue::FromDouble(a.d);
        break;
      case KernelArg::Kind::kBool:
        values[i] = runtime::EValue::FromBool(a.i != 0);
        break;
      case KernelArg::Kind::kIntList:
        values[i] = runtime::EValue::FromIntList(
            runtime::Span<const int64_t>(a.ints.data(), a.ints.size()));
        break;
    }
    pointers.push_back(&values[i]);
  }
  runtime::KernelArgs kernel_args(pointers.data(), pointers.size());
  const Error checked = kernel->check(kernel_args);
  if (checked != Error::kOk) return checked;
  runtime::KernelContext context;
  return kernel->run(context, kernel_args);
}

std::vector<float> RandomFloats(size_t count, uint32_t seed, float low, float high) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(low, high);
  std::vector<float> values(count);
  for (float& v : values) v = dist(rng);
  return values;
}

std::vector<float> NchwToNhwc(const std::vector<float>& x, int64_t n, int64_t c, int64_t h,
                              int64_t w) {
  std::vector<float> y(x.size());
  for (int64_t in = 0; in < n; ++in)
    for (int64_t ic = 0; ic < c; ++ic)
      for (int64_t ih = 0; ih < h; ++ih)
        for (int64_t iw = 0; iw < w; ++iw)
          y[((in * h + ih) * w + iw) * c + ic] = x[((in * c + ic) * h + ih) * w + iw];
  return y;
}

std::vector<float> NhwcToNchw(const std::vector<float>& x, int64_t n, int64_t h, int64_t w,
                              int64_t c) {
  std::vector<float> y(x.size());
  for (int64_t in = 0; in < n; ++in)
    for (int64_t ic = 0; ic < c; ++ic)
      for (int64_t ih = 0; ih < h; ++ih)
        for (int64_t iw = 0; iw < w; ++iw)
          y[((in * c + ic) * h + ih) * w + iw] = x[((in * h + ih) * w + iw) * c + ic];
  return y;
}

std::vector<float> OihwToOhwi(const std::vector<float>& x, int64_t o, int64_t i, int64_t kh,
                              int64_t kw) {
  // The same permutation as NCHW -> NHWC with O as the batch.
  return NchwToNhwc(x, o, i, kh, kw);
}

std::vector<float> DepthwiseFilter(const std::vector<float>& x, int64_t channels, int64_t kh,
                                   int64_t kw) {
  std::vector<float> y(x.size());
  for (int64_t c = 0; c < channels; ++c)
    for (int64_t ih = 0; ih < kh; ++ih)
      for (int64_t iw = 0; iw < kw; ++iw)
        y[(ih * kw + iw) * channels + c] = x[(c * kh + ih) * kw + iw];
  return y;
}

float MaxAbsDiff(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return std::numeric_limits<float>::infinity();
  float worst = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const float d = std::fabs(a[i] - b[i]);
    if (!(d <= worst)) worst = d;  // NaN propagates
  }
  return worst;
}

}  // namespace torchir::testing::xnnpack
