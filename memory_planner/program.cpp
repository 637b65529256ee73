#include "memory_planner/program.h"

#include <string>

namespace torchir::memory_planner {
namespace {

bool InRange(const Program& program, BufferId id) { return id >= 0 && id < program.buffer_count; }

std::optional<Error> CheckIds(const Program& program, const std::vector<BufferId>& ids,
                              const std::string& where) {
  for (BufferId id : ids) {
    if (!InRange(program, id)) {
      return Error{where + ": buffer " + std::to_string(id) + " out of range [0, " +
                   std::to_string(program.buffer_count) + ")"};
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<Error> ValidateProgram(const Program& program) {
  if (program.buffer_count < 0) return Error{"negative buffer_count"};
  for (size_t i = 0; i < program.instructions.size(); ++i) {
    const std::string where = "instruction " + std::to_string(i);
    if (auto error = CheckIds(program, program.instructions[i].reads, where)) return error;
    if (auto error = CheckIds(program, program.instructions[i].writes, where)) return error;
  }
  if (auto error = CheckIds(program, program.graph_inputs, "graph inputs")) return error;
  if (auto error = CheckIds(program, program.graph_outputs, "graph outputs")) return error;
  if (program.view_of.empty()) return std::nullopt;
  if (program.view_of.size() != static_cast<size_t>(program.buffer_count)) {
    return Error{"view_of has " + std::to_string(program.view_of.size()) + " entries for " +
                 std::to_string(program.buffer_count) + " buffers"};
  }
  for (BufferId id = 0; id < program.buffer_count; ++id) {
    const BufferId base = program.view_of[id];
    if (base != kNoBuffer && !InRange(program, base)) {
      return Error{"buffer " + std::to_string(id) + ": view of unknown buffer " +
                   std::to_string(base)};
    }
  }
  // A chain longer than buffer_count links has looped; mark finished buffers to stay linear.
  enum class State : uint8_t { kUnvisited, kOnPath, kDone };
  std::vector<State> state(program.buffer_count, State::kUnvisited);
  std::vector<BufferId> path;
  for (BufferId start = 0; start < program.buffer_count; ++start) {
    path.clear();
    BufferId current = start;
    while (current != kNoBuffer && state[current] == State::kUnvisited) {
      state[current] = State::kOnPath;
      path.push_back(current);
      current = program.view_of[current];
    }
    if (current != kNoBuffer && state[current] == State::kOnPath) {
      return Error{"buffer " + std::to_string(current) + ": view cycle through view_of"};
    }
    for (BufferId id : path) state[id] = State::kDone;
  }
  return std::nullopt;
}

std::vector<BufferId> StorageRoots(const Program& valid_program) {
  std::vector<BufferId> root(valid_program.buffer_count, kNoBuffer);
  std::vector<BufferId> path;
  for (BufferId start = 0; start < valid_program.buffer_count; ++start) {
    path.clear();
    BufferId current = start;
    while (root[current] == kNoBuffer) {
      path.push_back(current);
      const BufferId base =
          valid_program.view_of.empty() ? kNoBuffer : valid_program.view_of[current];
      if (base == kNoBuffer) {
        root[current] = current;
        break;
      }
      current = base;
    }
    for (BufferId id : path) root[id] = root[current];
  }
  return root;
}

}  // namespace torchir::memory_planner
