#!/usr/bin/env bash
# The main job end to end on the bundled default model (mobilenet_v2 from
# torchvision with seeded random weights; nothing can be downloaded here):
# export it with the real pytorch-ir (torch 2.14, the Python environment of
# scripts/python_env.sh), compile it to a .pte program (lower,
# optimise, delegate to XNNPACK, plan memory, emit), run the program with the torchir runtime on the
# exported sample input, and compare with PyTorch 2.14 eager: the outputs' agreement,
# the latency side by side, the program size and the planned memory.
#
#   scripts/demo.sh [MODEL]      MODEL: any name from `tools/export_ir.py --list`
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
BUILD_DIR=${TORCHIR_BUILD_DIR:-build}
MODEL=${1:-mobilenet_v2}
OUT="$BUILD_DIR/demo/$MODEL"
ITERATIONS=${TORCHIR_DEMO_ITERATIONS:-10}

VENV_PYTHON=$(scripts/python_env.sh)
echo "== exporting $MODEL with pytorch-ir (torch.export on the meta device) into $OUT"
"$VENV_PYTHON" tools/export_ir.py "$MODEL" -o "$OUT" --flavour pytorch_ir

WEIGHTS=()
[[ -e $OUT/weights.safetensors ]] && WEIGHTS=(--weights "$OUT/weights.safetensors")

echo "== torchir-compile: load, validate, lower to Edge, optimise, partition for XNNPACK, plan memory, write $MODEL.pte"
"$BUILD_DIR/bin/torchir-compile" "$OUT/model.json" "${WEIGHTS[@]}" --backend xnnpack \
  -o "$OUT/$MODEL.pte" --summary --explain

echo "== torchir-inspect $MODEL.pte"
"$BUILD_DIR/bin/torchir-inspect" "$OUT/$MODEL.pte"

echo "== torchir-run: the runtime (XNNPACK delegate + portable kernels, 1 thread) on the sample input, vs PyTorch eager's output"
RUN_LOG="$OUT/run.log"
"$BUILD_DIR/bin/torchir-run" "$OUT/$MODEL.pte" --inputs "$OUT/inputs.safetensors" \
  --expected "$OUT/expected.safetensors" --atol 1e-4 --rtol 1e-4 \
  --warmup 2 --iterations "$ITERATIONS" | tee "$RUN_LOG"

echo "== PyTorch $("$VENV_PYTHON" -c 'import torch; print(torch.__version__)' 2>/dev/null) eager on the same model and input (1 thread)"
EAGER_LOG="$OUT/eager.log"
"$VENV_PYTHON" tools/eager_latency.py "$MODEL" --warmup 2 --iterations "$ITERATIONS" |
  tee "$EAGER_LOG"

# The summary a user asked for, from the lines above.
torchir_ms=$(sed -n 's/.*median \([0-9.]*\) ms.*/\1/p' "$RUN_LOG" | head -1)
eager_ms=$(sed -n 's/.*median \([0-9.]*\) ms.*/\1/p' "$EAGER_LOG" | head -1)
program_size=$(sed -n 's/^.*\.pte: \([0-9.]* [KMG]*i*B\), load.*/\1/p' "$RUN_LOG")
arena=$("$BUILD_DIR/bin/torchir-inspect" "$OUT/$MODEL.pte" | sed -n 's/^  arenas: [0-9]*, \(.*\) planned.*/\1/p')
echo
echo "== summary: $MODEL"
grep -E "^(PASS|FAIL) " "$RUN_LOG" | sed 's/^/  agreement with PyTorch eager: /'
echo "  latency (median, 1 thread): torchir $torchir_ms ms, PyTorch eager $eager_ms ms" \
  "(torchir / eager = $(awk -v a="$torchir_ms" -v b="$eager_ms" 'BEGIN { printf "%.2f", a / b }'))"
echo "  program: $program_size; planned activation memory: $arena (XNNPACK keeps its own scratch on top)"
echo "  work delegated to XNNPACK: $("$BUILD_DIR/bin/torchir-inspect" "$OUT/$MODEL.pte" | sed -n 's/^  MACs: \(.*\)/\1/p') MACs"
