// Test fixtures for the weight-file readers: files written by real PyTorch.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/frontend/weight_file.h"

namespace torchir::frontend::testing {

// The directory make_weight_fixtures.py wrote. Runs the script once (with
// $TORCHIR_PYTHON, default /usr/bin/python3) and caches its output under
// $TORCHIR_BINARY_DIR keyed by the script's content, so the many test
// processes CTest starts share one run. Fails the current test on error.
const std::string& WeightFixtureDir();

// WeightFixtureDir() + "/" + name.
std::string FixturePath(const std::string& name);

// A fresh empty directory for files a test writes.
std::string MakeTempDir();

std::string ReadBytes(const std::string& path);
void WriteBytes(const std::string& path, const std::string& bytes);

// One tensor of expected.json.
struct ExpectedTensor {
  std::string name;
  std::string dtype;  // ir spelling: "float32"
  std::vector<int64_t> shape;
  std::string bytes;  // dense row-major
};

// The expected tensors (in file order) and metadata of fixture `file`.
struct ExpectedFile {
  std::vector<ExpectedTensor> tensors;
  std::vector<std::pair<std::string, std::string>> metadata;
};
ExpectedFile LoadExpected(const std::string& file);

// Checks that `weights` holds exactly `expected`, in order, byte for byte.
void ExpectTensorsMatch(const ExpectedFile& expected, const std::vector<StoredTensor>& tensors);

}  // namespace torchir::frontend::testing
