# The LibTorch the reference executor (tools/reference) links: the one inside the PyPI torch
# wheel of the Python environment (scripts/python_env.sh), so that the reference runs the same
# ATen kernels, at the same version, as the torch that wrote the zoo's pytorch_ir flavour and
# its expected outputs.
#
# Defines the imported target torchir::reference_libtorch. The wheel ships a CUDA build; only
# libtorch_cpu and libc10 are linked, so nothing CUDA is loaded at run time, and TorchConfig.cmake
# (which looks for a CUDA toolkit) is not used. The wheel's headers need C++20 and its libraries
# use the C++11 ABI; both are set on the consumers through the target.
#
# Inputs: TORCHIR_VENV_PYTHON (the environment's interpreter), or TORCHIR_REFERENCE_TORCH_DIR
# (a torch package directory: <dir>/include, <dir>/lib) to point elsewhere.
set(TORCHIR_REFERENCE_TORCH_DIR "" CACHE PATH
  "torch package directory whose LibTorch the reference executor links (default: the venv's)")

if(NOT TORCHIR_REFERENCE_TORCH_DIR)
  if(NOT TORCHIR_VENV_PYTHON)
    message(FATAL_ERROR
      "The reference executor links the LibTorch of the Python environment: configure with "
      "-DTORCHIR_VENV_PYTHON=$(scripts/python_env.sh) (scripts/setup.sh does this)")
  endif()
  execute_process(
    COMMAND ${TORCHIR_VENV_PYTHON} -c
      "import importlib.util, os; print(os.path.dirname(importlib.util.find_spec('torch').origin))"
    OUTPUT_VARIABLE torch_dir OUTPUT_STRIP_TRAILING_WHITESPACE
    ERROR_VARIABLE torch_error
    RESULT_VARIABLE torch_result)
  if(NOT torch_result EQUAL 0 OR NOT IS_DIRECTORY "${torch_dir}")
    message(FATAL_ERROR "${TORCHIR_VENV_PYTHON} has no torch package: ${torch_error}")
  endif()
  set(TORCHIR_REFERENCE_TORCH_DIR "${torch_dir}" CACHE PATH
    "torch package directory whose LibTorch the reference executor links (default: the venv's)"
    FORCE)
endif()

set(torch_dir "${TORCHIR_REFERENCE_TORCH_DIR}")
foreach(file include/ATen/ATen.h lib/libtorch_cpu.so lib/libc10.so)
  if(NOT EXISTS "${torch_dir}/${file}")
    message(FATAL_ERROR "TORCHIR_REFERENCE_TORCH_DIR=${torch_dir} has no ${file}")
  endif()
endforeach()
file(STRINGS "${torch_dir}/version.py" torch_version_line REGEX "^__version__")
string(REGEX REPLACE "^__version__ = '([^']*)'.*" "\\1" TORCHIR_REFERENCE_TORCH_VERSION
  "${torch_version_line}")
message(STATUS "Reference executor: LibTorch ${TORCHIR_REFERENCE_TORCH_VERSION} from ${torch_dir}")

add_library(torchir::reference_libtorch INTERFACE IMPORTED GLOBAL)
# SYSTEM: warnings inside LibTorch's headers are not ours to fix.
set_target_properties(torchir::reference_libtorch PROPERTIES
  INTERFACE_SYSTEM_INCLUDE_DIRECTORIES
    "${torch_dir}/include;${torch_dir}/include/torch/csrc/api/include"
  INTERFACE_INCLUDE_DIRECTORIES
    "${torch_dir}/include;${torch_dir}/include/torch/csrc/api/include"
  INTERFACE_COMPILE_DEFINITIONS "_GLIBCXX_USE_CXX11_ABI=1"
  INTERFACE_COMPILE_FEATURES cxx_std_20
  INTERFACE_LINK_LIBRARIES "${torch_dir}/lib/libtorch_cpu.so;${torch_dir}/lib/libc10.so")
