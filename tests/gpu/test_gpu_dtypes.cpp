// The float16, bfloat16, complex64 and complex128 checks of tests/dtype_cases.hpp on the cuda
// target (host and device arrays), and the conversions of the GPU compared bit for bit with the
// cpu target's on the same inputs (the device's cvt.rn instructions against the host prelude's
// integer rounding; NaNs only need to be NaNs).
#include <fmt/format.h>

#include "dtype_cases.hpp"

using namespace jitvec;
using namespace jitvec_dtype_test;

namespace {

bool is_nan16(std::uint16_t bits, bool half) {
  return half ? (bits & 0x7fffu) > 0x7c00u : (bits & 0x7fffu) > 0x7f80u;
}

}  // namespace

TEST_CASE("float16, bfloat16, complex64, complex128 on the cuda target, host arrays", "[gpu][dtype]") {
  if (!jitvec_test::gpu_usable()) JITVEC_SKIP(jitvec_test::gpu_skip_reason());
  run_dtype_checks(Target::cuda, false);
}

TEST_CASE("float16, bfloat16, complex64, complex128 on the cuda target, device arrays", "[gpu][dtype]") {
  if (!jitvec_test::gpu_usable()) JITVEC_SKIP(jitvec_test::gpu_skip_reason());
  run_dtype_checks(Target::cuda, true);
}

TEST_CASE("the GPU's float16 and bfloat16 conversions equal the host's bit for bit", "[gpu][dtype]") {
  if (!jitvec_test::gpu_usable()) JITVEC_SKIP(jitvec_test::gpu_skip_reason());
  Engine& engine = jitvec_test::shared_engine();
  define_dtype_ufuncs(engine);
  // Every float bit pattern with a random low half: all exponents, signs, NaNs and ties.
  std::vector<float> x(1 << 20);
  for (std::size_t i = 0; i < x.size(); ++i) {
    const std::uint32_t bits = (static_cast<std::uint32_t>(i) << 12) | (static_cast<std::uint32_t>(jitvec_test::rng()()) & 0xfffu);
    std::memcpy(&x[i], &bits, 4);
  }
  for (const char* name : {"dt_to_half", "dt_to_bf16", "dt_twice"}) {
    CAPTURE(name);
    Ufunc f = engine.ufunc(name);
    const Array on_gpu = f(to_device(x), jitvec::target(Target::cuda)).to_host();
    const Array on_cpu = f(x, jitvec::target(Target::cpu));
    REQUIRE(on_gpu.dtype() == on_cpu.dtype());
    const bool half = on_gpu.dtype() == DType::float16;
    std::size_t differ = 0;
    std::string first;
    if (on_gpu.dtype() == DType::float32) {  // dt_twice's float32 loop: float arithmetic
      const auto g = on_gpu.to_vector<float>(), c = on_cpu.to_vector<float>();
      for (std::size_t i = 0; i < x.size(); ++i) {
        if (std::memcmp(&g[i], &c[i], 4) != 0 && !(std::isnan(g[i]) && std::isnan(c[i]))) ++differ;
      }
    } else {
      const auto* g = static_cast<const std::uint16_t*>(on_gpu.data());
      const auto* c = static_cast<const std::uint16_t*>(on_cpu.data());
      for (std::size_t i = 0; i < x.size(); ++i) {
        if (g[i] == c[i] || (is_nan16(g[i], half) && is_nan16(c[i], half))) continue;
        if (differ++ == 0) first = fmt::format("{:a}: gpu {:#06x}, cpu {:#06x}", x[i], g[i], c[i]);
      }
    }
    INFO(differ << " of " << x.size() << " differ; first: " << first);
    CHECK(differ == 0);
  }
}
