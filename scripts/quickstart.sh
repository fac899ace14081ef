#!/usr/bin/env bash
# The README's first command, in four steps, each under a banner: install the dependencies,
# build into build/, precompile the samples' kernels into kernels_cache/, and run the three
# samples and the tour: on the GPU when there is one, else on the cpu target (the reason there
# is no GPU is printed once, in one line). Ends with a summary: what ran, where, how long, and
# each program's verdict. Exits non-zero when a step or a sample failed.
set -euo pipefail
cd "$(dirname "$0")/.."

steps=4
summary=()
started_all=$(date +%s.%N)

banner() { printf '\n==> [%s/%s] %s\n' "$1" "$steps" "$2"; }
seconds_since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }
# Adds "<step>  <seconds> s  <what>" to the summary.
note() { summary+=("$(printf '%-15s %7s s  %s' "$1" "$(seconds_since "$2")" "$3")"); }

banner 1 "dependencies (Debian packages, CUDA toolkit headers)"
t=$(date +%s.%N)
bash scripts/setup.sh deps
note dependencies "$t" "apt packages present (scripts/setup.sh)"

banner 2 "build (build/)"
t=$(date +%s.%N)
bash scripts/setup.sh build
note build "$t" "library, command, samples, tests in $PWD/build"

export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:-}:/usr/local/cuda/lib64"
info=$(build/jitvec info --json 2>/dev/null || true)
if ! grep -q '"ordinal"' <<<"$info"; then  # no GPU listed
  # The driver's reason, up to its advice: "no CUDA driver: libcuda.so.1 could not be loaded (...)".
  why=$(sed -n 's/.*"problem" *: *"\([^;"]*\).*/\1/p' <<<"$info" | head -1)
  echo "no GPU: ${why:-the CUDA driver sees no device}; running on the cpu target"
  target=cpu
  compile_args=(--target cpu)
else
  target=cuda
  compile_args=()
fi

banner 3 "precompile the samples' kernels (kernels_cache/, target $target)"
t=$(date +%s.%N)
build/jitvec compile samples/*.toml "${compile_args[@]}" --cache-dir kernels_cache
note precompile "$t" "samples/*.toml for $target into $PWD/kernels_cache"

banner 4 "samples (target $target, loops from kernels_cache/)"
export JITVEC_CACHE_PATH="$PWD/kernels_cache"
failed=0
for program in gaussian_pdf polar_distance zero_suppress tour; do
  echo; echo "-- $program --"
  t=$(date +%s.%N)
  args=()
  [ "$program" != tour ] && args=(--target "$target")
  if build/samples/"$program" "${args[@]}"; then verdict=PASS; else verdict=FAIL; failed=1; fi
  note "$program" "$t" "$verdict"
done

echo
echo "==> summary (target $target; total $(seconds_since "$started_all") s)"
printf '  %s\n' "${summary[@]}"
echo "  tests: ctest --test-dir build --output-on-failure && bash scripts/test_python.sh"
exit $failed
