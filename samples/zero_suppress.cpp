// samples/zero_suppress.cpp: the seed tutorial's zero-suppression exercise on a noisy pulse train.
//
// The tutorial builds a waveform and asks for a ufunc that zeroes the low-amplitude noise:
//
//     noise = np.random.normal(size=n) * 3
//     pulses = np.maximum(np.sin(np.arange(n) / (n / 23)) - 0.3, 0.0)
//     waveform = ((pulses * 300) + noise).astype(np.int16)
//     @vectorize(['int16(int16, int16)'], target='cuda')
//     def zero_suppress(waveform_value, threshold): ...
//     zero_suppress(waveform, 15.0)
//
// Here zero_suppress comes from samples/zero_suppress.toml. As in the tutorial the threshold is
// the float64 scalar 15.0: scalars are "weak", so it takes the int16 loop's type (15.0 is
// exactly an int16; 15.5 would be refused). Every element is checked exactly against a
// reference computed below, and the waveform before and after is drawn to an SVG file, where
// the noise on the baseline should be gone.
//
//     zero_suppress [--target cuda|cpu|parallel] [-n N] [--seed S] [--svg FILE]
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/core.h>
#include <jitvec/jitvec.hpp>

#include "sample_support.hpp"
#include "waveform_svg.hpp"

namespace {

/// The seed's noisy pulse train: 23 / (2 pi) periods of a sine clipped at 0.3 (pulses of height
/// 0.7 * 300 = 210) plus normal noise of standard deviation 3, truncated to int16 as NumPy's
/// astype does.
std::vector<std::int16_t> make_waveform(std::int64_t n, std::uint64_t seed) {
  std::mt19937_64 generator(seed);
  std::normal_distribution<double> normal;
  std::vector<std::int16_t> waveform(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < waveform.size(); ++i) {
    const double noise = normal(generator) * 3.0;
    const double pulses =
        std::max(std::sin(static_cast<double>(i) / (static_cast<double>(n) / 23.0)) - 0.3, 0.0);
    waveform[i] = static_cast<std::int16_t>(pulses * 300.0 + noise);
  }
  return waveform;
}

/// What zero suppression must give: 0 where |value| < threshold, the value elsewhere.
std::vector<std::int16_t> reference_zero_suppress(const std::vector<std::int16_t>& waveform,
                                                  double threshold) {
  std::vector<std::int16_t> suppressed(waveform.size());
  for (std::size_t i = 0; i < waveform.size(); ++i) {
    suppressed[i] = std::abs(static_cast<double>(waveform[i])) < threshold ? 0 : waveform[i];
  }
  return suppressed;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Zeroes the low-amplitude noise of a waveform with a jitvec ufunc, checks it and "
               "draws it."};
  samples::SampleOptions options;
  samples::add_common_options(app, options, 100'000, "zero_suppress.toml");
  std::string svg_file = "zero_suppress.svg";
  app.add_option("--svg", svg_file, "SVG picture of the waveform before and after")
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  return samples::run_guarded([&] {
    jitvec::Engine engine;
    engine.load_definitions(options.definitions);
    const jitvec::Ufunc zero_suppress = engine.ufunc("zero_suppress");
    const samples::TargetChoice choice = samples::choose_target(options, zero_suppress);
    samples::print_setup(options, choice.describe());

    const std::vector<std::int16_t> waveform = make_waveform(options.n, options.seed);
    const double threshold = 15.0;
    const std::vector<std::int16_t> want = reference_zero_suppress(waveform, threshold);
    const samples::Tolerance exact{};
    std::vector<samples::CheckResult> checks;

    // A host vector in, a host array out.
    jitvec::Array suppressed;
    const samples::Timing host_timing = samples::time_calls(
        [&] { suppressed = zero_suppress(waveform, threshold, jitvec::target(choice.target)); },
        options.repeats);
    samples::print_timing("host vectors", host_timing, options.n);
    const std::vector<std::int16_t> got = suppressed.to_vector<std::int16_t>();
    checks.push_back(samples::check_elements("host vectors", got, want, exact));

    // A device array in, a device array out through out(). The output starts as -32768, a value
    // this waveform never reaches (it would take noise of 10,000 standard deviations), so an
    // element the ufunc fails to write shows up as a mismatch.
    if (choice.target == jitvec::Target::cuda) {
      const jitvec::Array waveform_device = jitvec::to_device(waveform);
      const jitvec::Array suppressed_device = jitvec::to_device(
          std::vector<std::int16_t>(waveform.size(), std::numeric_limits<std::int16_t>::min()));
      const samples::Timing device_timing = samples::time_calls(
          [&] {
            zero_suppress(waveform_device, threshold, jitvec::out(suppressed_device));
            samples::wait_until_computed(suppressed_device);
          },
          options.repeats);
      samples::print_timing("device arrays", device_timing, options.n);
      checks.push_back(samples::check_elements(
          "device arrays", suppressed_device.to_vector<std::int16_t>(), want, exact));
    }

    std::int64_t zeroed = 0;
    for (std::size_t i = 0; i < waveform.size(); ++i) zeroed += waveform[i] != 0 && got[i] == 0;
    fmt::print("suppressed:  {} of {} samples set to 0 (|value| < {:g})\n", zeroed, options.n,
               threshold);
    samples::write_zero_suppression_svg(svg_file, waveform, got, threshold);
    fmt::print("picture:     {} (the waveform before and after)\n", svg_file);

    samples::print_engine_stats(engine);
    for (const samples::CheckResult& check : checks) samples::print_check(check);
    return samples::print_verdict(checks);
  });
}
