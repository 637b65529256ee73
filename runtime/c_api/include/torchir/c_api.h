/* torchir's C API: loads and runs .pte programs from C and from any language
 * with a C foreign-function interface (Swift, Kotlin/JNI, Rust, Python ctypes).
 * C99 and C++; only opaque handles, fixed-width integers, plain structs and
 * C strings cross it. docs/embedding.md describes it with an example.
 *
 *   torchir_program* program;   torchir_method* method;
 *   torchir_program_open_file("model.pte", &program);            (check each status)
 *   torchir_method_load(program, "forward", NULL, &method);
 *   torchir_method_set_input(method, 0, TORCHIR_DTYPE_FLOAT32, pixels, sizeof(pixels));
 *   torchir_method_execute(method);
 *   torchir_method_copy_output(method, 0, TORCHIR_DTYPE_FLOAT32, logits, sizeof(logits));
 *   torchir_method_free(method);  torchir_program_free(program);
 *
 * Errors: every fallible function returns a torchir_status, never aborts and
 * never throws; a NULL handle or pointer argument is TORCHIR_STATUS_INVALID_ARGUMENT.
 * Each failure leaves a one-line message naming the culprit in the calling
 * thread's torchir_last_error() and, for calls on a method, in
 * torchir_method_last_error(). Messages are only written on failure.
 *
 * Ownership: the caller owns every handle it gets and frees it with its
 * _free function. A method keeps its program alive: the two may be freed in
 * any order (convenient for garbage-collected bindings). Pointers the API
 * returns (names, sizes, output data) are borrowed; each function says how
 * long they stay valid.
 *
 * Threads: a program is read-only once open; any number of threads may query
 * it and load methods from it at once. A method is used by one thread at a
 * time (every function taking it); run one method per thread to run a
 * program concurrently. Loading is serialised inside the library (it
 * registers kernels and backends, which are process-wide); execute is not.
 *
 * Memory: opening maps the file (or borrows or copies a buffer) and validates
 * it completely; loading a method allocates its planned memory once;
 * torchir_method_execute allocates nothing. Tensors are dense and row-major.
 */
#ifndef TORCHIR_C_API_H_
#define TORCHIR_C_API_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define TORCHIR_C_API_EXPORT __attribute__((visibility("default")))
#define TORCHIR_C_API_NODISCARD __attribute__((warn_unused_result))
#else
#define TORCHIR_C_API_EXPORT
#define TORCHIR_C_API_NODISCARD
#endif

/* The version of this interface: bumped when a function, struct layout or
 * constant changes incompatibly. Bindings compare it with
 * torchir_c_api_version() at run time. */
#define TORCHIR_C_API_VERSION 1

/* ---- Status codes ----
 * The numbers are the runtime's own error codes (runtime/core/error.h),
 * grouped by range: 0x01-0x0f internal state, 0x10-0x1f the caller's
 * arguments, 0x20-0x2f resources, 0x30-0x3f the program file, 0x40-0x4f
 * kernels and delegates. Values never change meaning. */
typedef int32_t torchir_status;
enum {
  TORCHIR_STATUS_OK = 0x00,
  TORCHIR_STATUS_INTERNAL = 0x01,
  /* The call needs a step that has not happened (an input not set, no
   * outputs since the last execute). */
  TORCHIR_STATUS_NOT_INITIALIZED = 0x02,
  TORCHIR_STATUS_NOT_SUPPORTED = 0x03,
  /* No method of that name. */
  TORCHIR_STATUS_NOT_FOUND = 0x04,
  /* A NULL handle or pointer, or a value out of its domain. */
  TORCHIR_STATUS_INVALID_ARGUMENT = 0x10,
  /* The dtype given is not the tensor's. */
  TORCHIR_STATUS_INVALID_TYPE = 0x11,
  /* A method, input or output index past the count. */
  TORCHIR_STATUS_INDEX_OUT_OF_RANGE = 0x12,
  /* The byte count given is not the tensor's. */
  TORCHIR_STATUS_SHAPE_MISMATCH = 0x13,
  TORCHIR_STATUS_OUT_OF_MEMORY = 0x20,
  /* The file cannot be opened, is not a regular file or cannot be mapped. */
  TORCHIR_STATUS_IO_ERROR = 0x21,
  /* The bytes are not a valid .pte program (never trusted: fully checked). */
  TORCHIR_STATUS_INVALID_PROGRAM = 0x30,
  TORCHIR_STATUS_UNSUPPORTED_VERSION = 0x31,
  TORCHIR_STATUS_PROGRAM_OUT_OF_BOUNDS = 0x32,
  /* The program needs a kernel or backend this library does not have. */
  TORCHIR_STATUS_KERNEL_NOT_FOUND = 0x40,
  TORCHIR_STATUS_KERNEL_FAILED = 0x41,
  TORCHIR_STATUS_BACKEND_NOT_FOUND = 0x42,
  TORCHIR_STATUS_DELEGATE_FAILED = 0x43
};

