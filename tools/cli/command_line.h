// A small command-line parser shared by the torchir tools: `--name value`,
// `--name=value`, switches, positionals, generated --help, and usage errors
// that exit with status 2.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace torchir::cli {

class CommandLine {
 public:
  // `usage` is the synopsis line ("torchir-compile MODEL.json [options]");
  // `description` a paragraph printed under it by --help.
  CommandLine(std::string program, std::string usage, std::string description);

  // Declarations, in the order --help lists them. `metavar` names the value.
  void AddOption(std::string name, std::string metavar, std::string help,
                 std::optional<std::string> default_value = std::nullopt);
  void AddSwitch(std::string name, std::string help);
  void AddPositional(std::string metavar, std::string help, bool required = true);
  // Text appended to --help (examples).
  void SetEpilog(std::string epilog) { epilog_ = std::move(epilog); }

  // Parses argv. Prints help and exits 0 on --help; prints the version on
  // --version; prints "error: ..." plus a hint and exits 2 on a usage error.
  void Parse(int argc, char** argv);

  bool Has(const std::string& name) const;  // given, or has a default
  std::string Get(const std::string& name) const;
  // Parses the value as an integer in [min, max]; usage error otherwise.
  long long GetInt(const std::string& name, long long min, long long max) const;
  double GetDouble(const std::string& name) const;
  bool Switch(const std::string& name) const;
  const std::vector<std::string>& positionals() const { return positional_values_; }

  [[noreturn]] void UsageError(const std::string& message) const;
  std::string HelpText() const;

 private:
  struct Option {
    std::string name;
    std::string metavar;  // empty for switches
    std::string help;
    std::optional<std::string> default_value;
    std::optional<std::string> value;
    bool seen = false;
  };
  struct Positional {
    std::string metavar;
    std::string help;
    bool required;
  };
  const Option* Find(const std::string& name) const;
  Option* Find(const std::string& name);

  std::string program_;
  std::string usage_;
  std::string description_;
  std::string epilog_;
  std::vector<Option> options_;
  std::vector<Positional> positionals_;
  std::vector<std::string> positional_values_;
};

// The version string every tool prints for --version.
const char* Version();

}  // namespace torchir::cli
