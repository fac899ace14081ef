// Golden generated sources: the whole module text of four representative loops and of a float32
// sum's reduce/accumulate module, GPU and host, checked in under tests/golden/ and compared
// here, so every change to generated code shows as a readable diff in review. After an
// intended change, regenerate them with
//   bash scripts/update_golden.sh
// (which runs this test with JITVEC_UPDATE_GOLDEN=1) and commit the new files with the change.
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "catch.hpp"
#include "kernels/host_prelude.hpp"
#include "engine/reduction.hpp"
#include "kernels/module_source.hpp"
#include "kernels/reduction_source.hpp"

using namespace jitvec;

namespace {

struct GoldenLoop {
  const char* file;  // stem under tests/golden/
  codegen::UfuncSource ufunc;
  const char* signature;
  std::vector<DType> inputs;  // storage dtypes; empty: the signature's
  std::vector<DType> outputs;  // storage dtypes; empty: the signature's
};

// The seed's gaussian_pdf (three inputs, float32), zero_suppress (int16: 8 elements a vector),
// a mixed-storage loop (int16 array into a float64 loop, stored as float32), and a loop of two
// outputs (polar_to_cartesian, the second output stored as float64).
const std::vector<GoldenLoop>& golden_loops() {
  static const std::vector<GoldenLoop> loops = {
      {"gaussian_pdf_f32",
       {"gaussian_pdf",
        "template <typename T> __device__ T gaussian_pdf(T x, T mean, T sigma) {\n"
        "  const T z = (x - mean) / sigma;\n"
        "  return exp(T(-0.5) * z * z) / (sigma * T(2.5066282746310002));\n}",
        "gaussian_pdf.toml", 12},
       "float32(float32, float32, float32)", {}, {}},
      {"zero_suppress_i16",
       {"zero_suppress",
        "template <typename T> __device__ T zero_suppress(T x, T threshold) {\n"
        "  return (x > threshold || x < -threshold) ? x : T(0);\n}",
        "", 1},
       "int16(int16, int16)", {}, {}},
      {"scale_mixed",
       {"scale", "__device__ double scale(double x) { return 0.5 * x; }", "", 1},
       "float64(float64)", {DType::int16}, {DType::float32}},
      {"polar_to_cartesian_2out",
       {"polar_to_cartesian",
        "__device__ void polar_to_cartesian(float r, float theta, float& x, float& y) {\n"
        "  x = r * cosf(theta);\n  y = r * sinf(theta);\n}",
        "", 1},
       "(float32, float32)(float32, float32)", {}, {DType::float32, DType::float64}},
  };
  return loops;
}

codegen::LoopSpec spec_of(const GoldenLoop& g) {
  codegen::LoopSpec spec = codegen::LoopSpec::exact(Signature::parse(g.signature));
  if (!g.inputs.empty()) spec.inputs = g.inputs;
  if (!g.outputs.empty()) spec.outputs = g.outputs;
  return spec;
}

void check_golden(const std::string& name, const std::string& generated) {
  const std::string path = std::string(JITVEC_SOURCE_DIR) + "/tests/golden/" + name;
  if (const char* update = std::getenv("JITVEC_UPDATE_GOLDEN"); update && std::string(update) == "1") {
    std::ofstream(path, std::ios::binary) << generated;
    WARN("rewrote " << path);
    return;
  }
  std::ifstream in(path, std::ios::binary);
  INFO("golden file " << path << " (regenerate with scripts/update_golden.sh)");
  REQUIRE(in.good());
  std::stringstream text;
  text << in.rdbuf();
  const std::string expected = text.str();
  if (expected == generated) {
    SUCCEED();
    return;
  }
  // Name the first line that differs, so the failure reads like a diff.
  std::istringstream a(expected), b(generated);
  std::string la, lb;
  int line = 1;
  while (std::getline(a, la) && std::getline(b, lb) && la == lb) ++line;
  FAIL("generated source differs from " << path << " at line " << line << ":\n  golden:    " << la
                                        << "\n  generated: " << lb);
}

}  // namespace

TEST_CASE("generated sources match the golden files", "[kernels][golden]") {
  for (const GoldenLoop& g : golden_loops()) {
    const codegen::LoopSpec spec = spec_of(g);
    check_golden(std::string(g.file) + ".cu", kernels::generate_cuda_source(g.ufunc, {}, spec));
    // The host module less the host prelude (fixed text, tested in test_cpu_prelude.cpp).
    const std::string host = kernels::generate_host_source(g.ufunc, {}, spec);
    const std::string_view prelude = kernels::host_prelude();
    REQUIRE(host.compare(0, prelude.size(), prelude) == 0);
    check_golden(std::string(g.file) + ".host.cpp", host.substr(prelude.size()));
  }
}

TEST_CASE("reduction modules match the golden files", "[kernels][golden]") {
  // The reduce and accumulate module of a float32 sum (kernels/reduce.hpp, kernels/scan.hpp),
  // GPU and host: the tiles kernel's look-back and the host's tree order show in review.
  const codegen::UfuncSource sum{"golden_sum", "template <typename T> __device__ T golden_sum(T a, T b) { return a + b; }",
                                 "", 1, ""};
  const codegen::LoopSpec spec =
      engine::reduction_spec(Signature::parse("float32(float32, float32)"), DType::float32, DType::float32);
  check_golden("sum_reduction_f32.cu", kernels::generate_reduction_source(false, sum, {}, spec));
  const std::string host = kernels::generate_reduction_source(true, sum, {}, spec);
  const std::string_view prelude = kernels::host_prelude();
  const std::size_t skip = host.compare(0, prelude.size(), prelude) == 0 ? prelude.size() : 0;
  check_golden("sum_reduction_f32.host.cpp", host.substr(skip));
}
