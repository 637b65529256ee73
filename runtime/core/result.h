// Result<T>: a value or an Error, without exceptions.
#pragma once

#include <new>
#include <type_traits>
#include <utility>

#include "runtime/core/error.h"
#include "runtime/platform/platform.h"

namespace torchir::runtime {

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(const T& value) : ok_(true) { new (&storage_) T(value); }  // NOLINT: implicit
  Result(T&& value) : ok_(true) { new (&storage_) T(std::move(value)); }  // NOLINT: implicit
  Result(Error error) : ok_(false), error_(error == Error::kOk ? Error::kInternal : error) {}  // NOLINT
  Result(Result&& other) noexcept : ok_(other.ok_), error_(other.error_) {
    if (ok_) new (&storage_) T(std::move(*other.ptr()));
  }
  Result(const Result&) = delete;
  Result& operator=(const Result&) = delete;
  Result& operator=(Result&&) = delete;
  ~Result() {
    if (ok_) ptr()->~T();
  }

  bool ok() const { return ok_; }
  Error error() const { return ok_ ? Error::kOk : error_; }

  // Accessing the value of a failed Result aborts through the platform hook.
  T& get() {
    if (!ok_) Abort("Result::get() on an error");
    return *ptr();
  }
  const T& get() const {
    if (!ok_) Abort("Result::get() on an error");
    return *ptr();
  }
  T* operator->() { return &get(); }
  T& operator*() { return get(); }

 private:
  T* ptr() { return reinterpret_cast<T*>(&storage_); }
  const T* ptr() const { return reinterpret_cast<const T*>(&storage_); }

  bool ok_;
  Error error_ = Error::kOk;
  typename std::aligned_storage<sizeof(T), alignof(T)>::type storage_;
};

}  // namespace torchir::runtime

// Returns `error` from the enclosing function when `cond` is false, logging the
// message (printf-style) unless TORCHIR_STRIP_ERROR_MESSAGES is defined.
#ifdef TORCHIR_STRIP_ERROR_MESSAGES
#define TORCHIR_CHECK_OR_RETURN(cond, error, ...) \
  do {                                            \
    if (!(cond)) return (error);                  \
  } while (0)
#else
#define TORCHIR_CHECK_OR_RETURN(cond, error, ...)                                 \
  do {                                                                            \
    if (!(cond)) {                                                                \
      ::torchir::runtime::Log(::torchir::runtime::LogLevel::kError, __VA_ARGS__); \
      return (error);                                                             \
    }                                                                             \
  } while (0)
#endif

// Propagates a failed Error.
#define TORCHIR_RETURN_IF_ERROR(expr)                                       \
  do {                                                                      \
    ::torchir::runtime::Error torchir_error_ = (expr);                      \
    if (torchir_error_ != ::torchir::runtime::Error::kOk) return torchir_error_; \
  } while (0)
