/* The C API (torchir/c_api.h) from a C99 program, on a real zoo program:
 *
 *   c_api_test PROGRAM.pte INPUTS.safetensors EXPECTED.safetensors ATOL RTOL
 *
 * 1. runs "forward" on the zoo inputs and compares every output with the
 *    expected one (floats: |out - expected| <= ATOL + RTOL * |expected|;
 *    integers and bools exactly); runs it again through the zero-copy input
 *    buffers, and from the program's bytes copied and borrowed, and wants the
 *    same bytes each time;
 * 2. checks the error paths: a missing file, corrupt and truncated buffers,
 *    NULL handles and pointers, indices out of range, wrong dtypes and sizes,
 *    calls out of order; each must return its status and a message, and
 *    never abort;
 * 3. frees a program before its method, which must still run;
 * 4. runs one program on two threads at once, a method each (loaded
 *    concurrently), several times, and wants the reference bytes every time.
 * Exit status 0 when every check passed, 1 otherwise (each failure printed). */
#define _POSIX_C_SOURCE 200809L /* pthreads in strict C99 */

#include "torchir/c_api.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int g_failures = 0;

#define CHECK(cond)                                                                      \
  do {                                                                                   \
    if (!(cond)) {                                                                       \
      fprintf(stderr, "%s:%d: FAILED: %s (last error: %s)\n", __FILE__, __LINE__, #cond, \
              torchir_last_error());                                                     \
      ++g_failures;                                                                      \
    }                                                                                    \
  } while (0)

/* A call that must succeed; on failure the check fails with the status. */
#define CHECK_OK(call)                                                                  \
  do {                                                                                  \
    torchir_status status_ = (call);                                                    \
    if (status_ != TORCHIR_STATUS_OK) {                                                 \
      fprintf(stderr, "%s:%d: FAILED: %s returned %s: %s\n", __FILE__, __LINE__, #call, \
              torchir_status_string(status_), torchir_last_error());                    \
      ++g_failures;                                                                     \
    }                                                                                   \
  } while (0)

/* A call that must fail with `expected` and leave a message (on the thread
 * and, when given, on the method). */
