// src/core/log.hpp: jitvec's logger.
//
// One spdlog logger named "jitvec", writing to stderr, whose level comes from JITVEC_LOG_LEVEL
// (trace, debug, info, warn, error, off; default warn). Every layer logs through log().
// warn_once() emits a warning the first time a given key is seen in the process, for
// conditions that would otherwise repeat on every call (a read-only cache folder, say).
#pragma once

#include <spdlog/spdlog.h>

#include <string>

namespace jitvec::detail {

spdlog::logger& log();
/// Logs `message` as a warning unless a warning with the same `key` was logged before.
void warn_once(const std::string& key, const std::string& message);

}  // namespace jitvec::detail
