#include <algorithm>

#include "runtime/kernels/portable/argument_checks.h"
#include "runtime/kernels/portable/kernel_util.h"
#include "runtime/kernels/portable/kernels.h"

namespace torchir::runtime::portable {
namespace {

constexpr const char* kName = "linear";
enum Arg : size_t { kInput, kWeight, kBias, kOutputMin, kOutputMax, kOut, kNumArgs };

// A tile is kRowTile input rows times kColTile weight rows: each value loaded from one feeds
// the dot products with all rows of the other. Each dot product keeps kLanes partial sums
// over K, independent so the compiler can vectorize them without reassociating.
constexpr int64_t kRowTile = 2;
constexpr int64_t kColTile = 4;
constexpr int kLanes = 8;

// out[i][j] = clamp(bias[j] + sum_k input[i][k] * weight[j][k]) for i < kRows, j < kCols.
// Rows of `input`, `weight` and `out` are k_size, k_size and out_stride apart.
template <int kRows, int kCols, typename T>
void DotTile(const T* input, const T* weight, int64_t k_size, const T* bias, T* out,
             int64_t out_stride, TypedOutputClamp<T> clamp) {
  T partial[kRows][kCols][kLanes] = {};
  int64_t k = 0;
  for (; k + kLanes <= k_size; k += kLanes) {
    for (int i = 0; i < kRows; ++i) {
      for (int j = 0; j < kCols; ++j) {
        for (int l = 0; l < kLanes; ++l) {
          partial[i][j][l] += input[i * k_size + k + l] * weight[j * k_size + k + l];
        }
      }
    }
  }
  for (int i = 0; i < kRows; ++i) {
    for (int j = 0; j < kCols; ++j) {
      T sum = 0;
      for (int l = 0; l < kLanes; ++l) sum += partial[i][j][l];
      for (int64_t r = k; r < k_size; ++r) sum += input[i * k_size + r] * weight[j * k_size + r];
      if (bias != nullptr) sum += bias[j];
      out[i * out_stride + j] = sum;
    }
    ApplyOutputClamp(out + i * out_stride, kCols, clamp);
  }
}

// The rows [row, row + rows) against the weight rows [col, col + cols), rows and cols at most
// one tile; partial tiles at the edges go one row or column at a time.
template <typename T>
void LinearTile(const T* input, const T* weight, const T* bias, T* out, int64_t k_size,
                int64_t n_size, int64_t row, int64_t rows, int64_t col, int64_t cols,
                TypedOutputClamp<T> clamp) {
  const T* tile_bias = bias != nullptr ? bias + col : nullptr;
  if (rows == kRowTile && cols == kColTile) {
    DotTile<kRowTile, kColTile>(input + row * k_size, weight + col * k_size, k_size, tile_bias,
                                out + row * n_size + col, n_size, clamp);
    return;
  }
  for (int64_t i = row; i < row + rows; ++i) {
    for (int64_t j = col; j < col + cols; ++j) {
      DotTile<1, 1>(input + i * k_size, weight + j * k_size, k_size,
                    bias != nullptr ? bias + j : nullptr, out + i * n_size + j, n_size, clamp);
    }
  }
}

}  // namespace

Error CheckLinear(KernelArgs args) {
  TORCHIR_RETURN_IF_ERROR(CheckArgCount(args, kNumArgs, kName));
  TORCHIR_RETURN_IF_ERROR(CheckTensorOperand(args, kInput, kFloatTypes, kName));
  // Every operand in the input's dtype: no implicit promotion.
  const DTypeSet same(args[kInput]->to_tensor().scalar_type());
  TORCHIR_RETURN_IF_ERROR(CheckTensorOperand(args, kWeight, same, kName));
  TORCHIR_RETURN_IF_ERROR(CheckOptionalTensorOperand(args, kBias, same, kName));
  TORCHIR_RETURN_IF_ERROR(CheckTensorOperand(args, kOut, same, kName));
  TORCHIR_RETURN_IF_ERROR(CheckClampBounds(args, kOutputMin, kOutputMax, kName));
  const Tensor& input = args[kInput]->to_tensor();
  const Tensor& weight = args[kWeight]->to_tensor();
  TORCHIR_CHECK_OR_RETURN(
      input.dim() >= 1 && weight.dim() == 2 && weight.size(1) == input.size(input.dim() - 1),
      Error::kInvalidProgram, "%s: weight must be [N, K] with K the input's last dim", kName);
  const int64_t n_size = weight.size(0);
  if (!args[kBias]->is_none()) {
    const Tensor& bias = args[kBias]->to_tensor();
    TORCHIR_CHECK_OR_RETURN(bias.dim() == 1 && bias.size(0) == n_size, Error::kInvalidProgram,
                            "%s: bias must be [%lld]", kName, static_cast<long long>(n_size));
  }
  ExpectedShape expected;
  for (size_t d = 0; d + 1 < input.dim(); ++d) expected.Append(input.size(d));
  expected.Append(n_size);
  return CheckOutputShape(args[kOut]->to_tensor(), expected, kName);
}

namespace {

template <typename T>
void RunLinearAs(KernelArgs args) {
  const Tensor& input = args[kInput]->to_tensor();
  const Tensor& weight = args[kWeight]->to_tensor();
  const Tensor& out = args[kOut]->to_tensor();
  const int64_t m_size = SizeProduct(input, 0, input.dim() - 1);
  const int64_t n_size = weight.size(0);
  const int64_t k_size = weight.size(1);
  const T* input_data = input.data_ptr<T>();
  const T* weight_data = weight.data_ptr<T>();
  const T* bias = args[kBias]->is_none() ? nullptr : args[kBias]->to_tensor().data_ptr<T>();
  T* out_data = out.mutable_data_ptr<T>();
  const TypedOutputClamp<T> clamp = ClampFromArgs<T>(args, kOutputMin, kOutputMax);
  // Weight rows outer: a tile of them stays in cache while every input row passes by.
  for (int64_t col = 0; col < n_size; col += kColTile) {
    const int64_t cols = std::min(kColTile, n_size - col);
    for (int64_t row = 0; row < m_size; row += kRowTile) {
      LinearTile(input_data, weight_data, bias, out_data, k_size, n_size, row,
                 std::min(kRowTile, m_size - row), col, cols, clamp);
    }
  }
}

}  // namespace

Error RunLinear(KernelContext& /*context*/, KernelArgs args) {
  if (args[kInput]->to_tensor().scalar_type() == ScalarType::kFloat64) {
    RunLinearAs<double>(args);
  } else {
    RunLinearAs<float>(args);
  }
  return Error::kOk;
}

}  // namespace torchir::runtime::portable