/* ---- Element types ----
 * The numbering is the .pte format's (and the runtime's ScalarType). */
typedef int32_t torchir_dtype;
enum {
  TORCHIR_DTYPE_FLOAT32 = 0,
  TORCHIR_DTYPE_FLOAT64 = 1,
  TORCHIR_DTYPE_FLOAT16 = 2,
  TORCHIR_DTYPE_BFLOAT16 = 3,
  TORCHIR_DTYPE_INT8 = 4,
  TORCHIR_DTYPE_INT16 = 5,
  TORCHIR_DTYPE_INT32 = 6,
  TORCHIR_DTYPE_INT64 = 7,
  TORCHIR_DTYPE_UINT8 = 8,
  TORCHIR_DTYPE_BOOL = 9, /* one byte per element, 0 or 1 */
  TORCHIR_DTYPE_COMPLEX64 = 10,
  TORCHIR_DTYPE_COMPLEX128 = 11,
  TORCHIR_DTYPE_UINT16 = 12,
  TORCHIR_DTYPE_UINT32 = 13,
  TORCHIR_DTYPE_UINT64 = 14,
  TORCHIR_DTYPE_FLOAT8_E4M3FN = 15,
  TORCHIR_DTYPE_FLOAT8_E5M2 = 16
};

/* Backends this library was built with (torchir_backends()). The portable
 * kernels are always in. */
enum {
  TORCHIR_BACKEND_XNNPACK = 1u << 0,
  /* torchir's own kernels (backends/native): `--backend native,...` programs. */
  TORCHIR_BACKEND_NATIVE = 1u << 1
};

/* How torchir_program_open_buffer treats the caller's bytes. */
typedef int32_t torchir_buffer_mode;
enum {
  /* The program copies the bytes; the caller may free them on return. */
  TORCHIR_BUFFER_COPY = 0,
  /* The program reads the caller's bytes in place (no copy): they must start
   * at a 16-byte aligned address and stay valid and unchanged until the
   * program and every method loaded from it are freed. */
  TORCHIR_BUFFER_BORROW = 1
};

/* Log severities of torchir_log_callback. */
typedef int32_t torchir_log_level;
enum { TORCHIR_LOG_DEBUG = 0, TORCHIR_LOG_INFO = 1, TORCHIR_LOG_ERROR = 2 };

/* ---- Handles (opaque) ---- */
/* A loaded, validated .pte program. */
typedef struct torchir_program torchir_program;
/* One method of a program ("forward"), with its planned memory, ready to run. */
typedef struct torchir_method torchir_method;

/* Options of torchir_method_load. All zero (or a NULL pointer) means the
 * defaults, so `torchir_method_options options = {0};` is a valid start. */
typedef struct torchir_method_options {
  /* Threads each XNNPACK delegate of the method runs on; 0 means 1 (the
   * calling thread only). More than the device's cores only slows it down. */
  uint32_t num_threads;
  uint32_t reserved; /* must be 0 */
  /* The most bytes XNNPACK may allocate for one delegate's internal values
   * (a guard against hostile programs); 0 means the runtime's default. */
  uint64_t xnnpack_max_memory_bytes;
} torchir_method_options;

/* What one input or output is. Pointers are borrowed from the method and
 * stay valid until it is freed. */
typedef struct torchir_tensor_info {
  const char* name;     /* the graph's name for it; "" when the program has none */
  const int64_t* sizes; /* `rank` sizes, outermost first (NULL when rank is 0) */
  uint32_t rank;
  torchir_dtype dtype;
  uint64_t numel;  /* elements: the product of the sizes */
  uint64_t nbytes; /* numel times torchir_dtype_size(dtype) */
} torchir_tensor_info;

/* Receives one runtime log message (no trailing newline) on the thread that
 * logged it. */
