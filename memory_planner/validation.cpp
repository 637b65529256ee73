#include "memory_planner/validation.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace torchir::memory_planner {
namespace {

constexpr uint64_t kMaxBytes = std::numeric_limits<uint64_t>::max();

bool IsPowerOfTwo(uint64_t value) { return value != 0 && (value & (value - 1)) == 0; }

// Adds `value` to `*total`; false on overflow.
bool AddChecked(uint64_t value, uint64_t* total) {
  if (value > kMaxBytes - *total) return false;
  *total += value;
  return true;
}

std::optional<Error> CheckBuffer(const Problem& problem, BufferId id) {
  const Buffer& buffer = problem.buffers[id];
  const std::string label = BufferLabel(problem, id);
  if (!IsPowerOfTwo(buffer.alignment)) {
    return Error{label + ": alignment " + std::to_string(buffer.alignment) +
                 " is not a power of two"};
  }
  if (buffer.first_use > buffer.last_use) {
    return Error{label + ": first_use " + std::to_string(buffer.first_use) + " > last_use " +
                 std::to_string(buffer.last_use)};
  }
  if (buffer.arena < 0 || static_cast<size_t>(buffer.arena) >= problem.arenas.size()) {
    return Error{label + ": unknown arena " + std::to_string(buffer.arena) + " (" +
                 std::to_string(problem.arenas.size()) + " arenas)"};
  }
  uint64_t padded = 0;
  if (!AddChecked(buffer.size, &padded) || !AddChecked(buffer.extra_bytes, &padded)) {
    return Error{label + ": size + extra_bytes overflows 64 bits"};
  }
  if (buffer.base == kNoBuffer) return std::nullopt;
  if (buffer.base < 0 || static_cast<size_t>(buffer.base) >= problem.buffers.size()) {
    return Error{label + ": base " + std::to_string(buffer.base) + " does not exist"};
  }
  const Buffer& base = problem.buffers[buffer.base];
  const std::string base_label = BufferLabel(problem, buffer.base);
  if (base.arena != buffer.arena) {
    return Error{label + ": in arena " + std::to_string(buffer.arena) + " but its base " +
                 base_label + " is in arena " + std::to_string(base.arena)};
  }
  if (buffer.offset_in_base > base.size || buffer.size > base.size - buffer.offset_in_base) {
    return Error{label + ": view [" + std::to_string(buffer.offset_in_base) + ", +" +
                 std::to_string(buffer.size) + ") lies outside its base " + base_label + " of " +
                 std::to_string(base.size) + " bytes"};
  }
  return std::nullopt;
}

// Walks base links from every buffer; reports a loop, or a view whose offset inside its storage
// root breaks its alignment. Iterative, so long view chains cannot overflow the stack.
std::optional<Error> CheckViewChains(const Problem& problem) {
  enum class State : uint8_t { kUnvisited, kOnPath, kDone };
  const size_t count = problem.buffers.size();
  std::vector<State> state(count, State::kUnvisited);
  std::vector<uint64_t> offset_in_root(count, 0);
  std::vector<BufferId> path;
  for (size_t start = 0; start < count; ++start) {
    path.clear();
    BufferId current = static_cast<BufferId>(start);
    while (current != kNoBuffer && state[current] == State::kUnvisited) {
      state[current] = State::kOnPath;
      path.push_back(current);
      current = problem.buffers[current].base;
    }
    if (current != kNoBuffer && state[current] == State::kOnPath) {
      return Error{BufferLabel(problem, current) + ": view cycle through its base links"};
    }
    // Resolve offsets from the root end of the path back to `start`.
    for (auto it = path.rbegin(); it != path.rend(); ++it) {
      const Buffer& buffer = problem.buffers[*it];
      uint64_t offset = buffer.offset_in_base;
      if (buffer.base != kNoBuffer) offset += offset_in_root[buffer.base];
      offset_in_root[*it] = offset;
      state[*it] = State::kDone;
      if (offset % buffer.alignment != 0) {
        return Error{BufferLabel(problem, *it) + ": offset " + std::to_string(offset) +
                     " inside its storage root is not a multiple of its alignment " +
                     std::to_string(buffer.alignment)};
      }
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<Error> ValidateProblem(const Problem& problem) {
  if (problem.buffers.size() > static_cast<size_t>(std::numeric_limits<BufferId>::max())) {
    return Error{"too many buffers: " + std::to_string(problem.buffers.size())};
  }
  uint64_t total = 0;
  for (size_t id = 0; id < problem.buffers.size(); ++id) {
    if (auto error = CheckBuffer(problem, static_cast<BufferId>(id))) return error;
    const Buffer& buffer = problem.buffers[id];
    if (!AddChecked(buffer.size, &total) || !AddChecked(buffer.extra_bytes, &total) ||
        !AddChecked(buffer.alignment, &total)) {
      return Error{"the buffers' total size overflows 64 bits"};
    }
  }
  return CheckViewChains(problem);
}

}  // namespace torchir::memory_planner
