// One source, one answer: a table of ufunc sources, good and bad, compiled by NVRTC (which needs
// no GPU) and by the host compiler; both must accept or both must reject each one, and each
// row's expected answer is checked too. Then the compile errors of both compilers: the user's
// path, line and caret, and no temporary file names.
#include "catch.hpp"
#include "codegen/portable_source.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "cpu/host_compiler.hpp"
#include "jitvec/errors.hpp"
#include "jitvec/jitvec.hpp"
#include "kernels/module_source.hpp"

using namespace jitvec;
using namespace jitvec::codegen;

namespace {

struct Row {
  const char* what;
  const char* signature;
  const char* source;
  bool accepted;
  const char* helper = nullptr;       // a device function the ufunc may call, named "helper"
  const char* helper2 = nullptr;      // another, named "helper2"
};

const Row kRows[] = {
    {"no __device__", "f4(f4)", "float f(float x) { return x * 2.0f; }", true},
    {"__device__", "f4(f4)", "__device__ float f(float x) { return x * 2.0f; }", true},
    {"__host__ __device__", "f4(f4)", "__host__ __device__ float f(float x) { return x + 1; }", true},
    {"__forceinline__", "f4(f4)", "__device__ __forceinline__ float f(float x) { return x; }", true},
    {"a template", "f8(f8)", "template <class T> T f(T x) { return x * x; }", true},
    {"#include <cmath>", "f4(f4)", "#include <cmath>\nfloat f(float x) { return sqrtf(x) + expf(x); }", true},
    {"#include <math.h> and <stdint.h>", "i4(f4)", "#include <math.h>\n#include <stdint.h>\nint32_t f(float x) { return (int32_t)floorf(x); }", true},
    {"#include <cfloat> and <climits>", "f8(i4)", "#include <cfloat>\n#include <climits>\ndouble f(int x) { return x == INT_MAX ? DBL_MAX : FLT_EPSILON; }", true},
    {"#include <float.h> and <limits.h>", "f4(i8)", "#include <float.h>\n#include <limits.h>\nfloat f(long long x) { return x > LLONG_MAX / 2 ? FLT_MAX : FLT_MIN; }", true},
    {"#include <type_traits>", "f8(f8)", "#include <type_traits>\ntemplate <class T> T f(T x) { return std::is_floating_point<T>::value && std::is_same_v<T, double> ? x : -x; }", true},
    {"#include <cstdint> with spaces and a comment", "u1(u1)", "  #  include <cstdint> // ok\nuint8_t f(uint8_t x) { return x + 1; }", true},
    {"an #include in a comment or a string", "f4(f4)", "// #include <vector>\n/* #include \"x.h\" */\nfloat f(float x) { const char* s = \"#include <map>\"; return s ? x : 0; }", true},
    {"#include <vector>", "f4(f4)", "#include <vector>\nfloat f(float x) { return x; }", false},
    {"#include \"x.h\"", "f4(f4)", "#include \"x.h\"\nfloat f(float x) { return x; }", false},
    {"#include <iostream> in a helper", "f4(f4)", "float f(float x) { return helper(x); }", false, "#include <iostream>\nfloat helper(float x) { return x; }"},
    {"an undeclared function", "f4(f4)", "float f(float x) { return nosuchfunction(x); }", false},
    {"a syntax error", "f4(f4)", "float f(float x) { return x + ; }", false},
    {"CUDA intrinsics", "f4(f4)", "float f(float x) { return __expf(x) + rsqrtf(x + 1.0f) + __saturatef(x) + __fdividef(x, 3.0f); }", true},
    {"min and max", "i4(i4, i4)", "int f(int a, int b) { return min(a, b) * max(a, 3) + (int)fminf(1.0f, 2.0f); }", true},
    {"a helper calling another", "f4(f4)", "float f(float x) { return helper(x); }", true, "float helper(float x) { return helper2(x) + 1; }", "__device__ float helper2(float x) { return x * x; }"},
    {"int64 arithmetic", "i8(i8, i8)", "long long f(long long a, long long b) { return a * b + (a >> 3) - b % 7; }", true},
    {"uint8 arithmetic", "u1(u1, u1)", "uint8_t f(uint8_t a, uint8_t b) { return (uint8_t)(a + b) ^ (uint8_t)(a << 1); }", true},
    {"int64_t and uint64_t types", "u8(i8)", "uint64_t f(int64_t a) { return (uint64_t)a * 3u; }", true},
    {"threadIdx", "f4(f4)", "float f(float x) { return x + threadIdx.x; }", false},
    {"blockIdx in a helper", "f4(f4)", "float f(float x) { return helper(x); }", false, "float helper(float x) { return x * blockIdx.x; }"},
    {"__syncthreads", "f4(f4)", "float f(float x) { __syncthreads(); return x; }", false},
    {"a __global__ function", "f4(f4)", "__global__ float f(float x) { return x; }", false},
    {"printf", "f4(f4)", "float f(float x) { if (x < -1e30f) printf(\"%f\\n\", x); return x; }", true},
    {"a wrong return type", "f4(f4)", "struct S { int a; };\nS f(float x) { return S{1}; }", false},
    {"std:: math", "f4(f4)", "#include <cmath>\nfloat f(float x) { return std::sqrt(std::fabs(x)) + std::min(x, 1.0f) + std::pow(x, 2.0f); }", true},
    {"a standard container without #include", "f4(f4)", "float f(float x) { std::vector<float> v; return x; }", false},
    {"math of double", "f8(f8, f8)", "double f(double x, double y) { return pow(x, y) + atan2(x, y) + erf(x) + fma(x, y, 1.0); }", true},
    {"std::numeric_limits (host only)", "f4(f4)", "float f(float x) { return x < std::numeric_limits<float>::max() ? x : 0.0f; }", false},
    {"fpclassify and FP_NAN (host only)", "i4(f4)", "int f(float x) { return fpclassify(x) == FP_NAN; }", false},
    {"FLT_MAX and isnan instead", "i4(f4)", "#include <cfloat>\nint f(float x) { return isnan(x) ? 0 : (fabsf(x) < FLT_MAX ? 1 : 2); }", true},
    {"float16 operators and math", "f2(f2, f2)", "__half f(__half a, __half b) { __half c = sqrt(abs(a * b)) + exp(a) - b / 2; c += 1; return __hadd(c, -a) * 3 + (a < b ? a : b); }", true},
    {"bfloat16 mixed with float and float16", "bf16(bf16, f4, f2)", "__nv_bfloat16 f(__nv_bfloat16 a, float x, __half h) { float y = a * x + a * h; return __float2bfloat16(y) + __nv_bfloat16(h) + a; }", true},
    {"half and nv_bfloat16 aliases, CUDA conversions", "f4(f2, bf16)", "float f(half h, nv_bfloat16 b) { jitvec::half g = h; return __half2float(g) + __bfloat162float(b) + (isnan(h) ? 1.0f : 0.0f); }", true},
    {"complex64 arithmetic", "c8(c8, c8)", "complex<float> f(complex<float> z, complex<float> c) { return z * conj(z) + c / z - 2.0f * c + z.real() - z.imag(); }", true},
    {"complex128 math", "c16(c16, f8)", "jitvec::complex128 f(jitvec::complex128 z, double r) { complex128 w = exp(z) + sqrt(z) * log(z); w *= r; return w / abs(z) + arg(z) + norm(z) + polar(r, r); }", true},
    {"complex to real without a function", "f4(c8)", "float f(complex64 z) { return z; }", false},
    {"float16 from a complex", "f2(c8)", "__half f(complex64 z) { return __half(z); }", false},
};

// Whether `compile` throws a jitvec error; the message, for the report.
template <class Compile> std::pair<bool, std::string> accepts(Compile compile) {
  try {
    compile();
    return {true, ""};
  } catch (const Error& e) {
    return {false, e.what()};
  }
}

}  // namespace

