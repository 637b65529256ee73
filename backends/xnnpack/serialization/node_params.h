// The parameter layout of every XNNPACK blob node (xnnpack_blob.fbs, Node): the op name the
// blob stores, how many inputs it takes, and what each slot of its `ints` and `floats` means.
// The compiler writes nodes through these names (backends/xnnpack/partitioner/) and the
// delegate reads them through the same names (backends/xnnpack/runtime/node_definitions.cpp),
// so the op names, slot order and counts exist once.
//
// Each op is a struct with:
//   kOp                       the Node.op string;
//   kMinInputs, kMaxInputs    inputs (more than kMinInputs: an optional trailing bias);
//   enum Int { ..., kNumInts } the `ints` slots, and kInts[] naming each with its smallest
//                             legal value (kNumInts is kVariableCount when the count depends
//                             on a rank: the op documents its own rule);
//   enum Float { ..., kNumFloats } and kFloats[] for `floats`.
// Header-only and std-only: the runtime side builds without exceptions, RTTI or Abseil.
#pragma once

#include <cstddef>
#include <cstdint>

namespace torchir::xnnpack::node_params {

// A count a node's definition checks itself (it depends on an input's rank).
inline constexpr int kVariableCount = -1;

// XNNPACK computes window sizes in 32 bits (kernel_h * kernel_w, the dilated window, a fused
// pad's paddings added to a convolution's) and sizes its indirection buffers from them: window
// parameters (kernel, stride, dilation, padding) stay below 2^24 so that none of those wrap.
inline constexpr int64_t kMaxWindowParam = (int64_t{1} << 24) - 1;
// Every int is passed to XNNPACK as a uint32.
inline constexpr int64_t kMaxUint32 = 0xFFFFFFFF;

// One `ints` slot: its name (for messages) and the range [min, max] of legal values.
struct IntSlot {
  const char* name;
  int64_t min;
  int64_t max;
};

// The fused clamp [output_min, output_max] most ops carry in floats[0..1].
struct OutputRangeFloats {
  enum Float : int { kOutputMin, kOutputMax, kNumFloats };
  static constexpr const char* kFloats[] = {"output_min", "output_max"};
};

struct NoFloats {
  enum Float : int { kNumFloats };
  static constexpr const char* const* kFloats = nullptr;
};

struct NoInts {
  enum Int : int { kNumInts };
  static constexpr const IntSlot* kInts = nullptr;
};

// inputs [input NHWC, filter OHWI [groups*group_out, kh, kw, group_in], bias? [groups*group_out]]
// output [N, OH, OW, groups*group_out]
struct Convolution2d : OutputRangeFloats {
  static constexpr char kOp[] = "convolution_2d";
  static constexpr uint8_t kMinInputs = 2, kMaxInputs = 3;
  enum Int : int {
    kPadTop,
    kPadRight,
    kPadBottom,
    kPadLeft,
    kKernelH,
    kKernelW,
    kStrideH,
    kStrideW,
    kDilationH,
    kDilationW,
    kGroups,
    kGroupInputChannels,
    kGroupOutputChannels,
    kNumInts
  };
  static constexpr IntSlot kInts[] = {{"pad_top", 0, kMaxWindowParam},
                                      {"pad_right", 0, kMaxWindowParam},
                                      {"pad_bottom", 0, kMaxWindowParam},
                                      {"pad_left", 0, kMaxWindowParam},
                                      {"kernel_h", 1, kMaxWindowParam},
                                      {"kernel_w", 1, kMaxWindowParam},
                                      {"stride_h", 1, kMaxWindowParam},
                                      {"stride_w", 1, kMaxWindowParam},
                                      {"dilation_h", 1, kMaxWindowParam},
                                      {"dilation_w", 1, kMaxWindowParam},
                                      {"groups", 1, kMaxUint32},
                                      {"group_input_channels", 1, kMaxUint32},
                                      {"group_output_channels", 1, kMaxUint32}};
};

// inputs [input NHWC [N, H, W, C], filter [1, kh, kw, C*depth_multiplier], bias? [C*dm]]
// output [N, OH, OW, C*depth_multiplier]
struct DepthwiseConvolution2d : OutputRangeFloats {
  static constexpr char kOp[] = "depthwise_convolution_2d";
  static constexpr uint8_t kMinInputs = 2, kMaxInputs = 3;
  enum Int : int {
    kPadTop,
    kPadRight,
    kPadBottom,
    kPadLeft,
    kKernelH,
    kKernelW,
    kStrideH,
    kStrideW,
    kDilationH,
    kDilationW,
    kDepthMultiplier,
    kInputChannels,
    kNumInts
  };
  static constexpr IntSlot kInts[] = {
      {"pad_top", 0, kMaxWindowParam},     {"pad_right", 0, kMaxWindowParam},
      {"pad_bottom", 0, kMaxWindowParam},  {"pad_left", 0, kMaxWindowParam},
      {"kernel_h", 1, kMaxWindowParam},    {"kernel_w", 1, kMaxWindowParam},
      {"stride_h", 1, kMaxWindowParam},    {"stride_w", 1, kMaxWindowParam},
      {"dilation_h", 1, kMaxWindowParam},  {"dilation_w", 1, kMaxWindowParam},
      {"depth_multiplier", 1, kMaxUint32}, {"input_channels", 1, kMaxUint32}};
};

// inputs [input [..., K], filter [N, K], bias? [N]]; output [..., N]
struct FullyConnected : NoInts, OutputRangeFloats {
  static constexpr char kOp[] = "fully_connected";
  static constexpr uint8_t kMinInputs = 2, kMaxInputs = 3;
};

// Binary ops: inputs [a, b] (NumPy broadcasting over the stored dims).
struct Add2 : NoInts, OutputRangeFloats {
  static constexpr char kOp[] = "add2";
  static constexpr uint8_t kMinInputs = 2, kMaxInputs = 2;
};
struct Multiply2 : NoInts, OutputRangeFloats {
  static constexpr char kOp[] = "multiply2";
  static constexpr uint8_t kMinInputs = 2, kMaxInputs = 2;
};
struct Subtract : NoInts, OutputRangeFloats {
  static constexpr char kOp[] = "subtract";
  static constexpr uint8_t kMinInputs = 2, kMaxInputs = 2;
};
struct Divide : NoInts, OutputRangeFloats {
  static constexpr char kOp[] = "divide";
  static constexpr uint8_t kMinInputs = 2, kMaxInputs = 2;
};
struct Maximum2 : NoInts, NoFloats {
  static constexpr char kOp[] = "maximum2";
  static constexpr uint8_t kMinInputs = 2, kMaxInputs = 2;
};
struct Minimum2 : NoInts, NoFloats {
  static constexpr char kOp[] = "minimum2";
  static constexpr uint8_t kMinInputs = 2, kMaxInputs = 2;
};

// Unary ops: inputs [x] (rank >= 1), output of the same shape.
struct Clamp : NoInts, OutputRangeFloats {
  static constexpr char kOp[] = "clamp";
  static constexpr uint8_t kMinInputs = 1, kMaxInputs = 1;
};
struct LeakyRelu : NoInts {
  static constexpr char kOp[] = "leaky_relu";
  static constexpr uint8_t kMinInputs = 1, kMaxInputs = 1;
  enum Float : int { kNegativeSlope, kNumFloats };
  static constexpr const char* kFloats[] = {"negative_slope"};
};
struct Elu : NoInts {
  static constexpr char kOp[] = "elu";
  static constexpr uint8_t kMinInputs = 1, kMaxInputs = 1;
  enum Float : int { kAlpha, kNumFloats };
  static constexpr const char* kFloats[] = {"alpha"};
};
struct Hardswish : NoInts, NoFloats {
  static constexpr char kOp[] = "hardswish";
  static constexpr uint8_t kMinInputs = 1, kMaxInputs = 1;
};
struct Sigmoid : NoInts, NoFloats {
  static constexpr char kOp[] = "sigmoid";
  static constexpr uint8_t kMinInputs = 1, kMaxInputs = 1;
};
struct Negate : NoInts, NoFloats {
  static constexpr char kOp[] = "negate";
  static constexpr uint8_t kMinInputs = 1, kMaxInputs = 1;
};
struct Abs : NoInts, NoFloats {
  static constexpr char kOp[] = "abs";
  static constexpr uint8_t kMinInputs = 1, kMaxInputs = 1;
};
struct SquareRoot : NoInts, NoFloats {
  static constexpr char kOp[] = "square_root";
  static constexpr uint8_t kMinInputs = 1, kMaxInputs = 1;
};
struct Square : NoInts, NoFloats {
  static constexpr char kOp[] = "square";
  static constexpr uint8_t kMinInputs = 1, kMaxInputs = 1;
};
// inputs [x, slope [C]] with C the innermost stored dim of x (a constant); output of x's shape.
struct Prelu : NoInts, NoFloats {
  static constexpr char kOp[] = "prelu";
  static constexpr uint8_t kMinInputs = 2, kMaxInputs = 2;
};
struct Floor : NoInts, NoFloats {
  static constexpr char kOp[] = "floor";
  static constexpr uint8_t kMinInputs = 1, kMaxInputs = 1;
};
struct Ceiling : NoInts, NoFloats {
  static constexpr char kOp[] = "ceiling";
  static constexpr uint8_t kMinInputs = 1, kMaxInputs = 1;
};
// Round half to even.
struct BankersRounding : NoInts, NoFloats {
  static constexpr char kOp[] = "bankers_rounding";
  static constexpr uint8_t kMinInputs = 1, kMaxInputs = 1;
};
// Over the innermost stored dim.
struct Softmax : NoInts, NoFloats {
  static constexpr char kOp[] = "softmax";
  static constexpr uint8_t kMinInputs = 1, kMaxInputs = 1;
};

// inputs [input NHWC]; output [N, OH, OW, C]
struct MaxPooling2d : OutputRangeFloats {
  static constexpr char kOp[] = "max_pooling_2d";
  static constexpr uint8_t kMinInputs = 1, kMaxInputs = 1;
  enum Int : int {
    kPadTop,
    kPadRight,
    kPadBottom,
    kPadLeft,
    kPoolH,
    kPoolW,
    kStrideH,
    kStrideW,
    kDilationH,
    kDilationW,
    kNumInts
  };
  static constexpr IntSlot kInts[] = {
      {"pad_top", 0, kMaxWindowParam},    {"pad_right", 0, kMaxWindowParam},
      {"pad_bottom", 0, kMaxWindowParam}, {"pad_left", 0, kMaxWindowParam},
      {"pool_h", 1, kMaxWindowParam},     {"pool_w", 1, kMaxWindowParam},
      {"stride_h", 1, kMaxWindowParam},   {"stride_w", 1, kMaxWindowParam},
      {"dilation_h", 1, kMaxWindowParam}, {"dilation_w", 1, kMaxWindowParam}};
};

// inputs [input NHWC]; output [N, OH, OW, C]. XNNPACK divides by the number of non-padding
// elements (count_include_pad=False).
struct AveragePooling2d : OutputRangeFloats {
  static constexpr char kOp[] = "average_pooling_2d";
  static constexpr uint8_t kMinInputs = 1, kMaxInputs = 1;
  enum Int : int {
    kPadTop,
    kPadRight,
    kPadBottom,
    kPadLeft,
    kPoolH,
    kPoolW,
    kStrideH,
    kStrideW,
    kNumInts
  };
  static constexpr IntSlot kInts[] = {
      {"pad_top", 0, kMaxWindowParam},    {"pad_right", 0, kMaxWindowParam},
      {"pad_bottom", 0, kMaxWindowParam}, {"pad_left", 0, kMaxWindowParam},
      {"pool_h", 1, kMaxWindowParam},     {"pool_w", 1, kMaxWindowParam},
      {"stride_h", 1, kMaxWindowParam},   {"stride_w", 1, kMaxWindowParam}};
};

// inputs [input [N, H, W, C]]; output [N, new_height, new_width, C]. align_corners 1 maps the
// corner pixels onto each other; 0 samples pixel centres (PyTorch's align_corners=False).
struct StaticResizeBilinear2d : NoFloats {
  static constexpr char kOp[] = "static_resize_bilinear_2d";
  static constexpr uint8_t kMinInputs = 1, kMaxInputs = 1;
  enum Int : int { kNewHeight, kNewWidth, kAlignCorners, kNumInts };
  static constexpr IntSlot kInts[] = {{"new_height", 1, kMaxWindowParam},
                                      {"new_width", 1, kMaxWindowParam},
                                      {"align_corners", 0, 1}};
};

// inputs [input [N, H, W, C]]; output [N, 1, 1, C]
struct GlobalAveragePooling2d : NoInts, OutputRangeFloats {
  static constexpr char kOp[] = "global_average_pooling_2d";
  static constexpr uint8_t kMinInputs = 1, kMaxInputs = 1;
};

// ints = the new shape, one slot per output dim (each >= 1, same element count as the input).
struct StaticReshape : NoFloats {
  static constexpr char kOp[] = "static_reshape";
  static constexpr uint8_t kMinInputs = 1, kMaxInputs = 1;
  static constexpr int kNumInts = kVariableCount;
  static constexpr int64_t kMinDim = 1;
};

// ints = [pre_0 .. pre_{r-1}, post_0 .. post_{r-1}] for an input of rank r (each >= 0):
// PrePadding(d) and PostPadding(d, r) give the slots of dim d.
struct StaticConstantPad {
  static constexpr char kOp[] = "static_constant_pad";
  static constexpr uint8_t kMinInputs = 1, kMaxInputs = 1;
  static constexpr int kNumInts = kVariableCount;
  static constexpr size_t PrePadding(size_t dim) { return dim; }
  static constexpr size_t PostPadding(size_t dim, size_t rank) { return rank + dim; }
  enum Float : int { kPaddingValue, kNumFloats };
  static constexpr const char* kFloats[] = {"padding_value"};
};

// The ops, in one list, for code that visits each (the delegate's table, tests):
// TORCHIR_XNNPACK_NODE_OPS(X) calls X(Type) once per op.
#define TORCHIR_XNNPACK_NODE_OPS(X)                                                             \
  X(Convolution2d)                                                                              \
  X(DepthwiseConvolution2d)                                                                     \
  X(FullyConnected) X(Add2) X(Multiply2) X(Subtract) X(Divide) X(Maximum2) X(Minimum2) X(Clamp) \
      X(LeakyRelu) X(Elu) X(Hardswish) X(Sigmoid) X(Negate) X(Abs) X(SquareRoot) X(Square)      \
          X(Prelu) X(Floor) X(Ceiling) X(BankersRounding) X(Softmax) X(MaxPooling2d)            \
              X(AveragePooling2d) X(StaticResizeBilinear2d) X(GlobalAveragePooling2d)         \
                  X(StaticReshape) X(StaticConstantPad)

namespace internal {
template <typename Op>
constexpr bool SlotsNamed() {
  if constexpr (Op::kNumInts > 0) {
    static_assert(sizeof(Op::kInts) / sizeof(Op::kInts[0]) == static_cast<size_t>(Op::kNumInts),
                  "one IntSlot per Int enumerator");
  }
  if constexpr (Op::kNumFloats > 0) {
    static_assert(
        sizeof(Op::kFloats) / sizeof(Op::kFloats[0]) == static_cast<size_t>(Op::kNumFloats),
        "one name per Float enumerator");
  }
  static_assert(Op::kMinInputs >= 1 && Op::kMinInputs <= Op::kMaxInputs);
  return true;
}
#define TORCHIR_XNNPACK_CHECK_SLOTS(Op) static_assert(internal::SlotsNamed<Op>());
TORCHIR_XNNPACK_NODE_OPS(TORCHIR_XNNPACK_CHECK_SLOTS)
#undef TORCHIR_XNNPACK_CHECK_SLOTS
}  // namespace internal

}  // namespace torchir::xnnpack::node_params
