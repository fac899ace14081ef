// jitvec/version.hpp: the library's version, which is also part of every cache key.
#pragma once

#define JITVEC_VERSION_MAJOR 0
#define JITVEC_VERSION_MINOR 1
#define JITVEC_VERSION_PATCH 0
#define JITVEC_VERSION_STRING "0.1.0"

namespace jitvec {
inline constexpr const char* kVersion = JITVEC_VERSION_STRING;
}
