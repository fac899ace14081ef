#include "compile/compile_time_limit.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>

#include "core/log.hpp"

namespace jitvec::compile {

CompileTimeLimit parse_compile_time_limit(const char* value) {
  const std::chrono::duration<double> fallback(kDefaultCompileTimeLimitSeconds);
  if (value == nullptr || *value == '\0') return {fallback, {}};
  char* end = nullptr;
  const double seconds = std::strtod(value, &end);
  while (end != nullptr && (*end == ' ' || *end == '\t')) ++end;
  if (end == value || end == nullptr || *end != '\0' || !std::isfinite(seconds) || seconds < 0) {
    return {fallback,
            fmt::format("JITVEC_COMPILE_TIMEOUT='{}' is not a number of seconds (0 for no limit); "
                        "using the default of {} s",
                        value, kDefaultCompileTimeLimitSeconds)};
  }
  if (seconds == 0) return {std::nullopt, {}};
  return {std::chrono::duration<double>(seconds), {}};
}

std::optional<std::chrono::duration<double>> compile_time_limit() {
  const char* value = std::getenv("JITVEC_COMPILE_TIMEOUT");
  CompileTimeLimit parsed = parse_compile_time_limit(value);
  if (!parsed.warning.empty()) {
    jitvec::detail::warn_once(std::string("JITVEC_COMPILE_TIMEOUT=") + value, parsed.warning);
  }
  return parsed.limit;
}

}  // namespace jitvec::compile
