#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, -DJITVEC_FUZZ=ON) and runs each for a bounded time,
# starting from its seed corpus in tests/fuzz/corpus/<target>/ (read only: new inputs go to a
# scratch folder). Fails when a target crashes, reports a sanitizer error, times out on one input
# or runs out of memory; the input that did it is kept under --artifacts and named in the output.
#   usage: bash tests/fuzz/run.sh [--build DIR] [--seconds N] [--artifacts DIR] [--no-build] [TARGET...]
#   TARGET: signature definitions cache_entry array_views (default: all)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=build-fuzz seconds=60 artifacts="" do_build=1 targets=()
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift ;;
    --seconds) seconds=$2; shift ;;
    --artifacts) artifacts=$2; shift ;;
    --no-build) do_build=0 ;;
    -h|--help) sed -n '2,7p' "$0"; exit 0 ;;
    *) targets+=("$1") ;;
  esac
  shift
done
[ ${#targets[@]} -gt 0 ] || targets=(signature definitions cache_entry array_views)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
artifacts=${artifacts:-$build/fuzz-artifacts}
mkdir -p "$artifacts"

if [ $do_build = 1 ]; then
  cuda_args=()
  for candidate in "${CUDAToolkit_ROOT:-}" /usr/local/cuda /usr; do
    if [ -n "$candidate" ] && [ -f "$candidate/include/nvrtc.h" ]; then
      cuda_args=(-DCUDAToolkit_ROOT="$candidate"); break
    fi
  done
  launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS_DEBUG=-O1 -g1" \
    -DCMAKE_CXX_COMPILER="${FUZZ_CXX:-clang++}" -DJITVEC_FUZZ=ON -DJITVEC_BUILD_TESTS=OFF \
    -DJITVEC_BUILD_SAMPLES=OFF -DJITVEC_BUILD_BENCH=OFF -DJITVEC_BUILD_CLI=OFF \
    "${cuda_args[@]}" "${launcher[@]}" >/dev/null
  cmake --build "$build" -j"$(nproc)" --target "${targets[@]/#/fuzz_}"
fi

export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
failed=()
for t in "${targets[@]}"; do
  corpus=$scratch/corpus/$t
  mkdir -p "$corpus"
  dict=()
  [ -f "tests/fuzz/$t.dict" ] && dict=(-dict="tests/fuzz/$t.dict")
  echo "== fuzz_$t: ${seconds}s from tests/fuzz/corpus/$t"
  log=$scratch/$t.log
  rc=0
  "$build/tests/fuzz/fuzz_$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$artifacts/$t-" "${dict[@]}" \
    "$corpus" "tests/fuzz/corpus/$t" >"$log" 2>&1 || rc=$?
  if [ $rc = 0 ]; then
    echo "   ok: $(sed -n 's/^stat::number_of_executed_units: */executions /p' "$log")," \
         "$(ls "$corpus" | wc -l) new corpus inputs," \
         "$(grep -o 'cov: [0-9]*' "$log" | tail -1)"
  else
    failed+=("$t")
    echo "   FAILED (rc $rc); the report:"
    grep -v '^#[0-9]' "$log" | tail -n 60
    echo "   reproduce: $build/tests/fuzz/fuzz_$t $(ls "$artifacts/$t-"* 2>/dev/null | head -1)"
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: findings in ${failed[*]} (inputs kept in $artifacts)"
  exit 1
fi
