#include "benchmarks/libtorch_models.h"

#include <dlfcn.h>
#include <torch/csrc/jit/mobile/import.h>
#include <torch/csrc/jit/mobile/module.h>
#include <torch/script.h>
#include <torch/torch.h>

#include <chrono>
#include <fstream>
#include <optional>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "benchmarks/openblas_threads.h"

namespace torchir::benchmarks {
namespace {

using reference::HostTensor;

absl::StatusOr<c10::ScalarType> ToScalarType(ir::DType dtype) {
  // The compiler already maps PyTorch's numbering; search it rather than keep a second table.
  for (int i = 0; i < static_cast<int>(c10::ScalarType::NumOptions); ++i) {
    if (ir::DTypeFromTorchScalarType(i) == dtype) return static_cast<c10::ScalarType>(i);
  }
  return absl::InvalidArgumentError(
      absl::StrCat("no LibTorch dtype for ", std::string(ir::DTypeName(dtype))));
}

absl::StatusOr<at::Tensor> ToTorch(const HostTensor& tensor) {
  absl::StatusOr<c10::ScalarType> type = ToScalarType(tensor.type.dtype);
  if (!type.ok()) return type.status();
  if (!tensor.HasConsistentSize()) {
    return absl::InvalidArgumentError(
        absl::StrCat("input ", tensor.type.ToString(), " has ", tensor.data.size(), " bytes"));
  }
  at::Tensor result = at::empty(tensor.type.sizes, at::TensorOptions().dtype(*type));
  if (tensor.data.size() > 0) {
    std::memcpy(result.data_ptr(), tensor.data.data(), tensor.data.size());
  }
  return result;
}

absl::Status ToHost(const at::Tensor& tensor, std::vector<HostTensor>* out) {
  std::optional<ir::DType> dtype =
      ir::DTypeFromTorchScalarType(static_cast<int64_t>(tensor.scalar_type()));
  if (!dtype) {
    return absl::InvalidArgumentError(
        absl::StrCat("output dtype ", c10::toString(tensor.scalar_type()), " not supported"));
  }
  at::Tensor dense = tensor.is_mkldnn() ? tensor.to_dense() : tensor;
  dense = dense.contiguous();
  HostTensor host;
  host.type.dtype = *dtype;
  host.type.sizes.assign(dense.sizes().begin(), dense.sizes().end());
  host.data = ir::TensorData::Copy(dense.data_ptr(), dense.nbytes());
  out->push_back(std::move(host));
  return absl::OkStatus();
}

absl::Status Flatten(const c10::IValue& value, std::vector<HostTensor>* out) {
  if (value.isTensor()) return ToHost(value.toTensor(), out);
  if (value.isTuple()) {
    for (const c10::IValue& element : value.toTupleRef().elements()) {
      if (absl::Status status = Flatten(element, out); !status.ok()) return status;
    }
    return absl::OkStatus();
  }
  if (value.isList()) {
    for (const c10::IValue& element : value.toListRef()) {
      if (absl::Status status = Flatten(element, out); !status.ok()) return status;
    }
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat("output of type ", value.tagKind()));
}

// OpenMP's and OpenBLAS's own controls, looked up at run time: LibTorch reaches
// BLAS only through libblas.so.3, which may or may not be OpenBLAS
// (openblas_threads.h sets OpenBLAS's threads).
using SetThreadsFunction = void (*)(int);
using GetConfigFunction = const char* (*)();

SetThreadsFunction OpenMpSetThreads() {
  static SetThreadsFunction function =
      reinterpret_cast<SetThreadsFunction>(dlsym(RTLD_DEFAULT, "omp_set_num_threads"));
  return function;
}

// The mapped files of this process whose name mentions a BLAS.
std::vector<std::string> LoadedBlasLibraries() {
  std::ifstream maps("/proc/self/maps");
  std::set<std::string> paths;
  std::string line;
  while (std::getline(maps, line)) {
    const size_t slash = line.find('/');
    if (slash == std::string::npos) continue;
    std::string path = line.substr(slash);
    const std::string file = path.substr(path.rfind('/') + 1);
    if (file.find("blas") != std::string::npos || file.find("mkl_") != std::string::npos) {
      paths.insert(path);
    }
  }
  return {paths.begin(), paths.end()};
}

}  // namespace

std::string_view TorchPathName(TorchPath path) {
  switch (path) {
    case TorchPath::kMobile:
      return "pytorch_mobile";
    case TorchPath::kOneDnn:
      return "torchscript_onednn";
    case TorchPath::kTraced:
      return "torchscript_traced";
    case TorchPath::kOneDnnBlas:
      return "torchscript_blas";
  }
  return "?";
}

std::string_view TorchPathFile(TorchPath path) {
  switch (path) {
    case TorchPath::kMobile:
      return "mobile.pt";
    case TorchPath::kOneDnn:
    case TorchPath::kOneDnnBlas:
      return "traced_frozen.pt";
    case TorchPath::kTraced:
      return "traced.pt";
  }
  return "?";
}

struct LibTorchModel::Impl {
  TorchPath path;
  std::optional<torch::jit::Module> module;          // kOneDnn(Blas), kTraced
  std::optional<torch::jit::mobile::Module> mobile;  // kMobile
  std::vector<c10::IValue> inputs;
  c10::IValue result;
};

LibTorchModel::LibTorchModel(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
LibTorchModel::~LibTorchModel() = default;

absl::StatusOr<std::unique_ptr<LibTorchModel>> LibTorchModel::Load(
    const std::string& file, TorchPath path, const std::vector<HostTensor>& inputs) {
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  try {
    for (const HostTensor& input : inputs) {
      absl::StatusOr<at::Tensor> tensor = ToTorch(input);
      if (!tensor.ok()) return tensor.status();
      impl->inputs.emplace_back(std::move(*tensor));
    }
    switch (path) {
      case TorchPath::kMobile:
        impl->mobile = torch::jit::_load_for_mobile(file);
        break;
      case TorchPath::kOneDnn:
      case TorchPath::kOneDnnBlas: {
        torch::jit::Module frozen = torch::jit::load(file);
        frozen.eval();
        impl->module = torch::jit::optimize_for_inference(frozen);
        break;
      }
      case TorchPath::kTraced:
        impl->module = torch::jit::load(file);
        impl->module->eval();
        break;
    }
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat(file, ": ", e.what()));
  }
  return std::unique_ptr<LibTorchModel>(new LibTorchModel(std::move(impl)));
}

absl::Status LibTorchModel::Run() {
  try {
    c10::InferenceMode inference_mode;
    impl_->result = impl_->mobile ? impl_->mobile->forward(impl_->inputs)
                                  : impl_->module->forward(impl_->inputs);
  } catch (const std::exception& e) {
    return absl::InternalError(e.what());
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<HostTensor>> LibTorchModel::Outputs() const {
  std::vector<HostTensor> outputs;
  try {
    if (absl::Status status = Flatten(impl_->result, &outputs); !status.ok()) return status;
  } catch (const std::exception& e) {
    return absl::InternalError(e.what());
  }
  return outputs;
}

void InitLibTorch() {
  at::set_num_interop_threads(1);
  SetLibTorchThreads(TorchPath::kTraced, 1);
}

void SetLibTorchThreads(TorchPath path, int threads) {
  // OpenMP's thread count and the size of the pthreadpool behind the XNNPACK ops.
  torch::set_num_threads(path == TorchPath::kOneDnnBlas ? 1 : threads);
  // PyTorch Mobile builds run ATen on that pthreadpool; Debian's LibTorch runs
  // it on OpenMP, whose spinning workers starve the pool's threads on 2 cores
  // (mobilenet_v2 at 2 threads: 470 ms instead of 35). Keep OpenMP out.
  if (path == TorchPath::kMobile) {
    if (SetThreadsFunction set = OpenMpSetThreads()) set(1);
  }
  // Linear layers and matmuls reach OpenBLAS. The transformers' GEMMs split
  // well (a 128x256x768 sgemm: 0.60 ms on one OpenBLAS thread, 0.31-0.33 on two,
  // Zen 3), but OpenBLAS's idle workers spin beside OpenMP's: with two of each
  // on two cores gpt_small took 23-34 ms against 14.7 with one OpenBLAS thread
  // and 10.3-10.5 with one OpenMP thread (kOneDnnBlas).
  SetOpenBlasThreads(path == TorchPath::kOneDnnBlas ? threads : 1);
}

std::string DescribeLibTorchBlas() {
  std::string description = absl::StrJoin(LoadedBlasLibraries(), ", ");
  if (description.empty()) description = "no BLAS library mapped";
  auto config = reinterpret_cast<GetConfigFunction>(dlsym(RTLD_DEFAULT, "openblas_get_config"));
  if (config != nullptr) absl::StrAppend(&description, " (", config(), ")");
  // A matmul big enough to reach BLAS: netlib's reference BLAS manages a few
  // GFLOP/s here, OpenBLAS tens.
  const int threads = torch::get_num_threads();
  SetLibTorchThreads(TorchPath::kTraced, 1);
  constexpr int64_t kSize = 512;
  at::Tensor a = torch::randn({kSize, kSize});
  at::Tensor b = torch::randn({kSize, kSize});
  at::Tensor c = torch::mm(a, b);
  constexpr int kRuns = 10;
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kRuns; ++i) c = torch::mm(a, b);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / kRuns;
  SetLibTorchThreads(TorchPath::kTraced, threads);
  absl::StrAppendFormat(&description, "; sgemm %dx%dx%d on 1 thread: %.1f GFLOP/s", kSize, kSize,
                        kSize, 2.0 * kSize * kSize * kSize / seconds * 1e-9);
  return description;
}

}  // namespace torchir::benchmarks
