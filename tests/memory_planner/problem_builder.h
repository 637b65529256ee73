// A fluent builder for hand-made planning problems in tests:
//   Problem problem = ProblemBuilder().Buffer(64, 0, 2).Buffer(32, 1, 3).Aligned(16).Build();
// Modifiers (Aligned, Extra, ViewOf, InArena, Named) apply to the last buffer added. Without an
// Arena() call, Build() adds a single arena named "activations".
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "memory_planner/buffer.h"

namespace torchir::memory_planner::test_util {

class ProblemBuilder {
 public:
  ProblemBuilder& Arena(std::string name) {
    problem_.arenas.push_back(memory_planner::Arena{std::move(name)});
    return *this;
  }
  // A buffer of `size` bytes live over [first_use, last_use], in the last arena declared.
  ProblemBuilder& Buffer(uint64_t size, int64_t first_use, int64_t last_use) {
    memory_planner::Buffer buffer;
    buffer.size = size;
    buffer.first_use = first_use;
    buffer.last_use = last_use;
    buffer.arena = problem_.arenas.empty() ? 0 : static_cast<ArenaId>(problem_.arenas.size() - 1);
    problem_.buffers.push_back(buffer);
    return *this;
  }
  ProblemBuilder& Aligned(uint64_t alignment) {
    Last().alignment = alignment;
    return *this;
  }
  ProblemBuilder& Extra(uint64_t bytes) {
    Last().extra_bytes = bytes;
    return *this;
  }
  ProblemBuilder& ViewOf(BufferId base, uint64_t offset_in_base = 0) {
    Last().base = base;
    Last().offset_in_base = offset_in_base;
    return *this;
  }
  ProblemBuilder& InArena(ArenaId arena) {
    Last().arena = arena;
    return *this;
  }
  ProblemBuilder& Named(std::string name) {
    Last().name = std::move(name);
    return *this;
  }

  Problem Build() const {
    Problem problem = problem_;
    if (problem.arenas.empty()) problem.arenas.push_back(memory_planner::Arena{"activations"});
    return problem;
  }

 private:
  memory_planner::Buffer& Last() { return problem_.buffers.back(); }

  Problem problem_;
};

}  // namespace torchir::memory_planner::test_util
