#include "bench_multi_output.hpp"

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

constexpr Repetitions kMultiOutputReps{3, 30};
constexpr double kPi = 3.14159265358979323846;

// The same text on every target: the results through reference parameters after the input.
constexpr const char* kSincosSource = R"(
void bench_sincos(float x, float& s, float& c) {
  s = sinf(x);
  c = cosf(x);
})";

void sincos_case(const MultiOutputBenchInputs& in, Record& r) {
  const std::int64_t n = std::int64_t{1} << (in.quick ? 20 : 28);
  r.n = n;
  jitvec::Ufunc sincos = in.engine->vectorize("bench_sincos", {"(float32, float32)(float32)"}, kSincosSource);
  const std::vector<float> x = uniform_floats(n, -kPi, kPi, in.seed + 120);
  const Array dx = jitvec::to_device(x, {}, in.device);
  const Array both = Array::empty(DType::float32, {2 * n}, Memory::device, in.device, in.stream);
  const Array s = both.slice(0, 0, n), c = both.slice(0, n, 2 * n);
  const auto call = [&] {
    sincos.outputs(dx, jitvec::out(s), jitvec::out(c), jitvec::on(jitvec::Stream(in.stream)));
  };
  const double ideal = 12.0 * static_cast<double>(n);
  const double ms = in.timer->median_ms(kMultiOutputReps, call);
  r.set_bandwidth(ideal, ms);
  r.compare_bandwidth("memcpy_dtod", in.ceilings->measure(ideal).gbps);
  r.method = fmt::format(
      "sincos.outputs(x, out(s), out(c)): (float32, float32)(float32), one launch writing both "
      "outputs; x float32 in [-pi, pi); ideal: 4 bytes read + 8 written an element; "
      "preallocated out=; CUDA events, median of {}",
      kMultiOutputReps.timed);
  poison(both, in.stream);
  call();
  // Both outputs as one vector (s then c), so one check covers every element of each.
  note_check(r, check_output(both.to_vector<float>(), [&](std::int64_t i) {
    const double v = static_cast<double>(x[static_cast<std::size_t>(i % n)]);
    return i < n ? std::sin(v) : std::cos(v);
  }, Tolerance{1e-6, 5e-7}));
}

}  // namespace

void run_multi_output_cases(const MultiOutputBenchInputs& inputs, const MultiOutputCaseRunner& run_case) {
  run_case(Record{"multi_output_sincos_f32", "jitvec", 0, "float32"},
           [&](Record& r) { sincos_case(inputs, r); });
}

}  // namespace bench
