// What one zoo network's benchmarks run, prepared on first use: the program
// torchir compiles for each backend and the PyTorch paths loaded with
// LibTorch. Every variant is run and its outputs compared with the export's
// expected.safetensors before it may be timed; a variant that fails is refused
// with the reason.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "benchmarks/libtorch_models.h"
#include "tools/pipeline/load_model.h"
#include "tools/pipeline/run_program.h"
#include "tools/reference/host_tensor.h"

namespace torchir::benchmarks {

// Outputs pass when |actual - expected| <= kTolerance + kTolerance * |expected|.
inline constexpr double kTolerance = 1e-4;
// Untimed runs before the numerics check (TorchScript profiles its first runs).
inline constexpr int kWarmupRuns = 3;

// Loads `bytes` as a HostProgram whose XNNPACK delegates use `threads`
// threads (HostOptions::num_threads; the delegates keep the pool they were
// initialised with, so programs loaded for different counts coexist).
absl::StatusOr<std::unique_ptr<pipeline::HostProgram>> OpenProgram(
    const std::vector<uint8_t>& bytes, const std::string& name, int threads);
// Like OpenProgram, mapping the .pte file at `path`.
absl::StatusOr<std::unique_ptr<pipeline::HostProgram>> OpenProgramFile(const std::string& path,
                                                                       int threads);

// The variant name of a torchir backend list in tables and file names: "torchir_" and the
// list's first backend ("native,xnnpack" is torchir_native).
std::string TorchirVariant(const std::string& backend_list);

// The most threads a benchmark runs a torchir program on. Programs are compiled for it
// (torchir-compile --threads), so the delegates' scratch is the planned one at every thread count
// the suite runs, not the fallback a runtime allocates when it runs more threads than planned.
inline constexpr int kMaxBenchmarkThreads = 2;

class ModelSetup {
 public:
  // `directory` holds what `tools/export_ir.py NAME --torchscript` writes.
  ModelSetup(std::string name, std::string directory);
  ModelSetup(const ModelSetup&) = delete;
  ModelSetup& operator=(const ModelSetup&) = delete;

  const std::string& name() const { return name_; }

  // The model compiled for `backend`, loaded for `threads` threads, inputs
  // set, warmed up and checked.
  absl::StatusOr<pipeline::HostProgram*> Torchir(const std::string& backend, int threads);
  // The program for `backend` written to <directory>/<TorchirVariant(backend)>.pte.
  absl::StatusOr<std::string> ProgramFile(const std::string& backend);

  // The model on `path`, warmed up and checked at `threads` threads (the
  // LibTorch thread count is left at `threads`).
  absl::StatusOr<LibTorchModel*> Torch(TorchPath path, int threads);
  // <directory>/<the path's file>.
  std::string TorchFile(TorchPath path) const;
  const std::vector<reference::HostTensor>& inputs() const { return inputs_; }

 private:
  // Reads the graph's input and output names and types, inputs.safetensors
  // and expected.safetensors, once.
  absl::Status LoadData();
  absl::StatusOr<const std::vector<uint8_t>*> Compiled(const std::string& backend);
  // OK when `outputs` match expected.safetensors within kTolerance.
  absl::Status Check(const std::vector<reference::HostTensor>& outputs) const;

  std::string name_;
  std::string directory_;
  std::optional<absl::Status> data_status_;
  std::optional<pipeline::LoadedModel> model_;
  std::vector<reference::HostTensor> inputs_;
  std::vector<reference::HostTensor> expected_;
  std::vector<std::string> output_names_;
  std::map<std::string, absl::StatusOr<std::vector<uint8_t>>> programs_;
  std::map<std::string, absl::StatusOr<std::string>> program_files_;
  std::map<std::pair<std::string, int>, absl::StatusOr<std::unique_ptr<pipeline::HostProgram>>>
      torchir_;
  std::map<TorchPath, absl::StatusOr<std::unique_ptr<LibTorchModel>>> torch_;
  std::map<std::pair<TorchPath, int>, absl::Status> torch_checks_;
};

}  // namespace torchir::benchmarks
