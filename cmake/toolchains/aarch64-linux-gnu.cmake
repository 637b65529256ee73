# Cross-compiles for 64-bit Arm Linux (aarch64) with Debian's cross compiler
# (g++-aarch64-linux-gnu) against an arm64 sysroot of the libraries torchir
# links: XNNPACK, pthreadpool, cpuinfo, Highway, GoogleTest and the FlatBuffers
# headers (scripts/arm64_sysroot.sh makes one from Debian's archive).
#
#   cmake -S runtime -B build-arm64 -G Ninja \
#     -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake \
#     -DTORCHIR_ARM64_SYSROOT=$(scripts/arm64_sysroot.sh)
#
# The sysroot holds libraries only: the C library and the C++ headers come
# with the cross compiler, whose own target directory (/usr/aarch64-linux-gnu)
# is searched too. Programs (flatc) run from the host; libraries, headers and
# packages are looked up in the sysroot and the cross compiler's directory
# only, never in the host's /usr. Run the results with
# `qemu-aarch64 -L <sysroot>` (docs/embedding.md, tests/aarch64/).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

set(TORCHIR_ARM64_SYSROOT "$ENV{TORCHIR_ARM64_SYSROOT}" CACHE PATH
  "arm64 sysroot with torchir's target libraries (scripts/arm64_sysroot.sh)")
# try_compile projects see the cache only through this list.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES TORCHIR_ARM64_SYSROOT)
if(NOT TORCHIR_ARM64_SYSROOT)
  message(FATAL_ERROR "aarch64-linux-gnu.cmake: set TORCHIR_ARM64_SYSROOT (or the environment "
    "variable) to an arm64 sysroot, e.g. -DTORCHIR_ARM64_SYSROOT=$(scripts/arm64_sysroot.sh)")
endif()
if(NOT EXISTS "${TORCHIR_ARM64_SYSROOT}/usr/include")
  message(FATAL_ERROR "aarch64-linux-gnu.cmake: ${TORCHIR_ARM64_SYSROOT} is not a sysroot "
    "(no usr/include); make one with scripts/arm64_sysroot.sh")
endif()

set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)

# Debian's cross compiler also searches the host's /usr/include: the sysroot's
# headers come first (-isystem, so warnings in them stay quiet). The linker
# finds libraries named plainly (-lpthreadpool) in the sysroot and resolves
# their own dependencies there (libXNNPACK.so needs libpthreadpool.so.0, ...).
set(_torchir_sysroot_libs
  "${TORCHIR_ARM64_SYSROOT}/usr/lib/aarch64-linux-gnu"
  "${TORCHIR_ARM64_SYSROOT}/lib/aarch64-linux-gnu")
set(CMAKE_C_FLAGS_INIT "-isystem ${TORCHIR_ARM64_SYSROOT}/usr/include")
set(CMAKE_CXX_FLAGS_INIT "-isystem ${TORCHIR_ARM64_SYSROOT}/usr/include")
foreach(kind EXE SHARED MODULE)
  set(CMAKE_${kind}_LINKER_FLAGS_INIT "")
  foreach(dir ${_torchir_sysroot_libs})
    string(APPEND CMAKE_${kind}_LINKER_FLAGS_INIT " -L${dir} -Wl,-rpath-link,${dir}")
  endforeach()
endforeach()

set(CMAKE_FIND_ROOT_PATH "${TORCHIR_ARM64_SYSROOT}" /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
# BOTH: an app's CMAKE_PREFIX_PATH (a torchir SDK installed on the host for the
# target) is found as well as the sysroot's packages (GTest).
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)

# ctest and add_custom_command run target programs through the emulator.
find_program(TORCHIR_QEMU_AARCH64 qemu-aarch64)
if(TORCHIR_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR "${TORCHIR_QEMU_AARCH64};-L;${TORCHIR_ARM64_SYSROOT}")
endif()
