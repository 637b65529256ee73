#!/usr/bin/env bash
# torchir against its peers (docs/benchmarks.md, "torchir against ExecuTorch and ONNX
# Runtime"): exports each zoo network with the real pytorch-ir and for ExecuTorch (XNNPACK),
# ONNX Runtime and TorchScript, compiles it with torchir-compile (--backend native,xnnpack and
# --backend xnnpack), then runs both torchir programs,
# ExecuTorch, ONNX Runtime, TorchScript + oneDNN and PyTorch eager side by side on the same
# inputs, outputs checked, in interleaved rounds at 1 and 2 threads, and prints the tables.
# Everything Python runs in the pinned venv (torch 2.14, executorch 1.5.1, onnxruntime 1.32).
#
#   scripts/bench_peers.sh [MODEL ...]
#
# Environment: TORCHIR_BUILD_DIR (default build), TORCHIR_VENV_PYTHON (default: what
# scripts/python_env.sh prints), TORCHIR_PEERS_ROUNDS (5), TORCHIR_PEERS_ROUND_SECONDS (0.5),
# TORCHIR_PEERS_THREADS (1,2), TORCHIR_PEERS_MIN_ITERATIONS (3), TORCHIR_PEERS_MAX_ITERATIONS
# (20000), TORCHIR_BENCH_WAIT_IDLE=SECONDS
# waits up to that long for an idle machine before measuring, TORCHIR_PEERS_DIR (default
# $TORCHIR_BUILD_DIR/bench_peers) holds exports and results, TORCHIR_PEERS_BIN_DIR takes
# torchir-compile and torchir-run from there instead of building them, TORCHIR_PEERS_REQUIRE_ALL=1
# fails when any runtime is refused (the CTest smoke test). Results: results.{json,md} there.
set -euo pipefail
cd "$(dirname "$0")/.."

