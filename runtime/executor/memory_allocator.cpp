#include "runtime/executor/memory_allocator.h"

#include <cstdlib>
#include <new>

namespace torchir::runtime {

void* BufferAllocator::Allocate(size_t size, size_t alignment) {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0) return nullptr;
  const uintptr_t base = reinterpret_cast<uintptr_t>(buffer_.data());
  const uintptr_t current = base + used_;
  const uintptr_t aligned = (current + alignment - 1) & ~(uintptr_t{alignment} - 1);
  if (aligned < current) return nullptr;
  const size_t start = aligned - base;
  if (start > buffer_.size() || size > buffer_.size() - start) return nullptr;
  used_ = start + size;
  return reinterpret_cast<void*>(aligned);
}

struct MallocAllocator::Block {
  Block* next;
};

void* MallocAllocator::Allocate(size_t size, size_t alignment) {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0) return nullptr;
  if (alignment < alignof(Block)) alignment = alignof(Block);
  // Room for the block header before the aligned payload.
  const size_t header = (sizeof(Block) + alignment - 1) & ~(alignment - 1);
  if (size > SIZE_MAX - header - alignment) return nullptr;
  size_t total = header + size;
  total = (total + alignment - 1) & ~(alignment - 1);  // aligned_alloc wants a multiple
  void* memory = std::aligned_alloc(alignment, total);
  if (memory == nullptr) return nullptr;
  Block* block = static_cast<Block*>(memory);
  block->next = blocks_;
  blocks_ = block;
  allocated_bytes_ += total;
  return static_cast<uint8_t*>(memory) + header;
}

MallocAllocator::~MallocAllocator() {
  while (blocks_ != nullptr) {
    Block* next = blocks_->next;
    std::free(blocks_);
    blocks_ = next;
  }
}

}  // namespace torchir::runtime