#define CHECK_FAILS(call, expected, method)                                                      \
  do {                                                                                           \
    torchir_status status_ = (call);                                                             \
    if (status_ != (expected)) {                                                                 \
      fprintf(stderr, "%s:%d: FAILED: %s returned %s, expected %s (last error: %s)\n", __FILE__, \
              __LINE__, #call, torchir_status_string(status_), torchir_status_string(expected),  \
              torchir_last_error());                                                             \
      ++g_failures;                                                                              \
    } else if (torchir_last_error()[0] == '\0' ||                                                \
               ((method) != NULL &&                                                              \
                strcmp(torchir_method_last_error(method), torchir_last_error()) != 0)) {         \
      fprintf(stderr, "%s:%d: FAILED: %s left no message\n", __FILE__, __LINE__, #call);         \
      ++g_failures;                                                                              \
    } else {                                                                                     \
      printf("as expected, %s: %s\n", torchir_status_string(status_), torchir_last_error());     \
    }                                                                                            \
  } while (0)

/* ---- A small .safetensors reader: an 8-byte little-endian header length,
 * a JSON header {"name": {"dtype", "shape", "data_offsets"}, ...}, data. ---- */

typedef struct {
  unsigned char* bytes;
  uint64_t size;
} Blob;

static int ReadFile(const char* path, Blob* blob) {
  FILE* file = fopen(path, "rb");
  long size;
  blob->bytes = NULL;
  blob->size = 0;
  if (file == NULL) return 0;
  if (fseek(file, 0, SEEK_END) != 0 || (size = ftell(file)) < 0 || fseek(file, 0, SEEK_SET) != 0) {
    fclose(file);
    return 0;
  }
  blob->bytes = (unsigned char*)malloc((size_t)size + 1);
  blob->size = (uint64_t)size;
  if (blob->bytes == NULL || fread(blob->bytes, 1, (size_t)size, file) != (size_t)size) {
    fclose(file);
    return 0;
  }
  fclose(file);
  return 1;
}

typedef struct {
  torchir_dtype dtype;
  uint32_t rank;
  int64_t sizes[16];
  const unsigned char* data;
  uint64_t nbytes;
} StoredTensor;

static torchir_dtype SafetensorsDtype(const char* name, size_t length) {
  static const struct {
    const char* name;
    torchir_dtype dtype;
  } kTypes[] = {{"F32", TORCHIR_DTYPE_FLOAT32}, {"F64", TORCHIR_DTYPE_FLOAT64},
                {"F16", TORCHIR_DTYPE_FLOAT16}, {"BF16", TORCHIR_DTYPE_BFLOAT16},
                {"I8", TORCHIR_DTYPE_INT8},     {"I16", TORCHIR_DTYPE_INT16},
                {"I32", TORCHIR_DTYPE_INT32},   {"I64", TORCHIR_DTYPE_INT64},
                {"U8", TORCHIR_DTYPE_UINT8},    {"BOOL", TORCHIR_DTYPE_BOOL}};
  size_t i;
  for (i = 0; i < sizeof(kTypes) / sizeof(kTypes[0]); ++i) {
    if (strlen(kTypes[i].name) == length && memcmp(kTypes[i].name, name, length) == 0) {
      return kTypes[i].dtype;
    }
  }
  return -1;
}

/* Finds tensor `name` in a .safetensors file held in `blob`; 0 if absent or malformed. */
static int FindTensor(const Blob* blob, const char* name, StoredTensor* tensor) {
  uint64_t header_size = 0;
  char* header;
  char key[256];
  const char *entry, *end, *field;
  uint64_t begin_offset, end_offset;
  int i;
  if (blob->size < 8) return 0;
  for (i = 7; i >= 0; --i) header_size = (header_size << 8) | blob->bytes[i];
  if (header_size > blob->size - 8) return 0;
  header = (char*)malloc((size_t)header_size + 1);
  if (header == NULL) return 0;
  memcpy(header, blob->bytes + 8, (size_t)header_size);
  header[header_size] = '\0';
  snprintf(key, sizeof(key), "\"%s\":{", name);
  entry = strstr(header, key);
  end = entry != NULL ? strchr(entry + strlen(key), '}') : NULL;
  if (entry == NULL || end == NULL) {
    free(header);
    return 0;
  }
  memset(tensor, 0, sizeof(*tensor));
  field = strstr(entry, "\"dtype\":\"");
  if (field == NULL || field > end) goto malformed;
  field += strlen("\"dtype\":\"");
  tensor->dtype = SafetensorsDtype(field, strcspn(field, "\""));
  field = strstr(entry, "\"shape\":[");
  if (field == NULL || field > end) goto malformed;
  field += strlen("\"shape\":[");
  while (*field != ']' && tensor->rank < 16) {
    char* next;
    tensor->sizes[tensor->rank++] = strtoll(field, &next, 10);
    field = *next == ',' ? next + 1 : next;
    if (next == field && *field != ']') goto malformed;
  }
  field = strstr(entry, "\"data_offsets\":[");
  if (field == NULL || field > end) goto malformed;
  field += strlen("\"data_offsets\":[");
  begin_offset = strtoull(field, (char**)&field, 10);
  if (*field++ != ',') goto malformed;
  end_offset = strtoull(field, NULL, 10);
  if (begin_offset > end_offset || end_offset > blob->size - 8 - header_size) goto malformed;
  tensor->data = blob->bytes + 8 + header_size + begin_offset;
  tensor->nbytes = end_offset - begin_offset;
  free(header);
  return 1;
malformed:
  free(header);
  return 0;
}

/* ---- Checks ---- */

static int SameShape(const torchir_tensor_info* info, const StoredTensor* stored) {
  uint32_t d;
  if (info->dtype != stored->dtype || info->rank != stored->rank ||
      info->nbytes != stored->nbytes) {
    return 0;
  }
  for (d = 0; d < info->rank; ++d) {
    if (info->sizes[d] != stored->sizes[d]) return 0;
  }
  return 1;
}

/* Compares output `index` with the expected tensor; prints the first mismatch. */
static void CheckOutputMatches(const torchir_tensor_info* info, const void* data,
                               const StoredTensor* expected, double atol, double rtol) {
  uint64_t i;
  if (!SameShape(info, expected)) {
    fprintf(stderr, "FAILED: output '%s' is %s[%u dims, %llu bytes], expected %s[%u dims]\n",
            info->name, torchir_dtype_name(info->dtype), info->rank,
            (unsigned long long)info->nbytes, torchir_dtype_name(expected->dtype), expected->rank);
    ++g_failures;
    return;
  }
  if (info->dtype == TORCHIR_DTYPE_FLOAT32) {
    double worst = 0;
    for (i = 0; i < info->numel; ++i) {
      float got, want;
      memcpy(&got, (const unsigned char*)data + 4 * i, 4);
      memcpy(&want, expected->data + 4 * i, 4);
      if (!(fabs((double)got - want) <= atol + rtol * fabs((double)want))) {
        fprintf(stderr, "FAILED: output '%s'[%llu] = %.9g, expected %.9g (atol %g, rtol %g)\n",
                info->name, (unsigned long long)i, got, want, atol, rtol);
        ++g_failures;
        return;
      }
      if (fabs((double)got - want) > worst) worst = fabs((double)got - want);
    }
    printf("output '%s': %llu float32 values, max abs error %.3g\n", info->name,
           (unsigned long long)info->numel, worst);
  } else if (memcmp(data, expected->data, (size_t)info->nbytes) != 0) {
    fprintf(stderr, "FAILED: output '%s' (%s) differs from the expected values\n", info->name,
            torchir_dtype_name(info->dtype));
    ++g_failures;
  } else {
    printf("output '%s': %llu %s values, exact\n", info->name, (unsigned long long)info->numel,
           torchir_dtype_name(info->dtype));
  }
}

/* Sets every input of `method` from `inputs` (by name), through set_input or,
 * when `in_place`, written into input_buffer's memory. */
static void SetInputs(torchir_method* method, const Blob* inputs, int in_place) {
  uint32_t count = 0, i;
  CHECK_OK(torchir_method_input_count(method, &count));
  for (i = 0; i < count; ++i) {
    torchir_tensor_info info;
    StoredTensor stored;
    CHECK_OK(torchir_method_input_info(method, i, &info));
    if (!FindTensor(inputs, info.name, &stored) || !SameShape(&info, &stored)) {
      fprintf(stderr, "FAILED: no input '%s' of %s[%u dims] in the inputs file\n", info.name,
              torchir_dtype_name(info.dtype), info.rank);
      ++g_failures;
      continue;
    }
    if (in_place) {
      void* buffer = NULL;
      uint64_t nbytes = 0;
      CHECK_OK(torchir_method_input_buffer(method, i, &buffer, &nbytes));
      CHECK(buffer != NULL && nbytes == info.nbytes);
      if (buffer != NULL && nbytes == stored.nbytes) memcpy(buffer, stored.data, (size_t)nbytes);
    } else {
      CHECK_OK(torchir_method_set_input(method, i, info.dtype, stored.data, stored.nbytes));
    }
  }
}

/* Concatenates every output of the last run into a new buffer (freed by the caller). */
static unsigned char* CopyOutputs(const torchir_method* method, uint64_t* total) {
  uint32_t count = 0, i;
  unsigned char* all;
  uint64_t used = 0;
  *total = 0;
  CHECK_OK(torchir_method_output_count(method, &count));
  for (i = 0; i < count; ++i) {
    torchir_tensor_info info;
    CHECK_OK(torchir_method_output_info(method, i, &info));
    *total += info.nbytes;
  }
  all = (unsigned char*)malloc((size_t)*total + 1);
  if (all == NULL) return NULL;
  for (i = 0; i < count; ++i) {
    torchir_tensor_info info;
    CHECK_OK(torchir_method_output_info(method, i, &info));
    CHECK_OK(torchir_method_copy_output(method, i, info.dtype, all + used, info.nbytes));
    used += info.nbytes;
  }
  return all;
}

/* Loads "forward", runs it once on `inputs` and returns its outputs' bytes. */
static unsigned char* RunOnce(torchir_program* program, const Blob* inputs, uint64_t* total) {
  torchir_method* method = NULL;
  unsigned char* outputs = NULL;
  *total = 0;
  CHECK_OK(torchir_method_load(program, "forward", NULL, &method));
  if (method == NULL) return NULL;
  SetInputs(method, inputs, 0);
  CHECK_OK(torchir_method_execute(method));
  outputs = CopyOutputs(method, total);
  torchir_method_free(method);
  return outputs;
}

/* One thread of part 4: loads its own method of the shared program and runs
 * it `runs` times. Counts its failures itself (the CHECK macros are not
 * thread-safe). */
typedef struct {
  torchir_program* program;
  const Blob* inputs;
  const unsigned char* reference;
  uint64_t reference_size;
  int runs;
  int failures;
} ThreadJob;

static void* RunInThread(void* argument) {
  ThreadJob* job = (ThreadJob*)argument;
  torchir_method* method = NULL;
  torchir_method_options options;
  uint32_t num_inputs = 0, num_outputs = 0, i;
  unsigned char* outputs = (unsigned char*)malloc((size_t)job->reference_size + 1);
  int run;
  memset(&options, 0, sizeof(options));
  options.num_threads = 1;
  if (outputs == NULL || torchir_method_load(job->program, "forward", &options, &method) != 0 ||
      torchir_method_input_count(method, &num_inputs) != 0 ||
      torchir_method_output_count(method, &num_outputs) != 0) {
    fprintf(stderr, "FAILED: thread setup: %s\n", torchir_last_error());
    ++job->failures;
    free(outputs);
    torchir_method_free(method);
    return NULL;
  }
  for (run = 0; run < job->runs; ++run) {
    uint64_t used = 0;
    for (i = 0; i < num_inputs; ++i) {
      torchir_tensor_info info;
      StoredTensor stored;
      if (torchir_method_input_info(method, i, &info) != 0 ||
          !FindTensor(job->inputs, info.name, &stored) ||
          torchir_method_set_input(method, i, info.dtype, stored.data, stored.nbytes) != 0) {
        ++job->failures;
      }
    }
    if (torchir_method_execute(method) != 0) {
      fprintf(stderr, "FAILED: thread run %d: %s\n", run, torchir_method_last_error(method));
      ++job->failures;
      continue;
    }
    for (i = 0; i < num_outputs; ++i) {
      torchir_tensor_info info;
      if (torchir_method_output_info(method, i, &info) != 0 ||
          used + info.nbytes > job->reference_size ||
          torchir_method_copy_output(method, i, info.dtype, outputs + used, info.nbytes) != 0) {
        ++job->failures;
        break;
      }
      used += info.nbytes;
    }
    if (used != job->reference_size || memcmp(outputs, job->reference, (size_t)used) != 0) {
      fprintf(stderr, "FAILED: thread run %d gave other outputs\n", run);
      ++job->failures;
    }
  }
  free(outputs);
  torchir_method_free(method);
  return NULL;
}

static int g_error_logs = 0;
static void CountErrors(torchir_log_level level, const char* message, void* user_data) {
  (void)message;
  if (level == TORCHIR_LOG_ERROR) ++g_error_logs;
  CHECK(user_data == &g_error_logs);
}

static int IsProgramError(torchir_status status) { return status >= 0x30 && status <= 0x3f; }

int main(int argc, char** argv) {
  const char* path;
  Blob file, inputs, expected;
  torchir_program* program = NULL;
  torchir_method* method = NULL;
  torchir_method_options options;
  uint32_t count = 0, i, num_inputs = 0, num_outputs = 0;
  const char* name = NULL;
  double atol, rtol;
  unsigned char *reference = NULL, *again = NULL;
  uint64_t reference_size = 0, again_size = 0;
  const void* borrowed = NULL;

  if (argc != 6) {
    fprintf(stderr, "usage: %s PROGRAM.pte INPUTS.safetensors EXPECTED.safetensors ATOL RTOL\n",
            argv[0]);
    return 2;
  }
  path = argv[1];
  atol = strtod(argv[4], NULL);
  rtol = strtod(argv[5], NULL);
  if (!ReadFile(path, &file) || !ReadFile(argv[2], &inputs) || !ReadFile(argv[3], &expected)) {
    fprintf(stderr, "error: cannot read %s, %s or %s\n", path, argv[2], argv[3]);
    return 1;
  }
  CHECK(torchir_c_api_version() == TORCHIR_C_API_VERSION);
  printf("backends: %s\n", (torchir_backends() & TORCHIR_BACKEND_XNNPACK) ? "xnnpack" : "none");

  /* 1. The program, its metadata and one run against the expected outputs. */
  CHECK_OK(torchir_program_open_file(path, &program));
  if (program == NULL) return 1;
  CHECK_OK(torchir_program_method_count(program, &count));
  CHECK(count >= 1);
  CHECK_OK(torchir_program_method_name(program, 0, &name));
  CHECK(name != NULL && strcmp(name, "forward") == 0);
  memset(&options, 0, sizeof(options));
  options.num_threads = 2;
  CHECK_OK(torchir_method_load(program, "forward", &options, &method));
  if (method == NULL) return 1;
  CHECK_OK(torchir_method_input_count(method, &num_inputs));
  CHECK_OK(torchir_method_output_count(method, &num_outputs));
  CHECK(num_inputs >= 1 && num_outputs >= 1);
  for (i = 0; i < num_inputs; ++i) {
    torchir_tensor_info info;
    uint64_t numel = 1;
    uint32_t d;
    CHECK_OK(torchir_method_input_info(method, i, &info));
    for (d = 0; d < info.rank; ++d) numel *= (uint64_t)info.sizes[d];
    CHECK(info.name != NULL && info.numel == numel &&
          info.nbytes == numel * torchir_dtype_size(info.dtype));
  }
  SetInputs(method, &inputs, 0);
  CHECK_OK(torchir_method_execute(method));
  for (i = 0; i < num_outputs; ++i) {
    torchir_tensor_info info;
    StoredTensor want;
    const void* data = NULL;
    uint64_t nbytes = 0;
    CHECK_OK(torchir_method_output_info(method, i, &info));
    CHECK_OK(torchir_method_output(method, i, &data, &nbytes));
    CHECK(data != NULL && nbytes == info.nbytes);
    if (!FindTensor(&expected, info.name, &want)) {
      fprintf(stderr, "FAILED: no expected output '%s'\n", info.name);
      ++g_failures;
      continue;
    }
    if (data != NULL) CheckOutputMatches(&info, data, &want, atol, rtol);
  }
  reference = CopyOutputs(method, &reference_size);

  /* The same run again, inputs written in place: the same bytes. */
  SetInputs(method, &inputs, 1);
  CHECK_OK(torchir_method_execute(method));
  again = CopyOutputs(method, &again_size);
  CHECK(reference != NULL && again != NULL && again_size == reference_size &&
        memcmp(again, reference, (size_t)reference_size) == 0);
  free(again);

  /* From the program's bytes, copied and borrowed (16-byte aligned): the same bytes. */
  {
    unsigned char* raw = (unsigned char*)malloc((size_t)file.size + 32);
    unsigned char* aligned = raw + (16 - (uintptr_t)raw % 16) % 16;
    torchir_program* from_buffer = NULL;
    int mode;
    for (mode = TORCHIR_BUFFER_COPY; mode <= TORCHIR_BUFFER_BORROW; ++mode) {
      memcpy(aligned, file.bytes, (size_t)file.size);
      CHECK_OK(torchir_program_open_buffer(aligned, file.size, mode, &from_buffer));
      if (mode == TORCHIR_BUFFER_COPY) memset(aligned, 0, (size_t)file.size); /* it copied */
      if (from_buffer == NULL) continue;
      again = RunOnce(from_buffer, &inputs, &again_size);
      CHECK(reference != NULL && again != NULL && again_size == reference_size &&
            memcmp(again, reference, (size_t)reference_size) == 0);
      free(again);
      torchir_program_free(from_buffer);
    }
    /* A borrowed buffer must be aligned. */
    memcpy(aligned + 1, file.bytes, (size_t)file.size);
    CHECK_FAILS(
        torchir_program_open_buffer(aligned + 1, file.size, TORCHIR_BUFFER_BORROW, &from_buffer),
        TORCHIR_STATUS_INVALID_ARGUMENT, NULL);
    CHECK(from_buffer == NULL);
    CHECK(strstr(torchir_last_error(), "aligned") != NULL);

    /* 2. Corrupt programs: log lines go to the callback, the status says why. */
    torchir_set_log_callback(CountErrors, &g_error_logs);
    memcpy(aligned, file.bytes, (size_t)file.size);
    memset(aligned, 0xA5, 16); /* the file header's magic and version */
    CHECK(IsProgramError(
        torchir_program_open_buffer(aligned, file.size, TORCHIR_BUFFER_COPY, &from_buffer)));
    CHECK(from_buffer == NULL && strstr(torchir_last_error(), "not a valid program") != NULL);
    printf("as expected: %s\n", torchir_last_error());
    memcpy(aligned, file.bytes, (size_t)file.size);
    CHECK(IsProgramError(
        torchir_program_open_buffer(aligned, file.size / 2, TORCHIR_BUFFER_BORROW, &from_buffer)));
    CHECK(from_buffer == NULL);
    memset(aligned, 0, 100);
    CHECK(IsProgramError(
        torchir_program_open_buffer(aligned, 100, TORCHIR_BUFFER_COPY, &from_buffer)));
    CHECK(
        IsProgramError(torchir_program_open_buffer(aligned, 0, TORCHIR_BUFFER_COPY, &from_buffer)));
    CHECK(g_error_logs > 0);
    CHECK_FAILS(torchir_program_open_buffer(aligned, 100, 7, &from_buffer),
                TORCHIR_STATUS_INVALID_ARGUMENT, NULL);
    free(raw);
  }
  torchir_method_free(method);
  torchir_program_free(program);

  /* Files that cannot be read. */
  CHECK_FAILS(torchir_program_open_file("/nonexistent/model.pte", &program),
              TORCHIR_STATUS_IO_ERROR, NULL);
  CHECK(program == NULL && strstr(torchir_last_error(), "/nonexistent/model.pte") != NULL);
  CHECK_FAILS(torchir_program_open_file("/", &program), TORCHIR_STATUS_IO_ERROR, NULL);

  /* NULL handles and pointers: a status, never a crash. */
  CHECK_FAILS(torchir_program_open_file(NULL, &program), TORCHIR_STATUS_INVALID_ARGUMENT, NULL);
  CHECK(program == NULL); /* cleared on failure */
  CHECK_OK(torchir_program_open_file(path, &program));
  if (program == NULL) return 1;
  CHECK_FAILS(torchir_program_open_file(path, NULL), TORCHIR_STATUS_INVALID_ARGUMENT, NULL);
  CHECK_FAILS(torchir_program_open_buffer(NULL, 10, TORCHIR_BUFFER_COPY, NULL),
              TORCHIR_STATUS_INVALID_ARGUMENT, NULL);
  CHECK_FAILS(torchir_program_method_count(NULL, &count), TORCHIR_STATUS_INVALID_ARGUMENT, NULL);
  CHECK_FAILS(torchir_program_method_count(program, NULL), TORCHIR_STATUS_INVALID_ARGUMENT, NULL);
  CHECK_FAILS(torchir_program_method_name(program, 0, NULL), TORCHIR_STATUS_INVALID_ARGUMENT, NULL);
  CHECK_FAILS(torchir_method_load(NULL, "forward", NULL, &method), TORCHIR_STATUS_INVALID_ARGUMENT,
              NULL);
  CHECK(method == NULL);
  CHECK_FAILS(torchir_method_load(program, NULL, NULL, &method), TORCHIR_STATUS_INVALID_ARGUMENT,
              NULL);
  CHECK_FAILS(torchir_method_load(program, "forward", NULL, NULL), TORCHIR_STATUS_INVALID_ARGUMENT,
              NULL);
  CHECK_FAILS(torchir_method_input_count(NULL, &count), TORCHIR_STATUS_INVALID_ARGUMENT, NULL);
  CHECK_FAILS(torchir_method_output_info(NULL, 0, NULL), TORCHIR_STATUS_INVALID_ARGUMENT, NULL);
  CHECK_FAILS(torchir_method_set_input(NULL, 0, TORCHIR_DTYPE_FLOAT32, &count, 4),
              TORCHIR_STATUS_INVALID_ARGUMENT, NULL);
  CHECK_FAILS(torchir_method_execute(NULL), TORCHIR_STATUS_INVALID_ARGUMENT, NULL);
  CHECK_FAILS(torchir_method_output(NULL, 0, &borrowed, &again_size),
              TORCHIR_STATUS_INVALID_ARGUMENT, NULL);
  CHECK_FAILS(torchir_method_copy_output(NULL, 0, TORCHIR_DTYPE_FLOAT32, &count, 4),
              TORCHIR_STATUS_INVALID_ARGUMENT, NULL);
  CHECK(strcmp(torchir_method_last_error(NULL), "") == 0);
  torchir_method_free(NULL);
  torchir_program_free(NULL);

  /* Names and indices out of range. */
  CHECK_FAILS(torchir_program_method_name(program, count, &name), TORCHIR_STATUS_INDEX_OUT_OF_RANGE,
              NULL);
  CHECK_FAILS(torchir_method_load(program, "backward", NULL, &method), TORCHIR_STATUS_NOT_FOUND,
              NULL);
  CHECK(strstr(torchir_last_error(), "'backward'") != NULL);
  memset(&options, 0, sizeof(options));
  options.reserved = 1;
  CHECK_FAILS(torchir_method_load(program, "forward", &options, &method),
              TORCHIR_STATUS_INVALID_ARGUMENT, NULL);

  /* Calls on a method: wrong input, out of order, out of range. */
  CHECK_OK(torchir_method_load(program, "forward", NULL, &method));
  if (method == NULL) return 1;
  CHECK(strcmp(torchir_method_last_error(method), "") == 0);
  {
    torchir_tensor_info info;
    const void* data = NULL;
    uint64_t nbytes = 0;
    void* buffer = NULL;
    unsigned char* zeros;
    torchir_dtype other;
    CHECK_OK(torchir_method_input_info(method, 0, &info));
    zeros = (unsigned char*)calloc(1, (size_t)info.nbytes + 64);
    other = info.dtype == TORCHIR_DTYPE_FLOAT32 ? TORCHIR_DTYPE_INT32 : TORCHIR_DTYPE_FLOAT32;
    CHECK_FAILS(torchir_method_input_info(method, num_inputs, &info),
                TORCHIR_STATUS_INDEX_OUT_OF_RANGE, method);
    CHECK_FAILS(torchir_method_output_info(method, num_outputs, &info),
                TORCHIR_STATUS_INDEX_OUT_OF_RANGE, method);
    CHECK_FAILS(torchir_method_input_info(method, 0, NULL), TORCHIR_STATUS_INVALID_ARGUMENT,
                method);
    CHECK_OK(torchir_method_input_info(method, 0, &info));
    CHECK_FAILS(torchir_method_set_input(method, num_inputs, info.dtype, zeros, info.nbytes),
                TORCHIR_STATUS_INDEX_OUT_OF_RANGE, method);
    CHECK_FAILS(torchir_method_set_input(method, 0, other, zeros, info.nbytes),
                TORCHIR_STATUS_INVALID_TYPE, method);
    CHECK(strstr(torchir_method_last_error(method), info.name) != NULL);
    CHECK_FAILS(torchir_method_set_input(method, 0, 99, zeros, info.nbytes),
                TORCHIR_STATUS_INVALID_TYPE, method);
    CHECK_FAILS(torchir_method_set_input(method, 0, info.dtype, zeros, info.nbytes - 1),
                TORCHIR_STATUS_SHAPE_MISMATCH, method);
    CHECK_FAILS(torchir_method_set_input(method, 0, info.dtype, zeros, info.nbytes + 4),
                TORCHIR_STATUS_SHAPE_MISMATCH, method);
    CHECK_FAILS(torchir_method_set_input(method, 0, info.dtype, NULL, info.nbytes),
                TORCHIR_STATUS_INVALID_ARGUMENT, method);
    CHECK_FAILS(torchir_method_input_buffer(method, 0, &buffer, NULL),
                TORCHIR_STATUS_INVALID_ARGUMENT, method);
    CHECK_FAILS(torchir_method_input_buffer(method, num_inputs, &buffer, &nbytes),
                TORCHIR_STATUS_INDEX_OUT_OF_RANGE, method);
    /* Nothing ran yet: no inputs set, no outputs. */
    CHECK_FAILS(torchir_method_execute(method), TORCHIR_STATUS_NOT_INITIALIZED, method);
    CHECK(strstr(torchir_method_last_error(method), "not set") != NULL);
    CHECK_FAILS(torchir_method_output(method, 0, &data, &nbytes), TORCHIR_STATUS_NOT_INITIALIZED,
                method);
    /* A successful run; then outputs out of range, with the wrong dtype or size. */
    SetInputs(method, &inputs, 0);
    CHECK_OK(torchir_method_execute(method));
    CHECK_OK(torchir_method_output_info(method, 0, &info));
    CHECK_FAILS(torchir_method_output(method, num_outputs, &data, &nbytes),
                TORCHIR_STATUS_INDEX_OUT_OF_RANGE, method);
    CHECK_FAILS(torchir_method_output(method, 0, &data, NULL), TORCHIR_STATUS_INVALID_ARGUMENT,
                method);
    free(zeros);
    zeros = (unsigned char*)calloc(1, (size_t)info.nbytes + 64);
    other = info.dtype == TORCHIR_DTYPE_FLOAT32 ? TORCHIR_DTYPE_INT32 : TORCHIR_DTYPE_FLOAT32;
    CHECK_FAILS(torchir_method_copy_output(method, 0, other, zeros, info.nbytes),
                TORCHIR_STATUS_INVALID_TYPE, method);
    CHECK_FAILS(torchir_method_copy_output(method, 0, info.dtype, zeros, info.nbytes + 1),
                TORCHIR_STATUS_SHAPE_MISMATCH, method);
    CHECK_FAILS(torchir_method_copy_output(method, 0, info.dtype, NULL, info.nbytes),
                TORCHIR_STATUS_INVALID_ARGUMENT, method);
    CHECK_OK(torchir_method_copy_output(method, 0, info.dtype, zeros, info.nbytes));
    /* Setting an input ends the last run's outputs; inputs are needed again. */
    SetInputs(method, &inputs, 0);
    CHECK_FAILS(torchir_method_output(method, 0, &data, &nbytes), TORCHIR_STATUS_NOT_INITIALIZED,
                method);
    CHECK_OK(torchir_method_execute(method));
    CHECK_FAILS(torchir_method_execute(method), TORCHIR_STATUS_NOT_INITIALIZED, method);
    free(zeros);
  }

  /* 3. The program freed first: the method keeps it alive and still runs. */
  torchir_program_free(program);
  SetInputs(method, &inputs, 0);
  CHECK_OK(torchir_method_execute(method));
  torchir_method_free(method);

  /* 4. One program, two threads, a method each. */
  CHECK_OK(torchir_program_open_file(path, &program));
  if (program != NULL && reference != NULL) {
    ThreadJob jobs[2];
    pthread_t threads[2];
    int t;
    for (t = 0; t < 2; ++t) {
      jobs[t].program = program;
      jobs[t].inputs = &inputs;
      jobs[t].reference = reference;
      jobs[t].reference_size = reference_size;
      jobs[t].runs = 20;
      jobs[t].failures = 0;
      CHECK(pthread_create(&threads[t], NULL, RunInThread, &jobs[t]) == 0);
    }
    for (t = 0; t < 2; ++t) {
      CHECK(pthread_join(threads[t], NULL) == 0);
      CHECK(jobs[t].failures == 0);
    }
  }
  torchir_program_free(program);
  free(reference);

  /* Status and dtype strings. */
  CHECK(strcmp(torchir_status_string(TORCHIR_STATUS_OK), "ok") == 0);
  CHECK(strcmp(torchir_status_string(-5), "unknown status") == 0);
  for (i = 0; i < 0x50; ++i) CHECK(torchir_status_string((torchir_status)i) != NULL);
  CHECK(strcmp(torchir_dtype_name(TORCHIR_DTYPE_INT64), "int64") == 0);
  CHECK(strcmp(torchir_dtype_name(99), "unknown") == 0);
  CHECK(torchir_dtype_size(TORCHIR_DTYPE_FLOAT32) == 4 && torchir_dtype_size(-1) == 0);
  torchir_set_log_callback(NULL, NULL);

  free(file.bytes);
  free(inputs.bytes);
  free(expected.bytes);
  if (g_failures > 0) {
    fprintf(stderr, "%d check(s) failed\n", g_failures);
    return 1;
  }
  printf("PASS: %s through the C API\n", path);
  return 0;
}
