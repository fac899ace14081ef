#!/usr/bin/env bash
# Regenerates the golden generated sources under tests/golden/ after an intended change to
# the kernels (src/kernels) or the code generator (src/codegen); review `git diff tests/golden`
# and commit the files with the change.
#   usage: bash scripts/update_golden.sh [BUILD_DIR]   (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
cmake --build "$build" --target jitvec_tests
JITVEC_UPDATE_GOLDEN=1 "$build/tests/jitvec_tests" "[golden]"
git status --short tests/golden
