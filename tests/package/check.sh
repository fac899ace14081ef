#!/usr/bin/env bash
# Installs the built jitvec into a temporary prefix, builds tests/package against it with
# find_package, and runs it.   usage: check.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 source=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
cmake -S "$source/tests/package" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$work/prefix" \
      -DCUDAToolkit_ROOT="${CUDAToolkit_ROOT:-/usr/local/cuda}" >/dev/null
cmake --build "$work/consumer" >/dev/null
"$work/consumer/consumer"
