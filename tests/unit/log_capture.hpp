// tests/unit/log_capture.hpp: records what jitvec logs while a LogCapture exists, so that
// tests can check the warnings (and, if asked, the debug messages) a call gives.
#pragma once

#include <spdlog/sinks/base_sink.h>

#include <algorithm>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "core/log.hpp"

namespace jitvec_test {

/// Records what jitvec logs while it exists; at debug level if asked.
class LogCapture {
 public:
  explicit LogCapture(bool debug = false)
      : sink_(std::make_shared<RecordingSink>()), saved_level_(jitvec::detail::log().level()) {
    jitvec::detail::log().sinks().push_back(sink_);
    if (debug) jitvec::detail::log().set_level(spdlog::level::debug);
  }
  ~LogCapture() {
    auto& sinks = jitvec::detail::log().sinks();
    sinks.erase(std::remove(sinks.begin(), sinks.end(), sink_), sinks.end());
    jitvec::detail::log().set_level(saved_level_);
  }
  LogCapture(const LogCapture&) = delete;
  LogCapture& operator=(const LogCapture&) = delete;

  /// How many messages of `level` contain every one of `parts`.
  int count(spdlog::level::level_enum level, std::initializer_list<std::string> parts) const {
    int n = 0;
    for (const auto& [record_level, text] : sink_->records()) {
      if (record_level != level) continue;
      if (std::all_of(parts.begin(), parts.end(),
                      [&](const std::string& p) { return text.find(p) != std::string::npos; })) {
        ++n;
      }
    }
    return n;
  }
  int warnings(std::initializer_list<std::string> parts) const {
    return count(spdlog::level::warn, parts);
  }

 private:
  class RecordingSink : public spdlog::sinks::base_sink<std::mutex> {
   public:
    std::vector<std::pair<spdlog::level::level_enum, std::string>> records() {
      const std::lock_guard<std::mutex> lock(mutex_);
      return records_;
    }

   protected:
    void sink_it_(const spdlog::details::log_msg& message) override {
      records_.emplace_back(message.level,
                            std::string(message.payload.data(), message.payload.size()));
    }
    void flush_() override {}

   private:
    std::vector<std::pair<spdlog::level::level_enum, std::string>> records_;
  };

  std::shared_ptr<RecordingSink> sink_;
  spdlog::level::level_enum saved_level_;
};

}  // namespace jitvec_test
