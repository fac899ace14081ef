// bench/bench_cpu.cpp: the CPU targets' speed (issues 4, 11 and 14), each against a ceiling
// measured in the same run.
//
//   * `parallel` (all threads) against plain threaded code on the same threads (ThreadTeam:
//     persistent threads, one fixed contiguous slice each), timed interleaved with it (ceiling,
//     jitvec, ceiling, ... the order rotated each round) so that both see the same clock
//     frequency and the same memory traffic from other tenants; every figure is a median, and
//     each run also reports the spread of the per-round ratios:
//       - gaussian_pdf over n float32 (default 2^26), contiguous, and a 2-D broadcast
//         (x viewed as 2^k x n/2^k, the mean a row of n/2^k values), each against a threaded
//         memcpy of the same bytes (read + written): target >= 0.85 in every run (issue 14);
//       - add.reduce of the n float32 against a threaded read-only sweep (bytes read):
//         target >= 0.8 (issue 11).
//     Fair and stated: both sides read the same input and write the same output buffer, whose
//     pages the main thread faulted in before any timing (neither side pays first-touch
//     faults); both pay a thread wake-up per call. A copy with ordinary (read-for-ownership)
//     stores runs in the same rounds, for information: memcpy may write without reading the
//     destination first, which no ufunc loop does.
//     --repeat R runs these R times in one process and prints each run's ratios, so that one
//     command shows "in each of R runs"; the JSON keeps each case's lowest run (all runs as
//     extra figures).
//   * `cpu` (one thread) gaussian_pdf against a naive multi-pass evaluation, one loop per
//     operation over float32 temporaries as NumPy evaluates the expression
//     (z = x - mean; z /= sigma; z *= z; z *= -0.5; e = exp(z); out = e / (sigma * sqrt(2 pi))):
//     the target is >= 2x faster. The temporaries are allocated once, outside the timing, so the
//     baseline pays only for its passes over memory, not for page faults NumPy would also pay.
//     Skipped by --only parallel. Beside it, the same call allocating its result (dropped
//     before the next call): target <= 1.3x the out= call's time (issue 28).
//
// Every output (the copies' too) is checked against a float64 reference before its time is
// reported. Writes JSON records (see results.hpp) with --json and prints a table.
//
//     jitvec_bench_cpu [--json FILE] [--quick] [--threads T] [-n N] [--seed S] [--samples DIR]
//                      [--repeat R] [--rounds K] [--only all|parallel]
#include <fmt/core.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sched.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <cctype>
#include <filesystem>
#include <functional>
#include <string>
#include <jitvec/jitvec.hpp>
#include <limits>
#include <thread>
#include <vector>

#include "checks.hpp"
#include "cpu/host_compiler.hpp"
#include "random_inputs.hpp"
#include "results.hpp"
#include "sample_definitions.hpp"
#include "thread_team.hpp"
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

// memcpy of `from` into `to`, one contiguous slice per thread of the team.
void threaded_copy(bench::ThreadTeam& team, const std::vector<float>& from, std::vector<float>& to) {
  team.run(static_cast<std::int64_t>(from.size()), [&](int, std::int64_t begin, std::int64_t end) {
    std::memcpy(to.data() + begin, from.data() + begin, static_cast<std::size_t>(end - begin) * sizeof(float));
  });
}

// The same copy with ordinary stores, which read each destination line before writing it (as a
// ufunc loop's stores do); `+ 0.0f` keeps the compiler from turning the loop into memcpy.
void threaded_store_copy(bench::ThreadTeam& team, const std::vector<float>& from, std::vector<float>& to) {
  team.run(static_cast<std::int64_t>(from.size()), [&](int, std::int64_t begin, std::int64_t end) {
    const float* in = from.data();
    float* out = to.data();
    for (std::int64_t i = begin; i < end; ++i) out[i] = in[i] + 0.0f;
  });
}

// The ceiling of a parallel reduce (issue 11): a read-only sweep of `from`, one contiguous
// slice per thread, each summed by 16 independent float accumulators (vectorized), the partial
// sums kept so that nothing is optimized away.
double threaded_read_sweep(bench::ThreadTeam& team, const std::vector<float>& from) {
  std::vector<double> partial(static_cast<std::size_t>(team.size()));
  team.run(static_cast<std::int64_t>(from.size()), [&](int t, std::int64_t b, std::int64_t e) {
    const auto begin = static_cast<std::size_t>(b), end = static_cast<std::size_t>(e);
    float acc[16] = {};
    std::size_t i = begin;
    for (; i + 16 <= end; i += 16) {
      for (int k = 0; k < 16; ++k) acc[k] += from[i + static_cast<std::size_t>(k)];
    }
    double sum = 0;
    for (; i < end; ++i) sum += from[i];
    for (float a : acc) sum += a;
    partial[static_cast<std::size_t>(t)] = sum;
  });
  double total = 0;
  for (double sum : partial) total += sum;
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
  int repeat = 1;
  int rounds = 0;
  std::string only = "all";
};

