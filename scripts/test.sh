#!/usr/bin/env bash
# Builds everything and runs every test (unit, end-to-end, fuzz) with CTest, then the
# sanitizer job (ASan + UBSan build of the unit tests and the zoo at the pte stage on both
# backends, scripts/sanitize.sh).
#
#   scripts/test.sh [extra ctest arguments]      (TORCHIR_SKIP_SANITIZE=1 skips the second job)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
BUILD_DIR=${TORCHIR_BUILD_DIR:-build}
ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$(nproc)" "$@"
if [[ "${TORCHIR_SKIP_SANITIZE:-0}" != 1 ]]; then
  scripts/sanitize.sh
fi
