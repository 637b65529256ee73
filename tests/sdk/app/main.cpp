// A minimal app on the installed torchir SDK: registers the portable kernels
// and the XNNPACK delegate, loads a program, fills its inputs with fixed
// values, runs "forward" and writes inputs and outputs as .safetensors, so
// tests/sdk/run_sdk_test.sh can check them with the in-tree torchir-run
// (--inputs IN --expected OUT).
//
//   sdk_app PROGRAM.pte INPUTS_OUT.safetensors OUTPUTS_OUT.safetensors
#include <cstdio>
#include <cstring>
#include <string>

#include "backends/xnnpack/runtime/xnnpack_backend.h"
#include "runtime/executor/data_loader.h"
#include "runtime/executor/memory_allocator.h"
#include "runtime/executor/method.h"
#include "runtime/executor/program.h"
#include "runtime/kernels/portable/portable_kernels.h"

using namespace torchir::runtime;

namespace {

const char* SafetensorsDtype(ScalarType type) {
  switch (type) {
    case ScalarType::kFloat32: return "F32";
    case ScalarType::kFloat64: return "F64";
    case ScalarType::kFloat16: return "F16";
    case ScalarType::kBFloat16: return "BF16";
    case ScalarType::kInt8: return "I8";
    case ScalarType::kInt16: return "I16";
    case ScalarType::kInt32: return "I32";
    case ScalarType::kInt64: return "I64";
    case ScalarType::kUInt8: return "U8";
    case ScalarType::kBool: return "BOOL";
    default: return nullptr;
  }
}

// Writes tensors (name, Tensor) as one .safetensors file: an 8-byte header
// length, the JSON header, then the raw data in order.
template <typename NameAt, typename TensorAt>
bool WriteSafetensors(const char* path, size_t count, NameAt name_at, TensorAt tensor_at) {
  std::string header = "{";
  size_t offset = 0;
  for (size_t i = 0; i < count; ++i) {
    const Tensor& t = tensor_at(i);
    const char* dtype = SafetensorsDtype(t.scalar_type());
    if (dtype == nullptr) return false;
    std::string shape;
    for (size_t d = 0; d < t.dim(); ++d) shape += (d ? "," : "") + std::to_string(t.size(d));
    header += std::string(i ? "," : "") + "\"" + name_at(i) + "\":{\"dtype\":\"" + dtype +
              "\",\"shape\":[" + shape + "],\"data_offsets\":[" + std::to_string(offset) + "," +
              std::to_string(offset + t.nbytes()) + "]}";
    offset += t.nbytes();
  }
  header += "}";
  FILE* f = std::fopen(path, "wb");
  if (f == nullptr) return false;
  const unsigned long long length = header.size();  // little-endian host assumed
  bool ok = std::fwrite(&length, 8, 1, f) == 1 &&
            std::fwrite(header.data(), 1, header.size(), f) == header.size();
  for (size_t i = 0; ok && i < count; ++i) {
    const Tensor& t = tensor_at(i);
    ok = std::fwrite(t.data_ptr<uint8_t>(), 1, t.nbytes(), f) == t.nbytes();
  }
  return std::fclose(f) == 0 && ok;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s PROGRAM.pte INPUTS_OUT OUTPUTS_OUT\n", argv[0]);
    return 2;
  }
  if (portable::RegisterPortableKernels() != Error::kOk ||
      xnnpack::RegisterXnnpackBackend() != Error::kOk) {
    std::fprintf(stderr, "error: registering the kernels or the XNNPACK backend failed\n");
    return 1;
  }
  Result<FileDataLoader> file = FileDataLoader::Open(argv[1]);
  if (!file.ok()) return std::fprintf(stderr, "error: cannot open %s\n", argv[1]), 1;
  Result<Program> program = Program::Load(*file);
  if (!program.ok()) return std::fprintf(stderr, "error: invalid program %s\n", argv[1]), 1;
  MallocAllocator allocator;
  Result<Method> method = Method::Load(*program, "forward", allocator);
  if (!method.ok()) {
    std::fprintf(stderr, "error: loading forward: %s\n", ErrorName(method.error()));
    return 1;
  }
  // Fixed, varied inputs: floats in [-1, 1), integers in [0, 10).
  for (size_t i = 0; i < method->num_inputs(); ++i) {
    Tensor& input = method->mutable_input(i);
    for (int64_t k = 0; k < input.numel(); ++k) {
      const int64_t v = (k * 7919 + static_cast<int64_t>(i) * 31) % 2000;
      switch (input.scalar_type()) {
        case ScalarType::kFloat32: input.mutable_data_ptr<float>()[k] = v / 1000.0f - 1.0f; break;
        case ScalarType::kInt32: input.mutable_data_ptr<int32_t>()[k] = v % 10; break;
        case ScalarType::kInt64: input.mutable_data_ptr<int64_t>()[k] = v % 10; break;
        case ScalarType::kBool: input.mutable_data_ptr<bool>()[k] = v % 2; break;
        default: return std::fprintf(stderr, "error: unsupported input dtype\n"), 1;
      }
    }
  }
  size_t delegates = 0;
  for (size_t i = 0; i < method->num_instructions(); ++i) {
    delegates += method->instruction_is_delegate(i) ? 1 : 0;
  }
  // Written before Execute: the memory plan may reuse an input's buffer.
  if (!WriteSafetensors(argv[2], method->num_inputs(),
                        [&](size_t i) { return method->input_name(i); },
                        [&](size_t i) -> const Tensor& { return method->input(i); })) {
    std::fprintf(stderr, "error: cannot write the inputs\n");
    return 1;
  }
  if (Error error = method->Execute(); error != Error::kOk) {
    std::fprintf(stderr, "error: execute failed: %s\n", ErrorName(error));
    return 1;
  }
  if (!WriteSafetensors(argv[3], method->num_outputs(),
                        [&](size_t i) { return method->output_name(i); },
                        [&](size_t i) -> const Tensor& { return method->output(i); })) {
    std::fprintf(stderr, "error: cannot write the outputs\n");
    return 1;
  }
  std::printf("ran %s: %zu instructions, %zu delegated, %zu outputs\n", argv[1],
              method->num_instructions(), delegates, method->num_outputs());
  return 0;
}