// One side of an interleaved measurement: a ceiling, jitvec, or an informational row.
struct Contender {
  bench::Record record;                    // case, system, n, dtype, method
  double bytes = 0;                        // moved by one call
  std::function<void()> work;
  std::function<void(bench::Record&)> verify;  // runs it once more and checks the output
  std::vector<double> median_ms;           // one per run
};

// jitvec (sides[1]) against its ceiling (sides[0]), sides[2...] shown beside them; per run, the
// ratio of the median bandwidths, the lowest and highest ratio of one round's two times, and
// the ratio of the fastest rounds (which a busy machine's time slicing disturbs least).
struct Versus {
  std::string label;
  double target = 0;
  std::vector<Contender> sides;
  std::vector<double> ratios, lowest, highest;
  std::vector<double> fastest;  // per run: the ratio of the two fastest rounds' bandwidths
  std::string error;            // set up or run failed
};

double gbps(const Contender& c, double ms) { return ms > 0 ? c.bytes / (ms * 1e6) : 0.0; }

void measure_run(Versus& v, bench::Repetitions reps) {
  std::vector<std::function<void()>> work;
  for (const Contender& c : v.sides) work.push_back(c.work);
  const std::vector<std::vector<double>> times = bench::interleaved_host_ms(reps, work);
  for (std::size_t k = 0; k < v.sides.size(); ++k) v.sides[k].median_ms.push_back(bench::median(times[k]));
  const Contender& ceiling = v.sides[0];
  const Contender& jit = v.sides[1];
  v.ratios.push_back(gbps(jit, jit.median_ms.back()) / gbps(ceiling, ceiling.median_ms.back()));
  double low = 1e300, high = 0;
  for (std::size_t i = 0; i < times[0].size(); ++i) {
    const double r = gbps(jit, times[1][i]) / gbps(ceiling, times[0][i]);
    low = std::min(low, r);
    high = std::max(high, r);
  }
  v.lowest.push_back(low);
  v.highest.push_back(high);
  v.fastest.push_back(gbps(jit, *std::min_element(times[1].begin(), times[1].end())) /
                      gbps(ceiling, *std::min_element(times[0].begin(), times[0].end())));
}

// The records of a Versus: each side at the run where jitvec's ratio was lowest, every run's
// ratio as extra figures of jitvec's record.
void add_records(bench::Results& results, Versus& v) {
  if (v.ratios.empty()) {
    if (v.sides.size() > 1) {
      v.sides[1].record.error = v.error.empty() ? "not measured" : v.error;
      results.add(v.sides[1].record);
    }
    return;
  }
  const auto worst = static_cast<std::size_t>(std::min_element(v.ratios.begin(), v.ratios.end()) - v.ratios.begin());
  const Contender& ceiling = v.sides[0];
  const double ceiling_gbps = gbps(ceiling, ceiling.median_ms[worst]);
  for (std::size_t k = 0; k < v.sides.size(); ++k) {
    Contender& c = v.sides[k];
    c.record.set_bandwidth(c.bytes, c.median_ms[worst]);
    if (k > 0) c.record.compare_bandwidth(ceiling.record.case_name, ceiling_gbps);
    if (k == 1) {
      c.record.extra.emplace_back("runs", static_cast<double>(v.ratios.size()));
      c.record.extra.emplace_back("reported_run", static_cast<double>(worst + 1));
      for (std::size_t r = 0; r < v.ratios.size(); ++r) {
        c.record.extra.emplace_back(fmt::format("run{}_ratio", r + 1), v.ratios[r]);
      }
      c.record.extra.emplace_back("lowest_round_ratio", v.lowest[worst]);
      c.record.extra.emplace_back("highest_round_ratio", v.highest[worst]);
      c.record.extra.emplace_back("fastest_rounds_ratio", v.fastest[worst]);
    }
    if (c.verify) {
      try {
        c.verify(c.record);
      } catch (const std::exception& error) {
        c.record.verified = false;
        c.record.error = error.what();
      }
    }
    results.add(c.record);
  }
}

