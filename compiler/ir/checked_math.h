// Overflow-checked integer arithmetic for numbers that come from files (shapes,
// attributes, byte sizes). Every function returns false instead of overflowing
// and leaves *out unspecified then; callers turn false into an error naming the
// node, op and attribute. Signed overflow is undefined behaviour in C++, so the
// checks use the compiler builtins rather than testing after the fact.
#pragma once

#include <cstdint>
#include <vector>

namespace torchir::ir {

// *out = a + b; false on overflow.
inline bool CheckedAdd(int64_t a, int64_t b, int64_t* out) {
  return !__builtin_add_overflow(a, b, out);
}
inline bool CheckedAdd(uint64_t a, uint64_t b, uint64_t* out) {
  return !__builtin_add_overflow(a, b, out);
}

// *out = a - b; false on overflow.
inline bool CheckedSub(int64_t a, int64_t b, int64_t* out) {
  return !__builtin_sub_overflow(a, b, out);
}

// *out = a * b; false on overflow.
inline bool CheckedMul(int64_t a, int64_t b, int64_t* out) {
  return !__builtin_mul_overflow(a, b, out);
}
inline bool CheckedMul(uint64_t a, uint64_t b, uint64_t* out) {
  return !__builtin_mul_overflow(a, b, out);
}

// *out = the product of `sizes` (1 for none); false when a size is negative or
// the product overflows int64.
inline bool CheckedProduct(const std::vector<int64_t>& sizes, int64_t* out) {
  int64_t product = 1;
  for (int64_t size : sizes) {
    if (size < 0 || !CheckedMul(product, size, &product)) return false;
  }
  *out = product;
  return true;
}

}  // namespace torchir::ir
