// ATen ops refused on purpose. Each has no forward-inference meaning (gradients, random
// sampling, training-only statistics) or needs something a static, ahead-of-time program cannot
// hold (data-dependent shapes, values read back into Python, complex numbers). The reason is what
// the user sees, one line per op, next to the nodes that use it; docs/op-coverage.md lists them.
#include <string>

#include "compiler/lowering/rule_table.h"

namespace torchir::lowering {

void AddRefusals(RuleTable& table) {
  const std::string gradient =
      "a gradient (backward) op: torchir compiles inference graphs; export the model in eval "
      "mode, outside autograd";
  for (const char* op :
       {"aten._adaptive_avg_pool2d_backward.default", "aten.avg_pool2d_backward.default",
        "aten.convolution_backward.default", "aten.embedding_dense_backward.default",
        "aten.max_pool2d_with_indices_backward.default",
        "aten.native_group_norm_backward.default", "aten.native_layer_norm_backward.default",
        "aten.threshold_backward.default", "aten.native_batch_norm_backward.default"}) {
    table.Refuse(op, gradient);
  }

  const std::string random =
      "random sampling: its result changes from run to run, so there is nothing deterministic "
      "to compile; sample outside the model and pass the noise in as an input";
  for (const char* op :
       {"aten.rand.default", "aten.randn.default", "aten.randperm.default",
        "aten.rand_like.default", "aten.randn_like.default", "aten.randint.default",
        "aten.randint.low", "aten.randint_like.default", "aten.bernoulli.default",
        "aten.bernoulli.p", "aten.bernoulli_.float", "aten.normal.Tensor_Tensor",
        "aten.normal_.default", "aten.uniform_.default", "aten.exponential_.default",
        "aten.multinomial.default"}) {
    table.Refuse(op, random);
  }

  const std::string item =
      "reads a tensor element back into Python (.item()): the value steered Python code while "
      "exporting, which an ahead-of-time program cannot re-run; keep the computation in tensors";
  table.Refuse("aten._local_scalar_dense.default", item);
  table.Refuse("aten.item.default", item);
  table.Refuse("aten.nonzero.default",
               "its output shape depends on the input values, and torchir plans every tensor's "
               "memory ahead of time; use a mask (torch.where) instead");

  const std::string symbolic =
      "a symbolic shape query from an export with dynamic shapes: torchir compiles static "
      "shapes; export without dynamic_shapes";
  for (const char* op : {"aten.sym_size.int", "aten.sym_numel.default",
                         "aten.sym_storage_offset.default", "aten.sym_stride.int"}) {
    table.Refuse(op, symbolic);
  }

  table.Refuse("aten.atan2.out",
               "an out= variant, which writes into a tensor the caller passes; torch.export "
               "records the functional aten.atan2.default instead");

  const std::string complex =
      "produces or reads complex tensors, and torchir has no complex dtypes (FFTs included)";
  for (const char* op : {"aten._fft_r2c.default", "aten._fft_c2r.default",
                         "aten._fft_c2c.default", "aten.view_as_complex.default",
                         "aten.view_as_real.default"}) {
    table.Refuse(op, complex);
  }
}

}  // namespace torchir::lowering
