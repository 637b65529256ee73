#!/usr/bin/env bash
# Every zoo program on arm64 against x86-64: each model of the zoo (its
# `export` flavour) is compiled here for BACKEND and run here by torchir-run on
# the zoo's inputs, writing its outputs; then the device runner torchir-bench,
# cross-built for arm64 (cross_build.sh), runs the same program on the
# same inputs under qemu-aarch64 and checks its outputs against those:
# |arm64 - x86-64| <= ATOL + RTOL * |x86-64|.
#
#   tests/aarch64/run_zoo.sh BUILD_DIR TORCHIR_COMPILE TORCHIR_RUN ZOO_DIR BACKENDS ATOL RTOL \
#       [TORCHIR_COMPILE_OPTION...]
#
# BUILD_DIR is cross_build.sh's; BACKENDS is torchir-compile's --backend list,
# the options after RTOL go to torchir-compile too (--target neon). A program
# with delegate calls fails to load when its backend is missing, so every
# delegate call of the zoo runs on arm64. The runner is the device build's
# torchir-bench, which has the native delegate (the SDK's has not).
#
# The emulated core has 128-bit SVE vectors, as the Armv9 phone cores do, so
# the native kernels run Highway's SVE2_128 target, the one phones run. (The
# unit tests, run_unit_tests.sh, keep qemu's default 512-bit vectors and the
# 16-lane tails that come with them; at 512 bits this test took 250 s
# here, at 128 bits 57-67 s.)
set -euo pipefail
if [[ $# -lt 7 ]]; then
  echo "usage: $0 BUILD_DIR TORCHIR_COMPILE TORCHIR_RUN ZOO_DIR BACKENDS ATOL RTOL" \
       "[TORCHIR_COMPILE_OPTION...]" >&2
  exit 2
fi
OUT=$1 COMPILE=$2 RUN=$3 ZOO=$4 BACKEND=$5 ATOL=$6 RTOL=$7
shift 7
if [[ -f $OUT/SKIPPED ]]; then
  echo "SKIP: $(cat "$OUT/SKIPPED")"
  exit 77
fi
[[ -f $OUT/sysroot.txt ]] ||
  { echo "FAIL: no aarch64 build in $OUT (tests/aarch64/cross_build.sh)"; exit 1; }
sysroot=$(cat "$OUT/sysroot.txt")
bench=$OUT/device/bench/torchir-bench
work=$OUT/zoo-${BACKEND//,/-}
rm -rf "$work"
mkdir -p "$work"

start=$SECONDS
models=0 failed=()
for export_dir in "$ZOO"/*/export; do
  [[ -f $export_dir/model.json ]] || continue
  model=$(basename "$(dirname "$export_dir")")
  models=$((models + 1))
  pte=$work/$model.pte x86=$work/$model.x86.safetensors log=$work/$model.log
  if ! "$COMPILE" "$export_dir/model.json" --weights "$export_dir/weights.safetensors" \
      --backend "$BACKEND" "$@" -o "$pte" --quiet > "$log" 2>&1; then
    failed+=("$model (compile)")
  elif ! "$RUN" "$pte" --inputs "$export_dir/inputs.safetensors" --outputs "$x86" --quiet \
      >> "$log" 2>&1; then
    failed+=("$model (x86-64 run)")
  elif ! qemu-aarch64 -cpu max,sve-default-vector-length=16 -L "$sysroot" "$bench" "$pte" \
      --inputs "$export_dir/inputs.safetensors" --expected "$x86" --atol "$ATOL" \
      --rtol "$RTOL" --warmup 0 --iterations 1 --quiet >> "$log" 2>&1; then
    failed+=("$model (arm64 run, or its outputs differ from x86-64's)")
  fi
done

if ((models == 0)); then
  echo "FAIL: no zoo exports in $ZOO"
  exit 1
fi
status=0
for failure in "${failed[@]}"; do
  echo "FAIL: $failure"
  sed 's/^/    /' "$work/${failure%% *}.log" | tail -5
  status=1
done
echo "$models zoo programs ($BACKEND) on arm64 under qemu: $((models - ${#failed[@]})) match" \
     "x86-64 at atol $ATOL rtol $RTOL, $((SECONDS - start)) s"
exit $status
