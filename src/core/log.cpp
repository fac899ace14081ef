#include "core/log.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>

#include <cstdlib>
#include <mutex>
#include <set>

namespace jitvec::detail {

spdlog::logger& log() {
  static std::shared_ptr<spdlog::logger> logger = [] {
    auto made = spdlog::stderr_color_mt("jitvec");
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
  static std::mutex mutex;
  static std::set<std::string> seen;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (!seen.insert(key).second) return;
  }
  log().warn("{}", message);
}

}  // namespace jitvec::detail