TEST_CASE("NVRTC and the host compiler accept and reject the same sources", "[codegen][nvrtc][host][same_source]") {
  REQUIRE(sizeof(kRows) / sizeof(kRows[0]) >= 20);
  for (const Row& row : kRows) {
    INFO(row.what << ":\n" << row.source);
    const UfuncSource ufunc{"f", row.source, "", 1};
    HelperSource helper{"helper", row.helper ? row.helper : "", "", 1};
    HelperSource helper2{"helper2", row.helper2 ? row.helper2 : "", "", 1};
    std::vector<const HelperSource*> helpers;
    if (row.helper2) helpers.push_back(&helper2);
    if (row.helper) helpers.push_back(&helper);
    const LoopSpec spec = LoopSpec::exact(Signature::parse(row.signature));
    const auto gpu = accepts([&] {
      compile::compile_cuda(kernels::generate_cuda_source(ufunc, helpers, spec), "f", "sm_90");
    });
    const auto host = accepts([&] {
      cpu::compile_shared_object(kernels::generate_host_source(ufunc, helpers, spec), "f",
                                 cpu::host_compiler());
    });
    INFO("NVRTC: " << (gpu.first ? "accepted" : gpu.second));
    INFO("host: " << (host.first ? "accepted" : host.second));
    CHECK(gpu.first == host.first);
    CHECK(gpu.first == row.accepted);
  }
}

