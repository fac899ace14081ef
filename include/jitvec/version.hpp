// jitvec/version.hpp: the library's version, which is also part of every cache key.
//
// The one place the version is written: CMakeLists.txt reads the three numbers below for
// project(VERSION), the shared library's soname, the CMake package version and jitvec.pc.
// A release changes them here (README "Releasing").
#pragma once

#define JITVEC_VERSION_MAJOR 0
#define JITVEC_VERSION_MINOR 1
#define JITVEC_VERSION_PATCH 0

#define JITVEC_DETAIL_STRINGIZE2(x) #x
#define JITVEC_DETAIL_STRINGIZE(x) JITVEC_DETAIL_STRINGIZE2(x)
/// "0.1.0"
#define JITVEC_VERSION_STRING                    \
  JITVEC_DETAIL_STRINGIZE(JITVEC_VERSION_MAJOR) "." \
  JITVEC_DETAIL_STRINGIZE(JITVEC_VERSION_MINOR) "." \
  JITVEC_DETAIL_STRINGIZE(JITVEC_VERSION_PATCH)

namespace jitvec {
inline constexpr const char* kVersion = JITVEC_VERSION_STRING;
}
