# compute kernel tests: torchir_add_gtest(...) calls go here
torchir_add_gtest(convolution_test convolution_test.cpp
  LIBS torchir_kernel_harness torchir_dialect)
torchir_add_gtest(linear_matmul_test linear_matmul_test.cpp
  LIBS torchir_kernel_harness torchir_dialect)
torchir_add_gtest(normalization_test normalization_test.cpp
  LIBS torchir_kernel_harness torchir_dialect)
torchir_add_gtest(softmax_test softmax_test.cpp
  LIBS torchir_kernel_harness torchir_dialect)
torchir_add_gtest(reduction_test reduction_test.cpp
  LIBS torchir_kernel_harness torchir_dialect)
torchir_add_gtest(pooling_test pooling_test.cpp
  LIBS torchir_kernel_harness torchir_dialect)
