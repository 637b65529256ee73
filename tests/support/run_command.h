// Running a tool binary from a test the way a user does, capturing its exit
// status, stdout and stderr.
#pragma once

#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace torchir::testing {

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string ReadWholeFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// Runs `command` through the shell; `scratch_dir` receives the captured streams.
inline CommandResult RunCommand(const std::string& command, const std::string& scratch_dir) {
  const std::string out = scratch_dir + "/stdout.txt";
  const std::string err = scratch_dir + "/stderr.txt";
  int status = std::system((command + " >'" + out + "' 2>'" + err + "'").c_str());
  CommandResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.out = ReadWholeFile(out);
  result.err = ReadWholeFile(err);
  return result;
}

}  // namespace torchir::testing
