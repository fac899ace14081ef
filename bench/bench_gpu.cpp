// bench/bench_gpu.cpp: jitvec's GPU speed (issues 2 and 5), each case against a hardware
// ceiling measured in the same run.
//
//   1. gaussian_pdf, float32 and float64, 2^10 .. 2^28 device elements, scalar mean and sigma
//      (and at the largest float32 size once more into a preallocated out=)
//   2. polar_distance, float32, 4 inputs and 1 output, 2^26 elements
//   3. zero_suppress, int16, 2^28 elements
//   4. add (out = a + b, defined here) over 2^14 x 2^14 float32 with a (1, 2^14) row and with a
//      (2^14, 1) column
//   5. gaussian_pdf of a transposed (non-contiguous) 2^14 x 2^14 float32 view
//   6. gaussian_pdf on a 2^28 std::vector<float> into another (host memory in and out)
//   7. dispatch: host time of one call on 1024 device elements, with and without out=
//   8. start-up: a fresh process to its first result, empty and warm disk cache (gpu_startup.hpp)
//   9. layouts (issue 14, bench_layouts.hpp): N-d broadcasts, stepped views, permutations, a mix
//      and small last dimensions, float32, about 2^28 outputs each, named layout_<family>_<variant>
//  10. graph (issue 13, bench_graph.hpp): 16 captured calls on 1024 elements replayed, against
//      the same calls made directly, host time per call
// Ceilings (gpu_ceilings.hpp): cuMemcpyDtoD moving the same bytes (cases 1-5 and 9; for 9 the
// bytes an ideal kernel moves, physical for the stepped views), pinned H2D + D2H
// (case 6), the host cost of a bare cuLaunchKernel of an empty kernel (case 7).
//
// Inputs are random (never zeros), the bandwidth cases' inputs are far larger than the 60 MB
// L2, kernels are timed with CUDA events after warm-up (median of 30 for large sizes, 200 for
// small), and every output is checked against a float64 reference computed on the CPU before
// its time is reported: into an output first filled with NaN (0xFF bytes), so an element the
// kernel skips shows up. Writes JSON records (results.hpp) with --json and prints a table.
// Without a GPU it says why and exits 0.
//
//     jitvec_bench_gpu [--json FILE] [--quick] [--seed S] [--samples DIR]
#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <jitvec/jitvec.hpp>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "checks.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "cuda/context.hpp"
#include "cuda/device.hpp"
#include "cuda/driver.hpp"
#include "bench_graph.hpp"
#include "bench_dtypes.hpp"
#include "bench_fusion.hpp"
#include "bench_derivative.hpp"
#include "bench_multi_output.hpp"
#include "bench_gufunc.hpp"
#include "bench_layouts.hpp"
#include "bench_reduce.hpp"
#include "gpu_cases.hpp"
#include "gpu_ceilings.hpp"
#include "gpu_startup.hpp"
#include "gpu_timing.hpp"
#include "random_inputs.hpp"
#include "results.hpp"
#include "sample_definitions.hpp"

namespace {

namespace cuda = jitvec::cuda;
using jitvec::Array;
using jitvec::DType;
using jitvec::Memory;

constexpr int kDevice = 0;
constexpr double kMean = 0.25;  // exactly representable, and not 0 and 1
constexpr double kSigma = 1.5;
constexpr std::int16_t kThreshold = 15;

const char* const kAddSource = "__device__ float add(float a, float b) { return a + b; }\n";

struct Sizes {
  std::vector<int> gaussian_log2;  // case 1's sweep
  int polar_log2;
  int zero_suppress_log2;
  int matrix_side_log2;  // cases 4 and 5
  int host_log2;
  std::size_t pinned_bytes;
  int startup_cold_runs;
  int startup_warm_runs;

