// Runtime error codes. Every fallible runtime call returns an Error or a
// Result<T>; the runtime never throws. Codes are grouped by range so a caller
// can tell a bad program from a bad call from an exhausted resource.
#pragma once

#include <cstdint>

namespace torchir::runtime {

enum class Error : uint32_t {
  kOk = 0x00,
  // Internal state (0x01-0x0f).
  kInternal = 0x01,
  kNotInitialized = 0x02,
  kNotSupported = 0x03,
  kNotFound = 0x04,
  // The caller's arguments (0x10-0x1f).
  kInvalidArgument = 0x10,
  kInvalidType = 0x11,
  kIndexOutOfRange = 0x12,
  kShapeMismatch = 0x13,
  // Resources (0x20-0x2f).
  kOutOfMemory = 0x20,
  kIoError = 0x21,
  // The program file (0x30-0x3f): a malformed or hostile .pte.
  kInvalidProgram = 0x30,
  kUnsupportedVersion = 0x31,
  kProgramOutOfBounds = 0x32,
  // Kernels and delegates (0x40-0x4f).
  kKernelNotFound = 0x40,
  kKernelFailed = 0x41,
  kBackendNotFound = 0x42,
  kDelegateFailed = 0x43,
};

// "InvalidProgram", ... for logs and tools.
const char* ErrorName(Error error);

}  // namespace torchir::runtime
