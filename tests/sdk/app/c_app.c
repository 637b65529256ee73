/* A minimal C app on the installed torchir SDK's C API (torchir/c_api.h):
 * loads a program, writes its inputs in place with the same fixed values as
 * main.cpp, runs "forward" and writes the outputs' bytes, concatenated in
 * order, so tests/sdk/run_sdk_test.sh can compare them with the C++ app's.
 *
 *   sdk_c_app PROGRAM.pte OUTPUTS_OUT.bin */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "torchir/c_api.h"

/* Prints the failed call's message and returns 1 from main. */
#define TRY(call)                                           \
  do {                                                      \
    if ((call) != TORCHIR_STATUS_OK) {                      \
      fprintf(stderr, "error: %s\n", torchir_last_error()); \
      return 1;                                             \
    }                                                       \
  } while (0)

/* Fills input `index` with main.cpp's values: floats in [-1, 1), integers in [0, 10). */
static int FillInput(uint32_t index, const torchir_tensor_info* info, void* data) {
  uint64_t k;
  for (k = 0; k < info->numel; ++k) {
    const int64_t v = (int64_t)((k * 7919 + (uint64_t)index * 31) % 2000);
    switch (info->dtype) {
      case TORCHIR_DTYPE_FLOAT32:
        ((float*)data)[k] = (float)v / 1000.0f - 1.0f;
        break;
      case TORCHIR_DTYPE_INT32:
        ((int32_t*)data)[k] = (int32_t)(v % 10);
        break;
      case TORCHIR_DTYPE_INT64:
        ((int64_t*)data)[k] = v % 10;
        break;
      case TORCHIR_DTYPE_BOOL:
        ((uint8_t*)data)[k] = (uint8_t)(v % 2);
        break;
      default:
        return 0;
    }
  }
  return 1;
}

int main(int argc, char** argv) {
  torchir_program* program = NULL;
  torchir_method* method = NULL;
  uint32_t num_inputs = 0, num_outputs = 0, i;
  FILE* out;
  if (argc != 3) {
    fprintf(stderr, "usage: %s PROGRAM.pte OUTPUTS_OUT\n", argv[0]);
    return 2;
  }
  TRY(torchir_program_open_file(argv[1], &program));
  TRY(torchir_method_load(program, "forward", NULL, &method));
  torchir_program_free(program); /* the method keeps it alive */
  TRY(torchir_method_input_count(method, &num_inputs));
  for (i = 0; i < num_inputs; ++i) {
    torchir_tensor_info info;
    void* data;
    uint64_t nbytes;
    TRY(torchir_method_input_info(method, i, &info));
    TRY(torchir_method_input_buffer(method, i, &data, &nbytes));
    if (!FillInput(i, &info, data)) {
      fprintf(stderr, "error: input %u is %s\n", i, torchir_dtype_name(info.dtype));
      return 1;
    }
  }
  TRY(torchir_method_execute(method));
  TRY(torchir_method_output_count(method, &num_outputs));
  out = fopen(argv[2], "wb");
  if (out == NULL) return 1;
  for (i = 0; i < num_outputs; ++i) {
    const void* data;
    uint64_t nbytes;
    TRY(torchir_method_output(method, i, &data, &nbytes));
    if (fwrite(data, 1, (size_t)nbytes, out) != nbytes) return 1;
  }
  if (fclose(out) != 0) return 1;
  torchir_method_free(method);
  printf("ran %s from C: %u inputs, %u outputs\n", argv[1], num_inputs, num_outputs);
  return 0;
}
