#!/usr/bin/env bash
# The README's first command: set up, build, precompile the samples' kernels into
# kernels_cache/, and run the three samples: on the GPU when there is one, else on the CPU
# target (each sample prints which, and why).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:-}:/usr/local/cuda/lib64"
target_args=()
if build/jitvec info --json | grep -Eq '"gpus" *: *\[\]'; then
  build/jitvec compile samples/*.toml --target cpu --cache-dir kernels_cache
else
  build/jitvec compile samples/*.toml --cache-dir kernels_cache
fi
export JITVEC_CACHE_PATH="$PWD/kernels_cache"
for sample in gaussian_pdf polar_distance zero_suppress; do
  echo; echo "== $sample =="
  build/samples/$sample "${target_args[@]}"
done
