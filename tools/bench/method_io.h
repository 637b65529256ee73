// Feeding a Method its inputs and checking its outputs, with nothing but the
// runtime: random inputs, inputs from a .safetensors file, and a comparison of
// the outputs with expected ones. Shared by torchir-bench and torchir-run.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/executor/method.h"
#include "tools/bench/safetensors_reader.h"

namespace torchir::bench {

// The bytes of every method input, in order. The plan may reuse an input's
// bytes once it is consumed, so a runner applies them again before every run.
using InputBytes = std::vector<std::vector<uint8_t>>;

// Random inputs of the method's input types, from `seed`: uniform in [-1, 1)
// for floats, [0, 10) for integers, 0 or 1 for bools, zeros for other dtypes.
InputBytes RandomInputs(const runtime::Method& method, uint32_t seed);

// The method's inputs from `file`, by input name. Every missing, extra or
// mismatched tensor is named in `error` (one line) and false returned.
bool InputsFromFile(const runtime::Method& method, const SafetensorsFile& file, InputBytes* inputs,
                    std::string* error);

// Copies `inputs` into the method's input tensors.
runtime::Error ApplyInputs(runtime::Method& method, const InputBytes& inputs);

// How one output compared with its expected value.
struct OutputComparison {
  std::string name;
  bool passed = false;
  std::string detail;  // "max abs diff 1.2e-06, 0 of 1000 elements outside tolerance"
};

// Compares every method output with the tensor of the same name in `expected`:
// floats within atol + rtol * |expected| (NaN matches NaN), other dtypes bit
// for bit. False with `error` when an output is missing or of another type.
bool CompareOutputs(const runtime::Method& method, const SafetensorsFile& expected, double atol,
                    double rtol, std::vector<OutputComparison>* results, std::string* error);

}  // namespace torchir::bench