  static Sizes full() { return {{10, 16, 20, 24, 28}, 26, 28, 14, 28, std::size_t{1} << 30, 5, 5}; }
  static Sizes quick() { return {{10, 16, 20, 22}, 20, 22, 10, 22, std::size_t{1} << 26, 1, 1}; }
  int largest_log2() const {
    int largest = std::max({polar_log2, zero_suppress_log2, 2 * matrix_side_log2, host_log2});
    for (int e : gaussian_log2) largest = std::max(largest, e);
    return largest;
  }
};

// Where the benchmark runs: large copies get few repetitions, small ones many.
constexpr bench::Repetitions kLargeReps{3, 30};
constexpr bench::Repetitions kSmallReps{20, 200};
constexpr std::size_t kLargeBytes = std::size_t{32} << 20;

bench::Repetitions reps_for(double input_bytes) {
  return input_bytes >= static_cast<double>(kLargeBytes) ? kLargeReps : kSmallReps;
}

using bench::note_check;
using bench::poison;

std::string first_line_of(const std::filesystem::path& file) {
  std::ifstream stream(file);
  std::string line;
  std::getline(stream, line);
  return line.empty() ? "unknown" : line;
}

// The benchmark's engine: each case's first call compiles its own kernel (no stand-in while it
// compiles, engine/cuda_loop.hpp), so its warm-up leaves every timed call at steady state.
jitvec::EngineOptions steady_state_engine() {
  jitvec::EngineOptions options;
  options.stand_ins = false;
  return options;
}

class GpuBench {
 public:
  GpuBench(const Sizes& sizes, std::uint64_t seed, std::filesystem::path samples,
           std::vector<std::string> only = {})
      : only_(std::move(only)),
        sizes_(sizes),
        seed_(seed),
        samples_(std::move(samples)),
        context_(kDevice),
        timer_(kDevice, stream_),
        engine_(steady_state_engine()) {}

  int run(const std::filesystem::path& json) {
    const bench::Clock::time_point start = bench::Clock::now();
    record_metadata();
    define_ufuncs();
    make_inputs();
    measure_fixed_ceilings();

    ceilings_ =
        std::make_unique<bench::DeviceCopyCeiling>(x64_device_, stream_, kLargeReps, kSmallReps);
    for (int e : sizes_.gaussian_log2) gaussian_case<float>(e, x32_, x32_device_, false);
    for (int e : sizes_.gaussian_log2) gaussian_case<double>(e, x64_, x64_device_, false);
    gaussian_case<float>(sizes_.gaussian_log2.back(), x32_, x32_device_, true);
    polar_distance_case();
    zero_suppress_case();
    broadcast_case(/*row=*/true);
    broadcast_case(/*row=*/false);
    transposed_case();
    layout_cases();
    // The first wave's cases keep their places (host arrays, dispatch and start-up ran right
    // after the layouts before the cases below existed), so their rows compare run to run.
    host_arrays_case();
    dispatch_case(/*with_out=*/false);
    dispatch_case(/*with_out=*/true);
    graph_cases();
    startup_case();
    bench::run_gufunc_cases(  // issue 11: outer and the gufunc dot (bench_gufunc.hpp)
        {kDevice, stream_, &timer_, ceilings_.get(), &engine_, seed_, sizes_.largest_log2() < 28},
        [this](bench::Record r, const std::function<void(bench::Record&)>& body) { run_case(std::move(r), body); });
    bench::run_reduce_cases(  // issue 11: reduce and accumulate (bench_reduce.hpp)
        {kDevice, stream_, &timer_, ceilings_.get(), &engine_, seed_, sizes_.largest_log2() < 28},
        [this](bench::Record r, const std::function<void(bench::Record&)>& body) { run_case(std::move(r), body); });
    bench::run_dtype_cases(  // issue 10: float16 and complex64 (bench_dtypes.hpp)
        {kDevice, stream_, &timer_, ceilings_.get(), &engine_, seed_, sizes_.largest_log2() < 28},
        [this](bench::Record r, const std::function<void(bench::Record&)>& body) { run_case(std::move(r), body); });
    bench::run_fusion_cases(  // issue 13: fused chains (bench_fusion.hpp)
        {kDevice, stream_, &timer_, ceilings_.get(), &engine_, seed_, sizes_.largest_log2() < 28},
        [this](bench::Record r, const std::function<void(bench::Record&)>& body) { run_case(std::move(r), body); });
    bench::run_multi_output_cases(  // issue 10: two outputs in one pass (bench_multi_output.hpp)
        {kDevice, stream_, &timer_, ceilings_.get(), &engine_, seed_, sizes_.largest_log2() < 28},
        [this](bench::Record r, const std::function<void(bench::Record&)>& body) { run_case(std::move(r), body); });
    bench::run_derivative_cases(  // issue 30: a forward-mode derivative (bench_derivative.hpp)
        {kDevice, stream_, &timer_, ceilings_.get(), &engine_, seed_, sizes_.largest_log2() < 28},
        [this](bench::Record r, const std::function<void(bench::Record&)>& body) { run_case(std::move(r), body); });
    for (bench::Record& ceiling : ceilings_->records()) results_.add(std::move(ceiling));

    fmt::print("\nall cases in {:.1f} s\n", bench::ms_since(start) / 1000.0);
    results_.print_table();
    if (!json.empty()) {
      results_.write_json(json);
      fmt::print("wrote {}\n", json.string());
    }
    const bool passed = results_.all_passed_checks();
    fmt::print("{}\n", passed ? "every case ran and every output matched its float64 reference"
                              : "SOME CASES FAILED OR DID NOT VERIFY (see the table)");
    return passed ? 0 : 1;
  }

