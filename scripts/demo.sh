#!/usr/bin/env bash
# The main job end to end on the bundled default model (mobilenet_v2 from
# torchvision with seeded random weights; nothing can be downloaded here):
# export it to the pytorch-ir format, load, validate and summarise it, and check
# the graph against PyTorch eager with the reference executor.
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

echo "== torchir-compile: load, validate, bind weights"
"$BUILD_DIR/bin/torchir-compile" "$OUT/model.json" --weights "$OUT/weights.safetensors" --summary

echo "== torchir-verify: run the ATen graph op by op (LibTorch) and compare with PyTorch eager"
"$BUILD_DIR/bin/torchir-verify" "$OUT/model.json" --weights "$OUT/weights.safetensors" \
  --inputs "$OUT/inputs.safetensors" --expected "$OUT/expected.safetensors" --stage aten
