#include "backends/native/packed_weights.h"

#include <cstring>
#include <limits>

namespace torchir::native {
namespace {

size_t RoundUp(size_t value, size_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

// Float count of the packed data, or 0 when it would overflow size_t.
size_t PackedFloats(const GemmConfig& config, size_t k, size_t n) {
  const size_t n_padded = RoundUp(n, config.nr);
  if (n_padded != 0 && k > std::numeric_limits<size_t>::max() / 4 / n_padded) return 0;
  return k * n_padded;
}

// Calls panel(packed, k0, kc, n0, cols) for every panel in packed order: K blocks of kc rows,
// then panels of nr columns, each kc rows of nr floats from float offset `packed`, holding B's
// rows [k0, k0 + kc) and columns [n0, n0 + cols); the rest of the nr floats are padding.
template <typename PanelFn>
void ForEachPanel(const GemmConfig& config, size_t k, size_t n, PanelFn panel) {
  const size_t nr = config.nr;
  size_t packed = 0;
  for (size_t k0 = 0; k0 < k; k0 += config.kc) {
    const size_t kc = k - k0 < config.kc ? k - k0 : config.kc;
    for (size_t n0 = 0; n0 < n; n0 += nr) {
      const size_t cols = n - n0 < nr ? n - n0 : nr;
      panel(packed, k0, kc, n0, cols);
      packed += kc * nr;
    }
  }
}

// Calls row(packed, k_index, n0, cols) for every row of every panel in packed order:
// `packed` is the float offset of the panel row (nr floats) holding B's row k_index,
// columns [n0, n0 + cols).
template <typename RowFn>
void ForEachPanelRow(const GemmConfig& config, size_t k, size_t n, RowFn row) {
  ForEachPanel(config, k, n, [&](size_t packed, size_t k0, size_t kc, size_t n0, size_t cols) {
    for (size_t kk = 0; kk < kc; ++kk) row(packed + kk * config.nr, k0 + kk, n0, cols);
  });
}

}  // namespace

size_t PackedBBytes(const GemmConfig& config, size_t k, size_t n) {
  return kPackedBHeaderBytes + PackedFloats(config, k, n) * sizeof(float);
}

namespace {

// Checks PackB's arguments (`ld` >= `row`: the source's row stride against its row length) and
// writes the header; the packed floats start after it.
runtime::Error StartPackedB(const GemmConfig& config, size_t k, size_t n, const float* b, size_t ld,
                            size_t row, void* out, size_t out_bytes) {
  if (k == 0 || n == 0 || ld < row || b == nullptr || out == nullptr || config.nr == 0 ||
      config.kc == 0 || PackedFloats(config, k, n) == 0) {
    return runtime::Error::kInvalidArgument;
  }
  if (out_bytes < PackedBBytes(config, k, n)) return runtime::Error::kOutOfMemory;

  PackedBHeader header{};
  header.magic = kPackedBMagic;
  header.version = kPackedBVersion;
  header.target = static_cast<uint32_t>(config.target);
  header.nr = static_cast<uint32_t>(config.nr);
  header.kc = static_cast<uint32_t>(config.kc);
  header.k = k;
  header.n = n;
  header.data_floats = PackedFloats(config, k, n);
  std::memcpy(out, &header, sizeof(header));
  return runtime::Error::kOk;
}

float* PackedData(void* out) {
  return reinterpret_cast<float*>(static_cast<char*>(out) + kPackedBHeaderBytes);
}

}  // namespace

runtime::Error PackB(const GemmConfig& config, size_t k, size_t n, const float* b, size_t ldb,
                     void* out, size_t out_bytes) {
  const runtime::Error error = StartPackedB(config, k, n, b, ldb, n, out, out_bytes);
  if (error != runtime::Error::kOk) return error;
  float* dst = PackedData(out);
  const size_t nr = config.nr;
  ForEachPanelRow(config, k, n, [&](size_t packed, size_t row, size_t n0, size_t cols) {
    const float* src = b + row * ldb + n0;
    for (size_t j = 0; j < cols; ++j) dst[packed + j] = src[j];
    for (size_t j = cols; j < nr; ++j) dst[packed + j] = 0.0f;
  });
  return runtime::Error::kOk;
}

runtime::Error PackBTransposed(const GemmConfig& config, size_t k, size_t n, const float* bt,
                               size_t ldbt, void* out, size_t out_bytes) {
  const runtime::Error error = StartPackedB(config, k, n, bt, ldbt, k, out, out_bytes);
  if (error != runtime::Error::kOk) return error;
  float* dst = PackedData(out);
  const size_t nr = config.nr;
  // Each panel filled a column at a time: each of bt's rows is read contiguously.
  ForEachPanel(config, k, n, [&](size_t packed, size_t k0, size_t kc, size_t n0, size_t cols) {
    float* panel = dst + packed;
    for (size_t j = 0; j < cols; ++j) {
      const float* src = bt + (n0 + j) * ldbt + k0;
      for (size_t kk = 0; kk < kc; ++kk) panel[kk * nr + j] = src[kk];
    }
    for (size_t j = cols; j < nr; ++j) {
      for (size_t kk = 0; kk < kc; ++kk) panel[kk * nr + j] = 0.0f;
    }
  });
  return runtime::Error::kOk;
}

runtime::Error ViewPackedB(const void* bytes, size_t size, PackedB* view) {
  if (bytes == nullptr || size < kPackedBHeaderBytes) return runtime::Error::kInvalidProgram;
  // The view reads floats in place: a program may place a uint8 tensor at any byte.
  if (reinterpret_cast<uintptr_t>(bytes) % alignof(float) != 0) {
    return runtime::Error::kInvalidProgram;
  }
  PackedBHeader header;
  std::memcpy(&header, bytes, sizeof(header));
  if (header.magic != kPackedBMagic) return runtime::Error::kInvalidProgram;
  if (header.version != kPackedBVersion) return runtime::Error::kUnsupportedVersion;
  GemmConfig config;
  if (!GetGemmConfig(static_cast<KernelTarget>(header.target), &config)) {
    return runtime::Error::kNotSupported;
  }
  if (!IsPanelWidth(config, header.nr) || header.kc != config.kc) {
    return runtime::Error::kInvalidProgram;
  }
  config.nr = header.nr;  // a grouped filter's narrow panels (GroupPanelWidth)
  if (header.k == 0 || header.n == 0 || header.k > std::numeric_limits<size_t>::max() ||
      header.n > std::numeric_limits<size_t>::max()) {
    return runtime::Error::kInvalidProgram;
  }
  const size_t k = static_cast<size_t>(header.k);
  const size_t n = static_cast<size_t>(header.n);
  const size_t floats = PackedFloats(config, k, n);
  if (floats == 0 || header.data_floats != floats ||
      (size - kPackedBHeaderBytes) / sizeof(float) < floats) {
    return runtime::Error::kProgramOutOfBounds;
  }
  view->config = config;
  view->k = k;
  view->n = n;
  view->data =
      reinterpret_cast<const float*>(static_cast<const char*>(bytes) + kPackedBHeaderBytes);
  return runtime::Error::kOk;
}

runtime::Error UnpackB(const PackedB& b, float* out, size_t ldb) {
  if (out == nullptr || ldb < b.n || b.data == nullptr) return runtime::Error::kInvalidArgument;
  ForEachPanelRow(b.config, b.k, b.n, [&](size_t packed, size_t row, size_t n0, size_t cols) {
    std::memcpy(out + row * ldb + n0, b.data + packed, cols * sizeof(float));
  });
  return runtime::Error::kOk;
}

}  // namespace torchir::native
