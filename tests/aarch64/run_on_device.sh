#!/usr/bin/env bash
# Runs one program of the aarch64 cross build under qemu-aarch64 with the
# sysroot it was built against; arguments pass through (host paths work: the
# emulator maps only the sysroot's files).
#
#   tests/aarch64/run_on_device.sh BUILD_DIR PROGRAM [ARG...]    (PROGRAM: in BUILD_DIR/device)
set -euo pipefail
OUT=$1 PROGRAM=$2
shift 2
if [[ -f $OUT/SKIPPED ]]; then
  echo "SKIP: $(cat "$OUT/SKIPPED")"
  exit 77
fi
[[ -f $OUT/sysroot.txt ]] ||
  { echo "FAIL: no aarch64 build in $OUT (tests/aarch64/cross_build.sh)"; exit 1; }
exec qemu-aarch64 -L "$(cat "$OUT/sysroot.txt")" "$OUT/device/$PROGRAM" "$@"
