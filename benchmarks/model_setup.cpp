#include "benchmarks/model_setup.h"

#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "tools/pipeline/compile_program.h"
#include "tools/pipeline/tensor_file.h"
#include "tools/verify/compare.h"

namespace torchir::benchmarks {
namespace {

using pipeline::HostProgram;
using reference::HostTensor;

absl::Status WriteFileAtomically(const std::string& path, const std::vector<uint8_t>& bytes) {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
    if (!out) return absl::InternalError(absl::StrCat("cannot write ", temporary));
  }
  std::error_code error;
  std::filesystem::rename(temporary, path, error);
  if (error) {
    return absl::InternalError(absl::StrCat("cannot rename to ", path, ": ", error.message()));
  }
  return absl::OkStatus();
}

absl::Status Annotate(const absl::Status& status, const std::string& context) {
  return absl::Status(status.code(), absl::StrCat(context, ": ", status.message()));
}

}  // namespace

absl::StatusOr<std::unique_ptr<HostProgram>> OpenProgram(const std::vector<uint8_t>& bytes,
                                                         const std::string& name, int threads) {
  pipeline::HostOptions options;
  options.num_threads = static_cast<uint32_t>(threads);
  return HostProgram::FromBytes(bytes, name, "forward", options);
}

absl::StatusOr<std::unique_ptr<HostProgram>> OpenProgramFile(const std::string& path, int threads) {
  pipeline::HostOptions options;
  options.num_threads = static_cast<uint32_t>(threads);
  return HostProgram::Open(path, "forward", options);
}

std::string TorchirVariant(const std::string& backend_list) {
  return "torchir_" + backend_list.substr(0, backend_list.find(','));
}

ModelSetup::ModelSetup(std::string name, std::string directory)
    : name_(std::move(name)), directory_(std::move(directory)) {}

absl::Status ModelSetup::LoadData() {
  if (data_status_) return *data_status_;
  data_status_ = [&]() -> absl::Status {
    pipeline::LoadOptions options;
    options.model_path = directory_ + "/model.json";
    options.weights_path = directory_ + "/weights.safetensors";
    options.require_all_weights = true;
    absl::StatusOr<pipeline::LoadedModel> model = pipeline::LoadModel(options);
    if (!model.ok()) return model.status();
    std::vector<std::string> input_names;
    std::vector<ir::TensorType> input_types;
    for (const ir::Value* value : model->graph->inputs()) {
      input_names.push_back(value->name());
      input_types.push_back(value->type());
    }
    std::vector<ir::TensorType> output_types;
    for (const ir::Value* value : model->graph->outputs()) {
      output_names_.push_back(value->name());
      output_types.push_back(value->type());
    }
    absl::StatusOr<std::vector<HostTensor>> inputs = pipeline::ReadNamedTensors(
        directory_ + "/inputs.safetensors", input_names, input_types, "graph input");
    if (!inputs.ok()) return inputs.status();
    absl::StatusOr<std::vector<HostTensor>> expected = pipeline::ReadNamedTensors(
        directory_ + "/expected.safetensors", output_names_, output_types, "graph output");
    if (!expected.ok()) return expected.status();
    inputs_ = std::move(*inputs);
    expected_ = std::move(*expected);
    model_ = std::move(*model);
    return absl::OkStatus();
  }();
  return *data_status_;
}

