// src/cli/error_plot_svg.hpp: a picture of where a loop is inaccurate, for `jitvec check --svg`.
//
// One panel per input, stacked: the largest error in ulps (a log scale: 0, 1, 10, 100, ...
// ulps) of each bin of that input's range, over the range, as bars, from the report's curves
// (AccuracyCurve: the points where that input was swept). The title names the ufunc, the loop,
// its reference and the largest error; a bin that holds no compared point is left empty. The
// SVG is written by hand, as samples/waveform_svg.cpp's is (no plotting dependency).
#pragma once

#include <filesystem>
#include <string>

#include "jitvec/accuracy.hpp"

namespace jitvec::cli {

/// The SVG document of `report` (which has numbers: `unavailable` is empty).
std::string error_plot_svg(const AccuracyReport& report);

/// A file name for `report`'s plot: the ufunc and the loop's types, "gaussian_pdf_float32_float32_float32_float32.svg"
/// (with "_result1" and so on for the results of a ufunc of several outputs after the first).
std::string error_plot_file_name(const AccuracyReport& report);

/// Writes `text` to `file`; throws jitvec::Error naming the file when it cannot.
void write_text_file(const std::filesystem::path& file, const std::string& text);

}  // namespace jitvec::cli