TEST_CASE("a rejected #include names the header, the file and line, and the allowed set", "[codegen][same_source]") {
  const UfuncSource ufunc{"f", "float f(float x) {\n  return x;\n}\n#include <vector>\n", "defs.toml", 10,
                          "conf/dir/defs.toml"};
  const LoopSpec spec = LoopSpec::exact(Signature::parse("f4(f4)"));
  for (int target = 0; target < 2; ++target) {
    CHECK_THROWS_AS(target ? kernels::generate_host_source(ufunc, {}, spec)
                           : kernels::generate_cuda_source(ufunc, {}, spec),
                    DefinitionError);
    CHECK_THROWS_WITH(target ? kernels::generate_host_source(ufunc, {}, spec)
                             : kernels::generate_cuda_source(ufunc, {}, spec),
                      "conf/dir/defs.toml:13: ufunc 'f': #include <vector> is not available to ufunc source: "
                      "ufuncs compile for the GPU (NVRTC) and the host alike, and may include only "
                      "<cmath>, <math.h>, <cstdint>, <stdint.h>, <cfloat>, <float.h>, <climits>, "
                      "<limits.h>, <type_traits> (the math functions and int32_t, uint8_t, ... need "
                      "no #include)");
  }
  const UfuncSource quoted{"g", "float g(float x) { return x; }\n#include \"mine.h\"\n", "", 1};
  CHECK_THROWS_WITH(kernels::generate_cuda_source(quoted, {}, spec),
                    Catch::Matchers::StartsWith("ufunc:g:2: ufunc 'g': #include \"mine.h\" is not available"));
  const UfuncSource per_thread{"t", "float t(float x) {\n  return x + blockDim.x;\n}", "", 1};
  CHECK_THROWS_WITH(kernels::generate_host_source(per_thread, {}, spec),
                    Catch::Matchers::StartsWith("ufunc:t:2: ufunc 't': 'blockDim' is per-thread or kernel code"));
}

namespace {

// The ufunc `f` from "conf/defs.toml" line 20, with an error on its third line (line 22).
const UfuncSource kBroken{"f", "float f(float x) {\n  float y = x * 2.0f;\n  return y + undefined_thing;\n}",
                          "defs.toml", 20, "conf/defs.toml"};

void check_annotated(const CompileError& raw, const std::string& generated) {
  const CompileError e = with_user_lines(raw, generated, kBroken, {});
  const std::string message = e.what();
  INFO(message);
  CHECK(e.log().find("conf/defs.toml") != std::string::npos);
  CHECK(message.find("conf/defs.toml") != std::string::npos);
  // The user's line, and under it a caret under the undefined name.
  const std::size_t name_at = message.find("return y + undefined_thing;\n");
  REQUIRE(name_at != std::string::npos);
  const std::size_t line_start = message.rfind('\n', name_at) + 1;
  const std::size_t line_end = message.find('\n', name_at);
  const std::size_t column = message.find("undefined_thing", line_start) - line_start;
  const std::size_t caret_end = message.find('\n', line_end + 1);
  const std::string caret_line = message.substr(line_end + 1, caret_end - line_end - 1);
  CHECK(caret_line.find_first_not_of(' ') == column);
  CHECK(caret_line.substr(column, 1) == "^");
  CHECK(message.find("jitvec-cxx-") == std::string::npos);
  CHECK(message.find("/tmp/") == std::string::npos);
}

}  // namespace

