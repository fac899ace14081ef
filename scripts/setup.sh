#!/usr/bin/env bash
# Installs jitvec's build dependencies (Debian packages) when missing, then configures and
# builds jitvec into ./build. Idempotent: a second run only rebuilds what changed.
#   usage: setup.sh [deps|build] [--fuzz]   (default: both steps; quickstart.sh runs them apart)
# The CUDA toolkit (NVRTC, cuda.h) is expected at /usr/local/cuda or on PATH (nvcc); no GPU
# or driver is needed to build, or to run the CPU targets.
set -euo pipefail
cd "$(dirname "$0")/.."
step=all fuzz=0
for arg in "$@"; do
  case $arg in
    deps | build) step=$arg ;;
    --fuzz) fuzz=1 ;;
    *) echo "usage: setup.sh [deps|build] [--fuzz]" >&2; exit 2 ;;
  esac
done

packages=(cmake ninja-build g++ pkg-config libfmt-dev libspdlog-dev catch2 libxxhash-dev
          libcli11-dev libtomlplusplus-dev libdlpack-dev)
# --fuzz: also clang and its libFuzzer/sanitizer runtimes, for tests/fuzz (.ci/run passes it).
if [ $fuzz = 1 ]; then packages+=(clang libclang-rt-14-dev); fi
missing=()
[ "$step" = build ] && packages=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
fi

cuda_root=""
for candidate in "${CUDAToolkit_ROOT:-}" /usr/local/cuda "$(dirname "$(dirname "$(command -v nvcc 2>/dev/null || echo /x/x)")")"; do
  if [ -n "$candidate" ] && [ -f "$candidate/include/nvrtc.h" ]; then cuda_root=$candidate; break; fi
done
if [ -z "$cuda_root" ] && [ "$step" != build ]; then
  echo "setup: no CUDA toolkit found (looked for include/nvrtc.h under /usr/local/cuda and nvcc's folder);"
  echo "setup: trying Debian's nvidia-cuda-toolkit (needs the non-free component)"
  apt-get install -y -qq nvidia-cuda-toolkit >/dev/null && cuda_root=/usr
fi

[ "$step" = deps ] && exit 0
[ -n "$cuda_root" ] || { echo "setup: no CUDA toolkit (include/nvrtc.h) found; run setup.sh deps" >&2; exit 1; }
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCUDAToolkit_ROOT="$cuda_root" >/dev/null
cmake --build build -j"$(nproc)"
