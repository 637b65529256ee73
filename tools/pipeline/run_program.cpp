#include "tools/pipeline/run_program.h"

#include <chrono>
#include <cstring>
#include <iostream>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backends/native/runtime/native_backend.h"
#include "backends/xnnpack/runtime/xnnpack_backend.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/platform/platform.h"

namespace torchir::pipeline {
namespace {

// FromBytes' copy starts at a multiple of this: the segments' alignment in a .pte.
constexpr uintptr_t kCopyAlignment = 64;

// The runtime logs why it failed; while a HostProgram calls into it, those
// lines are captured here and become the absl::Status message. What it notes
// (e.g. a delegate repacking weights compiled for another CPU) goes to stderr.
std::mutex g_capture_mutex;
std::vector<std::string>* g_captured = nullptr;

void CaptureLog(runtime::LogLevel level, const char* message) {
  if (level == runtime::LogLevel::kError && g_captured != nullptr) g_captured->push_back(message);
  if (level == runtime::LogLevel::kInfo) std::cerr << "note: " << message << "\n";
}

// Runs `call` with the runtime's log captured; on error returns a status
// "<name>: <log lines>; <ErrorName>".
template <typename Call>
absl::Status Captured(const std::string& name, Call call) {
  std::lock_guard<std::mutex> lock(g_capture_mutex);
  std::vector<std::string> lines;
  g_captured = &lines;
  runtime::SetMinLogLevel(runtime::LogLevel::kInfo);
  runtime::SetLogHook(CaptureLog);
  runtime::Error error = call();
  runtime::SetLogHook(nullptr);
  g_captured = nullptr;
  if (error == runtime::Error::kOk) return absl::OkStatus();
  lines.push_back(absl::StrCat("runtime error ", runtime::ErrorName(error)));
  return absl::InvalidArgumentError(absl::StrCat(name, ": ", absl::StrJoin(lines, ": ")));
}

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

ir::TensorType TypeOf(const runtime::Tensor& tensor) {
  ir::TensorType type;
  type.dtype = ToIrDType(tensor.scalar_type());
  for (int64_t size : tensor.sizes()) type.sizes.push_back(size);
  return type;
}

}  // namespace

ir::DType ToIrDType(runtime::ScalarType type) {
  std::optional<ir::DType> dtype = ir::ParseDType(runtime::ScalarTypeName(type));
  return dtype.value_or(ir::DType::kFloat32);
}

absl::StatusOr<std::unique_ptr<HostProgram>> HostProgram::Open(const std::string& path,
                                                               const std::string& method,
                                                               const HostOptions& options) {
  std::unique_ptr<HostProgram> host(new HostProgram());
  host->name_ = path;
  host->options_ = options;
  absl::Status opened = Captured(path, [&] {
    runtime::Result<runtime::FileDataLoader> loader = runtime::FileDataLoader::Open(
        path.c_str(), options.huge_pages ? runtime::FileLoad::kHugePages : runtime::FileLoad::kMap);
    if (!loader.ok()) return loader.error();
    host->file_ = std::make_unique<runtime::FileDataLoader>(std::move(loader.get()));
    return runtime::Error::kOk;
  });
  if (!opened.ok()) return opened;
  if (absl::Status status = host->Load(*host->file_, method); !status.ok()) return status;
  return host;
}

absl::StatusOr<std::unique_ptr<HostProgram>> HostProgram::FromBytes(
    const std::vector<uint8_t>& bytes, const std::string& name, const std::string& method,
    const HostOptions& options) {
  std::unique_ptr<HostProgram> host(new HostProgram());
  host->name_ = name;
  host->options_ = options;
  // The copy starts on a 64-byte boundary, as a mapped file's pages do: segments are 64-byte
  // aligned inside the file, and the native backend reads its packed weights where they lie.
  host->storage_.resize((bytes.size() + kCopyAlignment) / 8 + 1);
  const uintptr_t start = reinterpret_cast<uintptr_t>(host->storage_.data());
  uint8_t* copy = reinterpret_cast<uint8_t*>(host->storage_.data()) +
                  (kCopyAlignment - start % kCopyAlignment) % kCopyAlignment;
  if (!bytes.empty()) std::memcpy(copy, bytes.data(), bytes.size());
  host->buffer_ = std::make_unique<runtime::BufferDataLoader>(copy, bytes.size());
  if (absl::Status status = host->Load(*host->buffer_, method); !status.ok()) return status;
  return host;
}

absl::Status HostProgram::Load(const runtime::DataLoader& loader, const std::string& method) {
  if (runtime::portable::RegisterPortableKernels() != runtime::Error::kOk) {
    return absl::InternalError("cannot register the portable kernels");
  }
  // Before Method::Load, which initialises the delegates with this thread count.
  absl::Status registered = Captured(name_, [&] {
    const runtime::Error error = runtime::xnnpack::RegisterXnnpackBackend({options_.num_threads});
    if (error != runtime::Error::kOk) return error;
    return runtime::native::RegisterNativeBackend({options_.num_threads});
  });
  if (!registered.ok()) return registered;
  auto start = std::chrono::steady_clock::now();
  absl::Status loaded = Captured(name_, [&] {
    runtime::Result<runtime::Program> program = runtime::Program::Load(loader);
    if (!program.ok()) return program.error();
    program_ = std::make_unique<runtime::Program>(std::move(program.get()));
    return runtime::Error::kOk;
  });
  if (!loaded.ok()) return loaded;
  load_seconds_ = SecondsSince(start);
  start = std::chrono::steady_clock::now();
  absl::Status initialised = Captured(name_, [&] {
    runtime::Result<runtime::Method> m =
        runtime::Method::Load(*program_, method.c_str(), allocator_);
    if (!m.ok()) return m.error();
    method_ = std::make_unique<runtime::Method>(std::move(m.get()));
    return runtime::Error::kOk;
  });
  if (!initialised.ok()) return initialised;
  init_seconds_ = SecondsSince(start);
  return absl::OkStatus();
}

std::vector<ir::TensorType> HostProgram::InputTypes() const {
  std::vector<ir::TensorType> types;
  for (size_t i = 0; i < method_->num_inputs(); ++i) types.push_back(TypeOf(method_->input(i)));
  return types;
}

std::vector<ir::TensorType> HostProgram::OutputTypes() const {
  std::vector<ir::TensorType> types;
  for (size_t i = 0; i < method_->num_outputs(); ++i) types.push_back(TypeOf(method_->output(i)));
  return types;
}

std::vector<std::string> HostProgram::InputNames() const {
  std::vector<std::string> names;
  for (size_t i = 0; i < method_->num_inputs(); ++i) names.push_back(method_->input_name(i));
  return names;
}

std::vector<std::string> HostProgram::OutputNames() const {
  std::vector<std::string> names;
  for (size_t i = 0; i < method_->num_outputs(); ++i) names.push_back(method_->output_name(i));
  return names;
}

absl::Status HostProgram::SetInputs(const std::vector<reference::HostTensor>& inputs) {
  if (inputs.size() != method_->num_inputs()) {
    return absl::InvalidArgumentError(absl::StrCat(name_, ": the program takes ",
                                                   method_->num_inputs(), " input(s), ",
                                                   inputs.size(), " given"));
  }
  std::vector<std::string> problems;
  const std::vector<ir::TensorType> types = InputTypes();
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].type != types[i] || !inputs[i].HasConsistentSize()) {
      problems.push_back(absl::StrCat(name_, ": input '", method_->input_name(i), "' is ",
                                      types[i].ToString(), ", given ", inputs[i].type.ToString()));
    }
  }
  if (!problems.empty()) return absl::InvalidArgumentError(absl::StrJoin(problems, "\n"));
  for (size_t i = 0; i < inputs.size(); ++i) {
    absl::Status status = Captured(
        name_, [&] { return method_->SetInput(i, inputs[i].data.data(), inputs[i].data.size()); });
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

absl::Status HostProgram::Execute() {
  return Captured(name_, [&] { return method_->Execute(); });
}

std::vector<reference::HostTensor> HostProgram::Outputs() const {
  std::vector<reference::HostTensor> outputs;
  for (size_t i = 0; i < method_->num_outputs(); ++i) {
    const runtime::Tensor& tensor = method_->output(i);
    outputs.push_back(reference::HostTensor{TypeOf(tensor),
                                            ir::TensorData::Copy(tensor.data(), tensor.nbytes())});
  }
  return outputs;
}

}  // namespace torchir::pipeline
