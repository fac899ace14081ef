// bench/results.hpp: what a benchmark measured, as JSON for bench/report.py and as a table.
//
// Every measurement is one Record: which case, which system ran it ("jitvec", or "ceiling" for
// the hardware references measured in the same run), the element count and dtype, the median
// time, the bytes the case moves (read + written), the bandwidth, the ceiling it is compared
// with and the ratio between the two, and whether its output was checked against a float64
// reference. `ratio_meaning` says which way the ratio reads: "gbps/ceiling_gbps" (bandwidth
// cases, higher is better), "time/ceiling_time" (host cost of a call against a bare launch,
// lower is better) or "ceiling_time/time" (a speed-up over a baseline, higher is better).
// A Results file is {"metadata": {...}, "records": [...]}; report.py merges several.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace bench {

inline constexpr const char* kRatioBandwidth = "gbps/ceiling_gbps";
inline constexpr const char* kRatioTimeOverCeiling = "time/ceiling_time";
inline constexpr const char* kRatioSpeedup = "ceiling_time/time";

struct Record {
  Record() = default;
  Record(std::string case_name, std::string system, std::int64_t n, std::string dtype)
      : case_name(std::move(case_name)), system(std::move(system)), n(n), dtype(std::move(dtype)) {}

  std::string case_name;
  std::string system = "jitvec";
  std::int64_t n = 0;
  std::string dtype;
  double time_ms = 0.0;  ///< median time of one call (or one copy)
  double bytes = 0.0;    ///< bytes read + written by one call; 0 when bandwidth means nothing
  double gbps = 0.0;     ///< bytes / time, in 1e9 bytes a second; 0 when bytes is 0
  std::string ceiling_name;
  double ceiling_gbps = 0.0;
  double ceiling_time_ms = 0.0;
  double ratio = 0.0;
  std::string ratio_meaning;
  /// Whether the output matched the float64 reference; written as null when the record has no
  /// output to check (`has_output` false: ceilings, start-up phases checked elsewhere).
  bool verified = false;
  bool has_output = true;
  std::string method;  ///< how it was timed, in words
  std::string error;   ///< why the case failed; empty when it ran
  /// Further named figures (repetition counts, sub-phase times, the worst errors found).
  std::vector<std::pair<std::string, double>> extra;

  /// Sets gbps from bytes and time_ms.
  void set_bandwidth(double bytes_moved, double median_ms);
  /// Compares with a bandwidth ceiling: ratio = gbps / ceiling.
  void compare_bandwidth(std::string name, double ceiling);
  /// Compares with a reference time: ratio = time / reference (`kRatioTimeOverCeiling`) or
  /// reference / time (`kRatioSpeedup`).
  void compare_time(std::string name, double reference_ms, const char* meaning);
};

class Results {
 public:
  /// Adds a metadata entry (a string, or a number kept as the text given).
  void set_metadata(const std::string& key, const std::string& value);
  void set_metadata_number(const std::string& key, double value);
  void add(Record record);
  const std::vector<Record>& records() const { return records_; }

  /// Writes {"metadata": ..., "records": [...]} to `file`; throws std::runtime_error naming the
  /// file when it cannot be written.
  void write_json(const std::filesystem::path& file) const;
  /// One line per record: case, system, n, dtype, time, GB/s, ceiling, ratio, verified.
  void print_table() const;
  /// Whether every record ran without error and, where it has an output, was verified.
  bool all_passed_checks() const;

 private:
  std::vector<std::pair<std::string, std::string>> metadata_;  // values are JSON already
  std::vector<Record> records_;
};

/// Today's date and time in UTC, ISO 8601.
std::string utc_timestamp();
/// The CPU's model name from /proc/cpuinfo, or "unknown".
std::string cpu_model();
/// "12.2.0" etc.: the compiler this benchmark was built with.
std::string build_compiler();

}  // namespace bench
