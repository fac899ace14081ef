// src/core/log.hpp: jitvec's logger.
//
// One spdlog logger named "jitvec", writing to stderr, whose level comes from JITVEC_LOG_LEVEL
// (trace, debug, info, warn, error, critical, off, in any case; default warn). A value that
// is not one of those is warned about, naming it, and the default applies: a misspelling must
// not silence every warning. Every layer logs through log(). warn_once() emits a warning the
// first time a given key is seen in the process, for conditions that would otherwise repeat on
// every call (a read-only cache folder, say).
#pragma once

#include <spdlog/spdlog.h>

#include <optional>
#include <string>
#include <string_view>

namespace jitvec::detail {

spdlog::logger& log();
/// Logs `message` as a warning unless a warning with the same `key` was logged before.
void warn_once(const std::string& key, const std::string& message);

/// The level a JITVEC_LOG_LEVEL value names ("warning" and "err" are accepted too), or
/// nullopt for anything else.
std::optional<spdlog::level::level_enum> parse_log_level(std::string_view text);

}  // namespace jitvec::detail
