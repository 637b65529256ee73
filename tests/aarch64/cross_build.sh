#!/usr/bin/env bash
# Cross-builds the device side of torchir for aarch64 (tests/aarch64/device:
# runtime, portable kernels, XNNPACK delegate, native kernels, their unit
# tests and the zoo runner) with cmake/toolchains/aarch64-linux-gnu.cmake,
# against the sysroot of scripts/arm64_sysroot.sh. The fixture of
# `ctest -L aarch64`; the other tests of the label read BUILD_DIR/sysroot.txt.
#
#   tests/aarch64/cross_build.sh BUILD_DIR
#
# Exits 77 (skipped) when the sysroot cannot be prepared (no network to
# Debian's archive on first use), leaving BUILD_DIR/SKIPPED with the reason
# for the tests that need the build. A missing cross compiler or emulator is
# a failure: scripts/setup.sh installs both.
set -euo pipefail
if [[ $# -ne 1 ]]; then
  echo "usage: $0 BUILD_DIR" >&2
  exit 2
fi
SOURCE_DIR=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$1
mkdir -p "$OUT"
rm -f "$OUT/SKIPPED" "$OUT/sysroot.txt"

for tool in aarch64-linux-gnu-g++ qemu-aarch64; do
  command -v "$tool" > /dev/null ||
    { echo "FAIL: $tool not found (Debian packages g++-aarch64-linux-gnu, qemu-user:" \
           "scripts/setup.sh installs them)"; exit 1; }
done
if ! sysroot=$("$SOURCE_DIR/scripts/arm64_sysroot.sh" 2> "$OUT/sysroot.log"); then
  cat "$OUT/sysroot.log"
  echo "the arm64 sysroot could not be prepared (scripts/arm64_sysroot.sh)" > "$OUT/SKIPPED"
  echo "SKIP: $(cat "$OUT/SKIPPED")"
  exit 77
fi

# The cross compiler's objects are cached like the host's (scripts/setup.sh).
launcher=()
if command -v ccache > /dev/null; then
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$SOURCE_DIR} CCACHE_NOHASHDIR=true
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
start=$SECONDS
cmake -S "$SOURCE_DIR/tests/aarch64/device" -B "$OUT/device" -G Ninja \
  -DCMAKE_TOOLCHAIN_FILE="$SOURCE_DIR/cmake/toolchains/aarch64-linux-gnu.cmake" \
  -DTORCHIR_ARM64_SYSROOT="$sysroot" -DTORCHIR_SOURCE_DIR="$SOURCE_DIR" \
  -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" > "$OUT/configure.log" 2>&1 ||
  { tail -40 "$OUT/configure.log"; echo "FAIL: configuring the aarch64 build"; exit 1; }
cmake --build "$OUT/device" > "$OUT/build.log" 2>&1 ||
  { grep -A20 -m5 "FAILED:" "$OUT/build.log" || tail -40 "$OUT/build.log"
    echo "FAIL: building for aarch64 (log: $OUT/build.log)"; exit 1; }
echo "$sysroot" > "$OUT/sysroot.txt"
echo "PASS: cross-built for aarch64 in $((SECONDS - start)) s against $sysroot"