TEST_CASE("NVRTC's compile errors show the user's path, line and caret", "[codegen][nvrtc][same_source]") {
  const LoopSpec spec = LoopSpec::exact(Signature::parse("f4(f4)"));
  const std::string generated = kernels::generate_cuda_source(kBroken, {}, spec);
  try {
    compile::compile_cuda(generated, "f", "sm_90");
    FAIL("NVRTC accepted a broken source");
  } catch (const CompileError& raw) {
    CHECK(raw.log().find("defs.toml(22): error") != std::string::npos);
    check_annotated(raw, generated);
    CHECK(std::string(with_user_lines(raw, generated, kBroken, {}).what()).find("conf/defs.toml(22): error") != std::string::npos);
  }
}

TEST_CASE("the host compiler's errors show the user's path, line and caret, and no scratch names", "[codegen][host][same_source]") {
  const LoopSpec spec = LoopSpec::exact(Signature::parse("f4(f4)"));
  const std::string generated = kernels::generate_host_source(kBroken, {}, spec);
  try {
    cpu::compile_shared_object(generated, "f", cpu::host_compiler());
    FAIL("the host compiler accepted a broken source");
  } catch (const CompileError& raw) {
    // Before the mapping: already no scratch folder in the message.
    CHECK(std::string(raw.what()).find("jitvec-cxx-") == std::string::npos);
    CHECK(raw.log().find("defs.toml:22:") != std::string::npos);
    check_annotated(raw, generated);
    CHECK(std::string(with_user_lines(raw, generated, kBroken, {}).what()).find("conf/defs.toml:22:14: error") != std::string::npos);
  }
}

TEST_CASE("an engine's compile error names the definition file as given, on the cpu target", "[errors][host][same_source]") {
  Engine engine(EngineOptions{CacheOptions{std::nullopt, std::nullopt, true, std::nullopt}});
  Ufunc bad = engine.vectorize("bad", {"float32(float32)"},
                               "float bad(float x) {\n  return x + undefined_thing;\n}\n",
                               VectorizeOptions{std::nullopt, "some/where/defs.toml", 7});
  std::vector<float> x(4, 1.0f);
  try {
    bad(x, target(Target::cpu));
    FAIL("expected CompileError");
  } catch (const CompileError& e) {
    const std::string message = e.what();
    INFO(message);
    CHECK_THAT(message, Catch::Matchers::Contains("some/where/defs.toml:8:14: error"));
    CHECK_THAT(message, Catch::Matchers::Contains("\n    return x + undefined_thing;\n               ^"));
    CHECK_THAT(e.log(), Catch::Matchers::Contains("some/where/defs.toml:8:14"));
    CHECK(message.find("jitvec-cxx-") == std::string::npos);
    // The hint for an undeclared name still comes.
    CHECK_THAT(message, Catch::Matchers::Contains("Engine::define_device_function(\"undefined_thing\""));
  }
  // An #include outside the portable set is refused before any compiler runs.
  Ufunc includes = engine.vectorize("inc", {"float32(float32)"},
                                    "#include <vector>\nfloat inc(float x) { return x; }\n",
                                    VectorizeOptions{std::nullopt, "some/where/defs.toml", 3});
  CHECK_THROWS_WITH(includes(x, target(Target::cpu)),
                    Catch::Matchers::StartsWith("some/where/defs.toml:3: ufunc 'inc': #include <vector> is not available"));
}

TEST_CASE("a name only the host's library has is refused on both targets, saying what to use",
          "[codegen][same_source]") {
  const LoopSpec spec = LoopSpec::exact(Signature::parse("f4(f4)"));
  const UfuncSource limits{"f", "float f(float x) {\n  return std::numeric_limits<float>::max();\n}",
                           "defs.toml", 5, "conf/defs.toml"};
  const UfuncSource classify{"f", "int f(float x) { return fpclassify(x); }", "", 1};
  for (int target = 0; target < 2; ++target) {
    CHECK_THROWS_WITH(target ? kernels::generate_host_source(limits, {}, spec)
                             : kernels::generate_cuda_source(limits, {}, spec),
                      Catch::Matchers::StartsWith("conf/defs.toml:6: ufunc 'f': 'numeric_limits' is not "
                                                  "available to ufunc source") &&
                          Catch::Matchers::Contains("FLT_MAX"));
    CHECK_THROWS_WITH(target ? kernels::generate_host_source(classify, {}, spec)
                             : kernels::generate_cuda_source(classify, {}, spec),
                      Catch::Matchers::StartsWith("ufunc:f:1: ufunc 'f': 'fpclassify' is not available") &&
                          Catch::Matchers::Contains("isnan"));
  }
}
