#include "core/log.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>

#include <cctype>
#include <cstdlib>
#include <mutex>
#include <set>
#include <utility>

namespace jitvec::detail {

std::optional<spdlog::level::level_enum> parse_log_level(std::string_view text) {
  static constexpr std::pair<std::string_view, spdlog::level::level_enum> kNames[] = {
      {"trace", spdlog::level::trace}, {"debug", spdlog::level::debug},
      {"info", spdlog::level::info},   {"warn", spdlog::level::warn},
      {"warning", spdlog::level::warn}, {"error", spdlog::level::err},
      {"err", spdlog::level::err},     {"critical", spdlog::level::critical},
      {"off", spdlog::level::off},
  };
  std::string lower;
  for (char c : text) lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  for (const auto& [name, level] : kNames) {
    if (name == lower) return level;
  }
  return std::nullopt;
}

spdlog::logger& log() {
  // Never destroyed: destructors of other statics (an Engine unloading modules at exit) may
  // still log after this function's statics would be gone.
  static spdlog::logger* logger = [] {
    auto* made = new spdlog::logger("jitvec", std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
    made->set_pattern("[jitvec] [%l] %v");
    made->set_level(spdlog::level::warn);
    if (const char* env = std::getenv("JITVEC_LOG_LEVEL"); env && *env) {
      if (auto level = parse_log_level(env)) {
        made->set_level(*level);
      } else {
        made->warn("JITVEC_LOG_LEVEL='{}' is not a log level (trace, debug, info, warn, error, "
                   "critical, off); using warn",
                   env);
      }
    }
    return made;
  }();
  return *logger;
}

void warn_once(const std::string& key, const std::string& message) {
  static auto* mutex = new std::mutex;  // never destroyed, as the logger
  static auto* seen = new std::set<std::string>;
  {
    std::lock_guard<std::mutex> lock(*mutex);
    if (!seen->insert(key).second) return;
  }
  log().warn("{}", message);
}

}  // namespace jitvec::detail
