#!/usr/bin/env bash
# Compiles a zoo model (resnet18; the op zoo's grouped convolution) for the native backend with
# TORCHIR_NATIVE_WINOGRAD unset (auto), off, all and 2x2, checks that --explain reports the
# expected counts of F(4x4, 3x3) and F(2x2, 3x3) layers for each, and runs each program against
# PyTorch's outputs on 1 and 2 threads (all / 2x2: every 3x3 stride-1 layer by one tile, those
# the automatic rule leaves out or gives the other tile included).
#
#   winograd_check.sh TORCHIR_COMPILE TORCHIR_RUN MODEL_DIR OUT_DIR AUTO_4X4 AUTO_2X2 TOTAL
set -euo pipefail
compile=$1 run=$2 dir=$3 out=$4 auto4=$5 auto2=$6 total=$7
mkdir -p "$out"
for policy in auto off all 2x2; do
  case $policy in
    auto) four=$auto4 two=$auto2 ;;
    off) four=0 two=0 ;;
    all) four=$total two=0 ;;
    2x2) four=0 two=$total ;;
  esac
  pte="$out/winograd-$policy.pte"
  explain=$(TORCHIR_NATIVE_WINOGRAD=$policy "$compile" "$dir/model.json" \
    --weights "$dir/weights.safetensors" --backend native,xnnpack -o "$pte" --explain)
  line=$(grep -o "winograd F(4x4,3x3) for [0-9]* and F(2x2,3x3) for [0-9]* of [0-9]*" \
    <<<"$explain" || true)
  want="winograd F(4x4,3x3) for $four and F(2x2,3x3) for $two of $total"
  if [[ $line != "$want" ]]; then
    echo "FAILED: TORCHIR_NATIVE_WINOGRAD=$policy: --explain says '$line', expected '$want'" >&2
    exit 1
  fi
  for tile in 4 2; do
    marked=$(grep -c "winograd F(${tile}x${tile},3x3))" <<<"$explain" || true)
    expected=$four
    ((tile == 2)) && expected=$two
    if ((marked != expected)); then
      echo "FAILED: TORCHIR_NATIVE_WINOGRAD=$policy: $marked delegates marked F(${tile}x${tile})," \
        "expected $expected" >&2
      exit 1
    fi
  done
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
