#!/usr/bin/env bash
# torchir-bench on a zoo model, end to end: compiles it for XNNPACK, for the
# native kernels and for the portable kernels alone, runs each with
# --inputs/--expected/--trace/--json,
# validates the traces against the trace-event format (validate_trace.py: every
# instruction event named after its graph node, the names being the model's IR
# node names, the delegate call listing the nodes it took), then checks that bad
# input gives one 'error:' line, a non-zero exit and no output file.
#
#   bench_trace_test.sh TORCHIR_COMPILE TORCHIR_BENCH PYTHON MODEL_DIR WORK_DIR
set -uo pipefail
compile=$1 bench=$2 python=$3 dir=$4 work=$5
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work"
failures=0
fail() { echo "FAILED: $*"; failures=$((failures + 1)); }

# expect STATUS NAME COMMAND...: runs COMMAND, checks its exit status, keeps stdout/stderr.
expect() {
  local status=$1 name=$2
  shift 2
  "$@" >"$work/$name.out" 2>"$work/$name.err"
  local got=$?
  [[ $got == "$status" ]] || fail "$name: exit $got, expected $status: $(head -c 600 "$work/$name.err")"
}
# one_error NAME PATTERN: stderr is exactly one 'error:' line matching PATTERN.
one_error() {
  local lines
  lines=$(grep -c . "$work/$1.err")
  [[ $lines == 1 ]] || fail "$1: $lines lines on stderr: $(cat "$work/$1.err")"
  grep -q "^error: .*$2" "$work/$1.err" || fail "$1: stderr lacks 'error: ...$2': $(cat "$work/$1.err")"
}

weights=()
[[ -e $dir/weights.safetensors ]] && weights=(--weights "$dir/weights.safetensors")
"$compile" "$dir/model.json" "${weights[@]}" -o "$work/xnnpack.pte" --quiet || exit 1
"$compile" "$dir/model.json" "${weights[@]}" --backend portable -o "$work/portable.pte" --quiet \
  || exit 1

# XNNPACK: the delegate call's event lists every node the delegate took.
expect 0 xnnpack "$bench" "$work/xnnpack.pte" --inputs "$dir/inputs.safetensors" \
  --expected "$dir/expected.safetensors" --warmup 1 --iterations 3 --trace-iterations 2 \
  --trace "$work/xnnpack.json" --json "$work/summary.json" --profile
grep -q "^PASS " "$work/xnnpack.out" || fail "xnnpack: no PASS line"
for word in "load " "init " "p50 " "p90 " "p99 " "peak resident memory" "XnnpackBackend"; do
  grep -q "$word" "$work/xnnpack.out" || fail "xnnpack: output lacks '$word'"
done
"$python" "$here/validate_trace.py" "$work/xnnpack.json" --model "$dir/model.json" \
  --min-named 10 --delegate || fail "xnnpack trace is not valid"
"$python" - "$work/summary.json" <<'PY' || fail "summary JSON"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["expected"] == "pass", s["expected"]
assert len(s["latencies_ms"]) == 3, s["latencies_ms"]
lat = s["latency_ms"]
assert 0 < lat["min"] <= lat["p50"] <= lat["p90"] <= lat["p99"] <= lat["max"], lat
assert s["load_ms"] >= 0 and s["init_ms"] > 0 and s["peak_rss_kib"] > 0, s
PY

# Portable kernels: one event per kernel call, each named after its IR node.
expect 0 portable "$bench" "$work/portable.pte" --inputs "$dir/inputs.safetensors" \
  --expected "$dir/expected.safetensors" --warmup 0 --iterations 1 --trace "$work/portable.json"
"$python" "$here/validate_trace.py" "$work/portable.json" --model "$dir/model.json" \
  --min-named 40 || fail "portable trace is not valid"

# The native kernels report the nodes inside each delegate call: one event per convolution
# (52 of them in mobilenet_v2), inside its call, named after the model's node; --profile
# lists them only under calls with two or more timed nodes: here the three 1x1 expansions
# fused with their depthwise layers (docs/native-kernels.md), two rows each.
"$compile" "$dir/model.json" "${weights[@]}" --backend native,xnnpack -o "$work/native.pte" \
  --quiet || exit 1
expect 0 native "$bench" "$work/native.pte" --inputs "$dir/inputs.safetensors" \
  --expected "$dir/expected.safetensors" --iterations 2 --trace "$work/native.json" --profile
"$python" "$here/validate_trace.py" "$work/native.json" --model "$dir/model.json" \
  --min-named 40 --min-delegate-nodes 52 || fail "native trace is not valid"
[[ $(grep -c " - " "$work/native.out") == 6 ]] ||
  fail "native: --profile lists other nodes than the 3 fused pairs' 6"

