#!/usr/bin/env bash
# The Python package's tests: installs what they need (pytest, Dask, distributed, xarray, from
# PyPI), builds and installs the package from ./python (pip; the same C++ library, built with
# ccache when there is one), then runs python/tests with pytest. GPU tests there skip without
# CuPy or a GPU. Run after scripts/setup.sh (which installs the C++ build's dependencies).
#   usage: bash scripts/test_python.sh [--offline] [pytest arguments...]
#   --offline: a machine without PyPI (the GPU machine): nothing is downloaded; the build uses
#   the installed nanobind and scikit-build-core (--no-build-isolation), the Debian packages in
#   .deps/ are unpacked as scripts/gpu_check.sh does, and the test dependencies must be there
#   already (Dask from .whl/ on PYTHONPATH, see the device notes).
set -euo pipefail
cd "$(dirname "$0")/.."
py=${PYTHON:-python3}
offline=0
if [ "${1:-}" = --offline ]; then offline=1; shift; fi
export PIP_BREAK_SYSTEM_PACKAGES=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_ROOT_USER_ACTION=ignore
build_args=()
command -v ccache >/dev/null && build_args+=(-C cmake.define.CMAKE_CXX_COMPILER_LAUNCHER=ccache)
if [ $offline = 1 ]; then
  deps=/tmp/jitvec-deps
  if [ -d .deps ]; then
    mkdir -p $deps
    for f in .deps/*.deb; do dpkg -x "$f" $deps; done
    build_args+=(-C "cmake.define.CMAKE_PREFIX_PATH=$deps/usr"
                 -C "cmake.define.CMAKE_CXX_FLAGS=-isystem $deps/usr/include")
  fi
  "$py" -m pip install -q --no-build-isolation --no-deps "${build_args[@]}" ./python
else
  "$py" -m pip install -q numpy pytest "dask[array]" distributed xarray
  "$py" -m pip install -q "${build_args[@]}" ./python
fi
cd python/tests  # not the repository root: `import jitvec` must find the installed package
"$py" -m pytest -q -p no:cacheprovider "$@"
