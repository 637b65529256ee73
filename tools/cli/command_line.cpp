#include "tools/cli/command_line.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <iostream>

namespace torchir::cli {

const char* Version() { return "torchir 0.1.0"; }

CommandLine::CommandLine(std::string program, std::string usage, std::string description)
    : program_(std::move(program)), usage_(std::move(usage)), description_(std::move(description)) {
  AddSwitch("help", "show this help and exit");
  AddSwitch("version", "print the version and exit");
}

void CommandLine::AddOption(std::string name, std::string metavar, std::string help,
                            std::optional<std::string> default_value) {
  options_.push_back({std::move(name), std::move(metavar), std::move(help),
                      std::move(default_value), std::nullopt, false});
}

void CommandLine::AddSwitch(std::string name, std::string help) {
  options_.push_back({std::move(name), "", std::move(help), std::nullopt, std::nullopt, false});
}

void CommandLine::AddPositional(std::string metavar, std::string help, bool required) {
  positionals_.push_back({std::move(metavar), std::move(help), required});
}

const CommandLine::Option* CommandLine::Find(const std::string& name) const {
  for (const Option& option : options_) {
    if (option.name == name) return &option;
  }
  return nullptr;
}

CommandLine::Option* CommandLine::Find(const std::string& name) {
  for (Option& option : options_) {
    if (option.name == name) return &option;
  }
  return nullptr;
}

void CommandLine::UsageError(const std::string& message) const {
  std::cerr << "error: " << message << "\n"
            << "usage: " << usage_ << "\n"
            << "Run '" << program_ << " --help' for the options.\n";
  std::exit(2);
}

std::string CommandLine::HelpText() const {
  std::string text = "usage: " + usage_ + "\n\n" + description_ + "\n";
  if (!positionals_.empty()) {
    text += "\narguments:\n";
    for (const Positional& p : positionals_) {
      std::string left = "  " + p.metavar;
      text += left + std::string(left.size() < 28 ? 28 - left.size() : 1, ' ') + p.help + "\n";
    }
  }
  text += "\noptions:\n";
  for (const Option& option : options_) {
    std::string left = "  --" + option.name;
    if (!option.metavar.empty()) left += " " + option.metavar;
    std::string help = option.help;
    if (option.default_value) help += " (default: " + *option.default_value + ")";
    if (left.size() >= 28) {
      text += left + "\n" + std::string(28, ' ') + help + "\n";
    } else {
      text += left + std::string(28 - left.size(), ' ') + help + "\n";
    }
  }
  if (!epilog_.empty()) text += "\n" + epilog_ + "\n";
  return text;
}

void CommandLine::Parse(int argc, char** argv) {
  bool only_positionals = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (only_positionals || arg.size() < 2 || arg[0] != '-') {
      positional_values_.push_back(arg);
      continue;
    }
    if (arg == "--") {
      only_positionals = true;
      continue;
    }
    std::string name;
    std::optional<std::string> inline_value;
    if (arg.rfind("--", 0) == 0) {
      name = arg.substr(2);
      size_t eq = name.find('=');
      if (eq != std::string::npos) {
        inline_value = name.substr(eq + 1);
        name = name.substr(0, eq);
      }
    } else if (arg.size() == 2) {
      // Single-letter aliases: -o for --output, -h for --help.
      if (arg == "-h") name = "help";
      else if (arg == "-o") name = "output";
      else UsageError("unknown option '" + arg + "'");
    } else {
      UsageError("unknown option '" + arg + "'");
    }
    Option* option = Find(name);
    if (option == nullptr) UsageError("unknown option '--" + name + "'");
    if (option->seen) UsageError("option '--" + name + "' given twice");
    option->seen = true;
    if (option->metavar.empty()) {
      if (inline_value) UsageError("option '--" + name + "' takes no value");
      continue;
    }
    if (inline_value) {
      option->value = *inline_value;
    } else {
      if (i + 1 >= argc) UsageError("option '--" + name + "' needs a value (" + option->metavar + ")");
      option->value = argv[++i];
    }
  }
  if (Switch("help")) {
    std::cout << HelpText();
    std::exit(0);
  }
  if (Switch("version")) {
    std::cout << Version() << "\n";
    std::exit(0);
  }
  size_t required = 0;
  for (const Positional& p : positionals_) required += p.required ? 1 : 0;
  if (positional_values_.size() < required) {
    UsageError("missing " + positionals_[positional_values_.size()].metavar);
  }
  if (positional_values_.size() > positionals_.size()) {
    UsageError("unexpected argument '" + positional_values_[positionals_.size()] + "'");
  }
}

bool CommandLine::Has(const std::string& name) const {
  const Option* option = Find(name);
  return option != nullptr && (option->value.has_value() || option->default_value.has_value());
}

std::string CommandLine::Get(const std::string& name) const {
  const Option* option = Find(name);
  if (option == nullptr) return "";
  if (option->value) return *option->value;
  return option->default_value.value_or("");
}

long long CommandLine::GetInt(const std::string& name, long long min, long long max) const {
  std::string text = Get(name);
  errno = 0;
  char* end = nullptr;
  long long value = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0 || value < min || value > max) {
    UsageError("--" + name + " must be an integer in [" + std::to_string(min) + ", " +
               std::to_string(max) + "], got '" + text + "'");
  }
  return value;
}

double CommandLine::GetDouble(const std::string& name) const {
  std::string text = Get(name);
  errno = 0;
  char* end = nullptr;
  double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || errno != 0) {
    UsageError("--" + name + " must be a number, got '" + text + "'");
  }
  return value;
}

bool CommandLine::Switch(const std::string& name) const {
  const Option* option = Find(name);
  return option != nullptr && option->seen && option->metavar.empty();
}

}  // namespace torchir::cli
