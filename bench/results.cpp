#include "results.hpp"

#include <fmt/format.h>

#include <cmath>
#include <ctime>
#include <fstream>
#include <stdexcept>

namespace bench {
namespace {

// JSON has no library among the project's dependencies; what is written here is flat (strings,
// numbers, booleans, one level of objects), so escaping strings is all there is to it.
std::string json_string(const std::string& text) {
  std::string quoted = "\"";
  for (const char c : text) {
    switch (c) {
      case '"':
        quoted += "\\\"";
        break;
      case '\\':
        quoted += "\\\\";
        break;
      case '\n':
        quoted += "\\n";
        break;
      case '\r':
        quoted += "\\r";
        break;
      case '\t':
        quoted += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          quoted += fmt::format("\\u{:04x}", static_cast<unsigned>(static_cast<unsigned char>(c)));
        } else {
          quoted += c;
        }
    }
  }
  return quoted + "\"";
}

// Shortest round-tripping text; NaN and infinities (not JSON) become null.
std::string json_number(double value) {
  return std::isfinite(value) ? fmt::format("{}", value) : std::string("null");
}

std::string record_json(const Record& r) {
  std::string extra;
  for (const auto& [key, value] : r.extra) {
    if (!extra.empty()) extra += ", ";
    extra += json_string(key) + ": " + json_number(value);
  }
  return fmt::format(
      "{{\"case\": {}, \"system\": {}, \"n\": {}, \"dtype\": {}, \"time_ms\": {}, \"bytes\": {}, "
      "\"gbps\": {}, \"ceiling_name\": {}, \"ceiling_gbps\": {}, \"ceiling_time_ms\": {}, "
      "\"ratio\": {}, \"ratio_meaning\": {}, \"verified\": {}, \"method\": {}, \"error\": {}, "
      "\"extra\": {{{}}}}}",
      json_string(r.case_name), json_string(r.system), r.n, json_string(r.dtype),
      json_number(r.time_ms), json_number(r.bytes), json_number(r.gbps),
      json_string(r.ceiling_name), json_number(r.ceiling_gbps), json_number(r.ceiling_time_ms),
      json_number(r.ratio), json_string(r.ratio_meaning),
      r.has_output ? (r.verified ? "true" : "false") : "null", json_string(r.method),
      r.error.empty() ? std::string("null") : json_string(r.error), extra);
}

// "2^28" for powers of two, else the number.
std::string count_text(std::int64_t n) {
  if (n > 0 && (n & (n - 1)) == 0) {
    int log2 = 0;
    while ((std::int64_t{1} << log2) < n) ++log2;
    return fmt::format("2^{}", log2);
  }
  return fmt::format("{}", n);
}

std::string time_text(double ms) {
  if (ms <= 0.0 || !std::isfinite(ms)) return "-";
  if (ms < 1.0) return fmt::format("{:.2f} us", ms * 1000.0);
  if (ms < 1000.0) return fmt::format("{:.3f} ms", ms);
  return fmt::format("{:.2f} s", ms / 1000.0);
}

}  // namespace

void Record::set_bandwidth(double bytes_moved, double median_ms) {
  bytes = bytes_moved;
  time_ms = median_ms;
  gbps = (bytes > 0.0 && time_ms > 0.0) ? bytes / (time_ms * 1e-3) / 1e9 : 0.0;
}

void Record::compare_bandwidth(std::string name, double ceiling) {
  ceiling_name = std::move(name);
  ceiling_gbps = ceiling;
  ratio = ceiling > 0.0 ? gbps / ceiling : 0.0;
  ratio_meaning = kRatioBandwidth;
}

void Record::compare_time(std::string name, double reference_ms, const char* meaning) {
  ceiling_name = std::move(name);
  ceiling_time_ms = reference_ms;
  ratio_meaning = meaning;
  if (std::string(meaning) == kRatioSpeedup) {
    ratio = time_ms > 0.0 ? reference_ms / time_ms : 0.0;
  } else {
    ratio = reference_ms > 0.0 ? time_ms / reference_ms : 0.0;
  }
}

void Results::set_metadata(const std::string& key, const std::string& value) {
  metadata_.emplace_back(key, json_string(value));
}

void Results::set_metadata_number(const std::string& key, double value) {
  metadata_.emplace_back(key, json_number(value));
}

void Results::add(Record record) { records_.push_back(std::move(record)); }

void Results::write_json(const std::filesystem::path& file) const {
  std::string text = "{\n  \"metadata\": {";
  for (std::size_t i = 0; i < metadata_.size(); ++i) {
    text += fmt::format("{}\n    {}: {}", i ? "," : "", json_string(metadata_[i].first),
                        metadata_[i].second);
  }
  text += "\n  },\n  \"records\": [";
  for (std::size_t i = 0; i < records_.size(); ++i) {
    text += fmt::format("{}\n    {}", i ? "," : "", record_json(records_[i]));
  }
  text += "\n  ]\n}\n";
  std::ofstream stream(file, std::ios::binary | std::ios::trunc);
  stream << text;
  stream.close();
  if (!stream) {
    throw std::runtime_error(fmt::format("cannot write the results file {}", file.string()));
  }
}

void Results::print_table() const {
  fmt::print("{:<26} {:<16} {:>6} {:<8} {:>11} {:>9} {:<22} {:>11} {:>7} {}\n", "case", "system",
             "n", "dtype", "time", "GB/s", "ceiling", "ceiling", "ratio", "verified");
  for (const Record& r : records_) {
    const std::string ceiling_value = r.ceiling_gbps > 0.0
                                          ? fmt::format("{:.1f} GB/s", r.ceiling_gbps)
                                          : time_text(r.ceiling_time_ms);
    const std::string verdict = !r.error.empty() ? "ERROR"
                                : !r.has_output  ? "-"
                                : r.verified     ? "yes"
                                                 : "NO";
    fmt::print("{:<26} {:<16} {:>6} {:<8} {:>11} {:>9} {:<22} {:>11} {:>7} {}\n", r.case_name,
               r.system, count_text(r.n), r.dtype, time_text(r.time_ms),
               r.gbps > 0.0 ? fmt::format("{:.1f}", r.gbps) : "-", r.ceiling_name,
               r.ceiling_name.empty() ? "" : ceiling_value,
               r.ratio > 0.0 ? fmt::format("{:.3f}", r.ratio) : "-", verdict);
    if (!r.error.empty()) fmt::print("    error: {}\n", r.error);
  }
}

bool Results::all_passed_checks() const {
  for (const Record& r : records_) {
    if (!r.error.empty() || (r.has_output && !r.verified)) return false;
  }
  return true;
}

std::string utc_timestamp() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

std::string cpu_model() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(" \t", colon + 1));
    }
  }
  return "unknown";
}

std::string build_compiler() {
#if defined(__clang__)
  return std::string("clang ") + __clang_version__;
#elif defined(__GNUC__)
  return std::string("g++ ") + __VERSION__;
#else
  return "unknown";
#endif
}

}  // namespace bench
