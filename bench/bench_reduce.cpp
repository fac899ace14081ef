#include "bench_reduce.hpp"

#include <fmt/format.h>

#include <cmath>
#include <vector>

#include "checks.hpp"
#include "gpu_cases.hpp"
#include "random_inputs.hpp"

namespace bench {
namespace {

using jitvec::Array;
using jitvec::DType;
using jitvec::Memory;

constexpr Repetitions kReduceReps{3, 30};
constexpr const char* kSumSource = "__device__ float bench_sum(float a, float b) { return a + b; }";
// The rows kernel folds 16 elements a slot, then 2 + 8 tree levels, per pass (at most 3 passes
// here); a cols chunk folds 256 in order. Relative to the sum of |x|, a result is within that
// many float32 roundings (2^-24 each).
constexpr double kRowsBound = 3 * (16 + 2 + 8) * 0x1p-24;
constexpr double kColsBound = (256 + 256) * 0x1p-24;

jitvec::Ufunc sum_ufunc(const ReduceBenchInputs& in) { return in.engine->ufunc("bench_sum"); }

void time_case(const ReduceBenchInputs& in, Record& r, double ideal_bytes, const std::string& what,
               const std::function<void()>& call) {
  const double ms = in.timer->median_ms(kReduceReps, call);
  r.set_bandwidth(ideal_bytes, ms);
  r.compare_bandwidth("memcpy_dtod", in.ceilings->measure(ideal_bytes).gbps);
  r.method = fmt::format("{}; preallocated out=; CUDA events, median of {}", what, kReduceReps.timed);
}

void sum_all_case(const ReduceBenchInputs& in, Record& r) {
  const std::int64_t n = std::int64_t{1} << (in.quick ? 20 : 28);
  r.n = n;
  jitvec::Ufunc sum = sum_ufunc(in);
  const std::vector<float> x = uniform_floats(n, 0.0, 1.0, in.seed + 120);
  const Array dx = jitvec::to_device(x, {}, in.device);
  const Array out = Array::empty(DType::float32, {}, Memory::device, in.device, in.stream);
  jitvec::ReduceOptions o;
  o.out = out;
  o.stream = jitvec::Stream(in.stream);
  o.target = jitvec::Target::cuda;
  const auto call = [&] { sum.reduce(dx, o); };
  time_case(in, r, 4.0 * static_cast<double>(n),
            fmt::format("add.reduce of {} float32, every axis, into a 0-d out=; ideal: the input "
                        "read once; two passes (chunks of 16384, then their partials)",
                        n),
            call);
  poison(out, in.stream);
  call();
  double exact = 0;
  for (float v : x) exact += v;
  note_check(r, check_output(out.to_vector<float>(), [&](std::int64_t) { return exact; },
                             Tolerance{kRowsBound, 0.0}));
}

void matrix_case(const ReduceBenchInputs& in, Record& r, int axis) {
  const std::int64_t side = std::int64_t{1} << (in.quick ? 10 : 14);
  r.n = side * side;
  jitvec::Ufunc sum = sum_ufunc(in);
  const std::vector<float> x = uniform_floats(side * side, 0.0, 1.0, in.seed + 121 + axis);
  const Array dx = jitvec::to_device(x, {side, side}, in.device);
  const Array out = Array::empty(DType::float32, {side}, Memory::device, in.device, in.stream);
  jitvec::ReduceOptions o;
  o.axes = std::vector<int>{axis};
  o.out = out;
  o.stream = jitvec::Stream(in.stream);
  o.target = jitvec::Target::cuda;
  const auto call = [&] { sum.reduce(dx, o); };
  time_case(in, r, 4.0 * static_cast<double>(side * side + side),
            fmt::format("add.reduce of a ({0}, {0}) float32 matrix along axis {1} ({2} kernel); "
                        "ideal: the input read once plus the output written once",
                        side, axis, axis == 1 ? "rows" : "cols"),
            call);
  poison(out, in.stream);
  call();
  std::vector<double> exact(static_cast<std::size_t>(side), 0.0);
  for (std::int64_t i = 0; i < side; ++i) {
    for (std::int64_t j = 0; j < side; ++j) {
      exact[static_cast<std::size_t>(axis == 1 ? i : j)] += x[static_cast<std::size_t>(i * side + j)];
    }
  }
  note_check(r, check_output(out.to_vector<float>(), [&](std::int64_t i) { return exact[static_cast<std::size_t>(i)]; },
                             Tolerance{axis == 1 ? kRowsBound : kColsBound, 0.0}));
}

// The scan's bound (README, "Reductions"; kernels/scan.hpp), in float32 roundings of the
// running sum. tiles: within a tile 4 in a thread, 5 Kogge-Stone steps, up to 8 warps, 10 rows
// and 2 combinations (~29); the prefix adds the aggregates' own ~27, the tree's levels (15 for
// the 26215 tiles of 2^28) and the digits of the tile's number folded in order (up to 15):
// ~86, bounded by 160. lines: a chunk of 256 in order and up to 64 chunk prefixes in order.
constexpr double kScanTilesBound = 160 * 0x1p-24;
constexpr double kScanLinesBound = (256 + 64 + 2) * 0x1p-24;

void accumulate_case(const ReduceBenchInputs& in, Record& r) {
  const std::int64_t n = std::int64_t{1} << (in.quick ? 20 : 28);
  r.n = n;
  jitvec::Ufunc sum = sum_ufunc(in);
  const std::vector<float> x = uniform_floats(n, 0.0, 1.0, in.seed + 124);
  const Array dx = jitvec::to_device(x, {}, in.device);
  const Array out = Array::empty(DType::float32, {n}, Memory::device, in.device, in.stream);
  jitvec::AccumulateOptions o;
  o.out = out;
  o.stream = jitvec::Stream(in.stream);
  o.target = jitvec::Target::cuda;
  const auto call = [&] { sum.accumulate(dx, 0, o); };
  // The record's ideal is what any scan must move and what this one moves: read once,
  // written once, 8 bytes an element (plus the status: 16 bytes a tile of 40 KB).
  const double ideal = 8.0 * static_cast<double>(n);
  time_case(in, r, ideal,
            fmt::format("add.accumulate of {} float32 along its contiguous axis into out=; one "
                        "pass over tiles of 10240 with a look-back to the aligned ranges of earlier "
                        "tiles (a fixed tree: the same bits every run); ideal: read once, written "
                        "once (8 bytes an element)",
                        n),
            call);
  poison(out, in.stream);
  call();
  std::vector<double> prefix(static_cast<std::size_t>(n));
  double running = 0;
  for (std::int64_t i = 0; i < n; ++i) prefix[static_cast<std::size_t>(i)] = running += x[static_cast<std::size_t>(i)];
  note_check(r, check_output(out.to_vector<float>(), [&](std::int64_t i) { return prefix[static_cast<std::size_t>(i)]; },
                             Tolerance{kScanTilesBound, 0.0}));
}

// add.accumulate of a (side, side) float32 matrix along axis 0: each column a line (the lines
// kind: chunks of 256 rows, one thread a column chunk, neighbouring threads neighbouring
// columns).
void accumulate_axis0_case(const ReduceBenchInputs& in, Record& r) {
  const std::int64_t side = std::int64_t{1} << (in.quick ? 10 : 14);
  r.n = side * side;
  jitvec::Ufunc sum = sum_ufunc(in);
  const std::vector<float> x = uniform_floats(side * side, 0.0, 1.0, in.seed + 125);
  const Array dx = jitvec::to_device(x, {side, side}, in.device);
  const Array out = Array::empty(DType::float32, {side, side}, Memory::device, in.device, in.stream);
  jitvec::AccumulateOptions o;
  o.out = out;
  o.stream = jitvec::Stream(in.stream);
  o.target = jitvec::Target::cuda;
  const auto call = [&] { sum.accumulate(dx, 0, o); };
  const double ideal = 8.0 * static_cast<double>(side * side);
  time_case(in, r, ideal,
            fmt::format("add.accumulate of a ({0}, {0}) float32 matrix along axis 0 (columns: the "
                        "lines kind, chunks of 256 rows, aggregates chained, then rescanned); "
                        "ideal: read once, written once; the passes move 12 bytes an element",
                        side),
            call);
  poison(out, in.stream);
  call();
  std::vector<double> prefix(static_cast<std::size_t>(side * side));
  for (std::int64_t i = 0; i < side; ++i) {
    for (std::int64_t j = 0; j < side; ++j) {
      const std::size_t at = static_cast<std::size_t>(i * side + j);
      prefix[at] = x[at] + (i > 0 ? prefix[at - static_cast<std::size_t>(side)] : 0.0);
    }
  }
  note_check(r, check_output(out.to_vector<float>(), [&](std::int64_t i) { return prefix[static_cast<std::size_t>(i)]; },
                             Tolerance{kScanLinesBound, 0.0}));
}

}  // namespace

void run_reduce_cases(const ReduceBenchInputs& inputs, const ReduceCaseRunner& run_case) {
  jitvec::VectorizeOptions options;
  options.identity = 0;
  inputs.engine->vectorize("bench_sum", {"float32(float32, float32)"}, kSumSource, options);
  run_case(Record{"reduce_sum_all_f32", "jitvec", 0, "float32"}, [&](Record& r) { sum_all_case(inputs, r); });
  run_case(Record{"reduce_rows_f32", "jitvec", 0, "float32"}, [&](Record& r) { matrix_case(inputs, r, 1); });
  run_case(Record{"reduce_cols_f32", "jitvec", 0, "float32"}, [&](Record& r) { matrix_case(inputs, r, 0); });
  run_case(Record{"accumulate_f32", "jitvec", 0, "float32"}, [&](Record& r) { accumulate_case(inputs, r); });
  run_case(Record{"accumulate_axis0_f32", "jitvec", 0, "float32"}, [&](Record& r) { accumulate_axis0_case(inputs, r); });
}

}  // namespace bench
