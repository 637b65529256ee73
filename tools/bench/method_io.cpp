#include "tools/bench/method_io.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>

namespace torchir::bench {
namespace {

using runtime::ScalarType;

std::string TypeOf(const runtime::Tensor& tensor) {
  return DescribeTensorType(tensor.scalar_type(), tensor.sizes().data(), tensor.sizes().size());
}

std::string TypeOf(const SafetensorsTensor& tensor) {
  return DescribeTensorType(tensor.dtype, tensor.shape.data(), tensor.shape.size());
}

bool SameType(const runtime::Tensor& tensor, const SafetensorsTensor& stored) {
  if (tensor.scalar_type() != stored.dtype || tensor.sizes().size() != stored.shape.size()) {
    return false;
  }
  for (size_t i = 0; i < stored.shape.size(); ++i) {
    if (tensor.sizes()[i] != stored.shape[i]) return false;
  }
  return true;
}

void Append(std::string* text, const std::string& line) {
  if (!text->empty()) *text += "; ";
  *text += line;
}

// Element `i` of a float tensor as a double, for the dtypes compared with tolerance.
bool FloatAt(ScalarType type, const uint8_t* data, size_t i, double* value) {
  switch (type) {
    case ScalarType::kFloat32: {
      float v;
      std::memcpy(&v, data + i * 4, 4);
      *value = v;
      return true;
    }
    case ScalarType::kFloat64:
      std::memcpy(value, data + i * 8, 8);
      return true;
    default:
      return false;
  }
}

}  // namespace

InputBytes RandomInputs(const runtime::Method& method, uint32_t seed) {
  std::mt19937 rng(seed);
  InputBytes inputs;
  for (size_t k = 0; k < method.num_inputs(); ++k) {
    const runtime::Tensor& tensor = method.input(k);
    std::vector<uint8_t> bytes(tensor.nbytes());
    const int64_t n = tensor.numel();
    for (int64_t i = 0; i < n; ++i) {
      const auto at = static_cast<size_t>(i);
      switch (tensor.scalar_type()) {
        case ScalarType::kFloat32: {
          float v = std::uniform_real_distribution<float>(-1.0f, 1.0f)(rng);
          std::memcpy(&bytes[at * 4], &v, 4);
          break;
        }
        case ScalarType::kInt64: {
          int64_t v = static_cast<int64_t>(rng() % 10);
          std::memcpy(&bytes[at * 8], &v, 8);
          break;
        }
        case ScalarType::kInt32: {
          int32_t v = static_cast<int32_t>(rng() % 10);
          std::memcpy(&bytes[at * 4], &v, 4);
          break;
        }
        case ScalarType::kBool:
          bytes[at] = static_cast<uint8_t>(rng() & 1);
          break;
        default:
          break;  // zeros: a valid value of every other dtype
      }
    }
    inputs.push_back(std::move(bytes));
  }
  return inputs;
}

bool InputsFromFile(const runtime::Method& method, const SafetensorsFile& file, InputBytes* inputs,
                    std::string* error) {
  std::string problems;
  inputs->clear();
  for (size_t k = 0; k < method.num_inputs(); ++k) {
    const runtime::Tensor& tensor = method.input(k);
    const std::string name = method.input_name(k);
    const SafetensorsTensor* stored = file.Find(name);
    if (stored == nullptr) {
      Append(&problems, "program input '" + name + "' (" + TypeOf(tensor) + ") is missing");
      continue;
    }
    if (!SameType(tensor, *stored)) {
      Append(&problems,
             "program input '" + name + "' is " + TypeOf(tensor) + ", given " + TypeOf(*stored));
      continue;
    }
    inputs->emplace_back(stored->data, stored->data + stored->nbytes);
  }
  for (const SafetensorsTensor& stored : file.tensors()) {
    bool known = false;
    for (size_t k = 0; k < method.num_inputs() && !known; ++k) {
      known = stored.name == method.input_name(k);
    }
    if (!known) Append(&problems, "'" + stored.name + "' is not a program input");
  }
  if (problems.empty()) return true;
  *error = problems;
  return false;
}

runtime::Error ApplyInputs(runtime::Method& method, const InputBytes& inputs) {
  for (size_t k = 0; k < inputs.size(); ++k) {
    runtime::Error error = method.SetInput(k, inputs[k].data(), inputs[k].size());
    if (error != runtime::Error::kOk) return error;
  }
  return runtime::Error::kOk;
}

bool CompareOutputs(const runtime::Method& method, const SafetensorsFile& expected, double atol,
                    double rtol, std::vector<OutputComparison>* results, std::string* error) {
  std::string problems;
  results->clear();
  for (size_t k = 0; k < method.num_outputs(); ++k) {
    const runtime::Tensor& tensor = method.output(k);
    const std::string name = method.output_name(k);
    const SafetensorsTensor* stored = expected.Find(name);
    if (stored == nullptr) {
      Append(&problems, "expected output '" + name + "' is missing");
      continue;
    }
    if (!SameType(tensor, *stored)) {
      Append(&problems, "program output '" + name + "' is " + TypeOf(tensor) + ", expected " +
                            TypeOf(*stored));
      continue;
    }
    OutputComparison result;
    result.name = name;
    const auto* actual = static_cast<const uint8_t*>(tensor.data());
    const auto n = static_cast<size_t>(tensor.numel());
    double value = 0;
    if (FloatAt(tensor.scalar_type(), actual, 0, &value) || n == 0) {
      double max_abs = 0;
      size_t outside = 0;
      for (size_t i = 0; i < n; ++i) {
        double a = 0, e = 0;
        FloatAt(tensor.scalar_type(), actual, i, &a);
        FloatAt(tensor.scalar_type(), stored->data, i, &e);
        if (std::isnan(a) && std::isnan(e)) continue;
        const double diff = std::fabs(a - e);
        if (!(diff <= atol + rtol * std::fabs(e))) ++outside;
        if (diff > max_abs || std::isnan(diff)) max_abs = diff;
      }
      char text[128];
      std::snprintf(text, sizeof(text), "max abs diff %.3g, %zu of %zu elements outside tolerance",
                    max_abs, outside, n);
      result.passed = outside == 0;
      result.detail = text;
    } else {
      result.passed = std::memcmp(actual, stored->data, stored->nbytes) == 0;
      result.detail = result.passed ? "identical" : "differs";
    }
    results->push_back(result);
  }
  if (problems.empty()) return true;
  *error = problems;
  return false;
}

}  // namespace torchir::bench
