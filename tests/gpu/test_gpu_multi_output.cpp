// Ufuncs with several outputs on the cuda target: the case table of unit/multi_output_cases.hpp
// with host arrays (copied in, results copied back) and with device arrays; the host-array
// pipeline (large contiguous host arrays in and out, chunked through pinned buffers) writing
// both outputs; a user stream; the alias rules on device memory; and the GPU agreeing with the
// cpu target. Each test skips, saying why, where no GPU is usable.
#include <cmath>
#include <vector>

#include "catch.hpp"
#include "cuda/stream.hpp"
#include "support.hpp"
#include "unit/multi_output_cases.hpp"

using namespace jitvec;
using namespace jitvec_test;
using namespace jitvec_test::multi_output;

TEST_CASE("multi-output case table on the cuda target, host arrays", "[gpu][multi_output]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  for (Case& c : make_cases()) run_case(c, Target::cuda, Where::host);
}

TEST_CASE("multi-output case table on the cuda target, device arrays", "[gpu][multi_output]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  for (Case& c : make_cases()) run_case(c, Target::cuda, Where::device);
}

TEST_CASE("large host arrays through the pipeline write every output", "[gpu][multi_output][pipeline]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  Engine& engine = shared_engine();
  define_ufuncs(engine);
  Ufunc split3 = engine.ufunc("mo_split3");
  // 2^23 + 5 elements: above the pipeline's threshold, several chunks and a ragged last one.
  const std::size_t n = (std::size_t{1} << 23) + 5;
  std::vector<double> a(n), b(n);
  std::uniform_real_distribution<double> wide(-50, 50), divisor(0.5, 7);
  for (auto& v : a) v = wide(rng());
  for (auto& v : b) v = divisor(rng());
  std::vector<double> q(n, std::nan(""));
  std::vector<std::int32_t> s(n, 77);
  std::vector<float> f(n, std::nanf(""));
  cuda::OwnedStream stream(0);
  std::vector<Array> r = split3.outputs(a, b, out(Array::wrap(q.data(), {static_cast<std::int64_t>(n)})),
                                        out(Array::wrap(s.data(), {static_cast<std::int64_t>(n)})),
                                        out(Array::wrap(f.data(), {static_cast<std::int64_t>(n)})), on(stream.get()),
                                        target(Target::cuda));
  REQUIRE(r.size() == 3);
  CHECK(r[0].data() == q.data());
  std::int64_t bad = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double want_q = std::floor(a[i] / b[i]);
    const int want_s = a[i] < b[i] ? -1 : (a[i] > b[i] ? 1 : 0);
    const float want_f = static_cast<float>(a[i] - want_q * b[i]);
    if (q[i] != want_q || s[i] != want_s || !(std::fabs(f[i] - want_f) <= 2e-4)) ++bad;
  }
  CHECK(bad == 0);
  // Without out=: three new host arrays.
  std::vector<Array> fresh = split3.outputs(a, b, target(Target::cuda));
  CHECK(fresh[0].memory() == Memory::host);
  CHECK(fresh[1].dtype() == DType::int32);
  CHECK(fresh[2].to_vector<float>()[n - 1] == f[n - 1]);
}

TEST_CASE("device outputs may not share memory; device in-place works", "[gpu][multi_output][overlap]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  Engine& engine = shared_engine();
  define_ufuncs(engine);
  Ufunc polar = engine.ufunc("mo_polar");
  std::vector<float> r(4096), t(4096);
  for (std::size_t i = 0; i < r.size(); ++i) {
    r[i] = 1.0f + 1e-3f * static_cast<float>(i);
    t[i] = -3.0f + 1e-3f * static_cast<float>(i);
  }
  Array dr = to_device(r), dt = to_device(t);
  Array buffer = Array::empty(DType::float32, {8193}, Memory::device);
  CHECK_THROWS_WITH(polar.outputs(dr, dt, out(buffer.slice(0, 0, 4096)), out(buffer.slice(0, 4095, 8191))),
                    Catch::Matchers::Contains("out= of output 1 and out= of output 2 share memory"));
  // Both outputs into the inputs exactly: in place.
  polar.outputs(dr, dt, out(dr), out(dt));
  const std::vector<float> x = dr.to_vector<float>(), y = dt.to_vector<float>();
  for (std::size_t i = 0; i < r.size(); ++i) {
    CHECK(std::fabs(x[i] - r[i] * std::cos(static_cast<double>(t[i]))) < 2e-5);
    CHECK(std::fabs(y[i] - r[i] * std::sin(static_cast<double>(t[i]))) < 2e-5);
  }
}

TEST_CASE("the GPU and the cpu target agree on every output", "[gpu][multi_output]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  Engine& engine = shared_engine();
  define_ufuncs(engine);
  Ufunc split3 = engine.ufunc("mo_split3");
  std::vector<double> a(100003), b(100003);
  std::uniform_real_distribution<double> wide(-50, 50), divisor(0.5, 7);
  for (auto& v : a) v = wide(rng());
  for (auto& v : b) v = divisor(rng());
  std::vector<Array> gpu = split3.outputs(to_device(a), to_device(b));
  std::vector<Array> cpu = split3.outputs(a, b, target(Target::cpu));
  CHECK(gpu[0].to_vector<double>() == cpu[0].to_vector<double>());
  CHECK(gpu[1].to_vector<std::int32_t>() == cpu[1].to_vector<std::int32_t>());
  const std::vector<float> gf = gpu[2].to_vector<float>(), cf = cpu[2].to_vector<float>();
  std::int64_t far = 0;
  for (std::size_t i = 0; i < gf.size(); ++i) far += std::fabs(gf[i] - cf[i]) > 2e-4 ? 1 : 0;
  CHECK(far == 0);
}
