#!/usr/bin/env bash
# Builds the runtime on its own (cmake -S runtime: schema headers + std only,
# -fno-exceptions -fno-rtti, MinSizeRel), links the minimal runner with and
# without the portable kernels, prints their sizes and fails when one exceeds
# its budget or when the runtime pulls in exception or RTTI machinery.
#
#   tests/runtime/size/check_runtime_size.sh [--arch aarch64] BUILD_DIR CORE_BUDGET_KB \
#       PORTABLE_BUDGET_KB [TORCHIR_COMPILE MODEL_DIR]
#
# With TORCHIR_COMPILE and MODEL_DIR (an export: model.json + weights), the
# model is compiled and both runners load and run it: the core one must fail
# cleanly (it has no kernels), the portable one must succeed.
#
# --arch aarch64 cross-builds with cmake/toolchains/aarch64-linux-gnu.cmake
# (the sysroot of scripts/arm64_sysroot.sh; exit 77, skipped, when it cannot
# be prepared), links with -z max-page-size=4096 (docs/runtime-size.md: the
# linker's 64 KiB default pads the file, not the code) and runs the runners
# under qemu-aarch64.
set -euo pipefail
ARCH=
if [[ ${1:-} == --arch ]]; then
  ARCH=$2
  shift 2
fi
if [[ $# -lt 3 || ! $ARCH =~ ^(|aarch64)$ ]]; then
  echo "usage: $0 [--arch aarch64] BUILD_DIR CORE_BUDGET_KB PORTABLE_BUDGET_KB" \
       "[TORCHIR_COMPILE MODEL_DIR]" >&2
  exit 2
fi
SOURCE_DIR=$(cd "$(dirname "$0")/../../.." && pwd)
OUT="$1/runtime-standalone"
cross=()
emulator=()
binutils_prefix=
if [[ $ARCH == aarch64 ]]; then
  OUT="$1/runtime-standalone-aarch64"
  sysroot=$("$SOURCE_DIR/scripts/arm64_sysroot.sh") ||
    { echo "SKIP: the arm64 sysroot could not be prepared (scripts/arm64_sysroot.sh)"; exit 77; }
  cross=(-DCMAKE_TOOLCHAIN_FILE="$SOURCE_DIR/cmake/toolchains/aarch64-linux-gnu.cmake"
         -DTORCHIR_ARM64_SYSROOT="$sysroot" -DCMAKE_EXE_LINKER_FLAGS=-Wl,-z,max-page-size=4096)
  emulator=(qemu-aarch64 -L "$sysroot")
  binutils_prefix=aarch64-linux-gnu-
fi
CORE_BUDGET=$(( $2 * 1024 ))
PORTABLE_BUDGET=$(( $3 * 1024 ))
PROGRAM=
if [[ $# -ge 5 ]]; then
  PROGRAM="$OUT.probe.pte"
  "$4" "$5/model.json" --weights "$5/weights.safetensors" --backend portable -o "$PROGRAM" --quiet
fi

# Compiles go through ccache when it is installed: a fresh clone's CI run then rebuilds this
# runtime from the cache (paths relative to the checkout) instead of in 2 minutes per target.
launcher=()
if command -v ccache > /dev/null; then
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$SOURCE_DIR} CCACHE_NOHASHDIR=true
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
cmake -S "$SOURCE_DIR/runtime" -B "$OUT" -G Ninja -DCMAKE_BUILD_TYPE=MinSizeRel \
  -DTORCHIR_RUNTIME_SIZE_PROBES=ON -DTORCHIR_RUNTIME_XNNPACK=OFF "${launcher[@]}" "${cross[@]}" \
  > "$OUT.configure.log" 2>&1 ||
  { cat "$OUT.configure.log"; exit 1; }
ninja -C "$OUT" > "$OUT.build.log" 2>&1 || { tail -50 "$OUT.build.log"; exit 1; }

status=0
# No exception or RTTI machinery may be referenced by the runtime's objects.
if "${binutils_prefix}nm" -C "$OUT/lib/libtorchir_runtime.a" \
    "$OUT/lib/libtorchir_portable_kernels.a" 2>/dev/null |
    grep -E "__cxa_throw|__cxa_begin_catch|typeinfo for torchir"; then
  echo "FAIL: the runtime references exceptions or RTTI"
  status=1
fi
for variant in core portable; do
  binary="$OUT/minimal_runner_$variant"
  text=$("${binutils_prefix}size" -A "$binary" | awk '$1 == ".text" {print $2}')
  total=$(stat -c %s "$binary")
  budget=$CORE_BUDGET
  [[ $variant == portable ]] && budget=$PORTABLE_BUDGET
  echo "minimal_runner_$variant${ARCH:+ ($ARCH)}: file $((total / 1024)) KiB ($total B)," \
       ".text $((text / 1024)) KiB" \
       "(budget $((budget / 1024)) KiB)"
  if (( total > budget )); then
    echo "FAIL: minimal_runner_$variant is over its size budget"
    status=1
  fi
done
for lib in libtorchir_runtime.a libtorchir_portable_kernels.a; do
  echo "$lib: $(( $(stat -c %s "$OUT/lib/$lib") / 1024 )) KiB (static archive, with symbols)"
done
if [[ -n $PROGRAM ]]; then
  if "${emulator[@]}" "$OUT/minimal_runner_core" "$PROGRAM" 2>/dev/null; then
    echo "FAIL: the runner without kernels ran $PROGRAM"
    status=1
  fi
  "${emulator[@]}" "$OUT/minimal_runner_portable" "$PROGRAM" ||
    { echo "FAIL: minimal_runner_portable"; status=1; }
fi
exit $status
