// Derivative ufuncs on the cuda target: the checks of tests/derivative_cases.hpp (gaussian_pdf
// against its closed forms and central differences, zero_suppress, every math function of
// jitvec::dual in its accurate, f-suffixed and intrinsic spellings, integer inputs and template
// helpers), then device arrays: the derivative of device inputs equals the host target's within
// the math libraries' difference.
#include <cmath>

#include "catch.hpp"
#include "derivative_cases.hpp"

using namespace jitvec;
using namespace jitvec_test;

TEST_CASE("gaussian_pdf's derivatives on the GPU match their closed forms and central differences",
          "[gpu][derivative]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  check_gaussian_pdf(Target::cuda);
}

TEST_CASE("zero_suppress's derivative on the GPU", "[gpu][derivative]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  check_zero_suppress(Target::cuda);
}

TEST_CASE("every math function of jitvec::dual has the right derivative on the GPU", "[gpu][derivative][dual]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  check_zoo(Target::cuda);
}

TEST_CASE("integer inputs and template helpers in derivatives on the GPU", "[gpu][derivative]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  check_pass_through(Target::cuda);
}

TEST_CASE("a derivative of device arrays agrees with the host target", "[gpu][derivative]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  Engine& engine = derivative_engine();
  const Ufunc d = engine.derivative("gaussian_pdf", "sigma");
  const std::int64_t n = 1 << 20;
  TestArray x = TestArray::random(DType::float32, {n}, -4, 4);
  TestArray sigma = TestArray::random(DType::float32, {n}, 0.5, 2);
  Array out = Array::empty(DType::float32, {n}, Memory::device);
  d(x.device_view(), 0.25f, sigma.device_view(), jitvec::out(out));
  const std::vector<float> gpu = out.to_vector<float>();
  const std::vector<float> host = d(x.host_view(), 0.25f, sigma.host_view(), jitvec::target(Target::cpu)).to_vector<float>();
  std::int64_t bad = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const auto k = static_cast<std::size_t>(i);
    if (!close_to(gpu[k], host[k], 1e-5, 1e-7)) ++bad;
  }
  CHECK(bad == 0);
}
