#!/usr/bin/env bash
# Cross-builds the device side of torchir for aarch64 with
# cmake/toolchains/aarch64-linux-gnu.cmake against the sysroot of
# scripts/arm64_sysroot.sh: tests/aarch64/device (runtime, portable kernels,
# XNNPACK delegate, C API, native kernels and delegate, their unit tests) into
# BUILD_DIR/device; the runtime SDK with the device runner torchir-bench
# (cmake -S runtime, into BUILD_DIR/sdk, installed into BUILD_DIR/sdk-prefix)
# and tests/sdk/app against the installed SDK into BUILD_DIR/app. The fixture
# of `ctest -L aarch64`; the other tests of the label read BUILD_DIR/sysroot.txt.
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
mkdir -p "$1"
OUT=$(cd "$1" && pwd)
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
step() {  # step NAME COMMAND...: runs COMMAND, its output in OUT/NAME.log
  local name=$1
  shift
  "$@" > "$OUT/$name.log" 2>&1 ||
    { grep -A20 -m5 "FAILED:" "$OUT/$name.log" || tail -40 "$OUT/$name.log"
      echo "FAIL: $name (log: $OUT/$name.log)"; exit 1; }
}
cross=(-G Ninja -DCMAKE_BUILD_TYPE=Release "${launcher[@]}"
       -DCMAKE_TOOLCHAIN_FILE="$SOURCE_DIR/cmake/toolchains/aarch64-linux-gnu.cmake"
       -DTORCHIR_ARM64_SYSROOT="$sysroot")
# Builds configured against another sysroot (a changed package list makes a new one) have
# cached the old one's libraries: start them afresh.
if [[ $(cat "$OUT/builds-sysroot.txt" 2>/dev/null) != "$sysroot" ]]; then
  rm -rf "$OUT/device" "$OUT/sdk" "$OUT/sdk-prefix" "$OUT/app"
  echo "$sysroot" > "$OUT/builds-sysroot.txt"
fi
start=$SECONDS
# 1. The device side with its unit tests (tests/aarch64/device).
step device-configure cmake -S "$SOURCE_DIR/tests/aarch64/device" -B "$OUT/device" "${cross[@]}" \
  -DTORCHIR_SOURCE_DIR="$SOURCE_DIR"
step device-build cmake --build "$OUT/device"
# 2. The SDK as docs/embedding.md builds it for arm64 (cmake -S runtime, installed) with the
#    device runner torchir-bench (run_zoo.sh's runner), and the SDK's example apps against it.
step sdk-configure cmake -S "$SOURCE_DIR/runtime" -B "$OUT/sdk" "${cross[@]}" \
  -DCMAKE_INSTALL_PREFIX="$OUT/sdk-prefix" -DTORCHIR_RUNTIME_BENCH=ON
step sdk-build cmake --build "$OUT/sdk"
step sdk-install cmake --install "$OUT/sdk"
step app-configure cmake -S "$SOURCE_DIR/tests/sdk/app" -B "$OUT/app" "${cross[@]}" \
  -DCMAKE_PREFIX_PATH="$OUT/sdk-prefix"
step app-build cmake --build "$OUT/app"
echo "$sysroot" > "$OUT/sysroot.txt"
echo "PASS: cross-built for aarch64 in $((SECONDS - start)) s against $sysroot"
