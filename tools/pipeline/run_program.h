// Running a .pte program on the host with the torchir runtime and the portable
// kernels: what torchir-run, torchir-verify --stage pte and the benchmarks
// share. Tensors cross as HostTensors; runtime errors become absl::Status
// carrying the runtime's own log lines.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/executor/data_loader.h"
#include "runtime/executor/event_tracer.h"
#include "runtime/executor/memory_allocator.h"
#include "runtime/executor/method.h"
#include "runtime/executor/program.h"
#include "tools/reference/host_tensor.h"

namespace torchir::pipeline {

// A program loaded and initialised for one method, owning its bytes (or the
// file mapping), its init allocator and its arenas.
class HostProgram {
 public:
  // Maps `path`. `name` prefixes every error.
  static absl::StatusOr<std::unique_ptr<HostProgram>> Open(const std::string& path,
                                                           const std::string& method = "forward");
  // Keeps `bytes` (moved into 64-byte aligned storage).
  static absl::StatusOr<std::unique_ptr<HostProgram>> FromBytes(
      const std::vector<uint8_t>& bytes, const std::string& name,
      const std::string& method = "forward");

  runtime::Method& method() { return *method_; }
  const runtime::Program& program() const { return *program_; }

  // The method's inputs and outputs as types ("float32[1, 3, 224, 224]").
  std::vector<ir::TensorType> InputTypes() const;
  std::vector<ir::TensorType> OutputTypes() const;
  std::vector<std::string> InputNames() const;
  std::vector<std::string> OutputNames() const;

  // Copies `inputs` (one per method input, in order) into the input tensors;
  // every dtype or shape mismatch is reported.
  absl::Status SetInputs(const std::vector<reference::HostTensor>& inputs);
  absl::Status Execute();
  // Copies the outputs out.
  std::vector<reference::HostTensor> Outputs() const;

  double load_seconds() const { return load_seconds_; }
  double init_seconds() const { return init_seconds_; }
  size_t init_bytes() const { return allocator_.allocated_bytes(); }

  void set_event_tracer(runtime::EventTracer* tracer) { method_->set_event_tracer(tracer); }

 private:
  HostProgram() = default;
  absl::Status Load(const runtime::DataLoader& loader, const std::string& method);

  std::string name_;
  std::unique_ptr<runtime::FileDataLoader> file_;
  std::vector<uint64_t> storage_;  // FromBytes: the aligned copy
  std::unique_ptr<runtime::BufferDataLoader> buffer_;
  runtime::MallocAllocator allocator_;
  std::unique_ptr<runtime::Program> program_;
  std::unique_ptr<runtime::Method> method_;
  double load_seconds_ = 0;
  double init_seconds_ = 0;
};

// Converts between the runtime's and the compiler's dtype enums (by name:
// both spell dtypes the same way).
ir::DType ToIrDType(runtime::ScalarType type);

}  // namespace torchir::pipeline
