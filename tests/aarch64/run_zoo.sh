#!/usr/bin/env bash
# Every zoo program on aarch64 against x86-64: each model of the zoo (its
# `export` flavour) is compiled on the host for BACKEND, run under
# qemu-aarch64 by the SDK app cross-built against the arm64 SDK
# (tests/sdk/app/main.cpp: fixed inputs; it writes the inputs it used and the
# outputs), and the host's
# torchir-run runs the same program on those inputs and compares its outputs
# with the arm64 ones at ATOL + RTOL * |x86 output|. Where the x86-64 run of a
# delegate differs, arm64 must agree with the portable kernels on x86-64
# instead (printed as a NOTE).
#
#   tests/aarch64/run_zoo.sh BUILD_DIR TORCHIR_COMPILE TORCHIR_RUN ZOO_DIR BACKEND ATOL RTOL
#
# BUILD_DIR is cross_build.sh's. With BACKEND xnnpack, the zoo must run at
# least one XNNPACK delegate on arm64 (not every model has a delegable op).
set -euo pipefail
if [[ $# -ne 7 ]]; then
  echo "usage: $0 BUILD_DIR TORCHIR_COMPILE TORCHIR_RUN ZOO_DIR BACKEND ATOL RTOL" >&2
  exit 2
fi
OUT=$1 COMPILE=$2 RUN=$3 ZOO=$4 BACKEND=$5 ATOL=$6 RTOL=$7
if [[ -f $OUT/SKIPPED ]]; then
  echo "SKIP: $(cat "$OUT/SKIPPED")"
  exit 77
fi
[[ -f $OUT/sysroot.txt ]] || { echo "FAIL: no aarch64 build in $OUT (tests/aarch64/cross_build.sh)"; exit 1; }
sysroot=$(cat "$OUT/sysroot.txt")
runner=$OUT/app/sdk_app
work=$OUT/zoo-$BACKEND
rm -rf "$work"
mkdir -p "$work"

# matches PROGRAM MODEL: the host runs PROGRAM on the inputs the arm64 run used and compares.
matches() {
  "$RUN" "$1" --inputs "$work/$2.in.safetensors" --expected "$work/$2.arm64.safetensors" \
    --atol "$ATOL" --rtol "$RTOL" >> "$work/$2.log" 2>&1
}

start=$SECONDS
models=0 failed=() notes=() delegated=0
for export_dir in "$ZOO"/*/export; do
  [[ -f $export_dir/model.json ]] || continue
  model=$(basename "$(dirname "$export_dir")")
  models=$((models + 1))
  pte=$work/$model.pte
  if ! "$COMPILE" "$export_dir/model.json" --weights "$export_dir/weights.safetensors" \
      --backend "$BACKEND" -o "$pte" --quiet > "$work/$model.log" 2>&1; then
    failed+=("$model (compile)")
    continue
  fi
  if ! out=$(qemu-aarch64 -L "$sysroot" "$runner" "$pte" "$work/$model.in.safetensors" \
               "$work/$model.arm64.safetensors" 2>> "$work/$model.log"); then
    failed+=("$model (arm64 run)")
    continue
  fi
  [[ $out =~ ,\ ([0-9]+)\ delegated ]] && delegated=$((delegated + BASH_REMATCH[1]))
  if ! matches "$pte" "$model"; then
    # The runner's inputs are not the model's (they span [-1, 1)), and out of an op's domain
    # two delegates' kernels may each differ from PyTorch in their own way (x86-64 XNNPACK's
    # rsqrt(-1) is -inf, not NaN). arm64 is right if it agrees with the portable kernels then.
    portable_pte=$work/$model.portable.pte
    if [[ $BACKEND != portable ]] &&
       "$COMPILE" "$export_dir/model.json" --weights "$export_dir/weights.safetensors" \
         --backend portable -o "$portable_pte" --quiet >> "$work/$model.log" 2>&1 &&
       matches "$portable_pte" "$model"; then
      notes+=("$model: x86-64's $BACKEND run differs from arm64's, which matches the portable \
kernels on x86-64 (a divergence of the x86-64 $BACKEND kernels on these inputs)")
    else
      failed+=("$model (arm64 and x86-64 outputs differ)")
    fi
  fi
done

status=0
for note in "${notes[@]}"; do echo "NOTE: $note"; done
if ((models == 0)); then
  echo "FAIL: no zoo exports in $ZOO"
  exit 1
fi
for failure in "${failed[@]}"; do
  model=${failure%% *}
  echo "FAIL: $failure"
  sed 's/^/    /' "$work/$model.log" | tail -5
  status=1
done
if [[ $BACKEND == xnnpack ]] && ((delegated == 0)); then
  echo "FAIL: no XNNPACK delegate ran on arm64"
  status=1
fi
echo "$models zoo programs ($BACKEND) on arm64 under qemu: $((models - ${#failed[@]})) match" \
     "x86-64 at atol $ATOL rtol $RTOL (${#notes[@]} through the portable kernels)," \
     "$delegated delegate calls, $((SECONDS - start)) s"
exit $status
