#!/usr/bin/env bash
# The model benchmark suite (docs/benchmarks.md): exports the zoo networks (and
# the torchvision ones, tools/export_torchvision.py) with their TorchScript files, builds torchir_model_benchmark, sets the BLAS and
# OpenMP environment the PyTorch paths need to be at their best, runs every
# network through torchir (XNNPACK backend, portable kernels) and the PyTorch
# paths (PyTorch Mobile, TorchScript + oneDNN, plain traced TorchScript) at 1
# and 2 threads in one process, then prints the summary tables and PyTorch
# eager numbers from Python. About 5 minutes on the 2-core build machine.
#
#   scripts/bench.sh [MODEL ...] [-- extra Google Benchmark flags]
#
# Environment: TORCHIR_BUILD_DIR (default build), TORCHIR_BENCH_REPETITIONS (5),
# TORCHIR_BENCH_MIN_TIME (seconds per repetition, 0.3), TORCHIR_BENCH_EAGER=0
# skips the Python eager reference numbers, TORCHIR_BENCH_WAIT_IDLE=SECONDS
# waits up to that long for an idle machine before measuring,
# TORCHIR_BENCH_NATIVE_ISA=avx2 (or sse4) runs torchir's native kernels and oneDNN
# and OpenBLAS for at most that instruction set: on an AVX-512 machine, what a CPU
# without AVX-512 runs (XNNPACK, torchir's and PyTorch Mobile's, picks its own).
set -euo pipefail
cd "$(dirname "$0")/.."

