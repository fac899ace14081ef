#!/usr/bin/env bash
# The Python package's tests: installs what they need (pytest, Dask, distributed, xarray, from
# PyPI), builds and installs the package from ./python (pip; the same C++ library, built with
# ccache when there is one), then runs python/tests with pytest. GPU tests there skip without
# CuPy or a GPU. Run after scripts/setup.sh (which installs the C++ build's dependencies).
#   usage: bash scripts/test_python.sh [pytest arguments...]
set -euo pipefail
cd "$(dirname "$0")/.."
py=${PYTHON:-python3}
export PIP_BREAK_SYSTEM_PACKAGES=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_ROOT_USER_ACTION=ignore
"$py" -m pip install -q numpy pytest "dask[array]" distributed xarray
launcher=()
command -v ccache >/dev/null && launcher=(-C cmake.define.CMAKE_CXX_COMPILER_LAUNCHER=ccache)
"$py" -m pip install -q "${launcher[@]}" ./python
cd python/tests  # not the repository root: `import jitvec` must find the installed package
"$py" -m pytest -q -p no:cacheprovider "$@"
