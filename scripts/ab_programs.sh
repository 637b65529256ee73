#!/usr/bin/env bash
# Compares two .pte programs (or one program under two torchir-run binaries) the way the
# shared host needs: rounds of A then B, alternated, each a fresh torchir-run process with
# warm-up, so drift and other processes' load fall on both alike. Prints each round's median
# latency and, at the end, the B / A ratio per round and its spread.
#
#   scripts/ab_programs.sh A.pte B.pte [--threads N] [--rounds R] [--iterations I]
#
# Environment: TORCHIR_RUN_A / TORCHIR_RUN_B (default build/bin/torchir-run for both): the
# binaries that run A and B, to compare runtimes on one program (pass the same .pte twice).
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
  sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}
(($# >= 2)) || usage
A=$1
B=$2
shift 2
THREADS=1
ROUNDS=5
ITERATIONS=200
while (($#)); do
  case $1 in
    --threads) THREADS=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --iterations) ITERATIONS=$2; shift 2 ;;
    *) usage ;;
  esac
done
RUN_A=${TORCHIR_RUN_A:-build/bin/torchir-run}
RUN_B=${TORCHIR_RUN_B:-build/bin/torchir-run}
for file in "$A" "$B" "$RUN_A" "$RUN_B"; do
  [[ -f $file ]] || { echo "ab_programs: no such file: $file" >&2; exit 1; }
done

# The median latency (ms) of one torchir-run process.
median() {
  local output
  output=$("$1" "$2" --threads "$THREADS" --iterations "$ITERATIONS" \
    --warmup $((ITERATIONS / 10 + 1)))
  sed -n 's/.*median \([0-9.]*\) ms.*/\1/p' <<<"$output"
}

echo "A: $A ($RUN_A)"
echo "B: $B ($RUN_B)"
echo "$THREADS thread(s), $ROUNDS rounds of $ITERATIONS iterations each"
ratios=()
for ((round = 1; round <= ROUNDS; round++)); do
  a=$(median "$RUN_A" "$A")
  b=$(median "$RUN_B" "$B")
  ratio=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", b / a }')
  ratios+=("$ratio")
  echo "round $round: A $a ms, B $b ms, B / A $ratio"
done
printf '%s\n' "${ratios[@]}" | sort -n | awk '
  { r[NR] = $1 }
  END { printf "B / A: median %.3f, range %.3f-%.3f over %d rounds\n",
        (NR % 2 ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2), r[1], r[NR], NR }'
