// samples/gaussian_pdf.cpp: the seed tutorial's gaussian_pdf ufunc, evaluated a million times.
//
// The tutorial's Numba version:
//
//     @vectorize(['float32(float32, float32, float32)'], target='cuda')
//     def gaussian_pdf(x, mean, sigma):
//         return math.exp(-0.5 * ((x - mean) / sigma)**2) / (sigma * SQRT_2PI)
//     x = np.random.uniform(-3, 3, size=1000000).astype(np.float32)
//     gaussian_pdf(x, np.float32(0.0), np.float32(1.0))
//
// Here the function comes from samples/gaussian_pdf.toml, is called on host vectors (jitvec
// copies them to the GPU and the result back, as Numba does) and, on the GPU, on device arrays
// (no copies), and every element is checked against a float64 reference computed below.
//
//     gaussian_pdf [--target cuda|cpu|parallel] [-n N] [--seed S] [--definitions FILE]
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/core.h>
#include <jitvec/jitvec.hpp>

#include "sample_support.hpp"

namespace {

constexpr double kPi = 3.14159265358979323846;

/// The seed's data: x uniform in [-3, 3), drawn in float64 and rounded to float32 as NumPy's
/// `.astype(np.float32)` does.
std::vector<float> make_x(std::int64_t n, std::uint64_t seed) {
  std::mt19937_64 generator(seed);
  std::uniform_real_distribution<double> uniform(-3.0, 3.0);
  std::vector<float> x(static_cast<std::size_t>(n));
  for (float& value : x) value = static_cast<float>(uniform(generator));
  return x;
}

/// The density in float64, from the same float32 inputs.
std::vector<double> reference_pdf(const std::vector<float>& x, double mean, double sigma) {
  const double sqrt_2pi = std::sqrt(2.0 * kPi);
  std::vector<double> pdf(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double z = (static_cast<double>(x[i]) - mean) / sigma;
    pdf[i] = std::exp(-0.5 * z * z) / (sigma * sqrt_2pi);
  }
  return pdf;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Evaluates the normal distribution's density with a jitvec ufunc and checks it."};
  samples::SampleOptions options;
  samples::add_common_options(app, options, 1'000'000, "gaussian_pdf.toml");
  CLI11_PARSE(app, argc, argv);

  return samples::run_guarded([&] {
    jitvec::Engine engine;
    engine.load_definitions(options.definitions);
    const jitvec::Ufunc gaussian_pdf = engine.ufunc("gaussian_pdf");
    const samples::TargetChoice choice = samples::choose_target(options, gaussian_pdf);
    samples::print_setup(options, choice.describe());

    const std::vector<float> x = make_x(options.n, options.seed);
    const float mean = 0.0f;  // float scalars: weak, they take the float32 loop's type
    const float sigma = 1.0f;
    const std::vector<double> want = reference_pdf(x, mean, sigma);
    // float32 against float64: the argument -0.5*z*z carries float32 rounding (|z*z| <= 9, so up
    // to ~3e-7 relative in the result), and the GPU's expf is within 2 ulp of the exact value
    // (the host's within 1), so 1e-6 relative covers float32 evaluation; atol matters only where
    // the density is tiny.
    const samples::Tolerance tolerance{1e-6, 1e-7};
    std::vector<samples::CheckResult> checks;

    // Host vectors in, a host array out.
    jitvec::Array y_host;
    const samples::Timing host_timing = samples::time_calls(
        [&] { y_host = gaussian_pdf(x, mean, sigma, jitvec::target(choice.target)); },
        options.repeats);
    samples::print_timing("host vectors", host_timing, options.n);
    checks.push_back(samples::check_elements("host vectors", y_host.to_vector<float>(), want,
                                             tolerance));

    // Device arrays in, a device array out, written in place through out(). The output starts
    // as NaN so that an element the ufunc fails to write shows up as a mismatch.
    if (choice.target == jitvec::Target::cuda) {
      const jitvec::Array x_device = jitvec::to_device(x);
      const jitvec::Array y_device = jitvec::to_device(
          std::vector<float>(x.size(), std::numeric_limits<float>::quiet_NaN()));
      const samples::Timing device_timing = samples::time_calls(
          [&] {
            gaussian_pdf(x_device, mean, sigma, jitvec::out(y_device));
            samples::wait_until_computed(y_device);
          },
          options.repeats);
      samples::print_timing("device arrays", device_timing, options.n);
      checks.push_back(samples::check_elements("device arrays", y_device.to_vector<float>(),
                                               want, tolerance));
    }

    samples::print_engine_stats(engine);
    for (const samples::CheckResult& check : checks) samples::print_check(check);
    return samples::print_verdict(checks);
  });
}