MODELS=()
EXTRA=()
while (($#)); do
  if [[ $1 == "--" ]]; then
    shift
    EXTRA=("$@")
    break
  fi
  MODELS+=("$1")
  shift
done
((${#MODELS[@]})) || MODELS=(resnet18 mobilenet_v2 mobilenet_v3_large tiny_vit tiny_gpt text_cnn gpt_small
  encoder_small resnet50 efficientnet_b0 regnet_x_400mf)
# Networks outside the zoo: torchvision classifiers with seeded weights (docs/zoo.md).
TORCHVISION_MODELS=" resnet50 efficientnet_b0 regnet_x_400mf "

scripts/setup.sh --no-build
BUILD_DIR=${TORCHIR_BUILD_DIR:-build}
BENCH_DIR="$BUILD_DIR/bench"
REPETITIONS=${TORCHIR_BENCH_REPETITIONS:-5}
MIN_TIME=${TORCHIR_BENCH_MIN_TIME:-0.3}

echo "== building torchir_model_benchmark in $BUILD_DIR"
if [[ ! -f "$BUILD_DIR/build.ninja" ]]; then
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "$BUILD_DIR" --target torchir_model_benchmark -j "$(nproc)"

echo "== exporting ${MODELS[*]} with TorchScript files into $BENCH_DIR"
for model in "${MODELS[@]}"; do
  out="$BENCH_DIR/$model"
  if [[ $TORCHVISION_MODELS == *" $model "* ]]; then
    exporter=(tools/export_torchvision.py "$model")
  else
    exporter=(tools/export_ir.py "$model")
  fi
  exporter_sources=("${exporter[0]}" tools/zoo/*.py)
  fresh=1
  for file in model.json weights.safetensors inputs.safetensors expected.safetensors \
    traced.pt traced_frozen.pt mobile.pt; do
    [[ -f $out/$file ]] || { fresh=0; break; }
    for source in "${exporter_sources[@]}"; do
      [[ $out/$file -nt $source ]] || { fresh=0; break 2; }
    done
  done
  if ((fresh)); then
    echo "   $model: up to date"
  else
    /usr/bin/python3 "${exporter[@]}" -o "$out" --torchscript
  fi
done

# LibTorch reaches BLAS through libblas.so.3: netlib's reference BLAS, 5-20x
# slower on matmuls than OpenBLAS, unless the alternative points elsewhere.
# Put OpenBLAS first whatever update-alternatives says.
OPENBLAS_DIR=/usr/lib/x86_64-linux-gnu/openblas-pthread
[[ -f $OPENBLAS_DIR/libblas.so.3 ]] || {
  echo "bench: $OPENBLAS_DIR/libblas.so.3 missing (apt-get install libopenblas0-pthread)" >&2
  exit 1
}
export LD_LIBRARY_PATH="$OPENBLAS_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# Threads: the benchmark sets them per run (torch::set_num_threads, the
# XNNPACK backend's HostOptions::num_threads); OpenMP may use up to 2. OpenMP
# keeps libgomp's default wait policy (spin briefly, then sleep): PASSIVE made
# the TorchScript paths 1.1-5.6x slower at 2 threads here, and the brief spin after
# a PyTorch run is over before the next benchmark's warm-up ends. PyTorch
# Mobile, whose XNNPACK pool OpenMP's spinning would starve, runs ATen on one
# OpenMP thread instead (benchmarks/libtorch_models.h). OpenBLAS: 1 thread at
# start; torchscript_blas runs set it to their thread count (ATen: 1).
unset OMP_WAIT_POLICY GOMP_SPINCOUNT
export OMP_NUM_THREADS=2
export OPENBLAS_NUM_THREADS=1

ISA_FLAGS=()
case ${TORCHIR_BENCH_NATIVE_ISA:-} in
  "") ;;
  avx2) ISA_FLAGS=(--native_isa=avx2); export DNNL_MAX_CPU_ISA=AVX2 OPENBLAS_CORETYPE=Haswell ;;
  sse4) ISA_FLAGS=(--native_isa=sse4); export DNNL_MAX_CPU_ISA=SSE41 OPENBLAS_CORETYPE=Nehalem ;;
  *) echo "bench: TORCHIR_BENCH_NATIVE_ISA takes avx2 or sse4, not '$TORCHIR_BENCH_NATIVE_ISA'" >&2
     exit 2 ;;
esac

echo "== checking that LibTorch uses OpenBLAS (a 512x512 matmul on 1 thread)"
/usr/bin/python3 - <<'EOF'
import sys, time
import torch
torch.set_num_threads(1)
a, b = torch.randn(512, 512), torch.randn(512, 512)
for _ in range(3):
    a @ b
start = time.perf_counter()
for _ in range(10):
    a @ b
gflops = 2 * 512 ** 3 / ((time.perf_counter() - start) / 10) * 1e-9
with open("/proc/self/maps") as maps:
    blas = sorted({line.split()[-1] for line in maps if "blas" in line.rsplit("/", 1)[-1]})
print(f"   BLAS mapped: {', '.join(blas)}; {gflops:.1f} GFLOP/s")
if not any("openblas" in path for path in blas):
    sys.exit("bench: LibTorch did not load OpenBLAS; the PyTorch numbers would be unfair")
EOF

source scripts/wait_idle.sh
wait_for_idle bench

models_flag=$(IFS=,; echo "${MODELS[*]}")
echo "== torchir_model_benchmark: ${#MODELS[@]} model(s)," \
  "$REPETITIONS repetitions of >= $MIN_TIME s each"
"$BUILD_DIR/bin/torchir_model_benchmark" --bench_dir="$BENCH_DIR" --models="$models_flag" \
  --benchmark_repetitions="$REPETITIONS" --benchmark_min_time="$MIN_TIME" \
  --benchmark_min_warmup_time=0.1 --benchmark_display_aggregates_only=true \
  --benchmark_out="$BENCH_DIR/results.json" --benchmark_out_format=json \
  "${ISA_FLAGS[@]}" "${EXTRA[@]}" | tee "$BENCH_DIR/results.txt"
echo
# The 2-thread rows again, each placement of the two vCPUs apart (the host moves them).
/usr/bin/python3 scripts/bench_modes.py "$BENCH_DIR/results.json" | tee "$BENCH_DIR/modes.txt"

if [[ ${TORCHIR_BENCH_EAGER:-1} != 0 ]]; then
  echo
  echo "### PyTorch eager from Python (tools/eager_latency.py, same environment)"
  echo
  for model in "${MODELS[@]}"; do
    # eager_latency.py builds zoo models; torchscript_traced is the torchvision ones' eager-like row.
    [[ $TORCHVISION_MODELS == *" $model "* ]] && continue
    for threads in 1 2; do
      /usr/bin/python3 tools/eager_latency.py "$model" --threads "$threads" --warmup 5 \
        --iterations 50 | sed 's/^/- /'
    done
  done | tee "$BENCH_DIR/eager.txt"
fi
echo
echo "results: $BENCH_DIR/results.txt (console), $BENCH_DIR/results.json (all runs)," \
  "$BENCH_DIR/modes.txt (2-thread rows by the vCPUs' placement)"
