// The smallest complete use of the runtime, as an app would embed it: map a
// program, load it, run "forward" once on zero inputs and print the first
// output's first values. Built by the standalone runtime build in two
// variants, with and without the portable kernels, to measure the runtime's
// size (docs/runtime-size.md). Uses no iostream, no exceptions, no RTTI.
#include <cstdio>
#include <cstring>

#include "runtime/executor/data_loader.h"
#include "runtime/executor/memory_allocator.h"
#include "runtime/executor/method.h"
#include "runtime/executor/program.h"
#ifdef TORCHIR_WITH_PORTABLE_KERNELS
#include "runtime/kernels/portable/portable_kernels.h"
#endif

using namespace torchir::runtime;

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s PROGRAM.pte\n", argv[0]);
    return 2;
  }
#ifdef TORCHIR_WITH_PORTABLE_KERNELS
  if (portable::RegisterPortableKernels() != Error::kOk) return 1;
#endif
  Result<FileDataLoader> file = FileDataLoader::Open(argv[1]);
  if (!file.ok()) return 1;
  Result<Program> program = Program::Load(*file);
  if (!program.ok()) return 1;
  MallocAllocator allocator;
  Result<Method> method = Method::Load(*program, "forward", allocator);
  if (!method.ok()) return 1;
  for (size_t i = 0; i < method->num_inputs(); ++i) {
    Tensor& input = method->mutable_input(i);
    std::memset(input.mutable_data(), 0, input.nbytes());
  }
  Error error = method->Execute();
  if (error != Error::kOk) {
    std::fprintf(stderr, "execute failed: %s\n", ErrorName(error));
    return 1;
  }
  if (method->num_outputs() > 0 && method->output(0).scalar_type() == ScalarType::kFloat32) {
    const Tensor& out = method->output(0);
    for (int64_t i = 0; i < out.numel() && i < 4; ++i) {
      std::printf("%s[%lld] = %g\n", method->output_name(0), static_cast<long long>(i),
                  static_cast<double>(out.data_ptr<float>()[i]));
    }
  }
  return 0;
}
