// Running a .pte program on the host with the torchir runtime, the portable
// kernels and the XNNPACK delegate: what torchir-run, torchir-verify --stage
// pte and the benchmarks share. Tensors cross as HostTensors; runtime errors
// become absl::Status carrying the runtime's own log lines.
#pragma once

#include <cstdint>
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

// How a HostProgram runs its delegates.
struct HostOptions {
  // Threads each XNNPACK delegate runs on (1: the calling thread only). The
  // XNNPACK backend is process-wide: this applies to delegates initialised
  // from now on, in any HostProgram.
  uint32_t num_threads = 1;
  // Open reads the file into memory backed by 2 MiB pages instead of mapping it
  // (runtime::FileLoad::kHugePages).
  bool huge_pages = false;
};

// A program loaded and initialised for one method, owning its bytes (or the
// file mapping), its init allocator and its arenas.
class HostProgram {
 public:
  // Maps `path`; its path prefixes every error.
  static absl::StatusOr<std::unique_ptr<HostProgram>> Open(const std::string& path,
                                                           const std::string& method = "forward",
                                                           const HostOptions& options = {});
  // Keeps `bytes` (moved into 64-byte aligned storage). `name` prefixes every error.
  static absl::StatusOr<std::unique_ptr<HostProgram>> FromBytes(
      const std::vector<uint8_t>& bytes, const std::string& name,
      const std::string& method = "forward", const HostOptions& options = {});

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
  uint32_t num_threads() const { return options_.num_threads; }

 private:
  HostProgram() = default;
  absl::Status Load(const runtime::DataLoader& loader, const std::string& method);

  HostOptions options_;

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
