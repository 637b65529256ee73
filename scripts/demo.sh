#!/usr/bin/env bash
# The main job end to end on the bundled default model (mobilenet_v2 from
# torchvision with seeded random weights; nothing can be downloaded here):
# export it to the pytorch-ir format, load, validate, lower and optimise it, plan
# its memory, and check the ATen and the optimised Edge graph against PyTorch
# eager with the reference executor. (.pte emission and the runtime come next.)
#
#   scripts/demo.sh [MODEL]      MODEL: any name from `tools/export_ir.py --list`
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
BUILD_DIR=${TORCHIR_BUILD_DIR:-build}
MODEL=${1:-mobilenet_v2}
OUT="$BUILD_DIR/demo/$MODEL"

echo "== exporting $MODEL to the pytorch-ir format ($OUT)"
/usr/bin/python3 tools/export_ir.py "$MODEL" -o "$OUT"

echo "== torchir-compile: load, validate, bind weights, lower to Edge, optimise, plan memory"
"$BUILD_DIR/bin/torchir-compile" "$OUT/model.json" --weights "$OUT/weights.safetensors" \
  --summary --pass-stats --memory-report --quiet

for stage in aten edge; do
  echo "== torchir-verify --stage $stage: run the $stage graph op by op (LibTorch) against PyTorch eager"
  "$BUILD_DIR/bin/torchir-verify" "$OUT/model.json" --weights "$OUT/weights.safetensors" \
    --inputs "$OUT/inputs.safetensors" --expected "$OUT/expected.safetensors" --stage "$stage" \
    --atol 1e-5 --rtol 1e-4
done
