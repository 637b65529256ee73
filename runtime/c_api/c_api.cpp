// The C API (include/torchir/c_api.h) on top of the C++ runtime. Handles are
// plain structs owning the runtime objects; every entry point checks its
// arguments, turns the runtime's Error into a status and records a message.
// Built like the runtime: no exceptions, no RTTI, no allocation in execute.
#include "torchir/c_api.h"

#include <pthread.h>

#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>

#include "runtime/c_api/builtin_backends.h"
#include "runtime/core/error.h"
#include "runtime/core/result.h"
#include "runtime/core/scalar_type.h"
#include "runtime/core/tensor.h"
#include "runtime/executor/data_loader.h"
#include "runtime/executor/memory_allocator.h"
#include "runtime/executor/method.h"
#include "runtime/executor/program.h"
#include "runtime/platform/platform.h"

namespace rt = torchir::runtime;

// The status numbers are the runtime's Error values, so a status converts by cast.
#define TORCHIR_C_API_SAME_CODE(status, error) \
  static_assert(status == static_cast<torchir_status>(rt::Error::error), #status)
TORCHIR_C_API_SAME_CODE(TORCHIR_STATUS_OK, kOk);
TORCHIR_C_API_SAME_CODE(TORCHIR_STATUS_INTERNAL, kInternal);
TORCHIR_C_API_SAME_CODE(TORCHIR_STATUS_NOT_INITIALIZED, kNotInitialized);
TORCHIR_C_API_SAME_CODE(TORCHIR_STATUS_NOT_SUPPORTED, kNotSupported);
TORCHIR_C_API_SAME_CODE(TORCHIR_STATUS_NOT_FOUND, kNotFound);
TORCHIR_C_API_SAME_CODE(TORCHIR_STATUS_INVALID_ARGUMENT, kInvalidArgument);
TORCHIR_C_API_SAME_CODE(TORCHIR_STATUS_INVALID_TYPE, kInvalidType);
TORCHIR_C_API_SAME_CODE(TORCHIR_STATUS_INDEX_OUT_OF_RANGE, kIndexOutOfRange);
TORCHIR_C_API_SAME_CODE(TORCHIR_STATUS_SHAPE_MISMATCH, kShapeMismatch);
TORCHIR_C_API_SAME_CODE(TORCHIR_STATUS_OUT_OF_MEMORY, kOutOfMemory);
TORCHIR_C_API_SAME_CODE(TORCHIR_STATUS_IO_ERROR, kIoError);
TORCHIR_C_API_SAME_CODE(TORCHIR_STATUS_INVALID_PROGRAM, kInvalidProgram);
TORCHIR_C_API_SAME_CODE(TORCHIR_STATUS_UNSUPPORTED_VERSION, kUnsupportedVersion);
TORCHIR_C_API_SAME_CODE(TORCHIR_STATUS_PROGRAM_OUT_OF_BOUNDS, kProgramOutOfBounds);
TORCHIR_C_API_SAME_CODE(TORCHIR_STATUS_KERNEL_NOT_FOUND, kKernelNotFound);
TORCHIR_C_API_SAME_CODE(TORCHIR_STATUS_KERNEL_FAILED, kKernelFailed);
TORCHIR_C_API_SAME_CODE(TORCHIR_STATUS_BACKEND_NOT_FOUND, kBackendNotFound);
TORCHIR_C_API_SAME_CODE(TORCHIR_STATUS_DELEGATE_FAILED, kDelegateFailed);
#undef TORCHIR_C_API_SAME_CODE

// Likewise the dtypes are the runtime's ScalarType values.
static_assert(TORCHIR_DTYPE_FLOAT32 == static_cast<int>(rt::ScalarType::kFloat32), "dtype");
static_assert(TORCHIR_DTYPE_INT64 == static_cast<int>(rt::ScalarType::kInt64), "dtype");
static_assert(TORCHIR_DTYPE_BOOL == static_cast<int>(rt::ScalarType::kBool), "dtype");
static_assert(TORCHIR_DTYPE_FLOAT8_E5M2 == static_cast<int>(rt::ScalarType::kFloat8E5M2) &&
                  TORCHIR_DTYPE_FLOAT8_E5M2 + 1 == rt::kNumScalarTypes,
              "the C dtypes end where the runtime's do");

namespace {

constexpr size_t kMessageCapacity = 512;  // as the runtime's log line
constexpr size_t kProgramCopyAlignment = 64;

// ---- Log routing and capture ----
// The runtime reports the detail of a failure (which index, which offset) on
// its log. While an entry point runs, error lines are also collected on the
// calling thread, so the status's message can carry them.
std::atomic<torchir_log_callback> g_log_callback{nullptr};
std::atomic<void*> g_log_user_data{nullptr};
thread_local char* t_capture = nullptr;  // the running entry point's buffer, or null
thread_local char t_last_error[kMessageCapacity] = "";

void AppendTruncated(char* buffer, size_t capacity, const char* text) {
  const size_t used = std::strlen(buffer);
  if (used + 1 >= capacity) return;
  std::snprintf(buffer + used, capacity - used, "%s", text);
}

void RouteLog(rt::LogLevel level, const char* message) {
  if (level == rt::LogLevel::kError && t_capture != nullptr) {
    if (t_capture[0] != '\0') AppendTruncated(t_capture, kMessageCapacity, "; ");
    AppendTruncated(t_capture, kMessageCapacity, message);
  }
  torchir_log_callback callback = g_log_callback.load(std::memory_order_acquire);
  const torchir_log_level c_level = level == rt::LogLevel::kError  ? TORCHIR_LOG_ERROR
                                    : level == rt::LogLevel::kInfo ? TORCHIR_LOG_INFO
                                                                   : TORCHIR_LOG_DEBUG;
  if (callback != nullptr) {
    callback(c_level, message, g_log_user_data.load(std::memory_order_acquire));
  } else {
    const char* prefix = c_level == TORCHIR_LOG_ERROR  ? "error"
                         : c_level == TORCHIR_LOG_INFO ? "info"
                                                       : "debug";
    std::fprintf(stderr, "torchir runtime %s: %s\n", prefix, message);
  }
}

void InstallLogHook() {
  static const bool installed = (rt::SetLogHook(RouteLog), true);
  (void)installed;
}

// Collects the runtime's error lines on this thread for the scope's lifetime.
class LogCapture {
 public:
  LogCapture() : previous_(t_capture) {
    buffer_[0] = '\0';
    t_capture = buffer_;
  }
  ~LogCapture() { t_capture = previous_; }
  LogCapture(const LogCapture&) = delete;
  LogCapture& operator=(const LogCapture&) = delete;
  const char* text() const { return buffer_; }

 private:
  char buffer_[kMessageCapacity];
  char* previous_;
};

// Loading registers kernels and backends in process-wide tables that are not
// thread-safe; it is serialised here, together with the backend options that
// apply to the delegates the load initialises. (A POSIX mutex, like the
// runtime's mmap: std::mutex would reference the exception machinery.)
pthread_mutex_t g_load_mutex = PTHREAD_MUTEX_INITIALIZER;

class LoadLock {
 public:
  LoadLock() { pthread_mutex_lock(&g_load_mutex); }
  ~LoadLock() { pthread_mutex_unlock(&g_load_mutex); }
  LoadLock(const LoadLock&) = delete;
  LoadLock& operator=(const LoadLock&) = delete;
};

torchir_status ToStatus(rt::Error error) { return static_cast<torchir_status>(error); }

}  // namespace

// ---- Handles ----

struct torchir_program {
  torchir_program(rt::DataLoader* loader, void* copy, const rt::Program& program)
      : loader(loader), copy(copy), program(program) {}
  ~torchir_program() {
    delete loader;
    std::free(copy);
  }
  torchir_program(const torchir_program&) = delete;
  torchir_program& operator=(const torchir_program&) = delete;

  // One for the app's handle, one per method loaded from it.
  std::atomic<uint32_t> references{1};
  rt::DataLoader* loader;  // owned: a mapped file, or a buffer (borrowed or `copy`)
  void* copy;              // owned copy of the bytes (TORCHIR_BUFFER_COPY), else null
  rt::Program program;
};

namespace {

void ReleaseProgram(torchir_program* program) {
  if (program->references.fetch_sub(1, std::memory_order_acq_rel) == 1) delete program;
}

// A reference on a program, held for as long as this object lives.
class ProgramReference {
 public:
  explicit ProgramReference(torchir_program* program) : program_(program) {
    program_->references.fetch_add(1, std::memory_order_relaxed);
  }
  ~ProgramReference() { ReleaseProgram(program_); }
  ProgramReference(const ProgramReference&) = delete;
  ProgramReference& operator=(const ProgramReference&) = delete;

 private:
  torchir_program* program_;
};

}  // namespace

struct torchir_method {
  torchir_method(torchir_program* owner, const char* name, const rt::MethodOptions& options)
      : program(owner), method(rt::Method::Load(owner->program, name, allocator, options)) {
    last_error[0] = '\0';
  }
  torchir_method(const torchir_method&) = delete;
  torchir_method& operator=(const torchir_method&) = delete;

  // Members are destroyed in reverse order: the Method (and its delegates)
  // first, then the memory it used, then the program it reads.
  ProgramReference program;
  rt::MallocAllocator allocator;
  rt::Result<rt::Method> method;
  const char* name = "";      // the program's copy of the method name
  bool* input_set = nullptr;  // per input: set since the last execute (from `allocator`)
  bool outputs_valid = false;
  // Written by const entry points too: a method is used by one thread at a time.
  mutable char last_error[kMessageCapacity];
};

namespace {

// Records a failure of `function` as the thread's (and `method`'s) last error
// and returns `status`. `detail` is what the runtime logged meanwhile, if anything.
torchir_status Fail(const torchir_method* method, torchir_status status, const char* function,
                    const char* detail, const char* format, ...)
    __attribute__((format(printf, 5, 6)));
torchir_status Fail(const torchir_method* method, torchir_status status, const char* function,
                    const char* detail, const char* format, ...) {
  char message[kMessageCapacity];
  int used = std::snprintf(message, sizeof(message), "%s: ", function);
  if (used < 0) used = 0;
  va_list args;
  va_start(args, format);
  std::vsnprintf(message + used, sizeof(message) - static_cast<size_t>(used), format, args);
  va_end(args);
  if (detail != nullptr && detail[0] != '\0') {
    AppendTruncated(message, sizeof(message), " (");
    AppendTruncated(message, sizeof(message), detail);
    AppendTruncated(message, sizeof(message), ")");
  }
  std::snprintf(t_last_error, sizeof(t_last_error), "%s", message);
  if (method != nullptr) std::snprintf(method->last_error, kMessageCapacity, "%s", message);
  return status;
}

// The loaded method of a handle (a handle exists only for a method that loaded).
const rt::Method& Loaded(const torchir_method* method) { return method->method.get(); }
rt::Method& Loaded(torchir_method* method) { return method->method.get(); }

bool IsDtype(torchir_dtype dtype) { return rt::IsValidScalarType(dtype); }

const char* DtypeName(torchir_dtype dtype) {
  return IsDtype(dtype) ? rt::ScalarTypeName(static_cast<rt::ScalarType>(dtype)) : "unknown";
}

void FillInfo(const rt::Tensor& tensor, const char* name, torchir_tensor_info* info) {
  info->name = name != nullptr ? name : "";
  info->sizes = tensor.dim() > 0 ? tensor.sizes().data() : nullptr;
  info->rank = static_cast<uint32_t>(tensor.dim());
  info->dtype = static_cast<torchir_dtype>(tensor.scalar_type());
  info->numel = static_cast<uint64_t>(tensor.numel());
  info->nbytes = static_cast<uint64_t>(tensor.nbytes());
}

// The C API hands out row-major bytes; a tensor with another dim order would
// need a layout the API cannot describe.
bool IsRowMajor(const rt::Tensor& tensor) {
  rt::Span<const uint8_t> order = tensor.dim_order();
  for (size_t d = 0; d < order.size(); ++d) {
    if (order[d] != d) return false;
  }
  return true;
}

// Checks that `dtype` and `nbytes` describe `tensor` ("input"/"output" `index`).
torchir_status CheckTensorArgument(const torchir_method* method, const char* function,
                                   const char* role, uint32_t index, const char* name,
                                   const rt::Tensor& tensor, torchir_dtype dtype, uint64_t nbytes) {
  const torchir_dtype actual = static_cast<torchir_dtype>(tensor.scalar_type());
  if (dtype != actual) {
    return Fail(method, TORCHIR_STATUS_INVALID_TYPE, function, nullptr,
                "%s %u ('%s') is %s, dtype %d (%s) given", role, index, name, DtypeName(actual),
                static_cast<int>(dtype), DtypeName(dtype));
  }
  if (nbytes != tensor.nbytes()) {
    return Fail(method, TORCHIR_STATUS_SHAPE_MISMATCH, function, nullptr,
                "%s %u ('%s') takes %llu bytes (%lld %s elements), %llu given", role, index, name,
                static_cast<unsigned long long>(tensor.nbytes()),
                static_cast<long long>(tensor.numel()), DtypeName(actual),
                static_cast<unsigned long long>(nbytes));
  }
  return TORCHIR_STATUS_OK;
}

torchir_status OpenLoaded(rt::DataLoader* loader, void* copy, const char* function,
                          const char* source, torchir_program** out) {
  LogCapture capture;
  rt::Result<rt::Program> program = rt::Program::Load(*loader);
  if (!program.ok()) {
    delete loader;
    std::free(copy);
    return Fail(nullptr, ToStatus(program.error()), function, capture.text(),
                "%s is not a valid program: %s", source, rt::ErrorName(program.error()));
  }
  torchir_program* handle = new (std::nothrow) torchir_program(loader, copy, *program);
  if (handle == nullptr) {
    delete loader;
    std::free(copy);
    return Fail(nullptr, TORCHIR_STATUS_OUT_OF_MEMORY, function, nullptr,
                "out of memory for the program handle");
  }
  *out = handle;
  return TORCHIR_STATUS_OK;
}

}  // namespace

// ---- Library ----

extern "C" {

uint32_t torchir_c_api_version(void) { return TORCHIR_C_API_VERSION; }

const char* torchir_status_string(torchir_status status) {
  switch (status) {
    case TORCHIR_STATUS_OK:
      return "ok";
    case TORCHIR_STATUS_INTERNAL:
      return "internal error";
    case TORCHIR_STATUS_NOT_INITIALIZED:
      return "not initialized";
    case TORCHIR_STATUS_NOT_SUPPORTED:
      return "not supported";
    case TORCHIR_STATUS_NOT_FOUND:
      return "not found";
    case TORCHIR_STATUS_INVALID_ARGUMENT:
      return "invalid argument";
    case TORCHIR_STATUS_INVALID_TYPE:
      return "invalid dtype";
    case TORCHIR_STATUS_INDEX_OUT_OF_RANGE:
      return "index out of range";
    case TORCHIR_STATUS_SHAPE_MISMATCH:
      return "size mismatch";
    case TORCHIR_STATUS_OUT_OF_MEMORY:
      return "out of memory";
    case TORCHIR_STATUS_IO_ERROR:
      return "I/O error";
    case TORCHIR_STATUS_INVALID_PROGRAM:
      return "invalid program";
    case TORCHIR_STATUS_UNSUPPORTED_VERSION:
      return "unsupported program version";
    case TORCHIR_STATUS_PROGRAM_OUT_OF_BOUNDS:
      return "program offset out of bounds";
    case TORCHIR_STATUS_KERNEL_NOT_FOUND:
      return "kernel not found";
    case TORCHIR_STATUS_KERNEL_FAILED:
      return "kernel failed";
    case TORCHIR_STATUS_BACKEND_NOT_FOUND:
      return "backend not found";
    case TORCHIR_STATUS_DELEGATE_FAILED:
      return "delegate failed";
  }
  return "unknown status";
}

const char* torchir_last_error(void) { return t_last_error; }

const char* torchir_dtype_name(torchir_dtype dtype) { return DtypeName(dtype); }

uint64_t torchir_dtype_size(torchir_dtype dtype) {
  return IsDtype(dtype) ? rt::ElementSize(static_cast<rt::ScalarType>(dtype)) : 0;
}

uint32_t torchir_backends(void) { return torchir::c_api::BuiltinBackendBits(); }

void torchir_set_log_callback(torchir_log_callback callback, void* user_data) {
  g_log_user_data.store(user_data, std::memory_order_release);
  g_log_callback.store(callback, std::memory_order_release);
  InstallLogHook();
}

// ---- Programs ----

torchir_status torchir_program_open_file(const char* path, torchir_program** program) {
  if (program != nullptr) *program = nullptr;
  if (path == nullptr || program == nullptr) {
    return Fail(nullptr, TORCHIR_STATUS_INVALID_ARGUMENT, __func__, nullptr, "%s is NULL",
                path == nullptr ? "path" : "program");
  }
  InstallLogHook();
  LogCapture capture;
  rt::Result<rt::FileDataLoader> file = rt::FileDataLoader::Open(path);
  if (!file.ok()) {
    return Fail(nullptr, ToStatus(file.error()), __func__, capture.text(), "cannot read '%s'",
                path);
  }
  rt::DataLoader* loader = new (std::nothrow) rt::FileDataLoader(std::move(*file));
  if (loader == nullptr) {
    return Fail(nullptr, TORCHIR_STATUS_OUT_OF_MEMORY, __func__, nullptr,
                "out of memory opening '%s'", path);
  }
  char source[kMessageCapacity / 2];
  std::snprintf(source, sizeof(source), "'%s'", path);
  return OpenLoaded(loader, nullptr, __func__, source, program);
}

torchir_status torchir_program_open_buffer(const void* data, uint64_t size,
                                           torchir_buffer_mode mode, torchir_program** program) {
  if (program != nullptr) *program = nullptr;
  if (data == nullptr || program == nullptr) {
    return Fail(nullptr, TORCHIR_STATUS_INVALID_ARGUMENT, __func__, nullptr, "%s is NULL",
                data == nullptr ? "data" : "program");
  }
  if (mode != TORCHIR_BUFFER_COPY && mode != TORCHIR_BUFFER_BORROW) {
    return Fail(nullptr, TORCHIR_STATUS_INVALID_ARGUMENT, __func__, nullptr,
                "mode %d is neither TORCHIR_BUFFER_COPY nor TORCHIR_BUFFER_BORROW",
                static_cast<int>(mode));
  }
  if (size > SIZE_MAX) {
    return Fail(nullptr, TORCHIR_STATUS_OUT_OF_MEMORY, __func__, nullptr,
                "a %llu-byte buffer does not fit this address space",
                static_cast<unsigned long long>(size));
  }
  InstallLogHook();
  void* copy = nullptr;
  const void* bytes = data;
  if (mode == TORCHIR_BUFFER_COPY) {
    // At least one byte, so that an empty buffer still gets an aligned address.
    if (posix_memalign(&copy, kProgramCopyAlignment, size > 0 ? static_cast<size_t>(size) : 1) !=
        0) {
      return Fail(nullptr, TORCHIR_STATUS_OUT_OF_MEMORY, __func__, nullptr,
                  "cannot allocate %llu bytes for the program's copy",
                  static_cast<unsigned long long>(size));
    }
    std::memcpy(copy, data, static_cast<size_t>(size));
    bytes = copy;
  } else if (reinterpret_cast<uintptr_t>(data) % 16 != 0) {
    return Fail(nullptr, TORCHIR_STATUS_INVALID_ARGUMENT, __func__, nullptr,
                "a borrowed buffer must be 16-byte aligned, %p is not (use TORCHIR_BUFFER_COPY)",
                data);
  }
  rt::DataLoader* loader =
      new (std::nothrow) rt::BufferDataLoader(bytes, static_cast<size_t>(size));
  if (loader == nullptr) {
    std::free(copy);
    return Fail(nullptr, TORCHIR_STATUS_OUT_OF_MEMORY, __func__, nullptr,
                "out of memory for the buffer");
  }
  char source[64];
  std::snprintf(source, sizeof(source), "the %llu-byte buffer",
                static_cast<unsigned long long>(size));
  return OpenLoaded(loader, copy, __func__, source, program);
}

void torchir_program_free(torchir_program* program) {
  if (program != nullptr) ReleaseProgram(program);
}

torchir_status torchir_program_method_count(const torchir_program* program, uint32_t* count) {
  if (program == nullptr || count == nullptr) {
    return Fail(nullptr, TORCHIR_STATUS_INVALID_ARGUMENT, __func__, nullptr, "%s is NULL",
                program == nullptr ? "program" : "count");
  }
  *count = static_cast<uint32_t>(program->program.num_methods());
  return TORCHIR_STATUS_OK;
}

torchir_status torchir_program_method_name(const torchir_program* program, uint32_t index,
                                           const char** name) {
  if (name != nullptr) *name = nullptr;
  if (program == nullptr || name == nullptr) {
    return Fail(nullptr, TORCHIR_STATUS_INVALID_ARGUMENT, __func__, nullptr, "%s is NULL",
                program == nullptr ? "program" : "name");
  }
  const size_t count = program->program.num_methods();
  if (index >= count) {
    return Fail(nullptr, TORCHIR_STATUS_INDEX_OUT_OF_RANGE, __func__, nullptr,
                "method %u of a program with %zu", index, count);
  }
  *name = program->program.method_name(index);
  return TORCHIR_STATUS_OK;
}

// ---- Methods ----

torchir_status torchir_method_load(torchir_program* program, const char* name,
                                   const torchir_method_options* options, torchir_method** method) {
  if (method != nullptr) *method = nullptr;
  if (program == nullptr || name == nullptr || method == nullptr) {
    return Fail(nullptr, TORCHIR_STATUS_INVALID_ARGUMENT, __func__, nullptr, "%s is NULL",
                program == nullptr ? "program"
                : name == nullptr  ? "name"
                                   : "method");
  }
  torchir_method_options chosen = {};
  if (options != nullptr) chosen = *options;
  if (chosen.reserved != 0) {
    return Fail(nullptr, TORCHIR_STATUS_INVALID_ARGUMENT, __func__, nullptr,
                "options->reserved must be 0");
  }
  const char* program_name = nullptr;  // lives as long as the program
  for (size_t i = 0; i < program->program.num_methods(); ++i) {
    if (std::strcmp(program->program.method_name(i), name) == 0) {
      program_name = program->program.method_name(i);
    }
  }
  if (program_name == nullptr) {
    return Fail(nullptr, TORCHIR_STATUS_NOT_FOUND, __func__, nullptr,
                "the program has no method '%s'", name);
  }
  InstallLogHook();
  LogCapture capture;
  torchir_method* handle = nullptr;
  {
    LoadLock lock;
    torchir::c_api::BuiltinBackendOptions backends;
    if (chosen.num_threads > 0) backends.num_threads = chosen.num_threads;
    backends.xnnpack_max_memory_bytes = chosen.xnnpack_max_memory_bytes;
    const rt::Error error = torchir::c_api::RegisterBuiltinBackends(backends);
    if (error != rt::Error::kOk) {
      return Fail(nullptr, ToStatus(error), __func__, capture.text(),
                  "registering the kernels and backends failed: %s", rt::ErrorName(error));
    }
    handle = new (std::nothrow) torchir_method(program, name, rt::MethodOptions{});
    if (handle == nullptr) {
      return Fail(nullptr, TORCHIR_STATUS_OUT_OF_MEMORY, __func__, nullptr,
                  "out of memory for the method handle");
    }
  }
  if (!handle->method.ok()) {
    const rt::Error error = handle->method.error();
    delete handle;
    return Fail(nullptr, ToStatus(error), __func__, capture.text(), "cannot load method '%s': %s",
                name, rt::ErrorName(error));
  }
  rt::Method& loaded = handle->method.get();
  handle->name = program_name;
  for (size_t i = 0; i < loaded.num_inputs() + loaded.num_outputs(); ++i) {
    const bool is_input = i < loaded.num_inputs();
    const size_t index = is_input ? i : i - loaded.num_inputs();
    const rt::Tensor& tensor = is_input ? loaded.input(index) : loaded.output(index);
    if (!IsRowMajor(tensor)) {
      const char* io_name = is_input ? loaded.input_name(index) : loaded.output_name(index);
      delete handle;
      return Fail(nullptr, TORCHIR_STATUS_NOT_SUPPORTED, __func__, nullptr,
                  "%s %zu ('%s') of method '%s' is not row-major", is_input ? "input" : "output",
                  index, io_name, name);
    }
  }
  handle->input_set = handle->allocator.AllocateArray<bool>(loaded.num_inputs() + 1);
  if (handle->input_set == nullptr) {
    delete handle;
    return Fail(nullptr, TORCHIR_STATUS_OUT_OF_MEMORY, __func__, nullptr,
                "out of memory for method '%s'", name);
  }
  *method = handle;
  return TORCHIR_STATUS_OK;
}

void torchir_method_free(torchir_method* method) {
  delete method;  // the Method and its delegates, then its reference on the program
}

const char* torchir_method_last_error(const torchir_method* method) {
  return method != nullptr ? method->last_error : "";
}

torchir_status torchir_method_input_count(const torchir_method* method, uint32_t* count) {
  if (method == nullptr || count == nullptr) {
    return Fail(method, TORCHIR_STATUS_INVALID_ARGUMENT, __func__, nullptr, "%s is NULL",
                method == nullptr ? "method" : "count");
  }
  *count = static_cast<uint32_t>(Loaded(method).num_inputs());
  return TORCHIR_STATUS_OK;
}

torchir_status torchir_method_output_count(const torchir_method* method, uint32_t* count) {
  if (method == nullptr || count == nullptr) {
    return Fail(method, TORCHIR_STATUS_INVALID_ARGUMENT, __func__, nullptr, "%s is NULL",
                method == nullptr ? "method" : "count");
  }
  *count = static_cast<uint32_t>(Loaded(method).num_outputs());
  return TORCHIR_STATUS_OK;
}

namespace {

// The checks every per-tensor entry point starts with: non-null handle and
// out-pointer, index in range.
torchir_status CheckIndex(const torchir_method* method, const void* pointer,
                          const char* pointer_name, const char* function, const char* role,
                          uint32_t index, size_t count) {
  if (method == nullptr || pointer == nullptr) {
    return Fail(method, TORCHIR_STATUS_INVALID_ARGUMENT, function, nullptr, "%s is NULL",
                method == nullptr ? "method" : pointer_name);
  }
  if (index >= count) {
    return Fail(method, TORCHIR_STATUS_INDEX_OUT_OF_RANGE, function, nullptr,
                "%s %u of method '%s', which has %zu", role, index, method->name, count);
  }
  return TORCHIR_STATUS_OK;
}

torchir_status CheckInput(const torchir_method* method, const void* pointer,
                          const char* pointer_name, const char* function, uint32_t index) {
  return CheckIndex(method, pointer, pointer_name, function, "input", index,
                    method != nullptr ? Loaded(method).num_inputs() : 0);
}

torchir_status CheckOutput(const torchir_method* method, const void* pointer,
                           const char* pointer_name, const char* function, uint32_t index) {
  const torchir_status status = CheckIndex(method, pointer, pointer_name, function, "output", index,
                                           method != nullptr ? Loaded(method).num_outputs() : 0);
  if (status != TORCHIR_STATUS_OK) return status;
  if (!method->outputs_valid) {
    return Fail(method, TORCHIR_STATUS_NOT_INITIALIZED, function, nullptr,
                "no outputs: method '%s' has not run successfully since its inputs were last set",
                method->name);
  }
  return TORCHIR_STATUS_OK;
}

}  // namespace

torchir_status torchir_method_input_info(const torchir_method* method, uint32_t index,
                                         torchir_tensor_info* info) {
  const torchir_status status = CheckInput(method, info, "info", __func__, index);
  if (status != TORCHIR_STATUS_OK) return status;
  FillInfo(Loaded(method).input(index), Loaded(method).input_name(index), info);
  return TORCHIR_STATUS_OK;
}

torchir_status torchir_method_output_info(const torchir_method* method, uint32_t index,
                                          torchir_tensor_info* info) {
  const torchir_status status = CheckIndex(method, info, "info", __func__, "output", index,
                                           method != nullptr ? Loaded(method).num_outputs() : 0);
  if (status != TORCHIR_STATUS_OK) return status;
  FillInfo(Loaded(method).output(index), Loaded(method).output_name(index), info);
  return TORCHIR_STATUS_OK;
}

torchir_status torchir_method_set_input(torchir_method* method, uint32_t index, torchir_dtype dtype,
                                        const void* data, uint64_t nbytes) {
  torchir_status status = CheckInput(method, data, "data", __func__, index);
  if (status != TORCHIR_STATUS_OK) return status;
  rt::Method& loaded = Loaded(method);
  rt::Tensor& input = loaded.mutable_input(index);
  status = CheckTensorArgument(method, __func__, "input", index, loaded.input_name(index), input,
                               dtype, nbytes);
  if (status != TORCHIR_STATUS_OK) return status;
  if (nbytes > 0) std::memmove(input.mutable_data(), data, static_cast<size_t>(nbytes));
  method->input_set[index] = true;
  method->outputs_valid = false;
  return TORCHIR_STATUS_OK;
}

torchir_status torchir_method_input_buffer(torchir_method* method, uint32_t index, void** data,
                                           uint64_t* nbytes) {
  if (data != nullptr) *data = nullptr;
  torchir_status status = CheckInput(method, data, "data", __func__, index);
  if (status == TORCHIR_STATUS_OK && nbytes == nullptr) {
    status = Fail(method, TORCHIR_STATUS_INVALID_ARGUMENT, __func__, nullptr, "nbytes is NULL");
  }
  if (status != TORCHIR_STATUS_OK) return status;
  rt::Tensor& input = Loaded(method).mutable_input(index);
  *data = input.mutable_data();
  *nbytes = input.nbytes();
  method->input_set[index] = true;
  method->outputs_valid = false;
  return TORCHIR_STATUS_OK;
}

torchir_status torchir_method_execute(torchir_method* method) {
  if (method == nullptr) {
    return Fail(nullptr, TORCHIR_STATUS_INVALID_ARGUMENT, __func__, nullptr, "method is NULL");
  }
  rt::Method& loaded = Loaded(method);
  for (size_t i = 0; i < loaded.num_inputs(); ++i) {
    if (!method->input_set[i]) {
      return Fail(method, TORCHIR_STATUS_NOT_INITIALIZED, __func__, nullptr,
                  "input %zu ('%s') of method '%s' is not set (inputs are set before every "
                  "execute: the memory plan reuses their bytes)",
                  i, loaded.input_name(i), method->name);
    }
  }
  for (size_t i = 0; i < loaded.num_inputs(); ++i) method->input_set[i] = false;
  method->outputs_valid = false;
  LogCapture capture;
  const rt::Error error = loaded.Execute();
  if (error != rt::Error::kOk) {
    return Fail(method, ToStatus(error), __func__, capture.text(), "method '%s' failed: %s",
                method->name, rt::ErrorName(error));
  }
  method->outputs_valid = true;
  return TORCHIR_STATUS_OK;
}

torchir_status torchir_method_output(const torchir_method* method, uint32_t index,
                                     const void** data, uint64_t* nbytes) {
  if (data != nullptr) *data = nullptr;
  torchir_status status = CheckOutput(method, data, "data", __func__, index);
  if (status == TORCHIR_STATUS_OK && nbytes == nullptr) {
    status = Fail(method, TORCHIR_STATUS_INVALID_ARGUMENT, __func__, nullptr, "nbytes is NULL");
  }
  if (status != TORCHIR_STATUS_OK) return status;
  const rt::Tensor& output = Loaded(method).output(index);
  *data = output.data();
  *nbytes = output.nbytes();
  return TORCHIR_STATUS_OK;
}

torchir_status torchir_method_copy_output(const torchir_method* method, uint32_t index,
                                          torchir_dtype dtype, void* data, uint64_t nbytes) {
  torchir_status status = CheckOutput(method, data, "data", __func__, index);
  if (status != TORCHIR_STATUS_OK) return status;
  const rt::Method& loaded = Loaded(method);
  const rt::Tensor& output = loaded.output(index);
  status = CheckTensorArgument(method, __func__, "output", index, loaded.output_name(index), output,
                               dtype, nbytes);
  if (status != TORCHIR_STATUS_OK) return status;
  if (nbytes > 0) std::memcpy(data, output.data(), static_cast<size_t>(nbytes));
  return TORCHIR_STATUS_OK;
}

}  // extern "C"
