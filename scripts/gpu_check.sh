#!/usr/bin/env bash
# The whole GPU check in one command, for the H200 machine (see shared/gpu/README.md):
# build (with the Debian packages that machine lacks unpacked from .deps/), every test
# including the GPU-tagged ones, the samples on cuda (and against the CPU), the precompiled
# cache check, and the benchmarks against the hardware ceilings and the peers (Numba, CuPy).
# Prints a short table last. Outputs (logs, JSON, RESULTS.md, the chart) go to $OUT.
#   (JITVEC_SANITIZER_TESTS: the Catch2 filter run under compute-sanitizer, default
#    "[gpu]~[refused_launch]": those tests make a launch fail on purpose (a stale context), which
#    the sanitizer reports as an API error;
#    JITVEC_SANITIZER_TIMEOUT: seconds per tool, default 300)
#   (--no-cpu-tests: skip the tests that run anywhere; CI runs them)
#   usage: bash scripts/gpu_check.sh [--no-cpu-tests] [--no-bench] [--no-tests] [--no-peers] [--gpu-only] [--probes]
#                                    [--no-sanitizers] [--no-samples]
#   (--gpu-only: the GPU-tagged tests and the C++ GPU benchmark, nothing else;
#    --probes: also bench/probes/kernel_probes.cu and scan_probes.cu, the hand-written kernels of bench/NOTES.md;
#    --no-samples: skip the samples and the precompiled cache check;
#    JITVEC_BUILD_BENCH=1 builds the benchmarks even with --no-bench, so that a later
#    --no-tests call on the same machine builds nothing;
#    --no-sanitizers: skip the GPU-tagged tests under compute-sanitizer memcheck and racecheck,
#    which run with the tests, each bounded by JITVEC_SANITIZER_TIMEOUT seconds, default 300)
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/jitvec-gpu}
LOGS=/tmp/jitvec-gpu-logs
mkdir -p "$OUT" "$LOGS"
run_bench=1 run_tests=1 run_peers=1 gpu_only=0 run_probes=0 run_sanitizers=1 run_cpu_tests=1 run_samples=1
for a in "$@"; do
  case $a in
    --no-bench) run_bench=0 ;; --no-tests) run_tests=0 ;; --no-peers) run_peers=0 ;;
    --gpu-only) gpu_only=1; run_peers=0 ;;
    --probes) run_probes=1 ;;
    --no-sanitizers) run_sanitizers=0 ;;
    --no-cpu-tests) run_cpu_tests=0 ;;
    --no-samples) run_samples=0 ;;
  esac
done
declare -A status
step() {  # step NAME COMMAND...: runs, logs to $LOGS/NAME.log, records PASS/FAIL
  local name=$1; shift
  local t0=$(date +%s%N)
  if "$@" >"$LOGS/$name.log" 2>&1; then status[$name]="PASS"; else status[$name]="FAIL (rc $?)"; fi
  local ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  status[$name]+=" $((ms / 1000)).$(( (ms % 1000) / 100 ))s"
  echo "== $name: ${status[$name]}"; tail -n 5 "$LOGS/$name.log"
}

deps=/tmp/jitvec-deps
if [ -d .deps ]; then
  mkdir -p $deps
  for f in .deps/*.deb; do dpkg -x "$f" $deps; done
fi
step build bash -c "cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DJITVEC_BUILD_BENCH=${JITVEC_BUILD_BENCH:-$run_bench} \
  -DCMAKE_PREFIX_PATH=$deps/usr -DCMAKE_CXX_FLAGS='-isystem $deps/usr/include' \
  && cmake --build build-gpu -j\$(nproc)"
[ "${status[build]%% *}" = PASS ] || { grep -E "error|Error" "$LOGS/build.log" | head -30; exit 1; }
B=build-gpu
export JITVEC_CACHE_DIR=/tmp/jitvec-gpu-cache
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$LOGS/gpu.txt" 2>&1

if [ $run_tests = 1 ]; then
  step tests_gpu $B/tests/jitvec_tests "[gpu]" --durations yes
  [ $gpu_only = 1 ] || [ $run_cpu_tests = 0 ] || step tests_all $B/tests/jitvec_tests "~[gpu]"
  if [ $run_sanitizers = 1 ]; then  # any report fails the step (--error-exitcode 1)
    sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
    for tool in memcheck racecheck; do
      step tests_gpu_$tool timeout "${JITVEC_SANITIZER_TIMEOUT:-300}" "$sanitizer" --tool $tool \
        --error-exitcode 1 $B/tests/jitvec_tests "${JITVEC_SANITIZER_TESTS:-[gpu]~[refused_launch]}"
    done
  fi
fi
if [ $gpu_only = 0 ] && [ $run_samples = 1 ]; then
step sample_gaussian $B/samples/gaussian_pdf --target cuda -n 10000000
step sample_polar_compare $B/samples/polar_distance --compare
step sample_zero_suppress $B/samples/zero_suppress --target cuda --svg "$OUT/zero_suppress.svg"
step sample_gaussian_cpu $B/samples/gaussian_pdf --target parallel
rm -rf kernels_cache/?? && step precompile $B/jitvec compile samples/gaussian_pdf.toml samples/polar_distance.toml samples/zero_suppress.toml --cache-dir kernels_cache
step precompiled_run env JITVEC_CACHE_DIR="/tmp/jitvec-empty-cache" JITVEC_CACHE_PATH="$PWD/kernels_cache" \
  bash -c "for s in gaussian_pdf polar_distance zero_suppress; do $B/samples/\$s --target cuda || exit 1; done"

fi

if [ $run_probes = 1 ]; then
  step probes bash -c "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc) -O3 -arch=sm_90 -std=c++17 -o $B/kernel_probes bench/probes/kernel_probes.cu \
    && $B/kernel_probes"
  step scan_probes bash -c "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc) -O3 -arch=sm_90 -std=c++17 -o $B/scan_probes bench/probes/scan_probes.cu \
    && $B/scan_probes"
fi

if [ $run_bench = 1 ]; then
  step bench_gpu $B/bench/jitvec_bench_gpu --json "$OUT/jitvec.json"
  reports=("$OUT/jitvec.json")
  if [ $gpu_only = 0 ]; then
    # --repeat 5: the parallel cases five times in one process (issue 14's "each of five runs")
    step bench_cpu $B/bench/jitvec_bench_cpu --repeat 5 --json "$OUT/jitvec_cpu.json"
    reports+=("$OUT/jitvec_cpu.json")
  fi
  if [ $run_peers = 1 ]; then
    step bench_peers env PYTHONUNBUFFERED=1 python3 bench/peers.py --json "$OUT/peers.json"
    reports+=("$OUT/peers.json")
    # Each issue's own peers (bench/peers_<topic>.py: the same flags and record schema).
    for script in bench/peers_*.py; do
      [ -e "$script" ] || continue
      topic=$(basename "$script" .py)
      step "bench_$topic" env PYTHONUNBUFFERED=1 python3 "$script" --json "$OUT/$topic.json"
      reports+=("$OUT/$topic.json")
    done
  fi
  step report python3 bench/report.py --out-dir "$OUT" "${reports[@]}"
  cat "$LOGS/report.log"
fi

echo
for f in "$LOGS"/*.log; do echo "######## $f"; cat "$f"; done > "$OUT/all_logs.txt"
echo "==================== jitvec GPU check ($(head -2 "$LOGS/gpu.txt" | tail -1)) ===================="
for k in "${!status[@]}"; do printf '%-24s %s\n' "$k" "${status[$k]}"; done | sort
