// Fused ufuncs on the cuda target: the case table of tests/fusion_cases.hpp with host arrays
// and with device arrays (bit for bit against the separate calls on the GPU, and against the
// float64 reference), and the stage boundary that must not become an FMA: a float32 a * b in
// one stage and + c in the next give two roundings, as two kernels do (checked on data where
// fmaf would differ), and the fused loop comes from the disk cache in a second engine.
#include <fmt/format.h>

#include <cmath>

#include "catch.hpp"
#include "fusion_cases.hpp"
#include "support.hpp"

using namespace jitvec;
using namespace jitvec_test;

TEST_CASE("a fused chain gives the separate calls' bits on the cuda target", "[gpu][fusion]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  Engine& engine = fusion_engine();
  for (bool device : {false, true}) {
    std::vector<FusedCase> cases = fused_cases();
    for (std::size_t i = 0; i < cases.size(); ++i) {
      check_fused_case(engine, cases[i], fmt::format("fused_case_{}", i),
                       {jitvec::target(Target::cuda)}, device);
    }
  }
}

TEST_CASE("no FMA across a fused stage boundary on the GPU", "[gpu][fusion]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  Engine& engine = fusion_engine();
  Ufunc fused = engine.fuse("fused_no_contraction", "vadd(vmul(x, y), z)");
  const std::int64_t n = 1 << 20;
  TestArray x = TestArray::random(DType::float32, {n}, -1, 1);
  TestArray y = TestArray::random(DType::float32, {n}, -1, 1);
  TestArray z = TestArray::random(DType::float32, {n}, -1, 1);
  // The test can fail: on these inputs a contracted fmaf(x, y, z) differs from the two
  // roundings in many elements.
  std::int64_t fma_differs = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const float a = static_cast<float>(x.at({i})), b = static_cast<float>(y.at({i})),
                c = static_cast<float>(z.at({i}));
    const float product = static_cast<float>(static_cast<double>(a) * b);  // exact, then rounded
    if (std::fmaf(a, b, c) != static_cast<float>(static_cast<double>(product) + c)) ++fma_differs;
  }
  REQUIRE(fma_differs > n / 100);
  Array xd = x.device_view(), yd = y.device_view(), zd = z.device_view();
  const std::vector<float> got = fused(xd, yd, zd).to_vector<float>();
  const std::vector<float> unfused =
      engine.ufunc("vadd")(engine.ufunc("vmul")(xd, yd), zd).to_vector<float>();
  std::int64_t contracted = 0, mismatches = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const float a = static_cast<float>(x.at({i})), b = static_cast<float>(y.at({i})),
                c = static_cast<float>(z.at({i}));
    const float product = static_cast<float>(static_cast<double>(a) * b);
    const float expected = static_cast<float>(static_cast<double>(product) + c);
    if (got[static_cast<std::size_t>(i)] != expected) ++contracted;
    if (got[static_cast<std::size_t>(i)] != unfused[static_cast<std::size_t>(i)]) ++mismatches;
  }
  CHECK(contracted == 0);
  CHECK(mismatches == 0);
}

TEST_CASE("a fused GPU loop is read from the disk cache by a second engine", "[gpu][fusion]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  TempDir dir;
  EngineOptions options;
  options.cache.dir = dir.path();
  options.cache.read_only_dirs = std::vector<std::filesystem::path>{};
  std::vector<float> x = {1, 2, 3}, y = {4, 5, 6}, z = {7, 8, 9};
  for (int round = 0; round < 2; ++round) {
    Engine engine(options);
    define_fusion_stages(engine);
    Ufunc fused = engine.fuse("fgh", "vadd(vmul(x, y), z)");
    CHECK(fused(to_device(x), to_device(y), to_device(z)).to_vector<float>() ==
          std::vector<float>{11, 18, 27});
    CHECK(engine.stats().compiles == (round == 0 ? 1u : 0u));
    CHECK(engine.stats().disk_hits == (round == 0 ? 0u : 1u));
  }
}
