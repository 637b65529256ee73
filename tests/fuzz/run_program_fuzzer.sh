#!/usr/bin/env bash
# Builds the .pte program-loader fuzzer (runtime + portable kernels + the XNNPACK
# and native delegates, clang with libFuzzer + ASan + UBSan; Debian's XNNPACK
# and Highway are not instrumented, XNNPACK keeps its asserts) and runs it for a
# bounded time, seeded with real programs compiled from zoo exports for every
# backend.
#
#   tests/fuzz/run_program_fuzzer.sh BUILD_DIR SECONDS TORCHIR_COMPILE MODEL_DIR...
#
# Each MODEL_DIR holds an export (model.json + weights.safetensors), compiled to
# four seed programs with TORCHIR_COMPILE: --backend portable, --backend
# xnnpack and --backend native,xnnpack with --target host and portable (all
# but the first only when they delegate something to that backend). FUZZ_EXTRA_ARGS adds
# libFuzzer flags (e.g. -runs=N, -jobs=N); FUZZ_CORPUS overrides the corpus dir.
# Objects go to BUILD_DIR/fuzz_program (rebuilt when any runtime source is
# newer). Exits non-zero when the fuzzer finds a crash, leak, timeout or
# sanitizer report; the input is kept in BUILD_DIR/fuzz_program/artifacts.
set -euo pipefail
if [[ $# -lt 4 ]]; then
  echo "usage: $0 BUILD_DIR SECONDS TORCHIR_COMPILE MODEL_DIR..." >&2
  exit 2
fi
SOURCE_DIR=$(cd "$(dirname "$0")/../.." && pwd)
BUILD_DIR=$(cd "$1" && pwd)
OUT="$BUILD_DIR/fuzz_program"
SECONDS_TOTAL=$2
COMPILE=$3
shift 3
mkdir -p "$OUT/obj" "$OUT/seeds" "$OUT/corpus" "$OUT/artifacts"
CXX=${FUZZ_CXX:-clang++}
# Compiles go through ccache when it is installed (a fresh clone's CI run then recompiles
# nothing it compiled before); paths are hashed relative to the checkout, as scripts/setup.sh does.
CACHED_CXX=("$CXX")
if command -v ccache > /dev/null; then
  CACHED_CXX=(ccache "$CXX")
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$SOURCE_DIR} CCACHE_NOHASHDIR=true
fi
CXXFLAGS=(-std=c++17 -g -O1 -fno-omit-frame-pointer -fno-exceptions -fno-rtti
          -fsanitize=address,undefined -fno-sanitize-recover=undefined
          -I"$SOURCE_DIR" -I"$BUILD_DIR/generated")
mapfile -t SOURCES < <(cd "$SOURCE_DIR" && ls runtime/*/*.cpp runtime/kernels/portable/*.cpp \
  backends/xnnpack/runtime/*.cpp backends/native/*.cpp backends/native/runtime/*.cpp \
  backends/common/*.cpp | grep -v "^runtime/examples/\|^runtime/c_api/")
LIBS=(-lXNNPACK -lhwy -lpthreadpool -lcpuinfo -lpthread)

newest_input=$(find "$SOURCE_DIR/runtime" "$SOURCE_DIR/schema" "$BUILD_DIR/generated" \
  "$SOURCE_DIR/backends/xnnpack/runtime" "$SOURCE_DIR/backends/xnnpack/serialization" \
  "$SOURCE_DIR/backends/native" "$SOURCE_DIR/backends/common" \
  "$SOURCE_DIR/tests/backends/delegate_ranges.h" \
  "$SOURCE_DIR/tests/fuzz/fuzz_program_loader.cpp" -type f -printf '%T@\n' | sort -n | tail -1)
stale() { [[ ! -e $1 ]] || [[ $(stat -c %Y "$1") -lt ${newest_input%.*} ]]; }

echo "== building fuzz_program_loader in $OUT"
objects=()
pids=()
for source in "${SOURCES[@]}"; do
  object="$OUT/obj/$(echo "${source%.cpp}" | tr / _).o"
  objects+=("$object")
  if stale "$object"; then
    "${CACHED_CXX[@]}" "${CXXFLAGS[@]}" -fsanitize=fuzzer-no-link -c "$SOURCE_DIR/$source" \
      -o "$object" &
    pids+=($!)
    if (( ${#pids[@]} >= 2 )); then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
  fi
done
for pid in "${pids[@]}"; do wait "$pid"; done
if stale "$OUT/fuzz_program_loader"; then
  "${CACHED_CXX[@]}" "${CXXFLAGS[@]}" -fsanitize=fuzzer-no-link -c \
    "$SOURCE_DIR/tests/fuzz/fuzz_program_loader.cpp" -o "$OUT/obj/fuzz_program_loader.o"
  "$CXX" "${CXXFLAGS[@]}" -fsanitize=fuzzer "$OUT/obj/fuzz_program_loader.o" "${objects[@]}" \
    "${LIBS[@]}" -o "$OUT/fuzz_program_loader"
fi

rm -f "$OUT/seeds"/*
for model_dir in "$@"; do
  name=$(basename "$(dirname "$model_dir")")-$(basename "$model_dir")
  weights=()
  [[ -e $model_dir/weights.safetensors ]] && weights=(--weights "$model_dir/weights.safetensors")
  "$COMPILE" "$model_dir/model.json" "${weights[@]}" --backend portable -o "$OUT/seeds/$name.pte" --quiet
  "$COMPILE" "$model_dir/model.json" "${weights[@]}" --backend xnnpack \
    -o "$OUT/seeds/$name-xnnpack.pte" --quiet
  grep -q XnnpackBackend "$OUT/seeds/$name-xnnpack.pte" || rm "$OUT/seeds/$name-xnnpack.pte"
  # Native weights packed for this CPU, and for the portable kernels (repacked at init).
  for target in host portable; do
    "$COMPILE" "$model_dir/model.json" "${weights[@]}" --backend native,xnnpack --target $target \
      -o "$OUT/seeds/$name-native-$target.pte" --quiet
    grep -q NativeBackend "$OUT/seeds/$name-native-$target.pte" ||
      rm "$OUT/seeds/$name-native-$target.pte"
  done
done
# Inputs that once failed (tests/fuzz/program_regressions/): run again first, every time.
cp "$SOURCE_DIR"/tests/fuzz/program_regressions/*.pte "$OUT/seeds/" 2>/dev/null || true

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
echo "== fuzz_program_loader for ${SECONDS_TOTAL}s on $(ls "$OUT/seeds" | wc -l) seed(s)"
CORPUS=${FUZZ_CORPUS:-$OUT/corpus}
mkdir -p "$CORPUS"
# shellcheck disable=SC2086
if ! "$OUT/fuzz_program_loader" -max_total_time="$SECONDS_TOTAL" -timeout=20 -rss_limit_mb=2048 \
    -max_len=262144 -print_final_stats=1 -artifact_prefix="$OUT/artifacts/" ${FUZZ_EXTRA_ARGS:-} \
    "$CORPUS" "$OUT/seeds" > "$OUT/fuzz.log" 2>&1; then
  echo "FAILED: fuzz_program_loader (log: $OUT/fuzz.log)"
  tail -60 "$OUT/fuzz.log"
  exit 1
fi
grep -E "stat::number_of_executed_units|stat::average_exec_per_sec|stat::peak_rss_mb" \
  "$OUT/fuzz.log" || true
