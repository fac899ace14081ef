#include "cli/accuracy_format.hpp"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <cmath>
#include <sstream>

namespace jitvec::cli {
namespace {

int digits(DType t) {
  switch (t) {
    case DType::float16: return 5;
    case DType::bfloat16: return 4;
    case DType::float32: return 9;
    default: return 17;
  }
}

std::string value_text(double v, DType t) { return fmt::format("{:.{}g}", v, digits(t)); }

// "x=1.5, mean=0, sigma=2"
std::string inputs_text(const AccuracyReport& report, const AccuracyPoint& point) {
  std::string text;
  for (std::size_t k = 0; k < point.inputs.size(); ++k) {
    text += fmt::format("{}{}={}", k ? ", " : "", report.ranges[k].input,
                        value_text(point.inputs[k], report.loop.args[k]));
  }
  return text;
}

std::string point_text(const AccuracyReport& report, const AccuracyPoint& point) {
  const DType result = report.loop.results[static_cast<std::size_t>(report.output)];
  return fmt::format("{} (result {}, reference {})", inputs_text(report, point),
                     value_text(point.result, result),
                     value_text(point.reference, result == DType::float32 ? DType::float64 : DType::float32));
}

std::string examples_text(const AccuracyReport& report, std::size_t count,
                          const std::vector<AccuracyPoint>& examples) {
  if (count == 0) return "none";
  std::string text = fmt::format("{} point{}; first:", count, count == 1 ? "" : "s");
  for (const AccuracyPoint& point : examples) text += "\n      " + point_text(report, point);
  return text;
}

std::string heading(const AccuracyReport& report) {
  std::string text = fmt::format("{} {}", report.ufunc, report.loop.to_string());
  if (report.loop.nout() > 1) text += fmt::format(" result {}", report.output);
  return text + fmt::format(" on {}", target_name(report.target));
}

// A double as JSON holds it: a number, or "nan", "inf", "-inf".
void insert_number(toml::table& table, std::string_view key, double v) {
  if (std::isfinite(v)) {
    table.insert(key, v);
  } else {
    table.insert(key, std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
  }
}

toml::array numbers(const std::vector<double>& values) {
  toml::array array;
  for (double v : values) {
    if (std::isfinite(v)) {
      array.push_back(v);
    } else {
      array.push_back(std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
    }
  }
  return array;
}

toml::table point_json(const AccuracyPoint& point) {
  toml::table table{{"inputs", numbers(point.inputs)}};
  insert_number(table, "result", point.result);
  insert_number(table, "reference", point.reference);
  return table;
}

toml::array points_json(const std::vector<AccuracyPoint>& points) {
  toml::array array;
  for (const AccuracyPoint& point : points) array.push_back(point_json(point));
  return array;
}

toml::table report_json(const AccuracyReport& report) {
  toml::table table{{"loop", report.loop.to_string()},
                    {"output", report.output},
                    {"target", std::string(target_name(report.target))}};
  if (!report.unavailable.empty()) {
    table.insert("unavailable", report.unavailable);
    return table;
  }
  toml::array ranges, histogram, curves;
  for (const InputRange& range : report.ranges) {
    ranges.push_back(toml::table{{"input", range.input}, {"low", range.low}, {"high", range.high}});
  }
  for (const UlpBucket& bucket : report.histogram) {
    toml::table row{{"low_ulps", bucket.low_ulps}, {"count", static_cast<std::int64_t>(bucket.count)}};
    insert_number(row, "high_ulps", bucket.high_ulps);
    histogram.push_back(std::move(row));
  }
  for (const AccuracyCurve& curve : report.curves) {
    curves.push_back(toml::table{{"input", curve.input},
                                 {"low", curve.low},
                                 {"high", curve.high},
                                 {"max_ulps", numbers(curve.max_ulps)}});
  }
  table.insert("reference", report.reference);
  table.insert("ranges", std::move(ranges));
  table.insert("points", static_cast<std::int64_t>(report.points));
  table.insert("compared", static_cast<std::int64_t>(report.compared));
  table.insert("max_ulps", report.max_ulps);
  table.insert("max_ulps_at", point_json(report.max_ulps_at));
  table.insert("max_relative", report.max_relative);
  table.insert("max_relative_at", point_json(report.max_relative_at));
  table.insert("median_ulps", report.median_ulps);
  table.insert("p99_ulps", report.p99_ulps);
  table.insert("p999_ulps", report.p999_ulps);
  table.insert("histogram", std::move(histogram));
  table.insert("unexpected_nonfinite", static_cast<std::int64_t>(report.unexpected_nonfinite));
  table.insert("unexpected_examples", points_json(report.unexpected_examples));
  table.insert("missing_nonfinite", static_cast<std::int64_t>(report.missing_nonfinite));
  table.insert("missing_examples", points_json(report.missing_examples));
  table.insert("curves", std::move(curves));
  return table;
}

}  // namespace

std::string report_text(const AccuracyReport& report) {
  if (!report.unavailable.empty()) return fmt::format("{}: no report: {}\n", heading(report), report.unavailable);
  std::string ranges;
  for (const InputRange& range : report.ranges) {
    ranges += fmt::format("{}{} [{:g}, {:g}]", ranges.empty() ? "" : ", ", range.input, range.low, range.high);
  }
  std::string histogram;
  for (const UlpBucket& bucket : report.histogram) {
    const std::string label = bucket.high_ulps == bucket.low_ulps + 1
                                  ? fmt::format("{:g}", bucket.low_ulps)
                                  : std::isinf(bucket.high_ulps) ? fmt::format(">={:g}", bucket.low_ulps)
                                                                 : fmt::format("{:g}-{:g}", bucket.low_ulps,
                                                                               bucket.high_ulps - 1);
    histogram += fmt::format("{}{}: {}", histogram.empty() ? "" : ", ", label, bucket.count);
  }
  std::string text = fmt::format("{} against {} on cpu\n", heading(report), report.reference);
  text += fmt::format("  ranges: {}; {} points, {} compared\n", ranges, report.points, report.compared);
  text += fmt::format("  max error: {:g} ulps at {}\n", report.max_ulps, point_text(report, report.max_ulps_at));
  text += fmt::format("  max relative error: {:.3g} at {}\n", report.max_relative,
                      point_text(report, report.max_relative_at));
  text += fmt::format("  ulps: median {:g}, 99% {:g}, 99.9% {:g}; by error: {}\n", report.median_ulps,
                      report.p99_ulps, report.p999_ulps, histogram);
  text += fmt::format("  NaN/inf the reference does not give: {}\n",
                      examples_text(report, report.unexpected_nonfinite, report.unexpected_examples));
  text += fmt::format("  NaN/inf only the reference gives: {}\n",
                      examples_text(report, report.missing_nonfinite, report.missing_examples));
  return text;
}

std::string reports_json(const std::vector<CheckedUfunc>& checked) {
  toml::array ufuncs;
  for (const CheckedUfunc& one : checked) {
    toml::array reports;
    for (const AccuracyReport& report : one.reports) reports.push_back(report_json(report));
    toml::table table{{"ufunc", one.name}, {"reports", std::move(reports)}};
    if (!one.error.empty()) table.insert("error", one.error);
    ufuncs.push_back(std::move(table));
  }
  std::ostringstream out;
  out << toml::json_formatter(toml::table{{"ufuncs", std::move(ufuncs)}}) << "\n";
  return out.str();
}

}  // namespace jitvec::cli
