// tests/unit/test_method_types.cpp: Ufunc::at and gufunc modules over the 2-byte floats and the
// complex dtypes. Their GPU modules carry the types prelude's parts their dtypes and source need
// (src/kernels/ufunc_at.cpp, src/kernels/gufunc.cpp, by device_types.hpp's rule), as ufunc
// modules do:
//   - [nvrtc]: the at() module of a complex64, float16 and bfloat16 loop and the gufunc module of
//     float16, bfloat16 and complex64 operands compile with NVRTC (no GPU needed);
//   - on the cpu and parallel targets (and cuda where there is a GPU: [gpu]), a float16 dot
//     gufunc against float64 sums, and a complex64 at() with repeated indices against
//     std::complex<double> updates in order, outputs poisoned first.
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "catch.hpp"
#include "codegen/loop_spec.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "kernels/gufunc.hpp"
#include "kernels/ufunc_at.hpp"
#include "support.hpp"
#include <jitvec/gufunc.hpp>
#include <jitvec/half.hpp>

using namespace jitvec;

namespace {

// z a + conj(b): neither commutative nor associative in its operands, so a wrong order of the
// updates of a repeated index shows.
constexpr const char* kCmulSource =
    "template <class T> T m7_cmul(T a, T b) { return a * b + conj(b); }";
// NumPy's float16 dot with a float accumulator (what np.dot does for float16 arrays).
constexpr const char* kHdotSource = R"(template <class A, class B, class Y>
void m7_hdot(A a, B b, Y out) {
  float s = 0.0f;
  for (long long i = 0; i < a.size(); ++i) s += float(a[i]) * float(b[i]);
  out() = s;
})";

Engine& method_types_engine() {
  static std::once_flag once;
  Engine& engine = jitvec_test::shared_engine();
  std::call_once(once, [&] {
    engine.vectorize("m7_cmul", {"complex64(complex64, complex64)"}, kCmulSource);
    engine.guvectorize("m7_hdot", {"void(float16[:], float16[:], float16[:])"}, "(n),(n)->()", kHdotSource);
  });
  return engine;
}

std::vector<Target> host_targets() { return {Target::cpu, Target::parallel}; }

void check_hdot(Target t) {
  CAPTURE(std::string(target_name(t)));
  INFO("seed " << jitvec_test::rng_seed());
  Gufunc dot = method_types_engine().gufunc("m7_hdot");
  const std::int64_t rows = 301, n = 24;
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  std::vector<half> a(static_cast<std::size_t>(rows * n)), b(static_cast<std::size_t>(n));
  for (auto& v : a) v = half(dist(jitvec_test::rng()));
  for (auto& v : b) v = half(dist(jitvec_test::rng()));
  const bool gpu = t == Target::cuda;
  Array a_array = from_vector(a).reshape({rows, n}), b_array = from_vector(b);
  Array out = Array::empty(DType::float16, {rows});
  std::vector<half> poison(static_cast<std::size_t>(rows), half(std::nanf("")));
  std::memcpy(out.data(), poison.data(), poison.size() * sizeof(half));
  if (gpu) {
    out = out.to_device();
    dot(a_array.to_device(), b_array.to_device(), jitvec::out(out), target(t));
  } else {
    dot(a_array, b_array, jitvec::out(out), target(t));
  }
  const std::vector<half> got = (gpu ? out.to_host() : out).to_vector<half>();
  for (std::int64_t r = 0; r < rows; ++r) {
    double want = 0, magnitude = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      const double p = static_cast<double>(static_cast<float>(a[static_cast<std::size_t>(r * n + i)])) *
                       static_cast<float>(b[static_cast<std::size_t>(i)]);
      want += p;
      magnitude += std::fabs(p);
    }
    // The float sum's rounding (n steps of 2^-24 of the running magnitude), then one rounding
    // to float16 (2^-11 relative, or half the smallest subnormal).
    const double tolerance = n * 0x1p-24 * magnitude + 0x1p-11 * std::fabs(want) + 0x1p-25;
    const double v = static_cast<float>(got[static_cast<std::size_t>(r)]);
    CAPTURE(r, want, v);
    REQUIRE(std::fabs(v - want) <= tolerance);
  }
}