MODELS=("$@")
((${#MODELS[@]})) || MODELS=(resnet18 mobilenet_v2 mobilenet_v3_large tiny_vit tiny_gpt text_cnn gpt_small
  encoder_small)
BUILD_DIR=${TORCHIR_BUILD_DIR:-build}
BENCH_DIR=${TORCHIR_PEERS_DIR:-$BUILD_DIR/bench_peers}
PYTHON=${TORCHIR_VENV_PYTHON:-$(scripts/python_env.sh)}
[[ -x $PYTHON ]] || {
  echo "bench_peers: no Python interpreter at $PYTHON (scripts/python_env.sh makes the venv)" >&2
  exit 1
}
modules='import torch, torch_ir, executorch, onnxruntime, onnxscript, safetensors'
"$PYTHON" -c "$modules" 2>/dev/null || {
  echo "bench_peers: $PYTHON lacks torch, pytorch-ir, executorch, onnxruntime, onnxscript or" \
    "safetensors (scripts/python-requirements.txt)" >&2
  exit 1
}

if [[ -n ${TORCHIR_PEERS_BIN_DIR:-} ]]; then
  BIN_DIR=$TORCHIR_PEERS_BIN_DIR
else
  echo "== building torchir-compile and torchir-run in $BUILD_DIR"
  if [[ ! -f "$BUILD_DIR/build.ninja" ]]; then
    cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  fi
  cmake --build "$BUILD_DIR" --target torchir-compile torchir-run
  BIN_DIR=$BUILD_DIR/bin
fi
COMPILE="$BIN_DIR/torchir-compile"
RUN="$BIN_DIR/torchir-run"

# True when every file $1... is newer than every source after the "--".
newer_than() {
  local targets=() sources=() target source
  while [[ $1 != -- ]]; do targets+=("$1"); shift; done
  shift
  sources=("$@")
  for target in "${targets[@]}"; do
    [[ -f $target ]] || return 1
    for source in "${sources[@]}"; do
      [[ $target -nt $source ]] || return 1
    done
  done
}

# Programs are compiled for the most threads the driver runs, so every row uses the planned
# delegate scratch.
max_threads=$(tr ',' '\n' <<<"${TORCHIR_PEERS_THREADS:-1,2}" | sort -n | tail -1)
echo "== exporting ${MODELS[*]} into $BENCH_DIR"
for model in "${MODELS[@]}"; do
  out="$BENCH_DIR/$model"
  if newer_than "$out"/{model.json,weights.safetensors,inputs.safetensors,expected.safetensors} \
    -- tools/export_ir.py tools/zoo/*.py; then
    echo "   $model: pytorch_ir export up to date"
  else
    "$PYTHON" tools/export_ir.py "$model" -o "$out" --flavour pytorch_ir
  fi
  for variant in native:native,xnnpack xnnpack:xnnpack; do
    name=${variant%%:*} backends=${variant#*:}
    pte="$out/torchir_$name.pte"
    if newer_than "$pte" -- "$out/model.json" "$out/weights.safetensors" "$COMPILE"; then
      echo "   $model: torchir_$name.pte up to date"
    else
      # A model torchir cannot compile is not fatal: the driver shows it as refused.
      "$COMPILE" "$out/model.json" --weights "$out/weights.safetensors" --backend "$backends" \
        --threads "$max_threads" -o "$pte" | sed 's/^/   /' || {
        echo "bench_peers: torchir-compile --backend $backends failed on $model" >&2
        rm -f "$pte"
      }
    fi
  done
  "$PYTHON" benchmarks/peers/export.py "$out" "$model" 2>&1 |
    grep -E '^   |^export:' || true
done

# Threads: every runtime is told its count (torchir-run --threads, ExecuTorch's threadpool,
# ORT's intra_op_num_threads, torch.set_num_threads); the driver also gives each worker
# OMP_NUM_THREADS=N. OpenMP keeps libgomp's default wait policy (docs/benchmarks.md: PASSIVE
# made TorchScript 1.1-5.6x slower at 2 threads); BLAS libraries other than torch's own get 1.
unset OMP_WAIT_POLICY GOMP_SPINCOUNT
export OMP_NUM_THREADS=2
export OPENBLAS_NUM_THREADS=1

# The driver reports the machine's and the other processes' CPU use over the run in any case;
# TORCHIR_BENCH_WAIT_IDLE makes it wait for a quiet machine first (scripts/wait_idle.sh).
source scripts/wait_idle.sh
if ((${TORCHIR_BENCH_WAIT_IDLE:-0} > 0)); then
  wait_for_idle bench_peers
fi

models_flag=$(IFS=,; echo "${MODELS[*]}")
echo "== driver: ${MODELS[*]}, threads ${TORCHIR_PEERS_THREADS:-1,2}," \
  "${TORCHIR_PEERS_ROUNDS:-5} rounds of ~${TORCHIR_PEERS_ROUND_SECONDS:-0.5} s per runtime"
"$PYTHON" benchmarks/peers/driver.py --bench-dir "$BENCH_DIR" --torchir-run "$RUN" \
  --models "$models_flag" --threads "${TORCHIR_PEERS_THREADS:-1,2}" \
  --rounds "${TORCHIR_PEERS_ROUNDS:-5}" --round-seconds "${TORCHIR_PEERS_ROUND_SECONDS:-0.5}" \
  --min-iterations "${TORCHIR_PEERS_MIN_ITERATIONS:-3}" \
  --max-iterations "${TORCHIR_PEERS_MAX_ITERATIONS:-20000}" -o "$BENCH_DIR/results.json" \
  ${TORCHIR_PEERS_REQUIRE_ALL:+--require-all}
echo
"$PYTHON" benchmarks/peers/report.py "$BENCH_DIR/results.json" | tee "$BENCH_DIR/results.md"
echo
echo "results: $BENCH_DIR/results.md (tables), $BENCH_DIR/results.json (every round)"
