#include "bench_gufunc.hpp"

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

constexpr Repetitions kGufuncReps{3, 30};
constexpr std::int64_t kCore = 16;

constexpr const char* kMultiplySource =
    "__device__ float bench_multiply(float a, float b) { return a * b; }";
constexpr const char* kDotSource = R"(
__device__ void bench_dot(jitvec::View<const float, 1> a, jitvec::View<const float, 1> b,
                          jitvec::View<float, 0> out) {
  float s = 0.0f;
  for (long long i = 0; i < a.size(); ++i) s += a[i] * b[i];
  out() = s;
})";

void time_case(const GufuncBenchInputs& in, Record& r, double ideal_bytes, const std::string& what,
               const std::function<void()>& call) {
  const double ms = in.timer->median_ms(kGufuncReps, call);
  r.set_bandwidth(ideal_bytes, ms);
  r.compare_bandwidth("memcpy_dtod", in.ceilings->measure(ideal_bytes).gbps);
  r.method = fmt::format("{}; preallocated out=; CUDA events, median of {}", what, kGufuncReps.timed);
}

void outer_case(const GufuncBenchInputs& in, Record& r) {
  const std::int64_t side = std::int64_t{1} << (in.quick ? 10 : 14);
  r.n = side * side;
  jitvec::Ufunc multiply = in.engine->vectorize("bench_multiply", {"float32(float32, float32)"}, kMultiplySource);
  const std::vector<float> a = uniform_floats(side, -2.0, 2.0, in.seed + 110);
  const std::vector<float> b = uniform_floats(side, -2.0, 2.0, in.seed + 111);
  const Array da = jitvec::to_device(a, {}, in.device), db = jitvec::to_device(b, {}, in.device);
  const Array out = Array::empty(DType::float32, {side, side}, Memory::device, in.device, in.stream);
  const auto call = [&] {
    multiply.outer(da, db, jitvec::out(out), jitvec::on(jitvec::Stream(in.stream)));
  };
  const double ideal = 4.0 * static_cast<double>(side * side + 2 * side);
  time_case(in, r, ideal,
            fmt::format("multiply.outer(a, b), a and b float32 ({},), out ({}, {}); ideal: the "
                        "output written once plus the inputs once",
                        side, side, side),
            call);
  poison(out, in.stream);
  call();
  note_check(r, check_output(out.to_vector<float>(), [&](std::int64_t i) {
    return static_cast<double>(a[static_cast<std::size_t>(i / side)]) *
           static_cast<double>(b[static_cast<std::size_t>(i % side)]);
  }, Tolerance{6e-8, 0.0}));
}

void dot_case(const GufuncBenchInputs& in, Record& r) {
  const std::int64_t rows = std::int64_t{1} << (in.quick ? 16 : 24);
  r.n = rows;
  jitvec::Gufunc dot = in.engine->guvectorize("bench_dot", {"void(float32[:], float32[:], float32)"},
                                              "(n),(n)->()", kDotSource);
  const std::vector<float> a = uniform_floats(rows * kCore, -1.0, 1.0, in.seed + 112);
  const std::vector<float> b = uniform_floats(rows * kCore, -1.0, 1.0, in.seed + 113);
  const Array da = jitvec::to_device(a, {rows, kCore}, in.device);
  const Array db = jitvec::to_device(b, {rows, kCore}, in.device);
  const Array out = Array::empty(DType::float32, {rows}, Memory::device, in.device, in.stream);
  const auto call = [&] { dot(da, db, jitvec::out(out), jitvec::on(jitvec::Stream(in.stream))); };
  const double read = 8.0 * static_cast<double>(rows * kCore);
  const double ideal = read + 4.0 * static_cast<double>(rows);
  time_case(in, r, ideal,
            fmt::format("gufunc dot (n),(n)->() with n = {} on {} rows, float32 C-ordered (rows, "
                        "{}) inputs; ideal: the inputs read once ({} bytes) plus the output "
                        "written once; ratio_read in extra counts the bytes read only",
                        kCore, rows, kCore, read),
            call);
  r.extra.emplace_back("bytes_read", read);
  r.extra.emplace_back("ratio_read", r.ratio * read / ideal);
  poison(out, in.stream);
  call();
  // Checked in units of the row's sum of |a_i b_i| (the sum itself may cancel to near 0):
  // 16 float32 roundings, each within 2^-24 of that, so within 1e-5 of it in all.
  const std::vector<float> got = out.to_vector<float>();
  std::vector<double> magnitude(got.size()), exact(got.size()), scaled(got.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    for (std::int64_t k = 0; k < kCore; ++k) {
      const std::size_t e = i * static_cast<std::size_t>(kCore) + static_cast<std::size_t>(k);
      const double p = static_cast<double>(a[e]) * static_cast<double>(b[e]);
      exact[i] += p;
      magnitude[i] += std::fabs(p);
    }
    if (magnitude[i] == 0.0) magnitude[i] = 1.0;
    scaled[i] = static_cast<double>(got[i]) / magnitude[i];
  }
  const Check check = check_output(
      scaled, [&](std::int64_t i) { return exact[static_cast<std::size_t>(i)] / magnitude[static_cast<std::size_t>(i)]; },
      Tolerance{0.0, 1e-5});
  note_check(r, check);
}

}  // namespace

void run_gufunc_cases(const GufuncBenchInputs& inputs, const GufuncCaseRunner& run_case) {
  run_case(Record{"gufunc_outer_f32", "jitvec", 0, "float32"},
           [&](Record& r) { outer_case(inputs, r); });
  run_case(Record{"gufunc_dot_n16", "jitvec", 0, "float32"},
           [&](Record& r) { dot_case(inputs, r); });
}

}  // namespace bench
