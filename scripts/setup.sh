#!/usr/bin/env bash
# Installs the Debian packages torchir needs (skipping those present), then
# configures and builds the project into build/ with CMake + Ninja.
#
#   scripts/setup.sh [--no-build]
#
# Run as root on a fresh Debian 12 machine (or with sudo available).
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(
  build-essential cmake ninja-build pkg-config
  ccache                              # rebuilds of an unchanged tree (CI's fresh clone) are cache hits
  clang libclang-rt-14-dev            # libFuzzer targets
  libflatbuffers-dev flatbuffers-compiler
  libxnnpack-dev libpthreadpool-dev libcpuinfo-dev
  libabsl-dev rapidjson-dev
  libtorch-dev                        # the PyTorch 1.13 paths of the C++ benchmark suite
  libgtest-dev libgmock-dev libbenchmark-dev
  libhwy-dev                          # Highway: the native backend's SIMD kernels, dispatched at run time
  g++-aarch64-linux-gnu qemu-user     # ctest -L aarch64: the arm64 cross build, run under emulation
  python3-torch python3-torchvision   # model zoo export (/usr/bin/python3)
  python3-venv                        # scripts/python_env.sh when python3 is Debian's
  libopenblas0-pthread                # a fair BLAS for PyTorch baselines
)

missing=()
for package in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if ((${#missing[@]})); then
  echo "setup: installing ${#missing[@]} Debian package(s): ${missing[*]}" >&2
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || { echo "setup: run as root to install packages" >&2; exit 1; }
    SUDO="sudo"
  fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
else
  echo "setup: all ${#PACKAGES[@]} Debian packages present" >&2
fi

# The Python environment (torch 2.x, pytorch-ir, ExecuTorch, ONNX Runtime), made once.
VENV_PYTHON=$(scripts/python_env.sh)
# The arm64 sysroot of the aarch64 tests (Debian's arm64 packages unpacked into ~/.cache/torchir,
# never installed), made once; without the archive the aarch64 tests skip, so this only warns.
scripts/arm64_sysroot.sh > /dev/null || echo "setup: no arm64 sysroot: ctest -L aarch64 will skip" >&2

if [[ "${1:-}" == "--no-build" ]]; then exit 0; fi

BUILD_DIR=${TORCHIR_BUILD_DIR:-build}
# ccache keys on paths relative to the checkout, so a fresh clone elsewhere reuses the objects
# an earlier build of the same sources left in ~/.cache/ccache.
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=true CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
LAUNCHER=()
if command -v ccache >/dev/null; then
  LAUNCHER=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
if [[ ! -f "$BUILD_DIR/build.ninja" ]] ||
  ! grep -qx "TORCHIR_VENV_PYTHON:FILEPATH=$VENV_PYTHON" "$BUILD_DIR/CMakeCache.txt"; then
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release "${LAUNCHER[@]}" \
    -DTORCHIR_VENV_PYTHON="$VENV_PYTHON" >/dev/null
fi
cmake --build "$BUILD_DIR" -j "$(nproc)"
