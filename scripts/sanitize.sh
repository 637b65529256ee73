#!/usr/bin/env bash
# The sanitizer job: builds torchir with AddressSanitizer + UndefinedBehaviorSanitizer
# (GCC; every report is fatal; the runtime keeps RTTI so UBSan's vptr check stays on) into
# build-sanitize/, then runs the unit tests and the zoo at the pte stage on both backends
# (`ctest -L "unit|pte|xnnpack"`) against the zoo the main build exported.
#
#   scripts/sanitize.sh [extra ctest arguments]
#
# Run after scripts/setup.sh (the Debian packages) and with the zoo already exported
# (`ctest --test-dir build -R zoo_generate`; scripts/test.sh does both). The fuzz targets
# are sanitized builds of their own (clang, tests/fuzz/) and run in the main build (-L fuzz).
set -euo pipefail
cd "$(dirname "$0")/.."
MAIN_BUILD=${TORCHIR_BUILD_DIR:-build}
BUILD_DIR=${TORCHIR_SANITIZE_BUILD_DIR:-build-sanitize}
ZOO_DIR=$(cd "$MAIN_BUILD" && pwd)/zoo
if [[ ! -f $ZOO_DIR/.zoo-stamp-export-core ]]; then
  echo "sanitize: no zoo in $ZOO_DIR; run: ctest --test-dir $MAIN_BUILD -R zoo_generate" >&2
  exit 1
fi

export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=true CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
LAUNCHER=()
if command -v ccache >/dev/null; then
  LAUNCHER=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
VENV_PYTHON=$(scripts/python_env.sh)
if [[ ! -f "$BUILD_DIR/build.ninja" ]] ||
  ! grep -qx "TORCHIR_VENV_PYTHON:FILEPATH=$VENV_PYTHON" "$BUILD_DIR/CMakeCache.txt"; then
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DTORCHIR_SANITIZE=address,undefined -DTORCHIR_BUILD_BENCHMARKS=OFF \
    -DTORCHIR_ZOO_DIR="$ZOO_DIR" -DTORCHIR_VENV_PYTHON="$VENV_PYTHON" "${LAUNCHER[@]}" >/dev/null
fi
echo "sanitize: building $BUILD_DIR (ASan + UBSan)" >&2
cmake --build "$BUILD_DIR" -j "$(nproc)"

# Leaks are reported too; LibTorch's and XNNPACK's process-lifetime caches are not leaks of
# ours, so lsan.supp names them. Every UBSan report stops the test (no recovery).
# A hostile program may ask for a petabyte arena: the runtime must see malloc fail
# (kOutOfMemory) as in a release build, not ASan abort (allocator_may_return_null).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1:strict_string_checks=1:detect_stack_use_after_return=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/tests/sanitize/lsan.supp:print_suppressions=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export TORCHIR_ZOO_DIR="$ZOO_DIR"
# The fuzz targets are clang ASan + UBSan builds of their own and run in the main suite.
ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$(nproc)" -L "unit|pte|xnnpack" -LE fuzz "$@"