// Cores this process may run on, and NUMA nodes of the machine (0 when unknown).
int allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  return sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : 0;
}
int numa_nodes() {
  int nodes = 0;
  std::error_code ignored;
  for (const auto& entry : std::filesystem::directory_iterator("/sys/devices/system/node", ignored)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("node", 0) == 0 && name.size() > 4 && std::isdigit(static_cast<unsigned char>(name[4]))) ++nodes;
  }
  return nodes;
}

int run(const Options& options) {
  const std::int64_t n = options.n > 0 ? options.n : (options.quick ? (1 << 22) : (1 << 26));
  const int threads = options.threads > 0
                          ? options.threads
                          : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  const int repeat = std::max(1, options.repeat);
  const bench::Repetitions rounds{options.quick ? 1 : 2,
                                  options.rounds > 0 ? options.rounds : (options.quick ? 5 : 15)};
  const bench::Repetitions single{1, options.quick ? 3 : 5};
  const double bytes = 2.0 * sizeof(float) * static_cast<double>(n);
  const double read_bytes = sizeof(float) * static_cast<double>(n);

  bench::Results results;
  results.set_metadata("tool", "jitvec_bench_cpu");
  results.set_metadata("date", bench::utc_timestamp());
  results.set_metadata("jitvec", jitvec::kVersion);
  results.set_metadata("cpu", bench::cpu_model());
  results.set_metadata_number("threads", threads);
  results.set_metadata_number("hardware_threads", std::thread::hardware_concurrency());
  results.set_metadata_number("allowed_cpus", allowed_cpus());
  results.set_metadata_number("numa_nodes", numa_nodes());
  results.set_metadata_number("runs", repeat);
  results.set_metadata("bench_compiler", bench::build_compiler());
  results.set_metadata("host_compiler", jitvec::cpu::host_compiler().identity);
  fmt::print("jitvec {} CPU benchmark: n = {}, {} threads ({} CPUs allowed, {} NUMA nodes), {}\n",
             jitvec::kVersion, n, threads, allowed_cpus(), numa_nodes(), bench::cpu_model());

  jitvec::EngineOptions engine_options;
  engine_options.threads = threads;
  jitvec::Engine engine(engine_options);
  engine.load_definitions(bench::samples_folder(options.samples) / "gaussian_pdf.toml");
  const jitvec::Ufunc gaussian_pdf = engine.ufunc("gaussian_pdf");
  bench::ThreadTeam team(threads);

  const std::vector<float> x = bench::uniform_floats(n, -3.0, 3.0, options.seed);
  // Written (faulted in) here by the main thread, before any timing, for every side alike.
  std::vector<float> y(static_cast<std::size_t>(n));
  const jitvec::Array x_array = jitvec::from_vector(x);
  const jitvec::Array y_array = jitvec::from_vector(y);
  auto run_jitvec = [&](jitvec::Target target) {
    gaussian_pdf(x, kMean, kSigma, jitvec::out(y_array), jitvec::target(target));
  };

  auto copy_side = [&](std::string name, std::string how, auto copy) {
    Contender c;
    c.record = bench::Record{std::move(name), "ceiling", n, "float32"};
    c.record.method = fmt::format("{} in {} contiguous slices on {} persistent threads, median of {} "
                                  "interleaved rounds",
                                  how, threads, threads, rounds.timed);
    c.bytes = bytes;
    c.work = [&team, &x, &y, copy] { copy(team, x, y); };
    c.verify = [&team, &x, &y, copy](bench::Record& record) {
      poison(y);
      copy(team, x, y);
      record.verified = std::equal(x.begin(), x.end(), y.begin());
      if (!record.verified) record.error = "the copy's output differs from its input";
    };
    return c;
  };
  const std::string rounds_text = fmt::format("median of {} interleaved rounds", rounds.timed);

  // Issue 14 / issue 4: gaussian_pdf, contiguous.
  Versus contiguous{"gaussian_pdf contiguous vs memcpy", 0.85, {}, {}, {}, {}, {}, {}};
  contiguous.sides.push_back(copy_side("threaded_copy", "memcpy", threaded_copy));
  {
    Contender c;
    c.record = bench::Record{"cpu_gaussian_pdf_parallel", "jitvec", n, "float32"};
    c.record.method = fmt::format("target parallel, {} threads, host vectors in and out=, {}", threads, rounds_text);
    c.bytes = bytes;
    c.work = [&] { run_jitvec(jitvec::Target::parallel); };
    c.verify = [&](bench::Record& record) {
      poison(y);
      run_jitvec(jitvec::Target::parallel);
      note_check(record, check_gaussian(y, x));
    };
    contiguous.sides.push_back(std::move(c));
  }
  contiguous.sides.push_back(copy_side("threaded_copy_stores", "a loop of ordinary stores", threaded_store_copy));

  // Issue 14: the 2-D broadcast, (rows, cols) x and a (1, cols) row of means into (rows, cols).
  std::int64_t cols = 1;
  while (cols * cols < n) cols *= 2;
  const std::int64_t rows = n / cols;
  const std::vector<float> means = bench::uniform_floats(cols, -0.5, 0.5, options.seed + 1);
  Versus broadcast{"gaussian_pdf 2-D broadcast vs memcpy", 0.85, {}, {}, {}, {}, {}, {}};
  if (rows * cols == n && rows > 1) {
    broadcast.sides.push_back(copy_side("threaded_copy", "memcpy", threaded_copy));
    const jitvec::Array xb = x_array.reshape({rows, cols});
    const jitvec::Array yb = y_array.reshape({rows, cols});
    const jitvec::Array mb = jitvec::from_vector(means).reshape({1, cols});
    Contender c;
    c.record = bench::Record{"cpu_gaussian_pdf_parallel_bcast2d", "jitvec", n, "float32"};
    c.record.method = fmt::format("target parallel, {} threads, x ({}, {}) and mean (1, {}) into out= ({}, {}), {}",
                                  threads, rows, cols, cols, rows, cols, rounds_text);
    c.bytes = bytes + sizeof(float) * static_cast<double>(cols);
    c.work = [&, xb, yb, mb] {
      gaussian_pdf(xb, mb, kSigma, jitvec::out(yb), jitvec::target(jitvec::Target::parallel));
    };
    c.verify = [&, xb, yb, mb](bench::Record& record) {
      poison(y);
      gaussian_pdf(xb, mb, kSigma, jitvec::out(yb), jitvec::target(jitvec::Target::parallel));
      note_check(record, bench::check_output(
                             y,
                             [&](std::int64_t i) {
                               return bench::gaussian_pdf_reference(x[static_cast<std::size_t>(i)],
                                                                    means[static_cast<std::size_t>(i % cols)], kSigma);
                             },
                             bench::kGaussianFloat32));
    };
    broadcast.sides.push_back(std::move(c));
  } else {
    broadcast.error = fmt::format("n = {} is not rows x cols with cols a power of 2", n);
  }

  // Issue 11: the parallel target's sum-reduce against a threaded read-only sweep of the bytes.
  double exact = 0, magnitude = 0;
  for (float v : x) {
    exact += v;
    magnitude += std::fabs(v);
  }
  Versus reduce{"add.reduce vs read sweep", 0.8, {}, {}, {}, {}, {}, {}};
  jitvec::VectorizeOptions sum_options;
  sum_options.identity = 0;
  const jitvec::Ufunc sum = engine.vectorize("bench_sum", {"float32(float32, float32)"},
                                             "__device__ float bench_sum(float a, float b) { return a + b; }",
                                             sum_options);
  jitvec::ReduceOptions reduce_options;
  reduce_options.target = jitvec::Target::parallel;
  {
    Contender c;
    c.record = bench::Record{"threaded_read_sweep", "ceiling", n, "float32"};
    c.record.method = fmt::format("a read-only sum in {} contiguous slices on {} persistent threads, {}",
                                  threads, threads, rounds_text);
    c.bytes = read_bytes;
    c.work = [&] { threaded_read_sweep(team, x); };
    c.verify = [&](bench::Record& record) {
      const double swept = threaded_read_sweep(team, x);
      record.verified = std::fabs(swept - exact) <= 1e-5 * magnitude;
      if (!record.verified) record.error = fmt::format("sweep {} but float64 gives {}", swept, exact);
    };
    reduce.sides.push_back(std::move(c));
  }
  {
    Contender c;
    c.record = bench::Record{"cpu_sum_reduce_parallel", "jitvec", n, "float32"};
    c.record.method = fmt::format("add.reduce, target parallel, {} threads, a host vector, {}", threads, rounds_text);
    c.bytes = read_bytes;
    c.work = [&] { sum.reduce(x_array, reduce_options); };
    c.verify = [&](bench::Record& record) {
      const float total = sum.reduce(x_array, reduce_options).to_vector<float>()[0];
      // jitvec's order (README "Reductions"): at most 3 passes of 16 + 2 + 8 roundings.
      record.verified = std::fabs(total - exact) <= 3 * (16 + 2 + 8) * 0x1p-24 * magnitude;
      if (!record.verified) record.error = fmt::format("sum {} but float64 gives {}", total, exact);
    };
    reduce.sides.push_back(std::move(c));
  }

  // The runs: every case of the parallel target, `repeat` times.
  std::vector<Versus*> cases{&contiguous, &broadcast, &reduce};
  for (int r = 0; r < repeat; ++r) {
    std::string line = fmt::format("run {}/{}:", r + 1, repeat);
    for (Versus* v : cases) {
      if (!v->error.empty()) continue;
      try {
        measure_run(*v, rounds);
      } catch (const std::exception& error) {
        v->error = error.what();
        continue;
      }
      line += fmt::format("\n  {}: {:.3f} [rounds {:.3f}-{:.3f}, fastest {:.3f}; ceiling {:.1f} GB/s]", v->label,
                          v->ratios.back(), v->lowest.back(), v->highest.back(), v->fastest.back(),
                          gbps(v->sides[0], v->sides[0].median_ms.back()));
      if (v->sides.size() > 2) {
        line += fmt::format(" (ordinary-store copy {:.3f} of memcpy)",
                            gbps(v->sides[0], v->sides[0].median_ms.back()) > 0
                                ? gbps(v->sides[2], v->sides[2].median_ms.back()) /
                                      gbps(v->sides[0], v->sides[0].median_ms.back())
                                : 0.0);
      }
    }
    fmt::print("{}\n", line);
  }
  for (Versus* v : cases) add_records(results, *v);

  bench::Record single_thread{"cpu_gaussian_pdf_single", "jitvec", n, "float32"};
  double alloc_ratio = 0;
  if (options.only == "all") {
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

    // The same call allocating its result (issue 28: within 1.3x of out=). Each result is
    // dropped before the next call, as `y = f(x)` in a loop drops the last one; the host
    // arrays' memory (core/host_memory.hpp) is what this row measures.
    bench::Record allocating{"cpu_gaussian_pdf_single_alloc", "jitvec", n, "float32"};
    try {
      allocating.method = fmt::format(
          "target cpu (1 thread), host vector in, the result allocated by the call and dropped, "
          "median of {}; ratio: time over the out= row's",
          single.timed);
      allocating.set_bandwidth(bytes, bench::median_host_ms(single, [&] {
                                 (void)gaussian_pdf(x, kMean, kSigma, jitvec::target(jitvec::Target::cpu));
                               }));
      allocating.compare_time("cpu_gaussian_pdf_single (out=)", single_thread.time_ms,
                              bench::kRatioTimeOverCeiling);
      const jitvec::Array result = gaussian_pdf(x, kMean, kSigma, jitvec::target(jitvec::Target::cpu));
      const std::vector<float> got = result.to_vector<float>();
      note_check(allocating, check_gaussian(got, x));
    } catch (const std::exception& error) {
      allocating.error = error.what();
    }
    results.add(allocating);
    alloc_ratio = allocating.ratio;
  }

  results.print_table();
  for (Versus* v : cases) {
    if (v->ratios.empty()) {
      fmt::print("target: {} >= {}: not measured ({})\n", v->label, v->target, v->error);
      continue;
    }
    const double lowest = *std::min_element(v->ratios.begin(), v->ratios.end());
    fmt::print("target: {} >= {} in each of {} runs: {} (runs: {:.3f})\n", v->label, v->target,
               v->ratios.size(), lowest >= v->target ? "PASS" : "MISS", fmt::join(v->ratios, ", "));
  }
  if (options.only == "all") {
    fmt::print("target: cpu >= 2x naive multi-pass: {} ({:.2f}x)\n",
               single_thread.ratio >= 2.0 ? "PASS" : "MISS", single_thread.ratio);
    fmt::print("target: cpu allocating call <= 1.3x the call with out=: {} ({:.2f}x)\n",
               alloc_ratio > 0 && alloc_ratio <= 1.3 ? "PASS" : "MISS", alloc_ratio);
  }
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
  app.add_option("--repeat", options.repeat,
                 "run the parallel target's cases this many times, printing each run's ratios");
  app.add_option("--rounds", options.rounds, "interleaved timed rounds a run (default 15, 5 with --quick)");
  app.add_option("--only", options.only, "all (default) or parallel (skip the one-thread cases)")
      ->check(CLI::IsMember({"all", "parallel"}));
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
