#!/usr/bin/env bash
# Compiles a zoo model for the native backend with --target TARGET and runs it here: weights
# packed for another CPU family than this one must be repacked once at init (and the log must
# say so), weights packed for this one used as they are; the outputs must match PyTorch's
# either way, on 1 and 2 threads.
#
#   run_target_check.sh TORCHIR_COMPILE TORCHIR_RUN MODEL_DIR OUT_DIR TARGET
set -euo pipefail
compile=$1 run=$2 dir=$3 out=$4 target=$5
mkdir -p "$out"
pte="$out/$(basename "$(dirname "$dir")")-$target.pte"
"$compile" "$dir/model.json" --weights "$dir/weights.safetensors" --backend native,xnnpack \
  --target "$target" -o "$pte" --quiet
# --help names this machine's family: "host (here: avx512)".
host=$("$compile" --help | tr -s ' \n' ' ' | sed -n 's/.*host (here: \([a-z0-9]*\)).*/\1/p')
[[ -n $host ]] || { echo "cannot read the host's target from torchir-compile --help" >&2; exit 1; }
# Weights packed for portable, sse4 and neon share a layout (nr 8, kc 256: gemm_config.cpp).
narrow='^(portable|sse4|neon)$'
same_layout() { [[ $1 == "$2" ]] || { [[ $1 =~ $narrow ]] && [[ $2 =~ $narrow ]]; }; }
for threads in 1 2; do
  log=$("$run" "$pte" --inputs "$dir/inputs.safetensors" --expected "$dir/expected.safetensors" \
    --atol 1e-4 --rtol 1e-4 --threads "$threads" 2>&1) || { echo "$log"; exit 1; }
  echo "$log"
  if grep -q "repacking" <<<"$log"; then repacked=1; else repacked=0; fi
  if same_layout "$target" "$host"; then expected=0; else expected=1; fi
  if ((repacked != expected)); then
    echo "FAILED: weights packed for $target on a $host CPU: repacked=$repacked, expected $expected" >&2
    exit 1
  fi
  echo "target $target on $host, $threads thread(s): repacked=$repacked as expected"
done
