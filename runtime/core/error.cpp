#include "runtime/core/error.h"

namespace torchir::runtime {

const char* ErrorName(Error error) {
  switch (error) {
    case Error::kOk: return "Ok";
    case Error::kInternal: return "Internal";
    case Error::kNotInitialized: return "NotInitialized";
    case Error::kNotSupported: return "NotSupported";
    case Error::kNotFound: return "NotFound";
    case Error::kInvalidArgument: return "InvalidArgument";
    case Error::kInvalidType: return "InvalidType";
    case Error::kIndexOutOfRange: return "IndexOutOfRange";
    case Error::kShapeMismatch: return "ShapeMismatch";
    case Error::kOutOfMemory: return "OutOfMemory";
    case Error::kIoError: return "IoError";
    case Error::kInvalidProgram: return "InvalidProgram";
    case Error::kUnsupportedVersion: return "UnsupportedVersion";
    case Error::kProgramOutOfBounds: return "ProgramOutOfBounds";
    case Error::kKernelNotFound: return "KernelNotFound";
    case Error::kKernelFailed: return "KernelFailed";
    case Error::kBackendNotFound: return "BackendNotFound";
    case Error::kDelegateFailed: return "DelegateFailed";
  }
  return "Unknown";
}

}  // namespace torchir::runtime
