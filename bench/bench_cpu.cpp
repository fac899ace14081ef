// bench/bench_cpu.cpp: the CPU targets' speed (issue 4), each against a ceiling measured in
// the same run.
//
//   * `parallel` gaussian_pdf over n float32 (default 2^26) against a multi-threaded memcpy of
//     the same bytes with the same thread count (bytes read + written, both sides): the target
//     is >= 0.8 of the copy's bandwidth.
//   * `cpu` (one thread) gaussian_pdf against a naive multi-pass evaluation, one loop per
//     operation over float32 temporaries as NumPy evaluates the expression
//     (z = x - mean; z /= sigma; z *= z; z *= -0.5; e = exp(z); out = e / (sigma * sqrt(2 pi))):
//     the target is >= 2x faster. The temporaries are allocated once, outside the timing, so the
//     baseline pays only for its passes over memory, not for page faults NumPy would also pay.
//
// Every output (the copy's too) is checked against a float64 reference before its time is
// reported. Writes JSON records (see results.hpp) with --json and prints a table.
//
//     jitvec_bench_cpu [--json FILE] [--quick] [--threads T] [-n N] [--seed S] [--samples DIR]
#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <jitvec/jitvec.hpp>
#include <limits>
#include <thread>
#include <vector>

#include "checks.hpp"
#include "cpu/host_compiler.hpp"
#include "random_inputs.hpp"
#include "results.hpp"
#include "sample_definitions.hpp"
#include "timing.hpp"

namespace {

// Exactly representable, and not 0 and 1, so that no operation is trivially skipped.
constexpr float kMean = 0.25f;
constexpr float kSigma = 1.5f;
constexpr float kSqrt2Pi = 2.5066282746310002f;

// The naive evaluation, one pass each; noinline keeps the compiler from fusing the passes.
namespace naive {

[[gnu::noinline]] void subtract(const float* x, float s, float* z, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) z[i] = x[i] - s;
}
[[gnu::noinline]] void divide_in_place(float* z, float s, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) z[i] /= s;
}
[[gnu::noinline]] void square_in_place(float* z, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) z[i] *= z[i];
}
[[gnu::noinline]] void multiply_in_place(float* z, float s, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) z[i] *= s;
}
[[gnu::noinline]] void exponential(const float* z, float* e, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) e[i] = std::exp(z[i]);
}
[[gnu::noinline]] void divide(const float* e, float s, float* out, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) out[i] = e[i] / s;
}

void gaussian_pdf(const std::vector<float>& x, float mean, float sigma, std::vector<float>& z,
                  std::vector<float>& e, std::vector<float>& out) {
  const auto n = static_cast<std::int64_t>(x.size());
  subtract(x.data(), mean, z.data(), n);
  divide_in_place(z.data(), sigma, n);
  square_in_place(z.data(), n);
  multiply_in_place(z.data(), -0.5f, n);
  exponential(z.data(), e.data(), n);
  divide(e.data(), sigma * kSqrt2Pi, out.data(), n);
}

}  // namespace naive

// memcpy of `from` into `to`, cut into `threads` contiguous chunks, one thread each.
void threaded_copy(const std::vector<float>& from, std::vector<float>& to, int threads) {
  const std::size_t n = from.size();
  auto copy_chunk = [&](int t) {
    const std::size_t begin = n * static_cast<std::size_t>(t) / static_cast<std::size_t>(threads);
    const std::size_t end = n * static_cast<std::size_t>(t + 1) / static_cast<std::size_t>(threads);
    std::memcpy(to.data() + begin, from.data() + begin, (end - begin) * sizeof(float));
  };
  std::vector<std::thread> workers;
  for (int t = 1; t < threads; ++t) workers.emplace_back(copy_chunk, t);
  copy_chunk(0);
  for (std::thread& worker : workers) worker.join();
}

// The ceiling of a parallel reduce (issue 11): a read-only sweep of `from` in `threads`
// contiguous chunks, each summed by 16 independent float accumulators (vectorized), the partial
// sums kept so that nothing is optimized away.
double threaded_read_sweep(const std::vector<float>& from, int threads) {
  const std::size_t n = from.size();
  std::vector<double> partial(static_cast<std::size_t>(threads));
  auto sweep = [&](int t) {
    const std::size_t begin = n * static_cast<std::size_t>(t) / static_cast<std::size_t>(threads);
    const std::size_t end = n * static_cast<std::size_t>(t + 1) / static_cast<std::size_t>(threads);
    float acc[16] = {};
    std::size_t i = begin;
    for (; i + 16 <= end; i += 16) {
      for (int k = 0; k < 16; ++k) acc[k] += from[i + static_cast<std::size_t>(k)];
    }
    double s = 0;
    for (; i < end; ++i) s += from[i];
    for (float a : acc) s += a;
    partial[static_cast<std::size_t>(t)] = s;
  };
  std::vector<std::thread> workers;
  for (int t = 1; t < threads; ++t) workers.emplace_back(sweep, t);
  sweep(0);
  for (std::thread& worker : workers) worker.join();
  double total = 0;
  for (double s : partial) total += s;
  return total;
}

