#include "benchmarks/libtorch_layers.h"

#include <ATen/native/ConvUtils.h>
#include <torch/torch.h>

#include <cstdint>
#include <utility>

#include "benchmarks/openblas_threads.h"

namespace torchir::benchmarks {
namespace {

std::string BackendName(at::native::ConvBackend backend) {
  using at::native::ConvBackend;
  switch (backend) {
    case ConvBackend::Mkldnn:
      return "mkldnn";
    case ConvBackend::Slow2d:
      return "slow2d";
    case ConvBackend::SlowDilated2d:
      return "slow_dilated2d";
    case ConvBackend::Xnnpack2d:
      return "xnnpack2d";
    case ConvBackend::NnpackSpatial:
      return "nnpack";
    case ConvBackend::Winograd3x3Depthwise:
      return "winograd3x3_depthwise";
    default:
      return "other";
  }
}

}  // namespace

struct LibTorchConvolution::Impl {
  torch::Tensor input, weight, bias;
  int64_t stride, pad, groups;
  Path path;
  torch::Tensor output;
  std::string backend;
};

namespace {

// The prepacked path's operands in place of the eager ones: the input in the blocked layout a
// oneDNN convolution outputs, the weights reordered for this layer, the bias a oneDNN tensor (as
// torch.utils.mkldnn's MkldnnConv2d keeps them).
void PrepackForOneDnn(torch::Tensor* input, torch::Tensor* weight, torch::Tensor* bias,
                      int64_t stride, int64_t pad, int64_t groups) {
  const int64_t cin = input->size(1);
  torch::Tensor blocked = input->contiguous().to_mkldnn();
  if (cin > 3) {
    const torch::Tensor identity = at::mkldnn_reorder_conv2d_weight(
        torch::eye(cin).reshape({cin, cin, 1, 1}).contiguous().to_mkldnn(), {0, 0}, {1, 1}, {1, 1},
        1);
    blocked = at::mkldnn_convolution(blocked, identity, c10::nullopt, {0, 0}, {1, 1}, {1, 1}, 1);
  }
  *input = blocked;
  *weight = at::mkldnn_reorder_conv2d_weight(weight->contiguous().to_mkldnn(), {pad, pad},
                                             {stride, stride}, {1, 1}, groups);
  *bias = bias->to_mkldnn();
}

}  // namespace

std::unique_ptr<LibTorchConvolution> LibTorchConvolution::Create(const TorchConvolutionShape& shape,
                                                                 std::string* error, Path path) {
  try {
    at::set_num_threads(1);
    SetOpenBlasThreads(1);  // the slow2d path's GEMM, and at::linear's
    torch::manual_seed(0);
    auto impl = std::make_unique<Impl>();
    const int64_t size = static_cast<int64_t>(shape.size);
    const int64_t cin = static_cast<int64_t>(shape.input_channels);
    const int64_t cout = static_cast<int64_t>(shape.output_channels);
    const int64_t kernel = static_cast<int64_t>(shape.kernel);
    impl->groups = static_cast<int64_t>(shape.groups);
    impl->stride = static_cast<int64_t>(shape.stride);
    impl->pad = static_cast<int64_t>(shape.pad);
    impl->input = torch::randn({1, cin, size, size}).contiguous(at::MemoryFormat::ChannelsLast);
    impl->weight = torch::randn({cout, cin / impl->groups, kernel, kernel})
                       .contiguous(at::MemoryFormat::ChannelsLast);
    impl->bias = torch::randn({cout});
    impl->path = path;
    c10::InferenceMode guard;
    impl->backend = BackendName(at::native::select_conv_backend(
        impl->input, impl->weight, impl->bias, {impl->stride, impl->stride}, {impl->pad, impl->pad},
        {1, 1}, /*transposed=*/false, {0, 0}, impl->groups));
    torch::Tensor expected;
    if (path == Path::kOneDnnPrepacked) {
      impl->backend = "mkldnn_prepacked";
      expected = at::conv2d(impl->input, impl->weight, impl->bias, {impl->stride, impl->stride},
                            {impl->pad, impl->pad}, {1, 1}, impl->groups);
      PrepackForOneDnn(&impl->input, &impl->weight, &impl->bias, impl->stride, impl->pad,
                       impl->groups);
    }
    std::unique_ptr<LibTorchConvolution> convolution(new LibTorchConvolution(std::move(impl)));
    convolution->Run();
    if (path == Path::kOneDnnPrepacked) {
      const torch::Tensor got = convolution->impl_->output.to_dense();
      const double scale = expected.abs().max().item<double>() + 1.0;
      const double difference = (got - expected).abs().max().item<double>();
      if (!(difference <= 1e-4 * scale)) {
        *error = "the prepacked oneDNN convolution differs from at::conv2d by " +
                 std::to_string(difference);
        return nullptr;
      }
    }
    return convolution;
  } catch (const std::exception& e) {
    *error = e.what();
    return nullptr;
  }
}

LibTorchConvolution::LibTorchConvolution(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
LibTorchConvolution::~LibTorchConvolution() = default;

void LibTorchConvolution::Run() {
  c10::InferenceMode guard;
  if (impl_->path == Path::kOneDnnPrepacked) {
    impl_->output =
        at::mkldnn_convolution(impl_->input, impl_->weight, impl_->bias, {impl_->pad, impl_->pad},
                               {impl_->stride, impl_->stride}, {1, 1}, impl_->groups);
    return;
  }
  impl_->output =
      at::conv2d(impl_->input, impl_->weight, impl_->bias, {impl_->stride, impl_->stride},
                 {impl_->pad, impl_->pad}, {1, 1}, impl_->groups);
}

const std::string& LibTorchConvolution::backend() const { return impl_->backend; }

struct LibTorchLinear::Impl {
  torch::Tensor input, weight, bias, output;
};

std::unique_ptr<LibTorchLinear> LibTorchLinear::Create(size_t m, size_t n, size_t k,
                                                       std::string* error) {
  try {
    at::set_num_threads(1);
    SetOpenBlasThreads(1);  // the slow2d path's GEMM, and at::linear's
    torch::manual_seed(0);
    auto impl = std::make_unique<Impl>();
    impl->input = torch::randn({static_cast<int64_t>(m), static_cast<int64_t>(k)});
    impl->weight = torch::randn({static_cast<int64_t>(n), static_cast<int64_t>(k)});
    impl->bias = torch::randn({static_cast<int64_t>(n)});
    std::unique_ptr<LibTorchLinear> linear(new LibTorchLinear(std::move(impl)));
    linear->Run();
    return linear;
  } catch (const std::exception& e) {
    *error = e.what();
    return nullptr;
  }
}

LibTorchLinear::LibTorchLinear(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
LibTorchLinear::~LibTorchLinear() = default;

void LibTorchLinear::Run() {
  c10::InferenceMode guard;
  impl_->output = at::linear(impl_->input, impl_->weight, impl_->bias);
}

}  // namespace torchir::benchmarks
