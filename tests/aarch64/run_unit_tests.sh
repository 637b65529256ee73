#!/usr/bin/env bash
# Runs the cross-built unit tests (runtime, XNNPACK delegate, native kernels)
# under qemu-aarch64 through the cross build's own CTest, which prefixes each
# binary with `qemu-aarch64 -L <sysroot>` (CMAKE_CROSSCOMPILING_EMULATOR).
#
#   tests/aarch64/run_unit_tests.sh BUILD_DIR       (BUILD_DIR of cross_build.sh)
set -euo pipefail
OUT=$1
if [[ -f $OUT/SKIPPED ]]; then
  echo "SKIP: $(cat "$OUT/SKIPPED")"
  exit 77
fi
[[ -f $OUT/sysroot.txt ]] ||
  { echo "FAIL: no aarch64 build in $OUT (tests/aarch64/cross_build.sh)"; exit 1; }
ctest --test-dir "$OUT/device" --output-on-failure --timeout 600
