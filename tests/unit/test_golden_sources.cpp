// Golden generated sources: the module text of four representative loops, GPU and host, each
// loop in a folder of its own with the text every module of the loop shares (module.cu,
// host.cpp) and each kernel (entry point) in a file of its own, so a change to one kernel kind
// shows in that kind's file alone; and a float32 sum's reduce/accumulate module. Checked in
// under tests/golden/ and compared here, so every change to generated code shows as a readable
// diff in review. After an
// intended change, regenerate them with
//   bash scripts/update_golden.sh
// (which runs this test with JITVEC_UPDATE_GOLDEN=1) and commit the new files with the change.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "catch.hpp"
#include "kernels/host_prelude.hpp"
#include "engine/reduction.hpp"
#include "kernels/kernel_kinds.hpp"
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
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
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
    const std::string folder = std::string(g.file) + "/";
    const std::string common = kernels::cuda_module_common(g.ufunc, {}, spec);
    check_golden(folder + "module.cu", common);
    std::string whole = common;
    for (const std::string& kernel : kernels::cuda_kernel_names(spec)) {
      const std::string text = kernels::cuda_kernel_source(spec, kernel);
      check_golden(folder + kernel + ".cu", text);
      // A module of one kernel is the common text and that kernel's.
      CHECK(kernels::generate_cuda_source(g.ufunc, {}, spec, {kernel}) == common + text);
      whole += text;
    }
    CHECK(kernels::generate_cuda_source(g.ufunc, {}, spec) == whole);
    // The stand-ins' own copies (built only while a first call's kernel compiles).
    for (const kernels::KernelVariant& v : kernels::stand_in_variants(spec)) {
      const std::string name = kernels::kernel_name(v);
      const std::string text = kernels::variant_text(spec, v);
      check_golden(folder + name + ".cu", text);
      CHECK(kernels::generate_cuda_source(g.ufunc, {}, spec, {name}) == common + text);
    }
    // The host module less the host prelude (fixed text, tested in test_cpu_prelude.cpp).
    const std::string host = kernels::host_module_common(g.ufunc, {}, spec);
    const std::string_view prelude = kernels::host_prelude();
    REQUIRE(host.compare(0, prelude.size(), prelude) == 0);
    check_golden(folder + "host.cpp", host.substr(prelude.size()));
    std::string whole_host = host;
    for (const std::string& entry : kernels::host_entry_names(spec)) {
      const std::string one = kernels::generate_host_source(g.ufunc, {}, spec, {entry});
      REQUIRE(one.compare(0, host.size(), host) == 0);
      check_golden(folder + entry + ".cpp", one.substr(host.size()));
      whole_host += one.substr(host.size());
    }
    CHECK(kernels::generate_host_source(g.ufunc, {}, spec) == whole_host);
  }
}

TEST_CASE("reduction modules match the golden files", "[kernels][golden]") {
  // The reduce module and the accumulate module of a float32 sum (kernels/reduce.hpp,
  // kernels/scan.hpp), GPU and host: the tiles kernel's look-back and the host's tree order
  // show in review.
  const codegen::UfuncSource sum{"golden_sum", "template <typename T> __device__ T golden_sum(T a, T b) { return a + b; }",
                                 "", 1, ""};
  const codegen::LoopSpec spec =
      engine::reduction_spec(Signature::parse("float32(float32, float32)"), DType::float32, DType::float32);
  const std::string_view prelude = kernels::host_prelude();
  for (const auto& [method, name] : {std::pair{kernels::ReductionMethod::reduce, "reduce"},
                                     std::pair{kernels::ReductionMethod::accumulate, "accumulate"}}) {
    check_golden(fmt::format("sum_reduction_f32/{}.cu", name),
                 kernels::generate_reduction_source(false, sum, {}, spec, method));
    const std::string host = kernels::generate_reduction_source(true, sum, {}, spec, method);
    const std::size_t skip = host.compare(0, prelude.size(), prelude) == 0 ? prelude.size() : 0;
    check_golden(fmt::format("sum_reduction_f32/{}.host.cpp", name), host.substr(skip));
  }
}
