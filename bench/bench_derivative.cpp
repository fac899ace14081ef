#include "bench_derivative.hpp"

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

constexpr Repetitions kDerivativeReps{3, 30};
constexpr float kMean = 0.25f;  // exactly representable, as in the gaussian_pdf rows
constexpr float kSigma = 1.5f;

void gaussian_derivative_case(const DerivativeBenchInputs& in, Record& r) {
  const std::int64_t n = std::int64_t{1} << (in.quick ? 20 : 28);
  r.n = n;
  const jitvec::Ufunc d = in.engine->derivative("gaussian_pdf", "x");
  const std::vector<float> x = uniform_floats(n, -4.0, 4.0, in.seed + 140);
  const Array dx = jitvec::to_device(x, {}, in.device);
  const Array out = Array::empty(DType::float32, {n}, Memory::device, in.device, in.stream);
  const auto call = [&] { d(dx, kMean, kSigma, jitvec::out(out), jitvec::on(jitvec::Stream(in.stream))); };
  const double ideal = 8.0 * static_cast<double>(n);
  const double ms = in.timer->median_ms(kDerivativeReps, call);
  r.set_bandwidth(ideal, ms);
  r.compare_bandwidth("memcpy_dtod", in.ceilings->measure(ideal).gbps);
  r.method = fmt::format(
      "derivative(\"gaussian_pdf\", \"x\")(x, mean, sigma, out=): forward mode with "
      "jitvec::dual<float>; x float32 in [-4, 4), scalar mean and sigma; ideal: 4 bytes read + 4 "
      "written an element; preallocated out=; CUDA events, median of {}",
      kDerivativeReps.timed);
  poison(out, in.stream);
  call();
  note_check(r, check_output(out.to_vector<float>(), [&](std::int64_t i) {
    const double z = (static_cast<double>(x[static_cast<std::size_t>(i)]) - kMean) / kSigma;
    return -z / kSigma * std::exp(-0.5 * z * z) / (kSigma * 2.5066282746310002);
  }, Tolerance{2e-5, 1e-7}));
}

}  // namespace

void run_derivative_cases(const DerivativeBenchInputs& inputs, const MultiOutputCaseRunner& run_case) {
  run_case(Record{"derivative_gaussian_pdf", "jitvec", 0, "float32"},
           [&](Record& r) { gaussian_derivative_case(inputs, r); });
}

}  // namespace bench
