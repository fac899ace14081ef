// samples/polar_distance.cpp: the seed tutorial's polar_distance ufunc and its device function.
//
// The tutorial's Numba version calls a device function from the ufunc:
//
//     @cuda.jit(device=True)
//     def polar_to_cartesian(rho, theta): return rho * math.cos(theta), rho * math.sin(theta)
//     @vectorize(['float32(float32, float32, float32, float32)'], target='cuda')
//     def polar_distance(rho1, theta1, rho2, theta2): ...
//
// and then checks the GPU against the CPU with np.testing.assert_allclose(rtol=1e-7, atol=5e-7)
// (this sample uses rtol=2e-7: see kCudaVersusCpu).
// Here both functions come from samples/polar_distance.toml (the helper is a
// [device_functions] entry, pulled into the ufunc's kernel because the ufunc calls it). The
// sample checks every element against a float64 reference; with --compare it also runs the
// cuda and the cpu target on the same data and checks them against each other.
//
//     polar_distance [--target cuda|cpu|parallel] [--compare] [-n N] [--seed S]
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/core.h>
#include <jitvec/jitvec.hpp>

#include "sample_support.hpp"

namespace {

constexpr double kPi = 3.14159265358979323846;

// Against the float64 reference, float32 evaluation has an absolute error, not a relative one:
// x1 = rho1*cos(theta1) and the others carry float32 rounding and the math library's error
// (up to ~2 ulp of 1.5, ~2.4e-7 each), and x1 - x2 cancels when the points are close, so the
// distance's error is a few 1e-7 however small the distance is (at most 5.2e-7 seen, on the
// GPU and on the CPU, over 10 million elements). The seed's rtol=1e-7,
// atol=5e-7 compares two float32 implementations that share most of that rounding; against
// float64, float32's own rounding (~1e-7 relative) times the computation's condition needs
// more room.
const samples::Tolerance kVersusFloat64{1e-5, 5e-6};

// The GPU against the CPU. Both targets compile the same source in float32; they differ only
// where CUDA's sinf/cosf (within 2 ulp) and the C library's (within 1 ulp) round differently,
// and where NVRTC fuses dx*dx + dy*dy into an fma. The seed's assert_allclose(rtol=1e-7,
// atol=5e-7) is slightly too tight for that: on an H200 against glibc, the largest difference
// in 5 x 10 million elements was 7.15e-7, 3 ulp of a distance in [2, 4), and a distance just
// above 2 allows only 5e-7 + 2e-7; 1 or 2 elements in 10 million failed, so about one run in
// seven of 1 million. rtol=2e-7 with the seed's atol rejected none of the 50 million.
const samples::Tolerance kCudaVersusCpu{2e-7, 5e-7};

// The cpu and parallel targets run the same compiled host code, only split over threads.
const samples::Tolerance kCpuVersusParallel{0.0, 0.0};

/// The seed's data: two points per element, rho uniform in [0.5, 1.5) and theta uniform in
/// [-pi, pi), drawn in float64 and rounded to float32, one whole array after the other.
struct Points {
  std::vector<float> rho1, theta1, rho2, theta2;
};

Points make_points(std::int64_t n, std::uint64_t seed) {
  std::mt19937_64 generator(seed);
  const auto draw = [&](double low, double high) {
    std::uniform_real_distribution<double> uniform(low, high);
    std::vector<float> values(static_cast<std::size_t>(n));
    for (float& value : values) value = static_cast<float>(uniform(generator));
    return values;
  };
  Points points;
  points.rho1 = draw(0.5, 1.5);
  points.theta1 = draw(-kPi, kPi);
  points.rho2 = draw(0.5, 1.5);
  points.theta2 = draw(-kPi, kPi);
  return points;
}

/// The distances in float64, from the same float32 inputs.
std::vector<double> reference_distance(const Points& p) {
  std::vector<double> distance(p.rho1.size());
  for (std::size_t i = 0; i < distance.size(); ++i) {
    const double x1 = double{p.rho1[i]} * std::cos(double{p.theta1[i]});
    const double y1 = double{p.rho1[i]} * std::sin(double{p.theta1[i]});
    const double x2 = double{p.rho2[i]} * std::cos(double{p.theta2[i]});
    const double y2 = double{p.rho2[i]} * std::sin(double{p.theta2[i]});
    distance[i] = std::hypot(x1 - x2, y1 - y2);
  }
  return distance;
}

/// Runs polar_distance on host vectors on `target`, into a host vector given as out() and
/// filled with NaN first (an element the ufunc fails to write stays NaN and fails the checks).
std::vector<float> run_on_host_vectors(const jitvec::Ufunc& polar_distance, const Points& p,
                                       jitvec::Target target, int repeats) {
  std::vector<float> distance(p.rho1.size(), std::numeric_limits<float>::quiet_NaN());
  const samples::Timing timing = samples::time_calls(
      [&] {
        polar_distance(p.rho1, p.theta1, p.rho2, p.theta2,
                       jitvec::out(jitvec::from_vector(distance)), jitvec::target(target));
      },
      repeats);
  samples::print_timing(fmt::format("host vectors on {}", jitvec::target_name(target)), timing,
                        static_cast<std::int64_t>(distance.size()));
  return distance;
}

/// Runs polar_distance on device arrays (the GPU), returning a new device array.
std::vector<float> run_on_device_arrays(const jitvec::Ufunc& polar_distance, const Points& p,
                                        int repeats) {
  const jitvec::Array rho1 = jitvec::to_device(p.rho1);
  const jitvec::Array theta1 = jitvec::to_device(p.theta1);
  const jitvec::Array rho2 = jitvec::to_device(p.rho2);
  const jitvec::Array theta2 = jitvec::to_device(p.theta2);
  jitvec::Array distance;
  const samples::Timing timing = samples::time_calls(
      [&] {
        distance = polar_distance(rho1, theta1, rho2, theta2);
        samples::wait_until_computed(distance);
      },
      repeats);
  samples::print_timing("device arrays on cuda", timing, distance.size());
  return distance.to_vector<float>();
}

/// --compare: the cuda and the cpu target on the same data, each against float64 and against
/// each other; without a GPU, cpu against parallel.
std::vector<samples::CheckResult> compare_targets(const jitvec::Ufunc& polar_distance,
                                                  const samples::SampleOptions& options,
                                                  const Points& points,
                                                  const std::vector<double>& want) {
  jitvec::Target first = jitvec::Target::cuda;
  jitvec::Target second = jitvec::Target::cpu;
  samples::Tolerance between = kCudaVersusCpu;
  if (const std::optional<std::string> reason = samples::why_no_gpu()) {
    samples::print_setup(options, fmt::format("cpu and parallel (--compare, no GPU found: {})",
                                              *reason));
    fmt::print("--compare: no GPU is usable, so it compares cpu with parallel instead, which "
               "run the same host code and must agree exactly\n");
    first = jitvec::Target::cpu;
    second = jitvec::Target::parallel;
    between = kCpuVersusParallel;
  } else {
    samples::print_setup(options, "cuda and cpu (--compare)");
  }
  const std::vector<float> first_result =
      run_on_host_vectors(polar_distance, points, first, options.repeats);
  const std::vector<float> second_result =
      run_on_host_vectors(polar_distance, points, second, options.repeats);
  const std::string first_name(jitvec::target_name(first));
  const std::string second_name(jitvec::target_name(second));
  return {
      samples::check_elements(first_name + " vs float64", first_result, want, kVersusFloat64),
      samples::check_elements(second_name + " vs float64", second_result, want, kVersusFloat64),
      samples::check_elements(first_name + " vs " + second_name, first_result, second_result,
                              between),
  };
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Computes distances between points in polar coordinates with a jitvec ufunc "
               "that calls a device function, and checks them."};
  samples::SampleOptions options;
  samples::add_common_options(app, options, 1'000'000, "polar_distance.toml");
  bool compare = false;
  app.add_flag("--compare", compare,
               "run both the cuda and the cpu target and compare them (cpu and parallel when "
               "no GPU is usable)");
  CLI11_PARSE(app, argc, argv);

  return samples::run_guarded([&] {
    jitvec::Engine engine;
    engine.load_definitions(options.definitions);
    const jitvec::Ufunc polar_distance = engine.ufunc("polar_distance");

    const Points points = make_points(options.n, options.seed);
    const std::vector<double> want = reference_distance(points);
    std::vector<samples::CheckResult> checks;

    if (compare) {
      checks = compare_targets(polar_distance, options, points, want);
    } else {
      const samples::TargetChoice choice = samples::choose_target(options, polar_distance);
      samples::print_setup(options, choice.describe());
      checks.push_back(samples::check_elements(
          "host vectors",
          run_on_host_vectors(polar_distance, points, choice.target, options.repeats), want,
          kVersusFloat64));
      if (choice.target == jitvec::Target::cuda) {
        checks.push_back(samples::check_elements(
            "device arrays", run_on_device_arrays(polar_distance, points, options.repeats), want,
            kVersusFloat64));
      }
    }

    samples::print_engine_stats(engine);
    for (const samples::CheckResult& check : checks) samples::print_check(check);
    return samples::print_verdict(checks);
  });
}