 private:
  // Whether --only lets the case run: no prefixes, or one the case's name starts with.
  bool selected(const std::string& name) const {
    if (only_.empty()) return true;
    for (const std::string& prefix : only_) {
      if (name.rfind(prefix, 0) == 0) return true;
    }
    return false;
  }

  // Runs `body` on `record`, turning an exception into the record's error, then keeps the
  // record and prints a progress line (so a run cut short still shows what it measured).
  void run_case(bench::Record record, const std::function<void(bench::Record&)>& body) {
    if (!selected(record.case_name)) return;
    try {
      body(record);
    } catch (const std::exception& error) {
      record.error = error.what();
    }
    fmt::print("  {:<24} n={:<10} {:<8} {:>10.4f} ms {:>8.1f} GB/s ratio {:.3f} {}\n",
               record.case_name, record.n, record.dtype, record.time_ms, record.gbps, record.ratio,
               !record.error.empty() ? "ERROR: " + record.error
               : record.verified     ? std::string("verified")
                                     : std::string("NOT VERIFIED"));
    std::fflush(stdout);
    results_.add(std::move(record));
  }

  void record_metadata() {
    const cuda::DeviceInfo& info = cuda::device_info(kDevice);
    results_.set_metadata("tool", "jitvec_bench_gpu");
    results_.set_metadata("date", bench::utc_timestamp());
    results_.set_metadata("jitvec", jitvec::kVersion);
    results_.set_metadata("gpu", info.name);
    results_.set_metadata("compute_capability", fmt::format("{}.{}", info.cc_major, info.cc_minor));
    results_.set_metadata_number("sm_count", info.sm_count);
    results_.set_metadata_number("l2_bytes", info.l2_bytes);
    results_.set_metadata_number("memory_bytes", static_cast<double>(info.total_memory));
    results_.set_metadata("nvidia_driver", first_line_of("/proc/driver/nvidia/version"));
    results_.set_metadata("cuda_driver_api", fmt::format("{}.{}", info.driver_version / 1000,
                                                         (info.driver_version % 1000) / 10));
    results_.set_metadata("cuda_toolkit",
                          fmt::format("{}.{}", CUDA_VERSION / 1000, (CUDA_VERSION % 1000) / 10));
    results_.set_metadata("nvrtc", jitvec::compile::nvrtc_version());
    results_.set_metadata("cpu", bench::cpu_model());
    results_.set_metadata("bench_compiler", bench::build_compiler());
    fmt::print(
        "jitvec {} GPU benchmark on {} (sm_{}{}, {} SMs, L2 {} MB), CUDA driver API {}, {}\n",
        jitvec::kVersion, info.name, info.cc_major, info.cc_minor, info.sm_count,
        info.l2_bytes >> 20, info.driver_version, jitvec::compile::nvrtc_version());
  }

  void define_ufuncs() {
    for (const char* file : {"gaussian_pdf.toml", "polar_distance.toml", "zero_suppress.toml"}) {
      engine_.load_definitions(samples_ / file);
    }
    gaussian_pdf_ = engine_.ufunc("gaussian_pdf");
    polar_distance_ = engine_.ufunc("polar_distance");
    zero_suppress_ = engine_.ufunc("zero_suppress");
    add_ = engine_.vectorize("add", {"float32(float32, float32)"}, kAddSource);
  }

  void make_inputs() {
    const std::int64_t largest = std::int64_t{1} << sizes_.largest_log2();
    const bench::Clock::time_point start = bench::Clock::now();
    x32_ = bench::uniform_floats(largest, -3.0, 3.0, seed_);
    x64_ = bench::uniform_doubles(largest, -3.0, 3.0, seed_ + 1);
    x32_device_ = jitvec::to_device(x32_);
    x64_device_ = jitvec::to_device(x64_);
    fmt::print("random inputs: 2^{} float32 and float64, made and uploaded in {:.0f} ms\n",
               sizes_.largest_log2(), bench::ms_since(start));
  }

