// Errors as values for the planner: a message, or a value. Standard library only, so the planner
// stays at the bottom of the tree; the compiler wraps the message into an absl::Status.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace torchir::memory_planner {

// Why the planner refused its input, e.g. "buffer 3 (conv1.out): first_use 7 > last_use 2".
struct Error {
  std::string message;
};

// Either a T or an Error. Check ok() before calling value().
template <typename T>
class [[nodiscard]] Expected {
 public:
  Expected(T value) : state_(std::move(value)) {}      // NOLINT: implicit by design
  Expected(Error error) : state_(std::move(error)) {}  // NOLINT: implicit by design

  bool ok() const { return std::holds_alternative<T>(state_); }
  const T& value() const& { return std::get<T>(state_); }
  T& value() & { return std::get<T>(state_); }
  T&& value() && { return std::get<T>(std::move(state_)); }
  const Error& error() const { return std::get<Error>(state_); }

 private:
  std::variant<T, Error> state_;
};

}  // namespace torchir::memory_planner
