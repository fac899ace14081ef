// samples/polar_to_cartesian.cpp: a ufunc with two outputs, from the seed tutorial's world.
//
// The tutorial's polar_distance calls a device function polar_to_cartesian(rho, theta) that
// returns x and y. Here polar_to_cartesian is itself a ufunc returning both: its signature names
// two results, "(float32, float32)(float32, float32)", and its function writes them through
// reference parameters after its inputs, the same text on every target:
//
//     void polar_to_cartesian(float rho, float theta, float& x, float& y)
//
// One call computes both outputs in one pass over the data (one kernel launch on the GPU, one
// host loop on the CPU). The sample runs it on 2^24 points (on the GPU when there is one, else
// the cpu target), with host vectors in and with device arrays written in place through out(),
// and checks every element of both outputs against a float64 reference.
//
//     polar_to_cartesian [--target cuda|cpu|parallel] [-n N] [--seed S] [--repeats R]
// (The ufunc is defined in this file, not in a TOML file beside it, so `jitvec compile
// samples/*.toml` never meets a second definition of the name polar_distance.toml gives its
// device function; --definitions is accepted, as by the other samples, and ignored.)
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

namespace {

constexpr double kPi = 3.14159265358979323846;

constexpr const char* kSource = R"(
void polar_to_cartesian(float rho, float theta, float& x, float& y) {
    x = rho * cosf(theta);
    y = rho * sinf(theta);
}
)";

// float32 cos/sin of theta in [-pi, pi) are within 2 ulp (CUDA) or 1 ulp (glibc) of the truth,
// times rho < 1.5, plus the product's rounding: a few 1e-7 absolute against float64.
const samples::Tolerance kVersusFloat64{1e-6, 6e-7};

}  // namespace

int main(int argc, char** argv) {
  return samples::run_guarded([&] {
    CLI::App app{"polar_to_cartesian: a two-output ufunc (x and y of polar points), checked "
                 "against float64"};
    samples::SampleOptions options;
    samples::add_common_options(app, options, std::int64_t{1} << 24, "polar_distance.toml");
    CLI11_PARSE(app, argc, argv);
    options.definitions = "none: the ufunc is defined in samples/polar_to_cartesian.cpp";

    jitvec::Engine engine;
    const jitvec::Ufunc polar_to_cartesian =
        engine.vectorize("polar_to_cartesian", {"(float32, float32)(float32, float32)"}, kSource);
    const samples::TargetChoice choice = samples::choose_target(options, polar_to_cartesian);
    samples::print_setup(options, choice.describe());

    std::mt19937_64 generator(options.seed);
    std::uniform_real_distribution<double> radius(0.5, 1.5), angle(-kPi, kPi);
    const auto n = static_cast<std::size_t>(options.n);
    std::vector<float> rho(n), theta(n);
    for (float& r : rho) r = static_cast<float>(radius(generator));
    for (float& t : theta) t = static_cast<float>(angle(generator));
    std::vector<double> want_x(n), want_y(n);
    for (std::size_t i = 0; i < n; ++i) {
      want_x[i] = static_cast<double>(rho[i]) * std::cos(static_cast<double>(theta[i]));
      want_y[i] = static_cast<double>(rho[i]) * std::sin(static_cast<double>(theta[i]));
    }

    // Host vectors in, both outputs back as host arrays: outputs() returns {x, y}.
    std::vector<samples::CheckResult> checks;
    std::vector<jitvec::Array> xy;
    const samples::Timing host_timing = samples::time_calls(
        [&] { xy = polar_to_cartesian.outputs(rho, theta, jitvec::target(choice.target)); },
        options.repeats);
    samples::print_timing("host vectors", host_timing, options.n);
    checks.push_back(samples::check_elements("x, host vectors", xy[0].to_vector<float>(), want_x, kVersusFloat64));
    checks.push_back(samples::check_elements("y, host vectors", xy[1].to_vector<float>(), want_y, kVersusFloat64));

    // Device arrays in, written into two device arrays through out(), one per output. They start
    // as NaN, so an element the ufunc fails to write shows up as a mismatch.
    if (choice.target == jitvec::Target::cuda) {
      const jitvec::Array rho_device = jitvec::to_device(rho), theta_device = jitvec::to_device(theta);
      const std::vector<float> nans(n, std::numeric_limits<float>::quiet_NaN());
      const jitvec::Array x_device = jitvec::to_device(nans), y_device = jitvec::to_device(nans);
      const samples::Timing device_timing = samples::time_calls(
          [&] {
            polar_to_cartesian.outputs(rho_device, theta_device, jitvec::out(x_device), jitvec::out(y_device));
            samples::wait_until_computed(y_device);
          },
          options.repeats);
      samples::print_timing("device arrays", device_timing, options.n);
      checks.push_back(samples::check_elements("x, device arrays", x_device.to_vector<float>(), want_x, kVersusFloat64));
      checks.push_back(samples::check_elements("y, device arrays", y_device.to_vector<float>(), want_y, kVersusFloat64));
    }

    samples::print_engine_stats(engine);
    for (const samples::CheckResult& check : checks) samples::print_check(check);
    return samples::print_verdict(checks);
  });
}