  // The pinned copies and the bare launch. A failure is recorded (the cases compared with that
  // ceiling then carry no ratio) and the run goes on.
  void measure_fixed_ceilings() {
    try {
      bench::PinnedCopies pinned =
          bench::measure_pinned_copies(kDevice, stream_, sizes_.pinned_bytes, {2, 10});
      pinned_round_trip_gbps_ = pinned.round_trip_gbps;
      fmt::print("ceiling: pinned H2D {:.1f} GB/s, D2H {:.1f} GB/s\n", pinned.host_to_device.gbps,
                 pinned.device_to_host.gbps);
      results_.add(std::move(pinned.host_to_device));
      results_.add(std::move(pinned.device_to_host));
    } catch (const std::exception& error) {
      bench::Record failed{"pinned_h2d", "ceiling", 0, "bytes"};
      failed.error = error.what();
      fmt::print("ceiling: pinned copies: ERROR: {}\n", failed.error);
      results_.add(std::move(failed));
    }
    try {
      bare_ = std::make_unique<bench::BareLaunch>(kDevice, stream_);
      bare_launch_ = bench::measure_bare_launch(*bare_, stream_, 20, 500);
      fmt::print("ceiling: bare cuLaunchKernel {:.2f} us of host time\n",
                 bare_launch_.time_ms * 1000.0);
    } catch (const std::exception& error) {
      bare_launch_ = bench::Record{"bare_launch", "ceiling", 0, "-"};
      bare_launch_.error = error.what();
      fmt::print("ceiling: bare launch: ERROR: {}\n", bare_launch_.error);
    }
    bare_launch_.has_output = false;
    results_.add(bare_launch_);
  }

  // Case 1 (and the out= variant at the largest size).
  template <class T>
  void gaussian_case(int log2, const std::vector<T>& x_host, const Array& x_all, bool into_out) {
    const std::int64_t n = std::int64_t{1} << log2;
    const DType dtype = jitvec::dtype_of<T>();
    bench::Record record{into_out ? "gaussian_pdf_out" : "gaussian_pdf", "jitvec", n,
                         std::string(jitvec::dtype_name(dtype))};
    run_case(std::move(record), [&](bench::Record& r) {
      const Array x = x_all.slice(0, 0, n);
      const T mean = static_cast<T>(kMean), sigma = static_cast<T>(kSigma);
      const Array out = Array::empty(dtype, {n}, Memory::device, kDevice, stream_);
      const bench::Repetitions reps = reps_for(static_cast<double>(n) * sizeof(T));
      Array y;
      const double ms =
          into_out
              ? timer_.median_ms(reps, [&] { gaussian_pdf_(x, mean, sigma, jitvec::out(out)); })
              : timer_.median_ms(reps, [&] { y = gaussian_pdf_(x, mean, sigma); });
      r.method = fmt::format("device arrays, scalar mean and sigma, {}CUDA events, median of {}",
                             into_out ? "into a preallocated out=, " : "new output each call, ",
                             reps.timed);
      r.set_bandwidth(2.0 * static_cast<double>(n) * sizeof(T), ms);
      r.compare_bandwidth("memcpy_dtod", ceilings_->measure(r.bytes).gbps);
      poison(out, stream_);
      gaussian_pdf_(x, mean, sigma, jitvec::out(out));
      note_check(r,
                 bench::check_output(
                     out.to_vector<T>(),
                     [&](std::int64_t i) {
                       return bench::gaussian_pdf_reference(
                           static_cast<double>(x_host[static_cast<std::size_t>(i)]), mean, sigma);
                     },
                     std::is_same_v<T, float> ? bench::kGaussianFloat32 : bench::kGaussianFloat64));
    });
  }

