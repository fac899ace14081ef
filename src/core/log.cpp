#include "core/log.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>

#include <cstdlib>
#include <mutex>
#include <set>

namespace jitvec::detail {

spdlog::logger& log() {
  // Never destroyed: destructors of other statics (an Engine unloading modules at exit) may
  // still log after this function's statics would be gone.
  static spdlog::logger* logger = [] {
    auto* made = new spdlog::logger("jitvec", std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
    made->set_pattern("[jitvec] [%l] %v");
    spdlog::level::level_enum level = spdlog::level::warn;
    if (const char* env = std::getenv("JITVEC_LOG_LEVEL"); env && *env) {
      level = spdlog::level::from_str(env);  // unknown names give "off"
    }
    made->set_level(level);
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