typedef void (*torchir_log_callback)(torchir_log_level level, const char* message, void* user_data);

/* ---- Library ---- */

/* TORCHIR_C_API_VERSION of the library linked (which may differ from the header's). */
TORCHIR_C_API_EXPORT uint32_t torchir_c_api_version(void);

/* A static, human-readable name of `status` ("invalid argument"); "unknown
 * status" for a number that is not a status. Never NULL. Thread-safe. */
TORCHIR_C_API_EXPORT const char* torchir_status_string(torchir_status status);

/* The message of the last call that failed on the calling thread (any
 * function), or "" when none has. Owned by the library; valid on this thread
 * until its next failing call. */
TORCHIR_C_API_EXPORT const char* torchir_last_error(void);

/* "float32", "int64", ...; "unknown" for a number that is not a dtype. Static. */
TORCHIR_C_API_EXPORT const char* torchir_dtype_name(torchir_dtype dtype);

/* Bytes per element of `dtype`; 0 for a number that is not a dtype. */
TORCHIR_C_API_EXPORT uint64_t torchir_dtype_size(torchir_dtype dtype);

/* The TORCHIR_BACKEND_* bits of the backends built into this library. A
 * program compiled for a backend that is missing fails torchir_method_load
 * with TORCHIR_STATUS_BACKEND_NOT_FOUND. */
TORCHIR_C_API_EXPORT uint32_t torchir_backends(void);

/* Sends the runtime's log (errors only) to `callback` instead of stderr, e.g.
 * to logcat or os_log; NULL restores stderr. Call it before opening programs,
 * not concurrently with other torchir calls. The callback may run on any
 * thread that calls into torchir and must not call back into it. The C API
 * owns the runtime's log hook (SetLogHook in runtime/platform/platform.h): an
 * app using both APIs sets its logging here. */
TORCHIR_C_API_EXPORT void torchir_set_log_callback(torchir_log_callback callback, void* user_data);

/* ---- Programs ---- */

/* Opens the .pte file at `path`: maps it read-only (weights are read in place,
 * never copied) and validates all of it. The file must not be modified or
 * truncated while the program is open (open a copy of its bytes with
 * torchir_program_open_buffer otherwise). On success *program is a new handle
 * for torchir_program_free; on failure it is NULL. TORCHIR_STATUS_IO_ERROR
 * when the file cannot be read, the INVALID_PROGRAM group when it is not a
 * valid program. */
TORCHIR_C_API_EXPORT TORCHIR_C_API_NODISCARD torchir_status
torchir_program_open_file(const char* path, torchir_program** program);

/* Opens a program from `size` bytes at `data` (e.g. embedded in the app or
 * downloaded), copied or borrowed as `mode` says, and validates all of it.
 * A borrowed buffer not 16-byte aligned is TORCHIR_STATUS_INVALID_ARGUMENT.
 * On success *program is a new handle; on failure it is NULL. */
TORCHIR_C_API_EXPORT TORCHIR_C_API_NODISCARD torchir_status torchir_program_open_buffer(
    const void* data, uint64_t size, torchir_buffer_mode mode, torchir_program** program);

/* Releases the caller's reference: the program's memory (its mapping or
 * copy) goes once the methods loaded from it are freed too. NULL is a no-op.
 * Not concurrently with other calls on the same program. */
TORCHIR_C_API_EXPORT void torchir_program_free(torchir_program* program);

/* The number of methods in the program. */
TORCHIR_C_API_EXPORT TORCHIR_C_API_NODISCARD torchir_status
torchir_program_method_count(const torchir_program* program, uint32_t* count);

/* The name of method `index` (< the count); borrowed, valid while the program
 * or a method of it is alive. */
TORCHIR_C_API_EXPORT TORCHIR_C_API_NODISCARD torchir_status
torchir_program_method_name(const torchir_program* program, uint32_t index, const char** name);

/* ---- Methods ---- */

/* Loads method `name` of `program`: registers the portable kernels and the
 * built-in backends (once per process), allocates the method's planned memory,
 * binds every kernel and initialises every delegate. `options` may be NULL.
 * On success *method is a new handle for torchir_method_free (it holds a
 * reference on the program); on failure it is NULL. TORCHIR_STATUS_NOT_FOUND
 * for an unknown name, KERNEL_NOT_FOUND / BACKEND_NOT_FOUND for a program
 * needing what this library lacks, OUT_OF_MEMORY, or the error of the kernel
 * or delegate that refused the program. Loads are serialised process-wide. */