  // Case 2.
  void polar_distance_case() {
    const std::int64_t n = std::int64_t{1} << sizes_.polar_log2;
    run_case({"polar_distance", "jitvec", n, "float32"}, [&](bench::Record& r) {
      const double pi = 3.14159265358979323846;
      const std::vector<float> rho1 = bench::uniform_floats(n, 0.5, 1.5, seed_ + 10);
      const std::vector<float> theta1 = bench::uniform_floats(n, -pi, pi, seed_ + 11);
      const std::vector<float> rho2 = bench::uniform_floats(n, 0.5, 1.5, seed_ + 12);
      const std::vector<float> theta2 = bench::uniform_floats(n, -pi, pi, seed_ + 13);
      const Array r1 = jitvec::to_device(rho1), t1 = jitvec::to_device(theta1);
      const Array r2 = jitvec::to_device(rho2), t2 = jitvec::to_device(theta2);
      Array y;
      const bench::Repetitions reps = reps_for(4.0 * static_cast<double>(n));
      r.set_bandwidth(5.0 * 4.0 * static_cast<double>(n),
                      timer_.median_ms(reps, [&] { y = polar_distance_(r1, t1, r2, t2); }));
      r.method = fmt::format("4 device inputs, new output each call, CUDA events, median of {}",
                             reps.timed);
      r.compare_bandwidth("memcpy_dtod", ceilings_->measure(r.bytes).gbps);
      const Array out = Array::empty(DType::float32, {n}, Memory::device, kDevice, stream_);
      poison(out, stream_);
      polar_distance_(r1, t1, r2, t2, jitvec::out(out));
      note_check(r, bench::check_output(
                        out.to_vector<float>(),
                        [&](std::int64_t i) {
                          const auto k = static_cast<std::size_t>(i);
                          return bench::polar_distance_reference(rho1[k], theta1[k], rho2[k],
                                                                 theta2[k]);
                        },
                        bench::kPolarFloat32));
    });
  }

  // Case 3.
  void zero_suppress_case() {
    const std::int64_t n = std::int64_t{1} << sizes_.zero_suppress_log2;
    run_case({"zero_suppress", "jitvec", n, "int16"}, [&](bench::Record& r) {
      const std::vector<std::int16_t> waveform = bench::uniform_int16(n, -100, 100, seed_ + 20);
      const Array w = jitvec::to_device(waveform);
      Array y;
      const bench::Repetitions reps = reps_for(2.0 * static_cast<double>(n));
      r.set_bandwidth(2.0 * 2.0 * static_cast<double>(n),
                      timer_.median_ms(reps, [&] { y = zero_suppress_(w, kThreshold); }));
      r.method = fmt::format(
          "values uniform in [-100, 100], threshold {}, new output each call, "
          "CUDA events, median of {}",
          kThreshold, reps.timed);
      r.compare_bandwidth("memcpy_dtod", ceilings_->measure(r.bytes).gbps);
      const Array out = Array::empty(DType::int16, {n}, Memory::device, kDevice, stream_);
      poison(out, stream_);  // -1: zero_suppress never returns it with this threshold
      zero_suppress_(w, kThreshold, jitvec::out(out));
      note_check(r, bench::check_output(
                        out.to_vector<std::int16_t>(),
                        [&](std::int64_t i) {
                          return bench::zero_suppress_reference(
                              waveform[static_cast<std::size_t>(i)], kThreshold);
                        },
                        bench::kExact));
    });
  }

  // The first side*side float32 inputs as a (side, side) device matrix.
  Array matrix() const {
    const std::int64_t side = std::int64_t{1} << sizes_.matrix_side_log2;
    return x32_device_.slice(0, 0, side * side).reshape({side, side});
  }

  // Case 4: a (side, side) matrix plus a (1, side) row or a (side, 1) column.
  void broadcast_case(bool row) {
    const std::int64_t side = std::int64_t{1} << sizes_.matrix_side_log2;
    run_case(
        {row ? "broadcast_row_add" : "broadcast_col_add", "jitvec", side * side, "float32"},
        [&](bench::Record& r) {
          const Array a = matrix();
          const std::vector<float> vector_host =
              bench::uniform_floats(side, -1.0, 1.0, seed_ + (row ? 30 : 31));
          const Array b =
              jitvec::to_device(vector_host, row ? jitvec::Shape{1, side} : jitvec::Shape{side, 1});
          Array y;
          const bench::Repetitions reps = reps_for(4.0 * static_cast<double>(side * side));
          r.set_bandwidth(4.0 * static_cast<double>(2 * side * side + side),
                          timer_.median_ms(reps, [&] { y = add_(a, b); }));
          r.method = fmt::format(
              "out = a + b, a ({0}, {0}), b {1}, new output each call, "
              "CUDA events, median of {2}",
              side, row ? fmt::format("(1, {})", side) : fmt::format("({}, 1)", side), reps.timed);
          r.extra.emplace_back("rows", static_cast<double>(side));
          r.compare_bandwidth("memcpy_dtod", ceilings_->measure(r.bytes).gbps);
          const Array out =
              Array::empty(DType::float32, {side, side}, Memory::device, kDevice, stream_);
          poison(out, stream_);
          add_(a, b, jitvec::out(out));
          note_check(r, bench::check_output(
                            out.to_vector<float>(),
                            [&](std::int64_t i) {
                              const std::int64_t k = row ? i % side : i / side;
                              return static_cast<double>(x32_[static_cast<std::size_t>(i)]) +
                                     vector_host[static_cast<std::size_t>(k)];
                            },
                            bench::kAddFloat32));
        });
  }

