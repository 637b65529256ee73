#!/usr/bin/env bash
# Compiles a zoo export and runs the program several times in one process with
# torchir-run, checking the outputs of the last run against PyTorch's: each run
# must see its inputs again although the plan reuses their bytes.
#
#   tests/e2e/run_repeated.sh TORCHIR_COMPILE TORCHIR_RUN MODEL_DIR OUT.pte
set -euo pipefail
compile=$1 run=$2 dir=$3 pte=$4
weights=()
[[ -e $dir/weights.safetensors ]] && weights=(--weights "$dir/weights.safetensors")
"$compile" "$dir/model.json" "${weights[@]}" -o "$pte" --quiet
"$run" "$pte" --inputs "$dir/inputs.safetensors" --expected "$dir/expected.safetensors" \
  --atol 1e-4 --rtol 1e-4 --warmup 2 --iterations 3 --threads 2
