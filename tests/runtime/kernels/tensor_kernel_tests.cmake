# tensor kernel tests: torchir_add_gtest(...) calls go here