void poison(std::vector<float>& values) {
  std::fill(values.begin(), values.end(), std::numeric_limits<float>::quiet_NaN());
}

bench::Check check_gaussian(const std::vector<float>& got, const std::vector<float>& x) {
  return bench::check_output(
      got,
      [&](std::int64_t i) {
        return bench::gaussian_pdf_reference(x[static_cast<std::size_t>(i)], kMean, kSigma);
      },
      bench::kGaussianFloat32);
}

void note_check(bench::Record& record, const bench::Check& check) {
  record.verified = check.passed();
  record.extra.emplace_back("checked_elements", static_cast<double>(check.checked));
  record.extra.emplace_back("max_rel_error", check.max_rel_error);
  if (!check.passed()) record.error = check.describe();
}

struct Options {
  std::filesystem::path json;
  bool quick = false;
  int threads = 0;
  std::int64_t n = 0;
  std::uint64_t seed = 20261129;
  std::filesystem::path samples;
};

int run(const Options& options) {
  const std::int64_t n = options.n > 0 ? options.n : (options.quick ? (1 << 22) : (1 << 26));
  const int threads = options.threads > 0
                          ? options.threads
                          : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  const bench::Repetitions threaded{options.quick ? 1 : 2, options.quick ? 5 : 15};
  const bench::Repetitions single{1, options.quick ? 3 : 5};
  const double bytes = 2.0 * sizeof(float) * static_cast<double>(n);

  bench::Results results;
  results.set_metadata("tool", "jitvec_bench_cpu");
  results.set_metadata("date", bench::utc_timestamp());
  results.set_metadata("jitvec", jitvec::kVersion);
  results.set_metadata("cpu", bench::cpu_model());
  results.set_metadata_number("threads", threads);
  results.set_metadata_number("hardware_threads", std::thread::hardware_concurrency());
  results.set_metadata("bench_compiler", bench::build_compiler());
  results.set_metadata("host_compiler", jitvec::cpu::host_compiler().identity);
  fmt::print("jitvec {} CPU benchmark: n = {}, {} threads, {}\n", jitvec::kVersion, n, threads,
             bench::cpu_model());

  jitvec::EngineOptions engine_options;
  engine_options.threads = threads;
  jitvec::Engine engine(engine_options);
  engine.load_definitions(bench::samples_folder(options.samples) / "gaussian_pdf.toml");
  const jitvec::Ufunc gaussian_pdf = engine.ufunc("gaussian_pdf");

  const std::vector<float> x = bench::uniform_floats(n, -3.0, 3.0, options.seed);
  std::vector<float> y(static_cast<std::size_t>(n));
  const jitvec::Array y_array = jitvec::from_vector(y);

  // The ceiling of `parallel`: a threaded memcpy of the same bytes.
  bench::Record copy{"threaded_copy", "ceiling", n, "float32"};
  copy.method = fmt::format("memcpy in {} contiguous chunks on {} threads, median of {}", threads,
                            threads, threaded.timed);
  copy.set_bandwidth(bytes, bench::median_host_ms(threaded, [&] { threaded_copy(x, y, threads); }));
  copy.verified = std::memcmp(x.data(), y.data(), y.size() * sizeof(float)) == 0;
  if (!copy.verified) copy.error = "the threaded copy's output differs from its input";
  const double copy_gbps = copy.gbps;
  results.add(copy);

  auto run_jitvec = [&](jitvec::Target target) {
    gaussian_pdf(x, kMean, kSigma, jitvec::out(y_array), jitvec::target(target));
  };

  bench::Record parallel{"cpu_gaussian_pdf_parallel", "jitvec", n, "float32"};
  try {
    parallel.method = fmt::format(
        "target parallel, {} threads, host vectors in and out=, "
        "median of {}",
        threads, threaded.timed);
    parallel.set_bandwidth(
        bytes, bench::median_host_ms(threaded, [&] { run_jitvec(jitvec::Target::parallel); }));
    parallel.compare_bandwidth("threaded_copy", copy_gbps);
    poison(y);
    run_jitvec(jitvec::Target::parallel);
    note_check(parallel, check_gaussian(y, x));
  } catch (const std::exception& error) {
    parallel.error = error.what();
  }
  results.add(parallel);

  // Issue 11: the parallel target's sum-reduce against a threaded read-only sweep of the bytes.
  const double read_bytes = sizeof(float) * static_cast<double>(n);
  bench::Record sweep{"threaded_read_sweep", "ceiling", n, "float32"};
  double swept = 0;
  sweep.method = fmt::format("a read-only sum in {} contiguous chunks on {} threads, median of {}",
                             threads, threads, threaded.timed);
  sweep.set_bandwidth(read_bytes, bench::median_host_ms(threaded, [&] { swept = threaded_read_sweep(x, threads); }));
  sweep.verified = std::isfinite(swept);
  results.add(sweep);
  bench::Record reduce{"cpu_sum_reduce_parallel", "jitvec", n, "float32"};
  try {
    jitvec::VectorizeOptions sum_options;
    sum_options.identity = 0;
    const jitvec::Ufunc sum = engine.vectorize("bench_sum", {"float32(float32, float32)"},
                                               "__device__ float bench_sum(float a, float b) { return a + b; }",
                                               sum_options);
    jitvec::ReduceOptions reduce_options;
    reduce_options.target = jitvec::Target::parallel;
    const jitvec::Array xa = jitvec::from_vector(x);
    float total = 0;
    reduce.method = fmt::format("add.reduce, target parallel, {} threads, a host vector, median of {}",
                                threads, threaded.timed);
    reduce.set_bandwidth(read_bytes, bench::median_host_ms(threaded, [&] {
                           total = sum.reduce(xa, reduce_options).to_vector<float>()[0];
                         }));
    reduce.compare_bandwidth("threaded_read_sweep", sweep.gbps);
    double exact = 0, magnitude = 0;
    for (float v : x) {
      exact += v;
      magnitude += std::fabs(v);
    }
    // jitvec's order (README "Reductions"): at most 3 passes of 16 + 2 + 8 roundings.
    reduce.verified = std::fabs(total - exact) <= 3 * (16 + 2 + 8) * 0x1p-24 * magnitude;
    if (!reduce.verified) reduce.error = fmt::format("sum {} but float64 gives {}", total, exact);
  } catch (const std::exception& error) {
    reduce.error = error.what();
  }
  results.add(reduce);

  // The naive baseline and the one-thread target.
  std::vector<float> z(y.size()), e(y.size());
  bench::Record baseline{"cpu_gaussian_pdf_single", "naive-multipass", n, "float32"};
  baseline.method = fmt::format(
      "6 float32 passes over temporaries allocated once, 1 thread, "
      "median of {}",
      single.timed);
  baseline.set_bandwidth(bytes, bench::median_host_ms(single, [&] {
                           naive::gaussian_pdf(x, kMean, kSigma, z, e, y);
                         }));
  poison(y);
  naive::gaussian_pdf(x, kMean, kSigma, z, e, y);
  note_check(baseline, check_gaussian(y, x));
  results.add(baseline);

  bench::Record single_thread{"cpu_gaussian_pdf_single", "jitvec", n, "float32"};
  try {
    single_thread.method =
        fmt::format("target cpu (1 thread), host vectors in and out=, median of {}", single.timed);
    single_thread.set_bandwidth(
        bytes, bench::median_host_ms(single, [&] { run_jitvec(jitvec::Target::cpu); }));
    single_thread.compare_time("naive-multipass", baseline.time_ms, bench::kRatioSpeedup);
    poison(y);
    run_jitvec(jitvec::Target::cpu);
    note_check(single_thread, check_gaussian(y, x));
  } catch (const std::exception& error) {
    single_thread.error = error.what();
  }
  results.add(single_thread);

  results.print_table();
  fmt::print(
      "targets: parallel >= 0.8 of threaded copy (got {:.3f}); cpu >= 2x naive (got {:.2f}x); "
      "parallel sum-reduce >= 0.8 of a threaded read-only sweep (got {:.3f})\n",
      parallel.ratio, single_thread.ratio, reduce.ratio);
  if (!options.json.empty()) {
    results.write_json(options.json);
    fmt::print("wrote {}\n", options.json.string());
  }
  return results.all_passed_checks() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"jitvec CPU benchmark: the parallel and cpu targets against their ceilings."};
  Options options;
  app.add_option("--json", options.json, "write the results as JSON to this file");
  app.add_flag("--quick", options.quick, "small sizes and few repetitions (a smoke test)");
  app.add_option("--threads", options.threads, "threads (default: one per hardware thread)");
  app.add_option("-n", options.n, "elements (default 2^26, 2^22 with --quick)");
  app.add_option("--seed", options.seed, "seed of the random inputs");
  app.add_option("--samples", options.samples,
                 "the folder of the sample definitions (default: the source tree's samples/)");
  CLI11_PARSE(app, argc, argv);
  try {
    return run(options);
  } catch (const std::exception& error) {
    fmt::print(stderr, "jitvec_bench_cpu: {}\n", error.what());
    return 1;
  }
}
