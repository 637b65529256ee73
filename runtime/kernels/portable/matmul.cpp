#include <algorithm>

#include "runtime/kernels/portable/argument_checks.h"
#include "runtime/kernels/portable/kernel_util.h"
#include "runtime/kernels/portable/kernels.h"
#include "runtime/kernels/portable/row_accumulate.h"

namespace torchir::runtime::portable {
namespace {

constexpr const char* kName = "matmul";
enum Arg : size_t { kSelf, kOther, kOut, kNumArgs };

// Each pass over K updates kRowBlock output row segments of at most kColumnBlock floats,
// which stay in L1 while the rows of `other` stream past. Narrower outputs than
// kNarrowColumns use dot products instead: a row pass would be all loop overhead.
constexpr int64_t kColumnBlock = 1024;
constexpr int64_t kNarrowColumns = 8;

// out[i][j] = sum_k a[i][k] * b[k][j] as m * n dot products, each with four independent
// partial sums; for outputs only a few columns wide.
template <typename T>
void NarrowProduct(const T* a, const T* b, T* out, int64_t m, int64_t k, int64_t n) {
  for (int64_t i = 0; i < m; ++i) {
    const T* a_row = a + i * k;
    for (int64_t j = 0; j < n; ++j) {
      T partial[4] = {};
      int64_t kk = 0;
      for (; kk + 4 <= k; kk += 4) {
        for (int l = 0; l < 4; ++l) partial[l] += a_row[kk + l] * b[(kk + l) * n + j];
      }
      for (; kk < k; ++kk) partial[0] += a_row[kk] * b[kk * n + j];
      out[i * n + j] = (partial[0] + partial[1]) + (partial[2] + partial[3]);
    }
  }
}

// One [m, k] @ [k, n] product into a contiguous [m, n] output, in T (float or double).
template <typename T>
void MatrixProduct(const T* a, const T* b, T* out, int64_t m, int64_t k, int64_t n) {
  if (n < kNarrowColumns) {
    NarrowProduct(a, b, out, m, k, n);
    return;
  }
  for (int64_t col = 0; col < n; col += kColumnBlock) {
    const int64_t cols = std::min(kColumnBlock, n - col);
    int64_t row = 0;
    for (; row + kRowBlock <= m; row += kRowBlock) {
      T* rows[kRowBlock];
      for (int64_t r = 0; r < kRowBlock; ++r) {
        rows[r] = out + (row + r) * n + col;
        std::fill(rows[r], rows[r] + cols, T(0));
      }
      for (int64_t kk = 0; kk < k; ++kk) {
        const T w[kRowBlock] = {a[row * k + kk], a[(row + 1) * k + kk], a[(row + 2) * k + kk],
                                a[(row + 3) * k + kk]};
        AccumulateRowBlock(rows[0], rows[1], rows[2], rows[3], b + kk * n + col, w,
                           /*stride=*/1, cols);
      }
    }
    for (; row < m; ++row) {
      T* out_row = out + row * n + col;
      std::fill(out_row, out_row + cols, T(0));
      for (int64_t kk = 0; kk < k; ++kk) {
        AccumulateRow(out_row, b + kk * n + col, a[row * k + kk], /*stride=*/1, cols);
      }
    }
  }
}

// For each of out's batch dims, how far apart consecutive matrices of `t` are along it: 0
// where t broadcasts (size 1 or a missing leading dim).
void BatchStrides(const Tensor& t, size_t out_batch_rank, int64_t* strides) {
  const size_t batch_rank = t.dim() - 2;
  int64_t stride = t.size(t.dim() - 2) * t.size(t.dim() - 1);
  for (size_t i = 0; i < out_batch_rank; ++i) strides[i] = 0;
  for (size_t i = 0; i < batch_rank; ++i) {
    const size_t d = batch_rank - 1 - i;
    strides[out_batch_rank - 1 - i] = t.size(d) == 1 ? 0 : stride;
    stride *= t.size(d);
  }
}

}  // namespace

Error CheckMatmul(KernelArgs args) {
  TORCHIR_RETURN_IF_ERROR(CheckArgCount(args, kNumArgs, kName));
  TORCHIR_RETURN_IF_ERROR(CheckTensorOperand(args, kSelf, kFloatTypes, kName));
  TORCHIR_RETURN_IF_ERROR(CheckTensorOperand(args, kOther, kFloatTypes, kName));
  TORCHIR_RETURN_IF_ERROR(CheckTensorOperand(args, kOut, kFloatTypes, kName));
  const Tensor& a = args[kSelf]->to_tensor();
  const Tensor& b = args[kOther]->to_tensor();
  TORCHIR_RETURN_IF_ERROR(CheckSameDType(a, b, kName));
  TORCHIR_RETURN_IF_ERROR(CheckSameDType(a, args[kOut]->to_tensor(), kName));
  TORCHIR_CHECK_OR_RETURN(a.dim() >= 2 && b.dim() >= 2, Error::kInvalidProgram,
                          "%s: operands must have rank >= 2", kName);
  TORCHIR_CHECK_OR_RETURN(a.size(a.dim() - 1) == b.size(b.dim() - 2), Error::kInvalidProgram,
                          "%s: inner dimensions differ", kName);
  const size_t a_batch = a.dim() - 2;
  const size_t b_batch = b.dim() - 2;
  const size_t batch_rank = std::max(a_batch, b_batch);
  ExpectedShape expected;
  for (size_t i = 0; i < batch_rank; ++i) {
    // Aligned at the trailing batch dim, like broadcasting.
    const int64_t sa = i + a_batch >= batch_rank ? a.size(i + a_batch - batch_rank) : 1;
    const int64_t sb = i + b_batch >= batch_rank ? b.size(i + b_batch - batch_rank) : 1;
    TORCHIR_CHECK_OR_RETURN(sa == sb || sa == 1 || sb == 1, Error::kInvalidProgram,
                            "%s: batch dims do not broadcast", kName);
    expected.Append(sa == 1 ? sb : sa);
  }
  expected.Append(a.size(a.dim() - 2));
  expected.Append(b.size(b.dim() - 1));
  return CheckOutputShape(args[kOut]->to_tensor(), expected, kName);
}

namespace {

template <typename T>
void BatchedProduct(KernelArgs args) {
  const Tensor& a = args[kSelf]->to_tensor();
  const Tensor& b = args[kOther]->to_tensor();
  const Tensor& out = args[kOut]->to_tensor();
  const int64_t m = a.size(a.dim() - 2);
  const int64_t k = a.size(a.dim() - 1);
  const int64_t n = b.size(b.dim() - 1);
  const size_t batch_rank = out.dim() - 2;
  int64_t a_strides[kMaxTensorRank];
  int64_t b_strides[kMaxTensorRank];
  BatchStrides(a, batch_rank, a_strides);
  BatchStrides(b, batch_rank, b_strides);
  const T* a_data = a.data_ptr<T>();
  const T* b_data = b.data_ptr<T>();
  T* out_data = out.mutable_data_ptr<T>();
  const int64_t batches = SizeProduct(out, 0, batch_rank);
  // An odometer over out's batch dims, carrying each operand's matrix offset along.
  int64_t index[kMaxTensorRank] = {};
  int64_t a_offset = 0, b_offset = 0;
  for (int64_t batch = 0; batch < batches; ++batch) {
    MatrixProduct(a_data + a_offset, b_data + b_offset, out_data + batch * m * n, m, k, n);
    for (size_t d = batch_rank; d-- > 0;) {
      a_offset += a_strides[d];
      b_offset += b_strides[d];
      if (++index[d] < out.size(d)) break;
      a_offset -= a_strides[d] * index[d];
      b_offset -= b_strides[d] * index[d];
      index[d] = 0;
    }
  }
}

}  // namespace

Error RunMatmul(KernelContext& /*context*/, KernelArgs args) {
  const Tensor& out = args[kOut]->to_tensor();
  if (out.numel() == 0) return Error::kOk;
  if (out.scalar_type() == ScalarType::kFloat64) {
    BatchedProduct<double>(args);
  } else {
    BatchedProduct<float>(args);
  }
  return Error::kOk;
}

}  // namespace torchir::runtime::portable
