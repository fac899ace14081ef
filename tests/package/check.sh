#!/usr/bin/env bash
# jitvec consumed as a user's project would, in a temporary folder (ctest entries jitvec_package*).
#   usage: check.sh BUILD_DIR SOURCE_DIR CXX MODE
# MODE installed: `cmake --install BUILD_DIR` into a prefix, then check the installed files
#   (soname, the command's RPATH, exported targets free of build-machine paths, C++17 required)
#   and build tests/package/consumer.cpp with find_package(jitvec) and with pkg-config; each
#   must run on the cpu target without loading NVRTC, and not link it.
# MODE add_subdirectory | fetchcontent: build the consumer with jitvec as a subproject (from an
#   archive of SOURCE_DIR's files, as a user's copy would be). Both lay the sources out alike, so
#   with ccache the second compiles little; -O0 keeps the first short.
set -euo pipefail
build=$1 source=$2 cxx=$3 mode=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "check.sh ($mode): $*" >&2; exit 1; }

# Fails when `binary` would load libnvrtc or libcuda when it starts.
check_links_no_cuda() {
  local found
  found=$(ldd "$1" | grep -E 'libnvrtc|libcuda' || true)
  [ -z "$found" ] || fail "$1 links CUDA libraries:"$'\n'"$found"
}

case $mode in
installed)
  prefix=$work/prefix
  cmake --install "$build" --prefix "$prefix" >/dev/null
  libdir=$(dirname "$(find "$prefix" -name 'jitvecConfig.cmake' | head -1)")/../..
  libdir=$(cd "$libdir" && pwd)
  targets=$(cat "$libdir"/cmake/jitvec/jitvecTargets*.cmake)
  # Exported targets: relocatable, C++17, nothing of the build machine's toolchain.
  grep -q 'INTERFACE_COMPILE_FEATURES "cxx_std_17"' <<<"$targets" ||
    fail "the exported jitvec::jitvec does not require cxx_std_17"
  for path in "$source" "$build" "$cxx" /usr/local/cuda "${CUDAToolkit_ROOT:-/usr/local/cuda}"; do
    if grep -n "INTERFACE.*$path" <<<"$targets"; then fail "exported targets name $path"; fi
  done
  if [ -e "$libdir/libjitvec.so" ]; then
    soname=$(readelf -d "$libdir/libjitvec.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
    [[ $soname =~ ^libjitvec\.so\.[0-9]+\.[0-9]+$ ]] || fail "libjitvec.so's SONAME is '$soname'"
    [ -e "$libdir/$soname" ] || fail "$soname is not installed"
    check_links_no_cuda "$libdir/libjitvec.so"
    echo "check.sh: $soname, linked without libnvrtc and libcuda"
  fi
  if [ -x "$prefix/bin/jitvec" ]; then
    readelf -d "$prefix/bin/jitvec" | grep -Eq 'R(UN)?PATH.*\$ORIGIN/\.\./lib' ||
      fail "the installed jitvec command has no \$ORIGIN/../lib RPATH"
    env -u LD_LIBRARY_PATH "$prefix/bin/jitvec" --version || fail "the installed command does not run"
  fi
  # find_package
  cmake -S "$source/tests/package" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$prefix" \
        -DCMAKE_CXX_COMPILER="$cxx" >/dev/null
  cmake --build "$work/consumer" >/dev/null
  check_links_no_cuda "$work/consumer/consumer"
  env -u LD_LIBRARY_PATH "$work/consumer/consumer"
  # pkg-config
  export PKG_CONFIG_PATH=$libdir/pkgconfig
  [ "$(pkg-config --modversion jitvec)" = "$(sed -n 's/^Version: //p' "$libdir/pkgconfig/jitvec.pc")" ]
  flags=$(pkg-config --cflags --libs jitvec)
  [ -e "$libdir/libjitvec.so" ] || flags=$(pkg-config --static --cflags --libs jitvec)
  # shellcheck disable=SC2086
  "$cxx" -std=c++17 "$source/tests/package/consumer.cpp" -o "$work/pc_consumer" $flags \
         -Wl,-rpath,"$libdir"
  check_links_no_cuda "$work/pc_consumer"
  env -u LD_LIBRARY_PATH "$work/pc_consumer"
  echo "check.sh: pkg-config: $flags"
  ;;
add_subdirectory | fetchcontent)
  # A copy of the sources as a user would have them: the files, without build folders.
  mkdir -p "$work/deps/jitvec-src"
  tar -C "$source" --exclude='./build*' --exclude=./kernels_cache --exclude=./.git \
      --exclude=./python -czf "$work/jitvec.tar.gz" .
  launcher=()
  if command -v ccache >/dev/null; then
    export CCACHE_BASEDIR=$work CCACHE_NOHASHDIR=true
    launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  fi
  if [ "$mode" = add_subdirectory ]; then
    tar -C "$work/deps/jitvec-src" -xzf "$work/jitvec.tar.gz"
    how=(-DJITVEC_CONSUME=add_subdirectory -DJITVEC_SOURCE="$work/deps/jitvec-src"
         -DJITVEC_BINARY="$work/deps/jitvec-build")
  else
    how=(-DJITVEC_CONSUME=fetchcontent -DJITVEC_URL="file://$work/jitvec.tar.gz"
         -DFETCHCONTENT_BASE_DIR="$work/deps")
  fi
  cmake -S "$source/tests/package" -B "$work/consumer" -G Ninja "${how[@]}" "${launcher[@]}" \
        -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-O0 \
        -DCUDAToolkit_ROOT="${CUDAToolkit_ROOT:-/usr/local/cuda}" >/dev/null
  cmake --build "$work/consumer" -j"$(nproc)" >/dev/null
  check_links_no_cuda "$work/consumer/consumer"
  "$work/consumer/consumer"
  ;;
*)
  fail "unknown mode (installed, add_subdirectory or fetchcontent)"
  ;;
esac