TORCHIR_C_API_EXPORT TORCHIR_C_API_NODISCARD torchir_status
torchir_method_load(torchir_program* program, const char* name,
                    const torchir_method_options* options, torchir_method** method);

/* Frees the method, its memory and delegates, and its reference on the
 * program. Borrowed pointers from it become invalid. NULL is a no-op. */
TORCHIR_C_API_EXPORT void torchir_method_free(torchir_method* method);

/* The message of the last failing call on `method`, or "" when none has;
 * "" for NULL. Owned by the method; valid until its next failing call. */
TORCHIR_C_API_EXPORT const char* torchir_method_last_error(const torchir_method* method);

/* The number of inputs / outputs of the method. */
TORCHIR_C_API_EXPORT TORCHIR_C_API_NODISCARD torchir_status
torchir_method_input_count(const torchir_method* method, uint32_t* count);
TORCHIR_C_API_EXPORT TORCHIR_C_API_NODISCARD torchir_status
torchir_method_output_count(const torchir_method* method, uint32_t* count);

/* Fills *info for input / output `index`: name, dtype, rank, sizes, bytes.
 * Shapes are fixed when the program is compiled, so the info never changes. */
TORCHIR_C_API_EXPORT TORCHIR_C_API_NODISCARD torchir_status
torchir_method_input_info(const torchir_method* method, uint32_t index, torchir_tensor_info* info);
TORCHIR_C_API_EXPORT TORCHIR_C_API_NODISCARD torchir_status
torchir_method_output_info(const torchir_method* method, uint32_t index, torchir_tensor_info* info);

/* Copies input `index` from `data`: `dtype` must be the input's
 * (TORCHIR_STATUS_INVALID_TYPE otherwise) and `nbytes` its byte size
 * (TORCHIR_STATUS_SHAPE_MISMATCH otherwise); row-major. The caller keeps
 * `data`. Every input must be set again before each execute: the memory plan
 * reuses an input's bytes once the program has consumed it. Setting an input
 * ends the validity of the previous run's outputs (they may share memory). */
TORCHIR_C_API_EXPORT TORCHIR_C_API_NODISCARD torchir_status torchir_method_set_input(
    torchir_method* method, uint32_t index, torchir_dtype dtype, const void* data, uint64_t nbytes);

/* The zero-copy alternative to set_input: *data points at input `index`'s own
 * planned memory (*nbytes bytes, aligned for its dtype), for the caller to
 * write the input in place, e.g. a camera frame converted straight into it.
 * Counts as setting the input: call it again before each execute and write
 * after the call. The pointer stays valid until the method is freed, but
 * only what is written between this call and the next execute is read. */
TORCHIR_C_API_EXPORT TORCHIR_C_API_NODISCARD torchir_status
torchir_method_input_buffer(torchir_method* method, uint32_t index, void** data, uint64_t* nbytes);

/* Runs the method once on the inputs set since the last execute; every input
 * must have been set (TORCHIR_STATUS_NOT_INITIALIZED names the first that was
 * not). Allocates nothing. On failure the status is the failing kernel's or
 * delegate's and no outputs are available. */
TORCHIR_C_API_EXPORT TORCHIR_C_API_NODISCARD torchir_status
torchir_method_execute(torchir_method* method);

/* Borrows output `index` of the last successful execute: *data points at its
 * *nbytes bytes (row-major) inside the method's memory, valid until the next
 * set_input, input_buffer, execute or free of this method; copy it out to keep
 * it. TORCHIR_STATUS_NOT_INITIALIZED when there is no such run. */
TORCHIR_C_API_EXPORT TORCHIR_C_API_NODISCARD torchir_status torchir_method_output(
    const torchir_method* method, uint32_t index, const void** data, uint64_t* nbytes);

/* Copies output `index` of the last successful execute into `data`, which the
 * caller owns: `dtype` must be the output's and `nbytes` its byte size, as for
 * torchir_method_set_input. */
TORCHIR_C_API_EXPORT TORCHIR_C_API_NODISCARD torchir_status torchir_method_copy_output(
    const torchir_method* method, uint32_t index, torchir_dtype dtype, void* data, uint64_t nbytes);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TORCHIR_C_API_H_ */