# --native-isa: the kernels of a narrower instruction set, checked against the same outputs.
# Portable always exists (the weights packed for this CPU are repacked at init); on an AVX-512
# CPU, AVX2 on weights packed for it (--target avx2) as a CPU without AVX-512 runs them.
expect 0 native_portable "$bench" "$work/native.pte" --native-isa portable \
  --inputs "$dir/inputs.safetensors" --expected "$dir/expected.safetensors" --iterations 1
grep -q "native kernels portable$" "$work/native_portable.out" ||
  fail "native_portable: the header does not name the portable kernels: $(head -1 "$work/native_portable.out")"
grep -q "^PASS " "$work/native_portable.out" || fail "native_portable: no PASS line"
if grep -q "native kernels avx512$" "$work/native.out"; then
  "$compile" "$dir/model.json" "${weights[@]}" --backend native,xnnpack --target avx2 \
    -o "$work/native_avx2.pte" --quiet || exit 1
  expect 0 native_avx2 "$bench" "$work/native_avx2.pte" --native-isa avx2 \
    --inputs "$dir/inputs.safetensors" --expected "$dir/expected.safetensors" --iterations 2
  grep -q "native kernels avx2$" "$work/native_avx2.out" ||
    fail "native_avx2: the header does not name avx2: $(head -1 "$work/native_avx2.out")"
  grep -q "^PASS " "$work/native_avx2.out" || fail "native_avx2: no PASS line"
fi
expect 2 bad_isa "$bench" "$work/native.pte" --native-isa avx9
one_error bad_isa "--native-isa avx9: not one of avx512, avx2, sse4, neon, portable"
if [[ $(uname -m) == x86_64 ]]; then other=neon; else other=avx2; fi
expect 2 other_isa "$bench" "$work/native.pte" --native-isa $other
one_error other_isa "--native-isa $other: not an instruction set of this CPU's family"

# Random inputs from a seed: runs, and a zero tolerance against the real outputs fails.
expect 1 mismatch "$bench" "$work/xnnpack.pte" --seed 3 --iterations 1 \
  --expected "$dir/expected.safetensors" --atol 0 --rtol 0 --quiet
grep -q "^FAIL " "$work/mismatch.out" || fail "mismatch: no FAIL line"

# Bad input: one error line naming the culprit, exit 1, no trace written.
expect 1 missing "$bench" "$work/no_such.pte" --trace "$work/missing.json"
one_error missing "no_such.pte"
head -c 3000 "$work/xnnpack.pte" >"$work/truncated.pte"
expect 1 truncated "$bench" "$work/truncated.pte" --trace "$work/truncated.json"
one_error truncated "truncated.pte"
cp "$dir/model.json" "$work/not_a_program.pte"
expect 1 not_a_program "$bench" "$work/not_a_program.pte"
one_error not_a_program "not_a_program.pte"
"$python" - "$work/wrong_shape.safetensors" <<'PY'
import json, struct, sys
header = json.dumps({"x": {"dtype": "F32", "shape": [1, 3, 8, 8],
                           "data_offsets": [0, 4 * 3 * 64]}}).encode()
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<Q", len(header)) + header + bytes(4 * 3 * 64))
PY
expect 1 wrong_shape "$bench" "$work/xnnpack.pte" --inputs "$work/wrong_shape.safetensors" \
  --trace "$work/wrong_shape.json"
one_error wrong_shape "float32\[1, 3, 224, 224\], given float32\[1, 3, 8, 8\]"
head -c 100 "$dir/inputs.safetensors" >"$work/cut.safetensors"
expect 1 cut_inputs "$bench" "$work/xnnpack.pte" --inputs "$work/cut.safetensors"
one_error cut_inputs "cut.safetensors: not a valid .safetensors file"
expect 1 unwritable "$bench" "$work/xnnpack.pte" --iterations 1 --trace "$work/no/dir/t.json"
one_error unwritable "no/dir/t.json"
for name in missing truncated wrong_shape; do
  [[ ! -e $work/$name.json ]] || fail "$name: a trace was written"
done
ls "$work" | grep -q '\.tmp\.' && fail "a temporary file was left behind"

# Usage errors exit 2.
expect 2 no_program "$bench"
expect 2 bad_iterations "$bench" "$work/xnnpack.pte" --iterations 0
one_error bad_iterations "--iterations"
expect 2 unknown_flag "$bench" "$work/xnnpack.pte" --frobnicate
one_error unknown_flag "--frobnicate"
expect 0 help "$bench" --help
grep -q -- "--trace FILE.json" "$work/help.out" || fail "--help does not explain --trace"

# The device runner links the runtime alone: no Abseil, no LibTorch, no compiler.
if nm -C "$bench" 2>/dev/null | grep -qE " (absl|c10|at|torchir::(ir|frontend|emit|pipeline))::"; then
  fail "torchir-bench links host-only code: $(nm -C "$bench" | grep -E " (absl|c10|at|torchir::(ir|frontend|emit|pipeline))::" | head -3)"
fi

[[ $failures == 0 ]] && echo "bench_trace_test: all checks passed"
exit $((failures > 0))