void check_cmul_at(Target t) {
  CAPTURE(std::string(target_name(t)));
  INFO("seed " << jitvec_test::rng_seed());
  Ufunc cmul = method_types_engine().ufunc("m7_cmul");
  std::uniform_real_distribution<float> dist(-1.5f, 1.5f);
  auto& rng = jitvec_test::rng();
  std::vector<std::complex<float>> a(13), b(40);
  for (auto& z : a) z = {dist(rng), dist(rng)};
  for (auto& z : b) z = {dist(rng), dist(rng)};
  std::vector<std::int64_t> idx(b.size());
  for (std::size_t j = 0; j < idx.size(); ++j) idx[j] = static_cast<std::int64_t>(rng() % 5) * 3 - 2;  // repeats, negatives
  // The reference: the updates in order, in std::complex<double>.
  std::vector<std::complex<double>> want(a.begin(), a.end());
  for (std::size_t j = 0; j < idx.size(); ++j) {
    auto& z = want[static_cast<std::size_t>(idx[j] < 0 ? idx[j] + 13 : idx[j])];
    const std::complex<double> bj(b[j]);
    z = z * bj + std::conj(bj);
  }
  Array a_array = from_vector(a);
  if (t == Target::cuda) {
    Array on_device = a_array.to_device();
    cmul.at(on_device, idx, from_vector(b).to_device(), target(t));
    a_array = on_device.to_host();
  } else {
    cmul.at(a_array, idx, b, target(t));
  }
  const std::vector<std::complex<float>> got = a_array.to_vector<std::complex<float>>();
  for (std::size_t i = 0; i < want.size(); ++i) {
    CAPTURE(i, want[i].real(), want[i].imag(), got[i].real(), got[i].imag());
    // Up to a dozen float updates of values of magnitude below ~10: 1e-5 relative to that.
    CHECK(std::abs(std::complex<double>(got[i]) - want[i]) <= 1e-5 * (1 + std::abs(want[i])));
  }
}

}  // namespace

TEST_CASE("at() and gufunc modules over float16, bfloat16 and complex compile with NVRTC (no GPU needed)",
          "[at][gufunc][dtype][nvrtc]") {
  const codegen::UfuncSource cmul{"m7_cmul", kCmulSource, "", 1, ""};
  const codegen::UfuncSource add{"m7_add", "template <class T> T m7_add(T a, T b) { return a + b * 2; }", "", 1, ""};
  const auto at_source = [](const codegen::UfuncSource& f, const char* loop) {
    return kernels::generate_at_cuda_source(f, {}, codegen::LoopSpec::exact(Signature::parse(loop)));
  };
  for (const char* loop : {"complex64(complex64, complex64)", "complex128(complex128, complex128)"}) {
    CAPTURE(loop);
    CHECK_NOTHROW(compile::compile_cuda(at_source(cmul, loop), "m7_cmul", "sm_90"));
  }
  for (const char* loop : {"float16(float16, float16)", "bfloat16(bfloat16, bfloat16)"}) {
    CAPTURE(loop);
    CHECK_NOTHROW(compile::compile_cuda(at_source(add, loop), "m7_add", "sm_90"));
  }
  // An at() whose array is float16 storage under a float32 loop: the kernel converts.
  codegen::LoopSpec mixed = codegen::LoopSpec::exact(Signature::parse("float32(float32, float32)"));
  mixed.inputs = {DType::float16, DType::float32};
  CHECK_NOTHROW(compile::compile_cuda(kernels::generate_at_cuda_source(add, {}, mixed), "m7_add", "sm_90"));

  const codegen::UfuncSource hdot{"m7_hdot", kHdotSource, "", 1, ""};
  for (const DType type : {DType::float16, DType::bfloat16, DType::complex64}) {
    CAPTURE(std::string(dtype_name(type)));
    const codegen::UfuncSource& f = hdot;
    const kernels::GufuncSpec spec{kernels::GufuncLayout::parse("(n),(n)->()"),
                                   {type, type, type == DType::complex64 ? DType::complex64 : DType::float32}};
    if (type == DType::complex64) {
      // float(complex) does not exist: the complex gufunc sums products of its own.
      const codegen::UfuncSource cdot{"m7_cdot", R"(template <class A, class B, class Y>
void m7_cdot(A a, B b, Y out) {
  complex64 s(0.0f);
  for (long long i = 0; i < a.size(); ++i) s += a[i] * conj(b[i]);
  out() = s;
})", "", 1, ""};
      CHECK_NOTHROW(compile::compile_cuda(kernels::generate_gufunc_cuda_source(cdot, {}, spec), "m7_cdot", "sm_90"));
    } else {
      CHECK_NOTHROW(compile::compile_cuda(kernels::generate_gufunc_cuda_source(f, {}, spec), "m7_hdot", "sm_90"));
    }
  }
}

TEST_CASE("a float16 dot gufunc and a complex64 at() on the cpu and parallel targets", "[at][gufunc][dtype]") {
  for (const Target t : host_targets()) {
    check_hdot(t);
    check_cmul_at(t);
  }
}

TEST_CASE("GPU: a float16 dot gufunc and a complex64 at()", "[gpu][at][gufunc][dtype]") {
  if (!jitvec_test::gpu_usable()) JITVEC_SKIP(jitvec_test::gpu_skip_reason());
  check_hdot(Target::cuda);
  check_cmul_at(Target::cuda);
}
