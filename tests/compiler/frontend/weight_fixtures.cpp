#include "tests/compiler/frontend/weight_fixtures.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "rapidjson/document.h"

namespace torchir::frontend::testing {
namespace {

std::string Env(const char* name, const std::string& fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : fallback;
}

std::string SourceDir() { return Env("TORCHIR_SOURCE_DIR", TORCHIR_SOURCE_DIR_DEFAULT); }

// Runs the fixture script into a cache directory; "" and a test failure on error.
std::string GenerateFixtures() {
  namespace fs = std::filesystem;
  const std::string script = SourceDir() + "/tests/compiler/frontend/make_weight_fixtures.py";
  const std::string content = ReadBytes(script);
  if (content.empty()) {
    ADD_FAILURE() << "cannot read " << script;
    return "";
  }
  char key[32];
  std::snprintf(key, sizeof(key), "%016zx", std::hash<std::string>()(content));
  const fs::path root = fs::path(Env("TORCHIR_BINARY_DIR", TORCHIR_BINARY_DIR_DEFAULT)) /
                        "test_fixtures";
  const fs::path dir = root / (std::string("weights-") + key);
  std::error_code error;
  if (fs::exists(dir / "DONE", error)) return dir.string();

  // CTest runs every test case in its own process, often in parallel: the
  // first one to take the lock runs the script, the others wait and reuse.
  fs::create_directories(root, error);
  const std::string lock_path = (root / (dir.filename().string() + ".lock")).string();
  const int lock = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock < 0 || ::flock(lock, LOCK_EX) != 0) {
    ADD_FAILURE() << "cannot lock " << lock_path;
    return "";
  }
  struct Unlock {
    int fd;
    ~Unlock() { ::close(fd); }
  } unlock{lock};
  if (fs::exists(dir / "DONE", error)) return dir.string();

  const fs::path staging = root / (dir.filename().string() + ".tmp." + std::to_string(getpid()));
  fs::remove_all(staging, error);
  const std::string python = Env("TORCHIR_PYTHON", TORCHIR_PYTHON_DEFAULT);
  const std::string command = "'" + python + "' '" + script + "' '" + staging.string() + "'";
  const int status = std::system(command.c_str());
  if (status != 0) {
    ADD_FAILURE() << "fixture script failed (status " << status << "): " << command;
    return "";
  }
  WriteBytes((staging / "DONE").string(), "");
  fs::remove_all(dir, error);  // a partial directory of an interrupted run
  fs::rename(staging, dir, error);
  if (error) {
    ADD_FAILURE() << "cannot rename " << staging << " to " << dir << ": " << error.message();
    return "";
  }
  return dir.string();
}

}  // namespace

const std::string& WeightFixtureDir() {
  static const std::string* dir = new std::string(GenerateFixtures());
  if (dir->empty()) ADD_FAILURE() << "no weight fixtures";
  return *dir;
}

std::string FixturePath(const std::string& name) { return WeightFixtureDir() + "/" + name; }

std::string MakeTempDir() {
  std::string pattern =
      (std::filesystem::temp_directory_path() / "torchir_weights_test.XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) ADD_FAILURE() << "mkdtemp failed";
  return pattern;
}

std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) ADD_FAILURE() << "cannot write " << path;
}

ExpectedFile LoadExpected(const std::string& file) {
  ExpectedFile expected;
  const std::string json = ReadBytes(FixturePath("expected.json"));
  rapidjson::Document document;
  document.Parse(json.data(), json.size());
  if (document.HasParseError() || !document.IsObject() || !document.HasMember(file.c_str())) {
    ADD_FAILURE() << "expected.json has no entry for " << file;
    return expected;
  }
  const rapidjson::Value& entry = document[file.c_str()];
  for (const rapidjson::Value& tensor : entry["tensors"].GetArray()) {
    ExpectedTensor t;
    t.name = tensor["name"].GetString();
    t.dtype = tensor["dtype"].GetString();
    for (const rapidjson::Value& dim : tensor["shape"].GetArray())
      t.shape.push_back(dim.GetInt64());
    const std::string hex = tensor["hex"].GetString();
    for (size_t i = 0; i + 1 < hex.size(); i += 2) {
      t.bytes.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
    }
    expected.tensors.push_back(std::move(t));
  }
  if (entry.HasMember("metadata")) {
    for (auto it = entry["metadata"].MemberBegin(); it != entry["metadata"].MemberEnd(); ++it) {
      expected.metadata.emplace_back(it->name.GetString(), it->value.GetString());
    }
  }
  return expected;
}

void ExpectTensorsMatch(const ExpectedFile& expected, const std::vector<StoredTensor>& tensors) {
  ASSERT_EQ(tensors.size(), expected.tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) {
    const StoredTensor& actual = tensors[i];
    const ExpectedTensor& want = expected.tensors[i];
    SCOPED_TRACE("tensor " + want.name);
    EXPECT_EQ(actual.name, want.name);
    EXPECT_EQ(ir::DTypeName(actual.dtype), want.dtype);
    EXPECT_EQ(actual.shape, want.shape);
    ASSERT_EQ(actual.data.size(), want.bytes.size());
    if (!want.bytes.empty()) {
      EXPECT_EQ(std::string(reinterpret_cast<const char*>(actual.data.data()), actual.data.size()),
                want.bytes);
    }
  }
}

}  // namespace torchir::frontend::testing
