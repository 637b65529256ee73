#!/usr/bin/env bash
# Builds the file-reader fuzzers (the compiler's pytorch-ir JSON reader, its
# .safetensors, .pt, ZIP and pickle readers, and torchir-bench's runtime-only
# .safetensors reader) with clang (libFuzzer + ASan +
# UBSan) and runs each in turn on a seed corpus of real files. docs/fuzzing.md
# describes the targets and the long runs.
#
#   tests/fuzz/run_fuzzers.sh BUILD_DIR SECONDS_PER_TARGET [TARGET...]
#
# Compiles only the sources the readers need, straight with clang++, into
# BUILD_DIR/fuzz (objects are rebuilt when a source or header is newer).
# Seeds (tests/fuzz/make_seeds.py) come from
# tests/compiler/frontend/make_weight_fixtures.py, run with $TORCHIR_PYTHON
# (default /usr/bin/python3, which has torch), from the zoo exports in
# $TORCHIR_ZOO_DIR (default BUILD_DIR/zoo, used when present) and from
# generated deep, duplicate-key and multi-megabyte files. $FUZZ_EXTRA_ARGS
# adds libFuzzer flags (a long run: FUZZ_EXTRA_ARGS=-runs=1000000; the first
# limit reached ends a target). Exits non-zero when a fuzzer finds a crash,
# leak, timeout or sanitizer report; the input is kept in
# BUILD_DIR/fuzz/artifacts.
set -euo pipefail

