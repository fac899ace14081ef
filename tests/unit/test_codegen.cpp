// Code generation: helpers pulled in transitively and only when used, #line directives, and
// every generated kernel compiling with NVRTC (which needs no GPU) and with the host compiler,
// for every dtype and for mixed storage types.
#include "catch.hpp"
#include "kernels/module_source.hpp"
#include "codegen/helper_closure.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "cpu/host_compiler.hpp"
#include "jitvec/errors.hpp"

using namespace jitvec;
using namespace jitvec::codegen;
using jitvec::kernels::generate_cuda_source;
using jitvec::kernels::generate_host_source;

TEST_CASE("identifiers skip comments and literals", "[codegen]") {
  const auto ids = identifiers_in("float f(x) { // helper_a\n /* helper_b */ return g(\"helper_c\", 'h') + 1.5e3f; }");
  CHECK(ids.count("g"));
  CHECK(ids.count("f"));
  CHECK_FALSE(ids.count("helper_a"));
  CHECK_FALSE(ids.count("helper_b"));
  CHECK_FALSE(ids.count("helper_c"));
  CHECK_FALSE(ids.count("e3f"));
}

TEST_CASE("helpers are pulled in transitively, dependencies first, and only when used", "[codegen]") {
  std::map<std::string, HelperSource> registry;
  registry["sq"] = HelperSource{"sq", "__device__ float sq(float x) { return x * x; }", "", 1};
  registry["hyp2"] = HelperSource{"hyp2", "__device__ float hyp2(float x, float y) { return sqrtf(sq(x) + sq(y)); }", "", 1};
  registry["unused"] = HelperSource{"unused", "__device__ float unused(float x) { return x; }", "", 1};
  registry["fact"] = HelperSource{"fact", "__device__ int fact(int n) { return n < 2 ? 1 : n * fact(n - 1); }", "", 1};
  const auto used = helpers_used("__device__ float hyp(float a, float b) { return hyp2(a, b) + fact(3); }", registry);
  REQUIRE(used.size() == 3);
  std::vector<std::string> names;
  for (const HelperSource* h : used) names.push_back(h->name);
  const auto pos = [&](const std::string& n) { return std::find(names.begin(), names.end(), n) - names.begin(); };
  CHECK(pos("sq") < pos("hyp2"));
  CHECK(std::find(names.begin(), names.end(), "unused") == names.end());

  registry["ping"] = HelperSource{"ping", "__device__ int ping(int n) { return pong(n); }", "", 1};
  registry["pong"] = HelperSource{"pong", "__device__ int pong(int n) { return ping(n); }", "", 1};
  CHECK_THROWS_WITH(helpers_used("int f(int n) { return ping(n); }", registry),
                    Catch::Matchers::Contains("cycle"));
}

TEST_CASE("generated source carries #line directives for helpers and the user function", "[codegen]") {
  HelperSource helper{"sq", "__device__ float sq(float x) { return x * x; }", "defs.toml", 12};
  UfuncSource ufunc{"f", "__device__ float f(float x) { return sq(x); }", "", 1};
  const std::string src = generate_cuda_source(ufunc, {&helper}, LoopSpec::exact(Signature::parse("f4(f4)")));
  CHECK_THAT(src, Catch::Matchers::Contains("#line 12 \"defs.toml\"\n__device__ float sq"));
  CHECK_THAT(src, Catch::Matchers::Contains("#line 1 \"ufunc:f\"\n__device__ float f"));
  CHECK_THAT(src, Catch::Matchers::Contains("#line 1 \"jitvec-generated-loop\""));
  CHECK(src.find("#include") == std::string::npos);  // no heavy includes: NVRTC stays fast
}

namespace {

const UfuncSource kIdentity{"ident", "template <typename T> __device__ T ident(T x) { return x; }", "", 1};
const UfuncSource kThree{"three", "template <typename A, typename B, typename C>\n__device__ double three(A a, B b, C c) { return a + b * c; }", "", 1};

std::vector<LoopSpec> specs_to_compile() {
  std::vector<LoopSpec> specs;
  for (int i = 0; i < kDTypeCount; ++i) {
    const std::string t(dtype_name(static_cast<DType>(i)));
    specs.push_back(LoopSpec::exact(Signature::parse(t + "(" + t + ")")));
  }
  // Mixed storage: arrays of other dtypes converted in the kernel, output cast on store.
  LoopSpec mixed = LoopSpec::exact(Signature::parse("float64(float64)"));
  mixed.inputs = {DType::int16};
  mixed.outputs = {DType::float32};
  specs.push_back(mixed);
  LoopSpec bools = LoopSpec::exact(Signature::parse("int32(int32)"));
  bools.inputs = {DType::bool_};
  bools.outputs = {DType::uint8};
  specs.push_back(bools);
  return specs;
}

}  // namespace

TEST_CASE("every generated GPU kernel compiles with NVRTC", "[codegen][nvrtc]") {
  for (const LoopSpec& spec : specs_to_compile()) {
    INFO(spec.describe());
    const compile::CudaBinary b = compile::compile_cuda(generate_cuda_source(kIdentity, {}, spec), "ident", "sm_90");
    CHECK(b.cubin.size() > 0);
    CHECK(b.ptx.find(".entry jitvec_contig_vec") != std::string::npos);
    CHECK(b.ptx.find(".entry jitvec_strided64") != std::string::npos);
    CHECK(b.ptx.find(".entry jitvec_tiled") != std::string::npos);
    CHECK(b.ptx.find(".entry jitvec_nd_vec") != std::string::npos);
  }
  LoopSpec three = LoopSpec::exact(Signature::parse("float64(int8, float32, uint64)"));
  three.outputs = {DType::int64};
  CHECK_NOTHROW(compile::compile_cuda(generate_cuda_source(kThree, {}, three), "three", "sm_80"));
}

TEST_CASE("every generated host loop compiles with the host compiler", "[codegen][host]") {
  for (const LoopSpec& spec : specs_to_compile()) {
    INFO(spec.describe());
    const std::string so = cpu::compile_shared_object(generate_host_source(kIdentity, {}, spec), "ident", cpu::host_compiler());
    CHECK(so.size() > 0);
  }
}

TEST_CASE("NVRTC architecture names are checked", "[codegen][errors]") {
  CHECK(compile::parse_arch("sm_90") == 90);
  CHECK(compile::parse_arch("sm_90a") == 90);
  CHECK_THROWS_WITH(compile::parse_arch("compute_90"), Catch::Matchers::Contains("bad GPU architecture 'compute_90'"));
  CHECK_THROWS_AS(compile::parse_arch("sm_"), ArgumentError);
  const auto archs = compile::supported_archs();
  CHECK(std::find(archs.begin(), archs.end(), 90) != archs.end());
  CHECK(compile::arch_for_device(9, 0) == "sm_90");
  // The architectures answered without loading NVRTC are ones this NVRTC supports.
  for (int arch : compile::archs_known_without_nvrtc()) {
    INFO("sm_" << arch);
    CHECK(std::find(archs.begin(), archs.end(), arch) != archs.end());
  }
  CHECK(compile::nvrtc_key_version().rfind("nvrtc ", 0) == 0);
}
