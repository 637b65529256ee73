// The working memory one native delegate call needs, computed from its blob by one function
// on both sides: the runtime delegate asks the Method for it (runtime/native_backend.cpp, with
// the thread count it runs on and this CPU's blocking), and the compile side declares it to the
// memory planner (partitioner/native_compile_backend.cpp, with the thread count and --target
// the program is compiled for). Were the two computed apart, a planned scratch could fall
// short of what the runtime asks and every call would take the fallback allocation.
//
// The layout: the GEMM's (or Winograd's) blocks of every node, sized for the largest node
// (nodes run one after another), rounded up to 64 bytes; then B of the run-time matrix
// products, packed on every call, sized for the largest and rounded up to 64 bytes: one copy,
// or one per task when a product's batches are shared among threads (MatmulBatchTasks).
#pragma once

#include <cstddef>

#include "backends/native/convolution.h"
#include "backends/native/expand_depthwise.h"
#include "backends/native/gemm.h"
#include "backends/native/gemm_config.h"
#include "backends/native/packed_weights.h"
#include "backends/native/serialization/native_blob_generated.h"
#include "backends/native/winograd.h"

namespace torchir::native {

// A convolution node's geometry as its blob records it (unchecked: CheckConvolution2dShape).
inline Convolution2dShape BlobConvolutionShape(const fb::Convolution& node) {
  Convolution2dShape shape;
  shape.batch = node.batch();
  shape.input_height = node.input_height();
  shape.input_width = node.input_width();
  shape.input_channels = node.input_channels();
  shape.output_channels = node.output_channels();
  shape.kernel_height = node.kernel_height();
  shape.kernel_width = node.kernel_width();
  shape.stride_height = node.stride_height();
  shape.stride_width = node.stride_width();
  shape.dilation_height = node.dilation_height();
  shape.dilation_width = node.dilation_width();
  shape.padding_top = node.padding_top();
  shape.padding_left = node.padding_left();
  shape.padding_bottom = node.padding_bottom();
  shape.padding_right = node.padding_right();
  shape.input_channels_first = node.input_channels_first();
  return shape;
}

// How many tasks share the batches of a run-time matrix product on `threads` threads: each task
// packs its own B and runs its batches' GEMMs alone, in its own slots of the scratch. 1: the
// batches run one after another, each GEMM shared among the threads (one B for every batch,
// or fewer batches than threads, or an uneven split of a few batches, where sharing each GEMM
// balances better). Attention's heads are the batches: 4 of 128 x 128 x 64 shared within each
// head's GEMM scale 1.5x at 2 threads, B's packing serial between them.
inline size_t MatmulBatchTasks(size_t batch, bool b_shared, size_t threads) {
  if (b_shared || threads <= 1 || batch < threads) return 1;
  if (batch % threads != 0 && batch < 4 * threads) return 1;
  return threads;
}

// Bytes of one task's packed B of a run-time matrix product: PackedBBytes rounded up to 64, so
// every task's copy starts at the alignment of the scratch.
inline size_t MatmulPackedBSlotBytes(const GemmConfig& config, size_t k, size_t n) {
  return (PackedBBytes(config, k, n) + 63) / 64 * 64;
}

struct DelegateScratchLayout {
  size_t gemm_bytes = 0;      // a multiple of 64: packed B starts here
  size_t packed_b_bytes = 0;  // B of the run-time matrix products
  size_t total() const { return gemm_bytes + packed_b_bytes; }
};

// The scratch of a delegate whose nodes' geometry passed the runtime's checks (every product
// of sizes fits; the compiler's own blobs do) on `threads` threads with `config`'s blocking.
// A node below the parallel threshold runs on the calling thread alone, so a Winograd node gets
// the larger of its one-thread and pooled blocks (the GEMM's grow with the thread count).
inline DelegateScratchLayout ComputeDelegateScratch(const fb::Blob& blob, const GemmConfig& config,
                                                    size_t threads) {
  size_t gemm_bytes = 0;
  size_t packed_b_bytes = 0;
  auto grow = [](size_t* largest, size_t bytes) {
    if (bytes > *largest) *largest = bytes;
  };
  if (blob.convolutions() != nullptr) {
    const auto& nodes = *blob.convolutions();
    for (flatbuffers::uoffset_t i = 0; i < nodes.size(); ++i) {
      const fb::Convolution* node = nodes.Get(i);
      const Convolution2dShape shape = BlobConvolutionShape(*node);
      if (node->feeds_next() && i + 1 < nodes.size()) {
        // Its band buffers and GEMM blocks, one slot per thread (expand_depthwise.h), which the
        // node it feeds (depthwise or grouped) runs in too.
        const fb::Convolution* next = nodes.Get(i + 1);
        grow(&gemm_bytes,
             ExpandDepthwiseScratchBytes(config, shape, BlobConvolutionShape(*next), threads,
                                         next->depthwise() ? 0 : next->groups()));
        ++i;
        continue;
      }
      if (node->depthwise()) continue;
      if (node->winograd()) {
        const size_t tile = node->winograd_tile();
        const size_t groups = node->groups() == 0 ? 1 : node->groups();
        grow(&gemm_bytes, WinogradScratchBytes(config, shape, tile, threads, groups));
        grow(&gemm_bytes, WinogradScratchBytes(config, shape, tile, 1, groups));
      } else {
        grow(&gemm_bytes, ConvolutionScratchBytes(config, shape, threads));
      }
    }
  }
  if (blob.matrix_multiplies() != nullptr) {
    for (const fb::MatrixMultiply* node : *blob.matrix_multiplies()) {
      const size_t rows =
          static_cast<size_t>(node->b_shared() ? node->batch() * node->m() : node->m());
      // Batch tasks take one GEMM slot each: the pooled size covers them.
      grow(&gemm_bytes, GemmScratchBytes(config, rows, threads));
      const size_t tasks = MatmulBatchTasks(node->batch(), node->b_shared(), threads);
      grow(&packed_b_bytes, tasks * MatmulPackedBSlotBytes(config, static_cast<size_t>(node->k()),
                                                           static_cast<size_t>(node->n())));
    }
  }
  DelegateScratchLayout layout;
  layout.gemm_bytes = (gemm_bytes + 63) / 64 * 64;
  layout.packed_b_bytes = packed_b_bytes;
  return layout;
}

}  // namespace torchir::native