absl::Status ModelSetup::Check(const std::vector<HostTensor>& outputs) const {
  if (outputs.size() != expected_.size()) {
    return absl::InternalError(
        absl::StrCat(outputs.size(), " outputs, expected.safetensors has ", expected_.size()));
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    verify::Comparison comparison =
        verify::Compare(outputs[i], expected_[i], verify::Tolerance{kTolerance, kTolerance});
    if (!comparison.passed) {
      return absl::InternalError(
          absl::StrCat("output '", output_names_[i],
                       "' differs from expected.safetensors: ", verify::Describe(comparison)));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<const std::vector<uint8_t>*> ModelSetup::Compiled(const std::string& backend) {
  auto found = programs_.find(backend);
  if (found == programs_.end()) {
    absl::StatusOr<std::vector<uint8_t>> bytes = [&]() -> absl::StatusOr<std::vector<uint8_t>> {
      if (absl::Status status = LoadData(); !status.ok()) return status;
      pipeline::CompileOptions options;
      options.backend = backend;
      options.threads = kMaxBenchmarkThreads;
      absl::StatusOr<pipeline::CompiledProgram> program =
          pipeline::CompileProgram(*model_, options);
      if (!program.ok()) return Annotate(program.status(), "compile");
      return std::move(program->bytes);
    }();
    found = programs_.emplace(backend, std::move(bytes)).first;
  }
  if (!found->second.ok()) return found->second.status();
  return &*found->second;
}

absl::StatusOr<HostProgram*> ModelSetup::Torchir(const std::string& backend, int threads) {
  const auto key = std::make_pair(backend, threads);
  auto found = torchir_.find(key);
  if (found == torchir_.end()) {
    absl::StatusOr<std::unique_ptr<HostProgram>> program =
        [&]() -> absl::StatusOr<std::unique_ptr<HostProgram>> {
      absl::StatusOr<const std::vector<uint8_t>*> bytes = Compiled(backend);
      if (!bytes.ok()) return bytes.status();
      absl::StatusOr<std::unique_ptr<HostProgram>> host =
          OpenProgram(**bytes, absl::StrCat(name_, " (", backend, ")"), threads);
      if (!host.ok()) return host.status();
      for (int i = 0; i < kWarmupRuns; ++i) {
        // Every run: the memory planner may reuse an input's bytes after its last use.
        if (absl::Status status = (*host)->SetInputs(inputs_); !status.ok()) return status;
        if (absl::Status status = (*host)->Execute(); !status.ok()) return status;
      }
      if (absl::Status status = Check((*host)->Outputs()); !status.ok()) return status;
      return host;
    }();
    found = torchir_.emplace(key, std::move(program)).first;
  }
  if (!found->second.ok()) return found->second.status();
  return found->second->get();
}

absl::StatusOr<std::string> ModelSetup::ProgramFile(const std::string& backend) {
  auto found = program_files_.find(backend);
  if (found == program_files_.end()) {
    absl::StatusOr<std::string> file = [&]() -> absl::StatusOr<std::string> {
      absl::StatusOr<const std::vector<uint8_t>*> bytes = Compiled(backend);
      if (!bytes.ok()) return bytes.status();
      std::string path = absl::StrCat(directory_, "/", TorchirVariant(backend), ".pte");
      if (absl::Status status = WriteFileAtomically(path, **bytes); !status.ok()) return status;
      return path;
    }();
    found = program_files_.emplace(backend, std::move(file)).first;
  }
  return found->second;
}

std::string ModelSetup::TorchFile(TorchPath path) const {
  return absl::StrCat(directory_, "/", std::string(TorchPathFile(path)));
}

absl::StatusOr<LibTorchModel*> ModelSetup::Torch(TorchPath path, int threads) {
  auto loaded = torch_.find(path);
  if (loaded == torch_.end()) {
    absl::StatusOr<std::unique_ptr<LibTorchModel>> model =
        [&]() -> absl::StatusOr<std::unique_ptr<LibTorchModel>> {
      if (absl::Status status = LoadData(); !status.ok()) return status;
      const std::string file = TorchFile(path);
      if (!std::filesystem::exists(file)) {
        return absl::NotFoundError(
            absl::StrCat(file, " is missing: export with tools/export_ir.py --torchscript"));
      }
      return LibTorchModel::Load(file, path, inputs_);
    }();
    loaded = torch_.emplace(path, std::move(model)).first;
  }
  if (!loaded->second.ok()) return loaded->second.status();
  LibTorchModel* model = loaded->second->get();
  SetLibTorchThreads(path, threads);
  const auto key = std::make_pair(path, threads);
  auto checked = torch_checks_.find(key);
  if (checked == torch_checks_.end()) {
    absl::Status status = [&]() -> absl::Status {
      for (int i = 0; i < kWarmupRuns; ++i) {
        if (absl::Status run = model->Run(); !run.ok()) return run;
      }
      absl::StatusOr<std::vector<HostTensor>> outputs = model->Outputs();
      if (!outputs.ok()) return outputs.status();
      return Check(*outputs);
    }();
    checked = torch_checks_.emplace(key, std::move(status)).first;
  }
  if (!checked->second.ok()) return checked->second;
  return model;
}

}  // namespace torchir::benchmarks