  // Case 5: gaussian_pdf of the transpose of a (side, side) matrix, into a C-ordered output.
  void transposed_case() {
    const std::int64_t side = std::int64_t{1} << sizes_.matrix_side_log2;
    run_case({"transposed_gaussian_pdf", "jitvec", side * side, "float32"}, [&](bench::Record& r) {
      const Array xt = matrix().transpose();
      const float mean = static_cast<float>(kMean), sigma = static_cast<float>(kSigma);
      Array y;
      const bench::Repetitions reps = reps_for(4.0 * static_cast<double>(side * side));
      r.set_bandwidth(2.0 * 4.0 * static_cast<double>(side * side),
                      timer_.median_ms(reps, [&] { y = gaussian_pdf_(xt, mean, sigma); }));
      r.method = fmt::format(
          "input x.T of a C-ordered ({0}, {0}) matrix (strides (1, {0})), "
          "C-ordered output, CUDA events, median of {1}",
          side, reps.timed);
      r.extra.emplace_back("rows", static_cast<double>(side));
      r.compare_bandwidth("memcpy_dtod", ceilings_->measure(r.bytes).gbps);
      const Array out =
          Array::empty(DType::float32, {side, side}, Memory::device, kDevice, stream_);
      poison(out, stream_);
      gaussian_pdf_(xt, mean, sigma, jitvec::out(out));
      note_check(r, bench::check_output(
                        out.to_vector<float>(),
                        [&](std::int64_t k) {
                          const std::int64_t i = k / side, j = k % side;  // out[i][j] = f(x[j][i])
                          return bench::gaussian_pdf_reference(
                              x32_[static_cast<std::size_t>(j * side + i)], mean, sigma);
                        },
                        bench::kGaussianFloat32));
    });
  }

  // Case 9 (run after case 5, while the device inputs are all there): issue 14's N-d layouts.
  void layout_cases() {
    bench::LayoutInputs inputs;
    inputs.device = kDevice;
    inputs.stream = stream_;
    inputs.timer = &timer_;
    inputs.ceilings = ceilings_.get();
    inputs.add = &add_;
    inputs.gaussian_pdf = &gaussian_pdf_;
    inputs.x_host = &x32_;
    inputs.x_device = &x32_device_;
    inputs.seed = seed_;
    inputs.quick = sizes_.largest_log2() < 28;
    try {
      bench::run_layout_cases(inputs, [this](bench::Record record,
                                             const std::function<void(bench::Record&)>& body) {
        run_case(std::move(record), body);
      });
    } catch (const std::exception& error) {  // the family's set-up; each case catches its own
      bench::Record record{"layout_setup", "jitvec", 0, "float32"};
      record.error = error.what();
      fmt::print("  layouts: ERROR: {}\n", record.error);
      results_.add(std::move(record));
    }
  }

  // Case 10 (issue 13, bench_graph.hpp): 16 captured calls replayed against the same calls made
  // directly.
  void graph_cases() {
    bench::GraphInputs inputs{kDevice, &add_, &gaussian_pdf_, &x32_, &x32_device_, kMean, kSigma};
    try {
      bench::run_graph_cases(inputs, [this](bench::Record record,
                                            const std::function<void(bench::Record&)>& body) {
        run_case(std::move(record), body);
      });
    } catch (const std::exception& error) {  // the capture itself; each case catches its own
      bench::Record record{"graph_replay16", "jitvec", 1024, "float32"};
      record.error = error.what();
      fmt::print("  graph: ERROR: {}\n", record.error);
      results_.add(std::move(record));
    }
  }

