// samples/waveform_svg.cpp: the hand-written SVG of the zero_suppress sample.
#include "waveform_svg.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/core.h>

namespace samples {
namespace {

// Layout in SVG user units (pixels).
constexpr double kWidth = 1000.0;
constexpr double kTitleHeight = 40.0;
constexpr double kPanelHeight = 330.0;
constexpr double kPlotLeft = 80.0;    // room for the value tick labels and axis label
constexpr double kPlotRight = 980.0;
constexpr double kPlotTopInPanel = 36.0;      // room for the panel's title
constexpr double kPlotBottomInPanel = 280.0;  // below: index tick labels and axis label

/// A value range and the pixel span it maps onto.
struct Axis {
  double low, high;            // data values at the two ends
  double pixel_low, pixel_high;  // pixels of `low` and `high` (pixel_low > pixel_high for y)
  double pixel(double value) const {
    return pixel_low + (value - low) / (high - low) * (pixel_high - pixel_low);
  }
};

/// A tick spacing of 1, 2 or 5 times a power of ten giving at most about `max_ticks` ticks.
double tick_step(double range, int max_ticks) {
  const double raw = range / max_ticks;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  for (double multiple : {1.0, 2.0, 5.0}) {
    if (multiple * magnitude >= raw) return multiple * magnitude;
  }
  return 10.0 * magnitude;
}

std::string escape_xml(std::string_view text) {
  std::string escaped;
  for (char c : text) {
    switch (c) {
      case '<': escaped += "&lt;"; break;
      case '>': escaped += "&gt;"; break;
      case '&': escaped += "&amp;"; break;
      default: escaped += c;
    }
  }
  return escaped;
}

std::string text_element(double x, double y, std::string_view anchor, std::string_view text,
                         std::string_view extra = "") {
  return fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"{}\"{}>{}</text>\n", x, y,
                     anchor, extra, escape_xml(text));
}

/// A run of samples to draw in one colour.
struct Series {
  const std::int16_t* data;
  std::size_t size;
  std::string_view color;
};

/// One panel: frame, grid and ticks on both axes, the threshold lines and the waveforms, whose
/// first sample has index `first_index` (all series have the same length).
std::string panel(double top, std::string_view title, std::size_t first_index,
                  const std::vector<Series>& series, double value_low, double value_high,
                  double threshold) {
  const std::size_t count = series.front().size;
  const double first = static_cast<double>(first_index);
  const double last = first + static_cast<double>(count - 1);
  const Axis x{first, std::max(last, first + 1.0), kPlotLeft, kPlotRight};
  const Axis y{value_low, value_high, top + kPlotBottomInPanel, top + kPlotTopInPanel};
  std::string svg;

  svg += text_element(kPlotLeft, top + kPlotTopInPanel - 10, "start", title,
                      " font-size=\"15\" font-weight=\"bold\"");
  svg += fmt::format(
      "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"white\" "
      "stroke=\"black\"/>\n",
      kPlotLeft, y.pixel_high, kPlotRight - kPlotLeft, y.pixel_low - y.pixel_high);

  const double x_step = std::max(1.0, tick_step(x.high - x.low, 10));
  for (double index = std::ceil(x.low / x_step) * x_step; index <= x.high; index += x_step) {
    const double px = x.pixel(index);
    svg += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" "
                       "stroke=\"#e0e0e0\"/>\n",
                       px, y.pixel_high, y.pixel_low);
    svg += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" "
                       "stroke=\"black\"/>\n",
                       px, y.pixel_low, y.pixel_low + 5);
    svg += text_element(px, y.pixel_low + 19, "middle", fmt::format("{:.0f}", index));
  }
  const double y_step = tick_step(y.high - y.low, 8);
  for (int tick = static_cast<int>(std::ceil(y.low / y_step)); tick * y_step <= y.high; ++tick) {
    const double value = tick * y_step;  // an int tick: ceil() could give -0, printed "-0"
    const double py = y.pixel(value);
    svg += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" y2=\"{1:.1f}\" "
                       "stroke=\"#e0e0e0\"/>\n",
                       kPlotLeft, py, kPlotRight);
    svg += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" y2=\"{1:.1f}\" "
                       "stroke=\"black\"/>\n",
                       kPlotLeft - 5, py, kPlotLeft);
    svg += text_element(kPlotLeft - 8, py + 4, "end", fmt::format("{:g}", value));
  }
  svg += text_element((kPlotLeft + kPlotRight) / 2, y.pixel_low + 40, "middle", "sample index");
  const double middle_y = (y.pixel_low + y.pixel_high) / 2;
  svg += fmt::format("<text x=\"{0:.1f}\" y=\"{1:.1f}\" text-anchor=\"middle\" "
                     "transform=\"rotate(-90 {0:.1f} {1:.1f})\">value (int16)</text>\n",
                     kPlotLeft - 55, middle_y);

  for (double level : {threshold, -threshold}) {
    svg += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" y2=\"{1:.1f}\" "
                       "stroke=\"crimson\" stroke-dasharray=\"6 4\"/>\n",
                       kPlotLeft, y.pixel(level), kPlotRight);
  }
  svg += text_element(kPlotRight - 4, y.pixel(threshold) - 4, "end",
                      fmt::format("threshold \u00b1{:g}", threshold),
                      " fill=\"crimson\" font-size=\"12\"");

  // Each waveform as each pixel column's minimum and maximum (one sample per column when there
  // are fewer samples than columns).
  const std::size_t columns = std::min(count, static_cast<std::size_t>(kPlotRight - kPlotLeft));
  for (const Series& line : series) {
    std::string points;
    for (std::size_t column = 0; column < columns; ++column) {
      const std::size_t begin = column * count / columns;
      const std::size_t end = (column + 1) * count / columns;
      const auto [low, high] = std::minmax_element(line.data + begin, line.data + end);
      const double px = x.pixel(first + static_cast<double>(begin));
      points +=
          fmt::format("{:.1f},{:.1f} {:.1f},{:.1f} ", px, y.pixel(*low), px, y.pixel(*high));
    }
    svg += fmt::format(
        "<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"1\" points=\"{}\"/>\n",
        line.color, points);
  }
  return svg;
}

