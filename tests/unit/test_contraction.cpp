// One answer on every target: NVRTC compiles with -fmad=false unless the ufunc asks for
// fastmath, so a * b + c rounds twice on the GPU as it does on the host (-ffp-contract=off)
// and in NumPy. Without a GPU the PTX shows it (no fma instruction); on one, the bits do.
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "catch.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "kernels/module_source.hpp"
#include "support.hpp"

using namespace jitvec;
using jitvec_test::TempDir;

namespace {

double uniform(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(jitvec_test::rng()); }

const char* const kMulAdd = "__device__ double mul_add(double a, double b, double c) { return a * b + c; }";

std::string ptx_of(bool contract) {
  const codegen::UfuncSource ufunc{"mul_add", kMulAdd, "", 1};
  const codegen::LoopSpec spec = codegen::LoopSpec::exact(Signature::parse("float64(float64, float64, float64)"));
  return compile::compile_cuda(kernels::generate_cuda_source(ufunc, {}, spec, {"jitvec_contig"}), "mul_add",
                               "sm_90", contract)
      .ptx;
}

}  // namespace

TEST_CASE("NVRTC keeps a * b + c unfused unless the ufunc asks for fastmath", "[nvrtc][contraction]") {
  CHECK(compile::nvrtc_options("sm_90").back() == "-fmad=false");
  CHECK(compile::nvrtc_options("sm_90", true).back() == "-fmad=true");
  const std::string exact = ptx_of(false), fused = ptx_of(true);
  CHECK(exact.find("fma.rn.f64") == std::string::npos);
  CHECK(exact.find("mul.rn.f64") != std::string::npos);
  CHECK(fused.find("fma.rn.f64") != std::string::npos);
}

TEST_CASE("a fastmath ufunc's loops are other cache entries, and a definition file can ask for it", "[contraction][definitions]") {
  TempDir dir;
  const auto file = dir.path() / "fused.toml";
  {
    std::ofstream f(file);
    f << "[ufuncs.fused_mul_add]\nsignatures = [\"float64(float64, float64, float64)\"]\nfastmath = true\n"
         "source = '__device__ double fused_mul_add(double a, double b, double c) { return a * b + c; }'\n"
         "[ufuncs.bad_flag]\nsignatures = [\"float64(float64)\"]\nfastmath = \"yes\"\n"
         "source = '__device__ double bad_flag(double a) { return a; }'\n";
  }
  Engine engine;
  try {
    engine.load_definitions(file);
    FAIL("a non-boolean fastmath was accepted");
  } catch (const DefinitionError& e) {
    CHECK_THAT(std::string(e.what()), Catch::Matchers::Contains("'fastmath' must be true or false, not a string"));
  }
}

TEST_CASE("on the cpu target a * b + c gives NumPy's bits, and fastmath may fuse it", "[contraction]") {
  TempDir dir;
  EngineOptions options;
  options.cache.dir = dir.path();
  Engine engine(options);
  Ufunc exact = engine.vectorize("mul_add", {"float64(float64, float64, float64)"}, kMulAdd);
  VectorizeOptions fast;
  fast.fastmath = true;
  Ufunc fused = engine.vectorize(
      "fused_mul_add", {"float64(float64, float64, float64)"},
      "__device__ double fused_mul_add(double a, double b, double c) { return a * b + c; }", fast);
  std::vector<double> a(4096), b(4096), c(4096);
  for (std::size_t i = 0; i < a.size(); ++i) {
    a[i] = uniform(-10, 10);
    b[i] = uniform(-10, 10);
    c[i] = uniform(-10, 10);
  }
  const std::vector<double> got = exact(a, b, c, target(Target::cpu)).to_vector<double>();
  std::size_t mismatches = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    volatile double product = a[i] * b[i];  // rounded on its own, as NumPy's a * b + c does
    const double want = product + c[i];
    mismatches += std::memcmp(&got[i], &want, sizeof want) != 0;
  }
  CHECK(mismatches == 0);
  // The fastmath loop is its own binary (its compiler flags are in the key) and still close.
  const std::vector<double> near = fused(a, b, c, target(Target::cpu)).to_vector<double>();
  for (std::size_t i = 0; i < a.size(); ++i) CHECK(near[i] == Approx(got[i]).epsilon(1e-12).margin(1e-12));
  CHECK(engine.stats().compiles == 2);
}

TEST_CASE("on the GPU a * b + c gives NumPy's bits by default", "[gpu][contraction]") {
  if (!jitvec_test::gpu_usable()) JITVEC_SKIP(jitvec_test::gpu_skip_reason());
  Engine engine;
  Ufunc exact = engine.vectorize("gpu_mul_add", {"float64(float64, float64, float64)"},
                                 "__device__ double gpu_mul_add(double a, double b, double c) { return a * b + c; }");
  const std::size_t n = 1 << 20;
  std::vector<double> a(n), b(n), c(n);
  for (std::size_t i = 0; i < n; ++i) {
    a[i] = uniform(-10, 10);
    b[i] = uniform(-10, 10);
    c[i] = uniform(-10, 10);
  }
  const std::vector<double> gpu = exact(to_device(a), to_device(b), to_device(c)).to_vector<double>();
  const std::vector<double> cpu = exact(a, b, c, target(Target::cpu)).to_vector<double>();
  std::size_t mismatches = 0, host_mismatches = 0;
  for (std::size_t i = 0; i < n; ++i) {
    volatile double product = a[i] * b[i];
    const double want = product + c[i];
    mismatches += std::memcmp(&gpu[i], &want, sizeof want) != 0;
    host_mismatches += std::memcmp(&cpu[i], &want, sizeof want) != 0;
  }
  CHECK(mismatches == 0);
  CHECK(host_mismatches == 0);
}