  // Case 6: host vectors in and out; the library copies in, computes and copies back.
  void host_arrays_case() {
    const std::int64_t n = std::int64_t{1} << sizes_.host_log2;
    run_case({"host_gaussian_pdf", "jitvec", n, "float32"}, [&](bench::Record& r) {
      const std::vector<float> x(x32_.begin(), x32_.begin() + n);
      std::vector<float> y(static_cast<std::size_t>(n));
      const Array y_array = jitvec::from_vector(y);
      const float mean = static_cast<float>(kMean), sigma = static_cast<float>(kSigma);
      auto call = [&] {
        gaussian_pdf_(x, mean, sigma, jitvec::out(y_array), jitvec::target(jitvec::Target::cuda));
      };
      const bench::Repetitions reps{1, 10};
      r.set_bandwidth(2.0 * 4.0 * static_cast<double>(n), bench::median_host_ms(reps, call));
      r.method = fmt::format(
          "std::vector<float> in, out= a std::vector<float> (pageable), host "
          "wall time of the synchronous call, median of {}",
          reps.timed);
      r.compare_bandwidth("pinned_h2d+d2h", pinned_round_trip_gbps_);
      std::fill(y.begin(), y.end(), std::nanf(""));
      call();
      note_check(r, bench::check_output(
                        y,
                        [&](std::int64_t i) {
                          return bench::gaussian_pdf_reference(x[static_cast<std::size_t>(i)], mean,
                                                               sigma);
                        },
                        bench::kGaussianFloat32));
    });
  }

  // Case 7: the host cost of one call on 1024 device elements.
  void dispatch_case(bool with_out) {
    constexpr std::int64_t n = 1024;
    run_case(
        {with_out ? "dispatch_out" : "dispatch", "jitvec", n, "float32"}, [&](bench::Record& r) {
          const Array x = x32_device_.slice(0, 0, n);
          const Array out = Array::empty(DType::float32, {n}, Memory::device, kDevice, stream_);
          const float mean = static_cast<float>(kMean), sigma = static_cast<float>(kSigma);
          constexpr int kBatches = 20, kCalls = 500;
          auto call = [&] {
            if (with_out) {
              gaussian_pdf_(x, mean, sigma, jitvec::out(out), jitvec::on(stream_));
            } else {
              gaussian_pdf_(x, mean, sigma, jitvec::on(stream_));
            }
          };
          // Batches of calls alternate with batches of bare launches, so the ratio compares
          // the two under the same machine conditions.
          double bare_us = bare_launch_.time_ms * 1000.0;
          double us = 0;
          if (bare_) {
            std::tie(us, bare_us) = bench::host_us_per_call_interleaved(
                stream_, kBatches, kCalls, call, [&] { bare_->launch(); });
          } else {
            us = bench::host_us_per_call(stream_, kBatches, kCalls, call);
          }
          r.time_ms = us / 1000.0;
          r.method = fmt::format(
              "host time per call on the same stream as the bare launch, {} batches of {} "
              "back-to-back calls{}, median of batch averages; its batches alternate with "
              "batches of bare launches, which measured {:.2f} us",
              kBatches, kCalls, with_out ? " into out=" : "", bare_us);
          r.extra.emplace_back("bare_launch_interleaved_us", bare_us);
          if (bare_) {
            // A diagnostic, not the target: the same bare launch against an empty kernel taking
            // our loop's ten parameters, interleaved the same way. Their difference is what the
            // driver charges for the parameters, which no host-side work of jitvec can remove.
            const auto [with_parameters_us, plain_us] = bench::host_us_per_call_interleaved(
                stream_, kBatches, kCalls, [&] { bare_->launch_with_parameters(); },
                [&] { bare_->launch(); });
            r.extra.emplace_back("bare_launch_10_params_us", with_parameters_us);
            r.extra.emplace_back("bare_launch_beside_10_params_us", plain_us);
          }
          r.compare_time("bare_launch", bare_us / 1000.0, bench::kRatioTimeOverCeiling);
          poison(out, stream_);
          gaussian_pdf_(x, mean, sigma, jitvec::out(out));
          note_check(r, bench::check_output(
                            out.to_vector<float>(),
                            [&](std::int64_t i) {
                              return bench::gaussian_pdf_reference(
                                  x32_[static_cast<std::size_t>(i)], mean, sigma);
                            },
                            bench::kGaussianFloat32));
        });
  }

