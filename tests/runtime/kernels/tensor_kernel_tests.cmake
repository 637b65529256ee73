# tensor kernel tests: torchir_add_gtest(...) calls go here
torchir_add_gtest(unary_kernel_test unary_test.cpp
  LIBS torchir_kernel_harness torchir_dialect torchir_portable_kernels)
torchir_add_gtest(binary_kernel_test binary_test.cpp
  LIBS torchir_kernel_harness torchir_dialect torchir_portable_kernels)
torchir_add_gtest(cast_kernel_test cast_test.cpp
  LIBS torchir_kernel_harness torchir_dialect torchir_portable_kernels)
torchir_add_gtest(data_movement_kernel_test data_movement_test.cpp
  LIBS torchir_kernel_harness torchir_dialect torchir_portable_kernels)