/// The samples around one pulse: the longest run above half the largest value, with half its
/// length of baseline on either side, as [begin, end). The whole waveform when it has no pulse.
std::pair<std::size_t, std::size_t> pulse_window(const std::vector<std::int16_t>& samples,
                                                 double threshold) {
  const std::int16_t peak = *std::max_element(samples.begin(), samples.end());
  const double level = std::max(threshold, peak / 2.0);
  std::size_t best_begin = 0, best_end = 0;
  for (std::size_t i = 0; i < samples.size();) {
    if (samples[i] <= level) {
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < samples.size() && samples[end] > level) ++end;
    if (end - i > best_end - best_begin) best_begin = i, best_end = end;
    i = end;
  }
  if (best_end == best_begin) return {0, samples.size()};
  const std::size_t margin = std::max<std::size_t>((best_end - best_begin) / 2, 8);
  return {best_begin > margin ? best_begin - margin : 0,
          std::min(samples.size(), best_end + margin)};
}

}  // namespace

void write_zero_suppression_svg(const std::filesystem::path& file,
                                const std::vector<std::int16_t>& before,
                                const std::vector<std::int16_t>& after, double threshold) {
  if (before.empty() || before.size() != after.size()) {
    throw std::invalid_argument(fmt::format(
        "write_zero_suppression_svg: the waveforms must have the same, non-zero length "
        "(before: {}, after: {})",
        before.size(), after.size()));
  }
  // One value axis for both panels, covering both waveforms and the threshold lines.
  double low = -threshold;
  double high = threshold;
  for (const std::vector<std::int16_t>* samples : {&before, &after}) {
    const auto [min, max] = std::minmax_element(samples->begin(), samples->end());
    low = std::min(low, static_cast<double>(*min));
    high = std::max(high, static_cast<double>(*max));
  }
  const double padding = 0.05 * (high - low);
  low -= padding;
  high += padding;

  std::size_t zeroed = 0;
  for (std::size_t i = 0; i < before.size(); ++i) zeroed += before[i] != 0 && after[i] == 0;
  const auto [zoom_begin, zoom_end] = pulse_window(before, threshold);

  const double height = kTitleHeight + 3 * kPanelHeight;
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0:.0f}\" height=\"{1:.0f}\" "
      "viewBox=\"0 0 {0:.0f} {1:.0f}\" font-family=\"sans-serif\" font-size=\"13\">\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
      kWidth, height);
  svg += text_element(kWidth / 2, 26, "middle",
                      fmt::format("zero_suppress: samples with |value| < {:g} become 0; {} of {} "
                                  "samples zeroed ({:.1f}%)",
                                  threshold, zeroed, before.size(),
                                  100.0 * static_cast<double>(zeroed) /
                                      static_cast<double>(before.size())),
                      " font-size=\"17\"");
  svg += panel(kTitleHeight, "waveform (input)", 0, {{before.data(), before.size(), "steelblue"}},
               low, high, threshold);
  svg += panel(kTitleHeight + kPanelHeight,
               fmt::format("zero_suppress(waveform, {:.1f}) (output)", threshold), 0,
               {{after.data(), after.size(), "darkorange"}}, low, high, threshold);
  const std::size_t zoom_count = zoom_end - zoom_begin;
  svg += panel(kTitleHeight + 2 * kPanelHeight,
               fmt::format("one pulse, samples {} to {}: input (blue) and output (orange)",
                           zoom_begin, zoom_end - 1),
               zoom_begin,
               {{before.data() + zoom_begin, zoom_count, "steelblue"},
                {after.data() + zoom_begin, zoom_count, "darkorange"}},
               low, high, threshold);
  svg += "</svg>\n";

  std::ofstream stream(file, std::ios::binary | std::ios::trunc);
  stream << svg;
  stream.close();
  if (!stream) {
    throw std::runtime_error(fmt::format("cannot write the SVG file '{}': {}", file.string(),
                                         std::strerror(errno)));
  }
}

}  // namespace samples
