#!/usr/bin/env bash
# Runs the XNNPACK delegate's test binaries under valgrind's leak checker:
# every test loads a blob, inits, executes and destroys the delegate (on 1 and
# 2 threads, on success and on every refusal path), so a leak of an XNNPACK
# subgraph, runtime or thread pool, or a read past a buffer, fails it.
#
#   run_leak_check.sh TEST_BINARY...
#
# Exits 77 (CTest: skipped) when valgrind is not installed. valgrind.supp
# silences one benign report inside Debian's libcpuinfo. The exhaustive
# byte-flip test is left out (the sampled one runs); each binary runs twice
# in one process so repeated init/destroy cycles are covered.
set -euo pipefail
if [[ $# -lt 1 ]]; then
  echo "usage: $0 TEST_BINARY..." >&2
  exit 2
fi
if ! command -v valgrind > /dev/null; then
  echo "valgrind is not installed; skipping the leak check"
  exit 77
fi
SUPPRESSIONS=$(cd "$(dirname "$0")" && pwd)/valgrind.supp
for binary in "$@"; do
  log=$(mktemp)
  echo "== valgrind $(basename "$binary")"
  if ! valgrind --leak-check=full --show-leak-kinds=definite,indirect \
      --errors-for-leak-kinds=definite,indirect --error-exitcode=1 --num-callers=30 \
      --suppressions="$SUPPRESSIONS" \
      "$binary" --gtest_filter=-*EveryByteFlip* --gtest_repeat=2 --gtest_brief=1 \
      > "$log" 2>&1; then
    tail -80 "$log"
    rm -f "$log"
    echo "FAILED: $(basename "$binary") leaks or touches memory it does not own"
    exit 1
  fi
  grep -E "ERROR SUMMARY|definitely lost|indirectly lost|in use at exit" "$log" || true
  rm -f "$log"
done
