#include "cli/error_plot_svg.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <vector>

#include "jitvec/errors.hpp"

namespace jitvec::cli {
namespace {

// Layout in SVG user units (pixels).
constexpr double kWidth = 1000.0;
constexpr double kHeaderHeight = 56.0;
constexpr double kPanelHeight = 300.0;
constexpr double kLeft = 90.0;       // room for the ulps labels and the axis name
constexpr double kRight = 970.0;
constexpr double kPanelTop = 34.0;   // the panel's plot starts this far below the panel's top
constexpr double kPanelBottom = 240.0;

std::string escaped(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '&') {
      out += "&amp;";
    } else if (c == '<') {
      out += "&lt;";
    } else if (c == '>') {
      out += "&gt;";
    } else if (c == '"') {
      out += "&quot;";
    } else {
      out += c;
    }
  }
  return out;
}

std::string label(double x, double y, const char* anchor, const std::string& text, const char* style = "") {
  return fmt::format(R"(<text x="{:.1f}" y="{:.1f}" text-anchor="{}" {}>{}</text>)" "\n", x, y, anchor, style,
                     escaped(text));
}

// Evenly spaced round values (1, 2 or 5 times a power of ten) across [low, high].
std::vector<double> round_ticks(double low, double high) {
  if (!(high > low)) return {low};
  const double rough = (high - low) / 8;
  const double power = std::pow(10.0, std::floor(std::log10(rough)));
  const double step = rough <= power ? power : rough <= 2 * power ? 2 * power : rough <= 5 * power ? 5 * power
                                                                                                  : 10 * power;
  std::vector<double> ticks;
  for (double n = std::ceil(low / step); n * step <= high * (1 + 1e-12); n += 1) ticks.push_back(n * step + 0.0);
  return ticks;
}

// The panel of one input's curve, whose top is at `top`; `decades`: the ulps axis' height.
std::string curve_panel(const AccuracyCurve& curve, double top, int decades) {
  const double y0 = top + kPanelBottom, y1 = top + kPanelTop;
  auto y_of = [&](double ulps) { return y0 - std::log10(1 + ulps) / decades * (y0 - y1); };
  const double span = curve.high - curve.low;
  auto x_of = [&](double v) { return span > 0 ? kLeft + (v - curve.low) / span * (kRight - kLeft) : (kLeft + kRight) / 2; };
  std::string svg = label(kLeft, top + 22, "start", fmt::format("error over {} in [{:g}, {:g}]", curve.input,
                                                                 curve.low, curve.high),
                          R"(font-weight="bold")");
  svg += fmt::format(R"(<rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" fill="white" stroke="black"/>)"
                     "\n",
                     kLeft, y1, kRight - kLeft, y0 - y1);
  std::vector<double> ulps_ticks = {0};  // 0, 1, 10, 100, ... within the axis
  for (int d = 0; std::log10(1 + std::pow(10.0, d)) <= decades; ++d) ulps_ticks.push_back(std::pow(10.0, d));
  for (double ulps : ulps_ticks) {
    const double y = y_of(ulps);
    svg += fmt::format(R"(<line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" stroke="#dddddd"/>)" "\n", kLeft, y,
                       kRight, y);
    svg += label(kLeft - 6, y + 4, "end", fmt::format("{:g}", ulps));
  }
  for (double v : round_ticks(curve.low, curve.high)) {
    const double x = x_of(v);
    svg += fmt::format(R"(<line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" stroke="black"/>)" "\n", x, y0, x,
                       y0 + 5);
    svg += label(x, y0 + 19, "middle", fmt::format("{:g}", v));
  }
  svg += label((kLeft + kRight) / 2, y0 + 40, "middle", curve.input);
  svg += fmt::format(R"svg(<text x="{0:.1f}" y="{1:.1f}" text-anchor="middle" transform="rotate(-90 {0:.1f} {1:.1f})">)svg"
                     "max error (ulps, log scale)</text>\n",
                     kLeft - 60, (y0 + y1) / 2);
  const double bar = (kRight - kLeft) / static_cast<double>(curve.max_ulps.size());
  for (std::size_t b = 0; b < curve.max_ulps.size(); ++b) {
    const double ulps = curve.max_ulps[b];
    if (ulps < 0) continue;  // no point in this bin
    const double y = std::min(y_of(ulps), y0 - 1);  // 0 ulps: a 1-pixel bar on the axis
    svg += fmt::format(R"(<rect x="{:.2f}" y="{:.2f}" width="{:.2f}" height="{:.2f}" fill="steelblue"/>)" "\n",
                       kLeft + bar * static_cast<double>(b), y, bar, y0 - y);
  }
  return svg;
}

}  // namespace

std::string error_plot_svg(const AccuracyReport& report) {
  double largest = 0;
  for (const AccuracyCurve& curve : report.curves) {
    for (double ulps : curve.max_ulps) largest = std::max(largest, ulps);
  }
  const int decades = std::max(1, static_cast<int>(std::ceil(std::log10(1 + largest))));
  const double height = kHeaderHeight + kPanelHeight * static_cast<double>(report.curves.size());
  std::string svg = fmt::format(
      R"(<svg xmlns="http://www.w3.org/2000/svg" width="{:.0f}" height="{:.0f}" viewBox="0 0 {:.0f} {:.0f}" font-family="sans-serif" font-size="13">)"
      "\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
      kWidth, height, kWidth, height);
  std::string loop = report.loop.to_string();
  if (report.loop.nout() > 1) loop += fmt::format(" result {}", report.output);
  svg += label(kWidth / 2, 24, "middle",
               fmt::format("{} {} on {} against {} on cpu", report.ufunc, loop, target_name(report.target),
                           report.reference),
               R"(font-size="16" font-weight="bold")");
  svg += label(kWidth / 2, 44, "middle",
               fmt::format("max {:g} ulps; {} points, {} NaN/inf the reference does not give", report.max_ulps,
                           report.points, report.unexpected_nonfinite));
  for (std::size_t k = 0; k < report.curves.size(); ++k) {
    svg += curve_panel(report.curves[k], kHeaderHeight + kPanelHeight * static_cast<double>(k), decades);
  }
  return svg + "</svg>\n";
}

std::string error_plot_file_name(const AccuracyReport& report) {
  std::string name = report.ufunc;
  for (DType t : report.loop.results) name += fmt::format("_{}", dtype_name(t));
  for (DType t : report.loop.args) name += fmt::format("_{}", dtype_name(t));
  if (report.output > 0) name += fmt::format("_result{}", report.output);
  return name + ".svg";
}

void write_text_file(const std::filesystem::path& file, const std::string& text) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << text;
  out.flush();
  if (!out) {
    throw Error(fmt::format("cannot write '{}': {}", file.string(), std::strerror(errno)));
  }
}

}  // namespace jitvec::cli
