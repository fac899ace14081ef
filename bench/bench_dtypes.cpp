#include "bench_dtypes.hpp"

#include <fmt/format.h>

#include <complex>
#include <cstring>
#include <random>
#include <vector>

#include "checks.hpp"
#include "gpu_cases.hpp"

namespace bench {
namespace {

using jitvec::Array;
using jitvec::DType;
using jitvec::Memory;

constexpr Repetitions kDtypeReps{3, 30};
constexpr float kMean = 0.0f, kSigma = 1.5f;
const std::complex<float> kShift(0.5f, -0.25f);

// The sample's gaussian_pdf (samples/gaussian_pdf.toml) at T = float16: every operation
// rounds to float16, as NumPy computes on float16 arrays (what the row measures).
constexpr const char* kGaussianHalfSource = R"(
template <typename T> T gaussian_pdf_half(T x, T mean, T sigma) {
  const T z = (x - mean) / sigma;
  return exp(T(-0.5) * z * z) / (sigma * T(2.5066282746310002));
})";
// The same in float32 with one rounding at the end (a second row: more accurate, and bound by
// its two IEEE float32 divisions, bench/NOTES.md "Session 5: float16").
constexpr const char* kGaussianHalfFloatMathSource = R"(
template <class T> T gaussian_pdf_half_f32math(T x, T mean, T sigma) {
  const float z = (float(x) - float(mean)) / float(sigma);
  return T(expf(-0.5f * z * z) / (float(sigma) * 2.5066282746310002f));
})";
constexpr const char* kZzSource =
    "template <class Z> Z zz(Z z, Z c) { return z * conj(z) + c; }";

void time_case(const DtypeInputs& in, Record& r, double ideal_bytes, const std::string& what,
               const std::function<void()>& call) {
  const double ms = in.timer->median_ms(kDtypeReps, call);
  r.set_bandwidth(ideal_bytes, ms);
  r.compare_bandwidth("memcpy_dtod", in.ceilings->measure(ideal_bytes).gbps);
  r.method = fmt::format("{}; preallocated out=; contiguous; CUDA events, median of {}", what,
                         kDtypeReps.timed);
}

// `numpy_rules`: the row's source, rounding every operation (the reference's tolerance is
// 2^-8: the largest error of that formula over every float16 in [-3, 3] is 2^-8.97); else the
// float32-math source, rounded once (2^-10).
void gaussian_float16(const DtypeInputs& in, Record& r, bool numpy_rules) {
  const std::int64_t n = std::int64_t{1} << (in.quick ? 20 : 28);
  r.n = n;
  const char* name = numpy_rules ? "gaussian_pdf_half" : "gaussian_pdf_half_f32math";
  jitvec::Ufunc f = in.engine->vectorize(name, {"float16(float16, float16, float16)"},
                                         numpy_rules ? kGaussianHalfSource : kGaussianHalfFloatMathSource);
  std::mt19937_64 rng(in.seed);
  std::uniform_real_distribution<float> dist(-3.0f, 3.0f);
  std::vector<jitvec::half> x(static_cast<std::size_t>(n));
  for (auto& h : x) h = jitvec::half(dist(rng));
  const Array x_device = jitvec::to_device(x, {}, in.device);
  const Array out = Array::empty(DType::float16, {n}, Memory::device, in.device, in.stream);
  const auto call = [&] { f(x_device, kMean, kSigma, jitvec::out(out), jitvec::on(jitvec::Stream(in.stream))); };
  time_case(in, r, 4.0 * static_cast<double>(n),
            fmt::format("{}(x float16, 0.0f, 1.5f), {}", name,
                        numpy_rules ? "every operation rounded to float16 (NumPy's rules)"
                                    : "float32 math inside, one rounding"),
            call);
  poison(out, in.stream);
  call();
  const std::vector<jitvec::half> got_half = out.to_vector<jitvec::half>();
  std::vector<float> got(got_half.size());
  for (std::size_t i = 0; i < got.size(); ++i) got[i] = static_cast<float>(got_half[i]);
  note_check(r, check_output(got, [&](std::int64_t i) {
    return gaussian_pdf_reference(static_cast<float>(x[static_cast<std::size_t>(i)]), kMean, kSigma);
  }, Tolerance{numpy_rules ? 0x1p-8 : 0x1p-10, 1e-7}));
}

void zz_complex64(const DtypeInputs& in, Record& r) {
  const std::int64_t n = std::int64_t{1} << (in.quick ? 20 : 27);
  r.n = n;
  jitvec::Ufunc f = in.engine->vectorize("zz", {"complex64(complex64, complex64)"}, kZzSource);
  std::mt19937_64 rng(in.seed + 1);
  std::uniform_real_distribution<float> dist(-3.0f, 3.0f);
  std::vector<std::complex<float>> z(static_cast<std::size_t>(n));
  for (auto& v : z) v = std::complex<float>(dist(rng), dist(rng));
  const Array z_device = jitvec::to_device(z, {}, in.device);
  const Array out = Array::empty(DType::complex64, {n}, Memory::device, in.device, in.stream);
  const auto call = [&] { f(z_device, kShift, jitvec::out(out), jitvec::on(jitvec::Stream(in.stream))); };
  time_case(in, r, 16.0 * static_cast<double>(n), "zz(z complex64, std::complex<float>(0.5, -0.25))", call);
  poison(out, in.stream);
  call();
  const std::vector<std::complex<float>> got_complex = out.to_vector<std::complex<float>>();
  std::vector<float> got(2 * got_complex.size());  // real, imaginary, real, ...
  std::memcpy(got.data(), got_complex.data(), got.size() * sizeof(float));
  note_check(r, check_output(got, [&](std::int64_t i) {
    const std::complex<double> v(z[static_cast<std::size_t>(i / 2)]);
    const std::complex<double> want = v * std::conj(v) + std::complex<double>(kShift);
    return i % 2 == 0 ? want.real() : want.imag();
  }, Tolerance{1e-6, 2e-5}));
}

}  // namespace

void run_dtype_cases(const DtypeInputs& inputs, const DtypeCaseRunner& run_case) {
  run_case(Record{"dtype_gaussian_float16", "jitvec", 0, "float16"},
           [&](Record& r) { gaussian_float16(inputs, r, true); });
  run_case(Record{"dtype_gaussian_float16_f32math", "jitvec", 0, "float16"},
           [&](Record& r) { gaussian_float16(inputs, r, false); });
  run_case(Record{"dtype_zz_complex64", "jitvec", 0, "complex64"},
           [&](Record& r) { zz_complex64(inputs, r); });
}

}  // namespace bench
