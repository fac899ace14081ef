// src/cli/accuracy_format.hpp: how `jitvec check` writes accuracy reports (jitvec/accuracy.hpp):
// a few lines per report for people, or one JSON document for scripts.
//
// Values are written with as many digits as their dtype needs to round-trip (5 for float16, 9
// for float32, 17 for float64), so an input copied from the text is the point itself. In JSON
// a number that JSON cannot hold (NaN, an infinity) is the string "nan", "inf" or "-inf".
#pragma once

#include <string>
#include <vector>

#include "jitvec/accuracy.hpp"

namespace jitvec::cli {

/// One ufunc's outcome: its reports, or why it has none.
struct CheckedUfunc {
  std::string name;
  std::vector<AccuracyReport> reports;
  std::string error;  // non-empty: the ufunc could not be measured
};

/// The text of one report: a heading line and indented lines of numbers.
std::string report_text(const AccuracyReport& report);

/// Every ufunc's reports as one JSON document.
std::string reports_json(const std::vector<CheckedUfunc>& checked);

}  // namespace jitvec::cli