  // Case 8, in child processes.
  void startup_case() {
    try {
      for (bench::Record& record :
           bench::measure_startup(samples_, sizes_.startup_cold_runs, sizes_.startup_warm_runs)) {
        fmt::print("  {:<24} {:>10.3f} ms{}\n", record.case_name, record.time_ms,
                   record.error.empty() ? "" : " ERROR: " + record.error);
        results_.add(std::move(record));
      }
    } catch (const std::exception& error) {
      bench::Record record{"startup_cold_gaussian_pdf", "jitvec", 1024, "float32"};
      record.error = error.what();
      fmt::print("  startup: ERROR: {}\n", record.error);
      results_.add(std::move(record));
    }
  }

  const std::vector<std::string> only_;
  const Sizes sizes_;
  const std::uint64_t seed_;
  const std::filesystem::path samples_;
  cuda::ContextGuard context_;
  CUstream stream_ = nullptr;  // the legacy default stream, where calls without on() run
  bench::EventTimer timer_;
  bench::Results results_;
  jitvec::Engine engine_;
  jitvec::Ufunc gaussian_pdf_, polar_distance_, zero_suppress_, add_;
  std::vector<float> x32_;
  std::vector<double> x64_;
  Array x32_device_, x64_device_;
  std::unique_ptr<bench::DeviceCopyCeiling> ceilings_;
  double pinned_round_trip_gbps_ = 0.0;
  bench::Record bare_launch_;
  std::unique_ptr<bench::BareLaunch> bare_;  // null when it could not be built
};

// Why there is no GPU to run on, or empty when there is one.
std::string why_no_gpu() {
  try {
    cuda::driver();
  } catch (const std::exception& error) {
    return error.what();
  }
  return cuda::device_count() == 0 ? "the CUDA driver reports no device" : "";
}

struct Options {
  std::filesystem::path json;
  bool quick = false;
  std::uint64_t seed = 20261129;
  std::filesystem::path samples;
  std::filesystem::path startup_child_cache;
  std::string startup_case = "gaussian_pdf";
  std::vector<std::string> only;
};

}  // namespace

int main(int argc, char** argv) {
  const bench::Clock::time_point main_start = bench::Clock::now();
  CLI::App app{
      "jitvec GPU benchmark: issue 2 and 5's cases against ceilings measured in the same "
      "run."};
  Options options;
  app.add_option("--json", options.json, "write the results as JSON to this file");
  app.add_flag("--quick", options.quick, "small sizes (up to 2^22), for a smoke test");
  app.add_option("--seed", options.seed, "seed of the random inputs");
  app.add_option("--only", options.only,
                 "run only the cases whose names start with one of these prefixes (the "
                 "ceilings are always measured)");
  app.add_option("--samples", options.samples,
                 "the folder of the sample definitions (default: the source tree's samples/)");
  app.add_option(bench::kStartupChildFlag, options.startup_child_cache,
                 "internal: run as a start-up measurement child with this cache folder")
      ->group("");
  app.add_option(bench::kStartupCaseFlag, options.startup_case, "internal: the start-up child's case")
      ->group("");
  CLI11_PARSE(app, argc, argv);

  try {
    const std::filesystem::path samples = bench::samples_folder(options.samples);
    if (!options.startup_child_cache.empty()) {
      return bench::run_startup_child(options.startup_child_cache, options.startup_case, samples,
                                      main_start);
    }
    if (const std::string reason = why_no_gpu(); !reason.empty()) {
      fmt::print("jitvec_bench_gpu: no GPU to benchmark, skipping: {}\n", reason);
      if (!options.json.empty()) {
        bench::Results skipped;
        skipped.set_metadata("tool", "jitvec_bench_gpu");
        skipped.set_metadata("date", bench::utc_timestamp());
        skipped.set_metadata("jitvec", jitvec::kVersion);
        skipped.set_metadata("skipped", reason);
        skipped.write_json(options.json);
      }
      return 0;
    }
    GpuBench bench(options.quick ? Sizes::quick() : Sizes::full(), options.seed, samples,
                   options.only);
    return bench.run(options.json);
  } catch (const std::exception& error) {
    fmt::print(stderr, "jitvec_bench_gpu: {}\n", error.what());
    return 1;
  }
}
