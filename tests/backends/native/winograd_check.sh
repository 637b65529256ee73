#!/usr/bin/env bash
# Compiles a zoo model for the native backend with TORCHIR_NATIVE_WINOGRAD unset (auto), off and
# all, checks that --explain reports the expected count of Winograd layers for each, and runs each
# program against PyTorch's outputs on 1 and 2 threads (all: every 3x3 stride-1 layer by
# Winograd, those the automatic rule leaves out included).
#
#   winograd_check.sh TORCHIR_COMPILE TORCHIR_RUN MODEL_DIR OUT_DIR AUTO_COUNT TOTAL
set -euo pipefail
compile=$1 run=$2 dir=$3 out=$4 auto_count=$5 total=$6
mkdir -p "$out"
for policy in auto off all; do
  case $policy in
    auto) expected=$auto_count ;;
    off) expected=0 ;;
    all) expected=$total ;;
  esac
  pte="$out/winograd-$policy.pte"
  explain=$(TORCHIR_NATIVE_WINOGRAD=$policy "$compile" "$dir/model.json" \
    --weights "$dir/weights.safetensors" --backend native,xnnpack -o "$pte" --explain)
  line=$(grep -o "winograd F(4x4,3x3) for [0-9]* of [0-9]*" <<<"$explain" || true)
  if [[ $line != "winograd F(4x4,3x3) for $expected of $total" ]]; then
    echo "FAILED: TORCHIR_NATIVE_WINOGRAD=$policy: --explain says '$line'," \
      "expected 'winograd F(4x4,3x3) for $expected of $total'" >&2
    exit 1
  fi
  delegates=$(grep -c "winograd F(4x4,3x3))" <<<"$explain" || true)
  if ((delegates != expected)); then
    echo "FAILED: TORCHIR_NATIVE_WINOGRAD=$policy: $delegates delegates marked, expected $expected" >&2
    exit 1
  fi
  for threads in 1 2; do
    "$run" "$pte" --inputs "$dir/inputs.safetensors" --expected "$dir/expected.safetensors" \
      --atol 1e-4 --rtol 1e-4 --threads "$threads"
  done
  echo "TORCHIR_NATIVE_WINOGRAD=$policy: $line, outputs match on 1 and 2 threads"
done
# A policy the compiler does not know is an error, not a silent default.
if TORCHIR_NATIVE_WINOGRAD=sometimes "$compile" "$dir/model.json" \
    --weights "$dir/weights.safetensors" --backend native,xnnpack -o "$out/bad.pte" 2>/dev/null; then
  echo "FAILED: TORCHIR_NATIVE_WINOGRAD=sometimes was accepted" >&2
  exit 1
fi
echo "TORCHIR_NATIVE_WINOGRAD=sometimes refused"
