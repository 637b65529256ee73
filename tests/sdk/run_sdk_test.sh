#!/usr/bin/env bash
# The runtime SDK end to end, as an app developer would use it
# (docs/embedding.md):
#   1. configures the runtime alone (cmake -S runtime), which must not look
#      for Abseil, RapidJSON, LibTorch or the FlatBuffers library; builds it
#      and installs it into a temporary prefix;
#   2. builds tests/sdk/app (a C++ app and a C app on the C API) against that
#      prefix twice: with find_package(torchir) and with the pkg-config
#      files; and once more with the runtime as a subproject
#      (tests/sdk/subproject), which must not change the app's build type,
#      C++ standard or include directories;
#   3. compiles a zoo model for XNNPACK, runs the C++ app builds on it (they
#      must run delegates) and checks their outputs with the in-tree
#      torchir-run on the same inputs (--inputs/--expected); the C app builds
#      fill the same inputs and must write the C++ app's output bytes.
#
#   tests/sdk/run_sdk_test.sh WORK_DIR TORCHIR_COMPILE TORCHIR_RUN MODEL_EXPORT_DIR...
set -euo pipefail
if [[ $# -lt 4 ]]; then
  echo "usage: $0 WORK_DIR TORCHIR_COMPILE TORCHIR_RUN MODEL_EXPORT_DIR..." >&2
  exit 2
fi
SOURCE_DIR=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$1 COMPILE=$2 RUN=$3
shift 3
rm -rf "$WORK"
mkdir -p "$WORK"
PREFIX=$WORK/prefix

# The caller's ccache setup carries over (CCACHE_BASEDIR makes the runtime's
# objects hits of the main build's).
launcher=()
if command -v ccache > /dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi

step() {  # step NAME COMMAND...: runs COMMAND, its output in WORK/NAME.log
  local name=$1
  shift
  "$@" > "$WORK/$name.log" 2>&1 || { tail -40 "$WORK/$name.log"; echo "FAIL: $name"; exit 1; }
}

step runtime-configure cmake -S "$SOURCE_DIR/runtime" -B "$WORK/runtime" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$PREFIX" "${launcher[@]}"
if grep -E "^(absl_DIR|RAPIDJSON_INCLUDE_DIR|Torch_DIR|FlatBuffers_DIR|flatbuffers_DIR):" \
    "$WORK/runtime/CMakeCache.txt"; then
  echo "FAIL: the runtime-only configure looked for a compiler-side dependency"
  exit 1
fi
step runtime-build cmake --build "$WORK/runtime"
step runtime-install cmake --install "$WORK/runtime"
for f in include/torchir/runtime/executor/program.h \
         include/torchir/backends/xnnpack/runtime/xnnpack_backend.h \
         include/torchir/schema/program_generated.h \
         lib/cmake/torchir/torchirConfig.cmake lib/cmake/torchir/FindXNNPACK.cmake \
         lib/pkgconfig/torchir-runtime.pc lib/pkgconfig/torchir-xnnpack.pc \
         include/torchir/c_api.h lib/libtorchir_c_api.a lib/pkgconfig/torchir-c-api.pc \
         lib/cmake/torchir/torchir-c_api-targets.cmake \
         include/torchir/backends/native/runtime/native_backend.h lib/libtorchir_native_backend.a \
         lib/cmake/torchir/torchir-native-targets.cmake lib/pkgconfig/torchir-native.pc; do
  [[ -f $PREFIX/$f ]] || { echo "FAIL: $f not installed"; exit 1; }
done
if [[ -e $PREFIX/include/torchir/runtime/c_api ]]; then
  echo "FAIL: the C API's sources were installed with the runtime's headers"
  exit 1
fi

# The app, from the SDK alone: the source tree is not on its include path.
step app-configure cmake -S "$SOURCE_DIR/tests/sdk/app" -B "$WORK/app" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$PREFIX" "${launcher[@]}"
step app-build cmake --build "$WORK/app"
export PKG_CONFIG_PATH=$PREFIX/lib/pkgconfig
# shellcheck disable=SC2046  # pkg-config's flags are meant to be split
step app-pkgconfig c++ -std=c++17 -O1 "$SOURCE_DIR/tests/sdk/app/main.cpp" -o "$WORK/app_pc" \
  $(pkg-config --cflags --libs torchir-xnnpack torchir-portable-kernels torchir-runtime)
# shellcheck disable=SC2046
# The C app: compiled as C (C99) with the C API's flags alone, linked by the
# C++ driver, as the C API's library is C++ inside.
step c-app-pkgconfig-compile cc -std=c99 -O1 -c "$SOURCE_DIR/tests/sdk/app/c_app.c" \
  -o "$WORK/c_app_pc.o" $(pkg-config --cflags torchir-c-api)
# shellcheck disable=SC2046
step c-app-pkgconfig-link c++ "$WORK/c_app_pc.o" -o "$WORK/c_app_pc" \
  $(pkg-config --libs torchir-c-api)
step subproject-configure cmake -S "$SOURCE_DIR/tests/sdk/subproject" -B "$WORK/subproject" \
  -G Ninja -DTORCHIR_SOURCE_DIR="$SOURCE_DIR" "${launcher[@]}"
step subproject-build cmake --build "$WORK/subproject"

status=0
for export_dir in "$@"; do
  model=$(basename "$(dirname "$export_dir")")
  pte=$WORK/$model.pte
  step "$model-compile" "$COMPILE" "$export_dir/model.json" --weights "$export_dir/weights.safetensors" \
    --backend xnnpack -o "$pte" --quiet
  for app in "$WORK/app/sdk_app" "$WORK/app_pc" "$WORK/subproject/sdk_app"; do
    out=$("$app" "$pte" "$WORK/$model.in.safetensors" "$WORK/$model.out.safetensors") ||
      { echo "FAIL: $app on $model"; status=1; continue; }
    echo "${app#"$WORK"/}: $out"
    # A program compiled for XNNPACK must run at least one delegate.
    if [[ $out =~ ,\ 0\ delegated ]]; then
      echo "FAIL: $model ran no XNNPACK delegate"
      status=1
    fi
    "$RUN" "$pte" --inputs "$WORK/$model.in.safetensors" \
      --expected "$WORK/$model.out.safetensors" --quiet ||
      { echo "FAIL: ${app#"$WORK"/} and torchir-run disagree on $model"; status=1; }
  done
  # The C app on the same inputs: the bytes of the C++ app's outputs (the data
  # after the .safetensors header, in output order).
  header=$(od -An -tu8 -N8 "$WORK/$model.out.safetensors" | tr -d ' ')
  tail -c +$((9 + header)) "$WORK/$model.out.safetensors" > "$WORK/$model.out.bin"
  for app in "$WORK/app/sdk_c_app" "$WORK/c_app_pc" "$WORK/subproject/sdk_c_app"; do
    out=$("$app" "$pte" "$WORK/$model.c.out.bin") || { echo "FAIL: $app on $model"; status=1; continue; }
    echo "${app#"$WORK"/}: $out"
    cmp -s "$WORK/$model.c.out.bin" "$WORK/$model.out.bin" ||
      { echo "FAIL: ${app#"$WORK"/} and the C++ app disagree on $model"; status=1; }
  done
  # The C API registers the native delegate too: the model compiled --backend native,xnnpack,
  # run by the C apps and by torchir-run on the same inputs, must give the same bytes.
  native=$WORK/$model.native
  step "$model-compile-native" "$COMPILE" "$export_dir/model.json" \
    --weights "$export_dir/weights.safetensors" --backend native,xnnpack -o "$native.pte" --quiet
  step "$model-run-native" "$RUN" "$native.pte" --inputs "$WORK/$model.in.safetensors" \
    --outputs "$native.out.safetensors" --quiet
  header=$(od -An -tu8 -N8 "$native.out.safetensors" | tr -d ' ')
  tail -c +$((9 + header)) "$native.out.safetensors" > "$native.out.bin"
  for app in "$WORK/app/sdk_c_app" "$WORK/c_app_pc" "$WORK/subproject/sdk_c_app"; do
    out=$("$app" "$native.pte" "$native.c.out.bin") ||
      { echo "FAIL: $app on $model (native)"; status=1; continue; }
    echo "${app#"$WORK"/} (native): $out"
    cmp -s "$native.c.out.bin" "$native.out.bin" ||
      { echo "FAIL: ${app#"$WORK"/} and torchir-run disagree on $model (native)"; status=1; }
  done
done
[[ $status == 0 ]] && echo "PASS: the installed SDK builds and runs an out-of-tree app"
exit $status