if [[ $# -lt 2 ]]; then
  echo "usage: $0 BUILD_DIR SECONDS_PER_TARGET [TARGET...]" >&2
  exit 2
fi
SOURCE_DIR=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$(mkdir -p "$1/fuzz" && cd "$1/fuzz" && pwd)
SECONDS_PER_TARGET=$2
shift 2
ZOO_DIR=${TORCHIR_ZOO_DIR:-$OUT/../zoo}
CXX=${FUZZ_CXX:-clang++}
# Compiles go through ccache when it is installed (a fresh clone's CI run then recompiles
# nothing it compiled before); paths are hashed relative to the checkout, as scripts/setup.sh does.
CACHED_CXX=("$CXX")
if command -v ccache > /dev/null; then
  CACHED_CXX=(ccache "$CXX")
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$SOURCE_DIR} CCACHE_NOHASHDIR=true
fi
PYTHON=${TORCHIR_PYTHON:-/usr/bin/python3}

# RapidJSON 1.1.0 (Debian's) computes `nullptr + n` in internal::Stack::Reserve
# on every parse. That one report is suppressed (ubsan.supp), so the check
# stays recoverable; halt_on_error=1 still stops on any other report.
SANITIZERS="-fsanitize=address,undefined -fno-sanitize-recover=undefined
            -fsanitize-recover=pointer-overflow"
CXXFLAGS=(-std=c++17 -g -O1 -fno-omit-frame-pointer $SANITIZERS -I"$SOURCE_DIR")
SOURCES=(
  compiler/ir/attribute.cpp
  compiler/ir/dtype.cpp
  compiler/ir/graph.cpp
  compiler/ir/tensor_data.cpp
  compiler/frontend/ir_reader.cpp
  compiler/ir/scalar_encoding.cpp
  compiler/frontend/mapped_file.cpp
  compiler/frontend/pickle.cpp
  compiler/frontend/quoted_text.cpp
  compiler/frontend/safetensors.cpp
  compiler/frontend/torch_pt.cpp
  compiler/frontend/untrusted_json.cpp
  compiler/frontend/zip_archive.cpp
  runtime/core/scalar_type.cpp
  tools/bench/safetensors_reader.cpp
)
ALL_TARGETS=(fuzz_safetensors fuzz_torch_pt fuzz_zip_archive fuzz_pickle fuzz_ir_reader
  fuzz_bench_safetensors)
TARGETS=("${@:-${ALL_TARGETS[@]}}")
for target in "${TARGETS[@]}"; do
  [[ " ${ALL_TARGETS[*]} " == *" $target "* ]] || { echo "unknown target $target" >&2; exit 2; }
done
# Largest input per target: the IR reader must see multi-megabyte and deeply
# nested files (the recursive-parser crash needed ~100k levels, 200 kB).
declare -A MAX_LEN=([fuzz_ir_reader]=4194304 [fuzz_safetensors]=1048576
  [fuzz_torch_pt]=1048576 [fuzz_zip_archive]=1048576 [fuzz_pickle]=262144
  [fuzz_bench_safetensors]=1048576)
declare -A DICT=([fuzz_ir_reader]=ir_reader.dict [fuzz_safetensors]=safetensors.dict
  [fuzz_bench_safetensors]=safetensors.dict)
# Targets that share another's seeds: both .safetensors readers read the same files.
declare -A SEEDS=([fuzz_bench_safetensors]=fuzz_safetensors)
ABSL_LIBS=$(pkg-config --libs absl_statusor absl_status absl_strings absl_str_format 2>/dev/null ||
  echo "-labsl_statusor -labsl_status -labsl_cord -labsl_cordz_info -labsl_cord_internal
        -labsl_cordz_functions -labsl_exponential_biased -labsl_cordz_handle
        -labsl_synchronization -labsl_graphcycles_internal -labsl_time -labsl_civil_time
        -labsl_time_zone -labsl_bad_optional_access -labsl_stacktrace -labsl_strerror
        -labsl_symbolize -labsl_debugging_internal -labsl_demangle_internal
        -labsl_malloc_internal -labsl_bad_variant_access -labsl_str_format_internal
        -labsl_strings -labsl_strings_internal -labsl_base -labsl_spinlock_wait -labsl_int128
        -labsl_throw_delegate -labsl_raw_logging_internal -labsl_log_severity")

# Newest modification time of anything an object may depend on.
newest_input=$(find "$SOURCE_DIR/compiler/ir" "$SOURCE_DIR/compiler/frontend" \
  "$SOURCE_DIR/runtime/core" "$SOURCE_DIR/tools/bench" "$SOURCE_DIR/tests/fuzz" -type f -printf '%T@\n' | sort -n | tail -1)
stale() {  # stale FILE: true when FILE is missing or older than any input
  [[ ! -e $1 ]] || [[ $(stat -c %Y "$1") -lt ${newest_input%.*} ]]
}

echo "== building fuzzers in $OUT"
mkdir -p "$OUT/obj"
pids=()
objects=()
for source in "${SOURCES[@]}"; do
  object="$OUT/obj/$(basename "${source%.cpp}").o"
  objects+=("$object")
  if stale "$object"; then
    # -fsanitize=fuzzer-no-link: coverage instrumentation without libFuzzer's main.
    "${CACHED_CXX[@]}" "${CXXFLAGS[@]}" -fsanitize=fuzzer-no-link -c "$SOURCE_DIR/$source" \
      -o "$object" &
    pids+=($!)
    if (( ${#pids[@]} >= 2 )); then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
  fi
done
for pid in "${pids[@]}"; do wait "$pid"; done
for target in "${ALL_TARGETS[@]}"; do
  if stale "$OUT/$target"; then
    "${CACHED_CXX[@]}" "${CXXFLAGS[@]}" -fsanitize=fuzzer-no-link -c \
      "$SOURCE_DIR/tests/fuzz/$target.cpp" -o "$OUT/obj/$target.o"
    # shellcheck disable=SC2086
    "$CXX" "${CXXFLAGS[@]}" -fsanitize=fuzzer "$OUT/obj/$target.o" "${objects[@]}" $ABSL_LIBS \
      -o "$OUT/$target"
  fi
done

echo "== seed corpus"
FIXTURES="$OUT/fixtures"
FIXTURE_SCRIPT="$SOURCE_DIR/tests/compiler/frontend/make_weight_fixtures.py"
if [[ ! -e $FIXTURES/expected.json || $FIXTURE_SCRIPT -nt $FIXTURES/expected.json ]]; then
  rm -rf "$FIXTURES"
  "$PYTHON" "$FIXTURE_SCRIPT" "$FIXTURES"
fi
rm -rf "$OUT/seeds"
"$PYTHON" "$SOURCE_DIR/tests/fuzz/make_seeds.py" "$SOURCE_DIR" "$FIXTURES" "$ZOO_DIR" "$OUT/seeds"

status=0
mkdir -p "$OUT/artifacts"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=0}
UBSAN_SUPPRESSIONS="$SOURCE_DIR/tests/fuzz/ubsan.supp"
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:suppressions=$UBSAN_SUPPRESSIONS}
for target in "${TARGETS[@]}"; do
  echo "== $target for ${SECONDS_PER_TARGET}s"
  corpus="$OUT/corpus/$target"
  mkdir -p "$corpus"
  # New inputs go to the first directory; the seeds stay as they are.
  dict=()
  [[ -n ${DICT[$target]:-} ]] && dict=(-dict="$SOURCE_DIR/tests/fuzz/${DICT[$target]}")
  # shellcheck disable=SC2086
  if ! "$OUT/$target" -max_total_time="$SECONDS_PER_TARGET" -timeout=10 -rss_limit_mb=2048 \
      -max_len="${MAX_LEN[$target]}" -print_final_stats=1 "${dict[@]}" \
      -artifact_prefix="$OUT/artifacts/$target-" ${FUZZ_EXTRA_ARGS:-} \
      "$corpus" "$OUT/seeds/${SEEDS[$target]:-$target}" > "$OUT/$target.log" 2>&1; then
    echo "FAILED: $target (log: $OUT/$target.log)"
    tail -60 "$OUT/$target.log"
    status=1
  else
    grep -E "stat::number_of_executed_units|stat::average_exec_per_sec|stat::peak_rss_mb" \
      "$OUT/$target.log" || true
    grep -E "^#[0-9]+[[:space:]]+DONE" "$OUT/$target.log" || true
  fi
done
exit $status
