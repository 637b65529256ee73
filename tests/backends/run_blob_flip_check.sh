#!/usr/bin/env bash
# Compiles every zoo export with `--backend BACKENDS` and runs delegate_blob_flip_check on the
# programs that hold data of the delegate BACKEND_ID: every byte of it flipped (programs of
# 1 MiB and more: a deterministic sample of MAX_TRIALS, see the checker's header), each
# corrupted program loaded, initialised and run. CHECKER_ARGS go to the checker (e.g.
# --constant-prefix 64: the native delegate's packed-weight headers too).
#
#   run_blob_flip_check.sh CHECKER TORCHIR_COMPILE ZOO_DIR OUT_DIR MAX_TRIALS BACKENDS BACKEND_ID
#                          [CHECKER_ARGS...]
#   e.g. ... 1000 xnnpack XnnpackBackend;  ... 300 native,xnnpack NativeBackend --constant-prefix 64
#
# Both flavours of each model (export, core) are compiled; identical programs run once.
# The programs are split over two checker processes (the machine's two cores).
set -euo pipefail
if [[ $# -lt 7 ]]; then
  echo "usage: $0 CHECKER TORCHIR_COMPILE ZOO_DIR OUT_DIR MAX_TRIALS BACKENDS BACKEND_ID" \
    "[CHECKER_ARGS...]" >&2
  exit 2
fi
CHECKER=$1
COMPILE=$2
ZOO=$3
OUT=$4
MAX_TRIALS=$5
BACKENDS=$6
BACKEND_ID=$7
shift 7
CHECKER_ARGS=(--backend-id "$BACKEND_ID" --max-trials "$MAX_TRIALS" "$@")
mkdir -p "$OUT"
rm -f "$OUT"/*.pte

programs=()
declare -A seen
# One flavour per model (the real pytorch-ir's when there is one): the flavours lower to nearly
# the same delegate blobs, and compiling all three under the sanitizers outran the test's time.
for model in "$ZOO"/*/; do
  model_dir=
  for flavour in pytorch_ir export core; do
    if [[ -e $model/$flavour/model.json ]]; then
      model_dir=$model/$flavour/
      break
    fi
  done
  [[ -n $model_dir ]] || continue
  name=$(basename "$(dirname "$model_dir")")-$(basename "$model_dir")
  weights=()
  [[ -e $model_dir/weights.safetensors ]] && weights=(--weights "$model_dir/weights.safetensors")
  if ! "$COMPILE" "$model_dir/model.json" "${weights[@]}" --backend "$BACKENDS" \
      -o "$OUT/$name.pte" --quiet; then
    echo "FAILED: cannot compile $model_dir" >&2
    exit 1
  fi
  grep -q "$BACKEND_ID" "$OUT/$name.pte" || continue
  sum=$(md5sum < "$OUT/$name.pte" | cut -d' ' -f1)
  [[ -n ${seen[$sum]:-} ]] && continue
  seen[$sum]=1
  programs+=("$OUT/$name.pte")
done
if (( ${#programs[@]} == 0 )); then
  echo "FAILED: no zoo program has a $BACKEND_ID delegate (is the zoo in $ZOO?)" >&2
  exit 1
fi
echo "== ${#programs[@]} distinct programs with a $BACKEND_ID delegate"

# Largest first, alternating between the two halves, so both take about as long.
mapfile -t sorted < <(ls -S "${programs[@]}")
first=()
second=()
for i in "${!sorted[@]}"; do
  if (( i % 2 == 0 )); then first+=("${sorted[$i]}"); else second+=("${sorted[$i]}"); fi
done
"$CHECKER" "${CHECKER_ARGS[@]}" "${first[@]}" > "$OUT/check_1.log" 2>&1 &
pid1=$!
status=0
if (( ${#second[@]} > 0 )); then
  "$CHECKER" "${CHECKER_ARGS[@]}" "${second[@]}" > "$OUT/check_2.log" 2>&1 || status=1
fi
wait "$pid1" || status=1
cat "$OUT/check_1.log" "$OUT"/check_2.log 2>/dev/null
exit $status
