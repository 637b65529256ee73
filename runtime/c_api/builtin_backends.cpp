#include "runtime/c_api/builtin_backends.h"

#include "runtime/kernels/portable/portable_kernels.h"
#include "torchir/c_api.h"
#ifdef TORCHIR_C_API_WITH_NATIVE
#include "backends/native/runtime/native_backend.h"
#endif
#ifdef TORCHIR_C_API_WITH_XNNPACK
#include "backends/xnnpack/runtime/xnnpack_backend.h"
#endif

namespace torchir::c_api {

runtime::Error RegisterBuiltinBackends(const BuiltinBackendOptions& options) {
  runtime::Error error = runtime::portable::RegisterPortableKernels();
#ifdef TORCHIR_C_API_WITH_XNNPACK
  if (error != runtime::Error::kOk) return error;
  runtime::xnnpack::XnnpackOptions xnnpack;
  xnnpack.num_threads = options.num_threads;
  if (options.xnnpack_max_memory_bytes > 0) {
    xnnpack.max_memory_bytes = options.xnnpack_max_memory_bytes;
  }
  error = runtime::xnnpack::RegisterXnnpackBackend(xnnpack);
#endif
#ifdef TORCHIR_C_API_WITH_NATIVE
  if (error != runtime::Error::kOk) return error;
  error = runtime::native::RegisterNativeBackend({options.num_threads});
#endif
  (void)options;
  return error;
}

uint32_t BuiltinBackendBits() {
  uint32_t bits = 0;
#ifdef TORCHIR_C_API_WITH_XNNPACK
  bits |= TORCHIR_BACKEND_XNNPACK;
#endif
#ifdef TORCHIR_C_API_WITH_NATIVE
  bits |= TORCHIR_BACKEND_NATIVE;
#endif
  return bits;
}

}  // namespace torchir::c_api
