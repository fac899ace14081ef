// Which parts of the types prelude (__half/__nv_bfloat16, jitvec::complex) a GPU module carries
// (kernels/device_types.hpp, "Which parts a module carries"): the rule on dtypes and source
// text, that every global name a part declares is either caught by the scan or takes a value of
// the part's types, that a module without the types has none of their text, and that modules
// needing only some parts compile with NVRTC.
#include <regex>
#include <string>

#include "catch.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "kernels/device_types.hpp"
#include "kernels/module_source.hpp"

using namespace jitvec;
using kernels::TypesParts;

namespace {

codegen::LoopSpec spec_of(const char* signature) {
  return codegen::LoopSpec::exact(Signature::parse(signature));
}

TypesParts needed(const char* signature, const std::string& source) {
  return kernels::types_parts_needed(spec_of(signature), source);
}

constexpr TypesParts kNone{false, false};
constexpr TypesParts kSmall{true, false};
constexpr TypesParts kComplex{false, true};
constexpr TypesParts kBoth{true, true};

// The text of one part: the part's text with the head and the tail taken off.
std::string part_text(TypesParts part) {
  const std::string head_and_tail = kernels::types_prelude(TypesParts{false, false});
  REQUIRE(head_and_tail.empty());
  const std::string with = kernels::types_prelude(part);
  const std::string both = kernels::types_prelude(kBoth);
  REQUIRE(!with.empty());
  REQUIRE(with.size() < both.size());
  return with;
}

// The global functions, types and typedefs declared in `text` outside namespace jitvec_types
// (whose names a source cannot reach unqualified), with their parameter lists ("" for types).
std::vector<std::pair<std::string, std::string>> global_declarations(std::string text) {
  for (std::size_t open = text.find("namespace jitvec_types {"); open != std::string::npos;
       open = text.find("namespace jitvec_types {")) {
    const std::size_t close = text.find("}  // namespace jitvec_types", open);
    REQUIRE(close != std::string::npos);
    text.erase(open, close - open + 28);
  }
  // Members (a struct's body) are reached through a value of the type only.
  const std::regex struct_head(R"(struct\s+\w+\s*\{)");
  for (std::smatch head; std::regex_search(text, head, struct_head);) {
    std::size_t at = static_cast<std::size_t>(head.position(0) + head.length(0));
    for (int depth = 1; depth > 0 && at < text.size(); ++at) depth += text[at] == '{' ? 1 : text[at] == '}' ? -1 : 0;
    text.replace(static_cast<std::size_t>(head.position(0)), at - static_cast<std::size_t>(head.position(0)),
                 "STRUCT " + head.str(0).substr(7, head.str(0).size() - 8) + ";");
  }
  std::vector<std::pair<std::string, std::string>> found;
  const std::regex function(R"(JITVEC_FN\s+(?:constexpr\s+)?(?:const\s+)?[\w:<>]+&?\s+(\w+)\(([^)]*)\))");
  for (std::sregex_iterator it(text.begin(), text.end(), function), end; it != end; ++it) {
    found.emplace_back((*it)[1].str(), (*it)[2].str());
  }
  const std::regex type(R"((?:STRUCT|struct|typedef [\w:<>]+)\s+(\w+)\s*[;{])");
  for (std::sregex_iterator it(text.begin(), text.end(), type), end; it != end; ++it) {
    found.emplace_back((*it)[1].str(), "");
  }
  return found;
}

}  // namespace

TEST_CASE("types parts: a loop's dtypes choose the parts", "[kernels][types_parts]") {
  const std::string plain = "__device__ float f(float x) { return 2 * x; }";
  CHECK(needed("float32(float32)", plain) == kNone);
  CHECK(needed("int16(int16, int16)", plain) == kNone);
  CHECK(needed("float16(float16)", plain) == kSmall);
  CHECK(needed("bfloat16(float32)", plain) == kSmall);
  CHECK(needed("complex64(complex64)", plain) == kComplex);
  CHECK(needed("float64(complex128)", plain) == kComplex);
  CHECK(needed("complex64(float16)", plain) == kBoth);
  // A storage dtype converted inside the kernel counts as much as the loop's.
  codegen::LoopSpec stored = spec_of("float32(float32)");
  stored.inputs = {DType::float16};
  CHECK(kernels::types_parts_needed(stored, plain) == kSmall);
  stored.inputs = {DType::float32};
  stored.outputs = {DType::complex128};
  CHECK(kernels::types_parts_needed(stored, plain) == kComplex);
}

TEST_CASE("types parts: names in the source choose the parts", "[kernels][types_parts]") {
  for (const char* source :
       {"__half f(float x) { return x; }", "float f(float x) { half h = x; return h; }",
        "float f(float x) { return __half2float(__float2half_rn(x)); }",
        "float f(float x) { return jitvec::bfloat16(x); }", "nv_bfloat16 f(float x) { return x; }",
        "float f(float x) { return __bfloat162float(x); }",
        "float f(unsigned short u) { return __hadd(__ushort_as_half(u), 1); }",
        "template <class T> T f(T x) { return hsqrt(x); }", "// rounds through bf16\nfloat f(float x);"}) {
    INFO(source);
    CHECK(needed("float32(float32)", source) == kSmall);
  }
  for (const char* source :
       {"float f(float x) { return abs(complex<float>(x, 1)); }",
        "float f(float x) { return polar(x, 1.0f).y; }",
        "float f(float x) { complex64 z(x); return real(z); }",
        "float f(float x) { return jitvec::complex128(x).x; }"}) {
    INFO(source);
    CHECK(needed("float32(float32)", source) == kComplex);
  }
  CHECK(needed("float32(float32)", "__half f(complex<float> z) { return z.x; }") == kBoth);
  // Words that merely look alike, or math every module has, choose nothing.
  for (const char* source :
       {"float f(float x) { return sqrtf(x) * expf(x) + hypotf(x, x); }",
        "float f(float x, float h) { const float hx = h * x; return hx; }",
        "double f(double comp, double lex) { return comp + lex; }"}) {
    INFO(source);
    CHECK(needed("float64(float64)", source) == kNone);
  }
}

TEST_CASE("types parts: every global name of a part is caught by the scan or takes the part's types",
          "[kernels][types_parts]") {
  struct Case {
    TypesParts part;
    std::regex part_type;  // a parameter of this type can only come with the part
  };
  const Case cases[] = {
      {kSmall, std::regex(R"(\b(H|__half|__nv_bfloat16)\b)")},
      {kComplex, std::regex(R"(\bcomplex<)")},
  };
  for (const Case& c : cases) {
    const std::string text = part_text(c.part);
    const auto declarations = global_declarations(text);
    CHECK(declarations.size() > 5);
    for (const auto& [name, parameters] : declarations) {
      INFO(name << "(" << parameters << ")");
      const TypesParts by_name = needed("float32(float32)", "void g() { " + name + "; }");
      const bool caught = c.part.small_floats ? by_name.small_floats : by_name.complex;
      const bool takes_part_type = !parameters.empty() && std::regex_search(parameters, c.part_type);
      CHECK((caught || takes_part_type));
    }
  }
}

TEST_CASE("a GPU module carries only the types its loop can use", "[kernels][types_parts]") {
  const codegen::UfuncSource plain{"scale", "__device__ float scale(float x) { return 2 * x; }", "", 1};
  const std::string f32 = kernels::generate_cuda_source(plain, {}, spec_of("float32(float32)"));
  CHECK(f32.find("jitvec types") == std::string::npos);
  CHECK(f32.find("struct __half") == std::string::npos);
  CHECK(f32.find("struct complex") == std::string::npos);

  codegen::LoopSpec stored = spec_of("float32(float32)");
  stored.inputs = {DType::float16};
  const std::string from_half = kernels::generate_cuda_source(plain, {}, stored);
  CHECK(from_half.find("struct __half") != std::string::npos);
  CHECK(from_half.find("struct complex") == std::string::npos);

  const codegen::UfuncSource uses_complex{
      "mag", "__device__ float mag(float x) { return abs(complex<float>(x, x)); }", "", 1};
  const std::string complex_only = kernels::generate_cuda_source(uses_complex, {}, spec_of("float32(float32)"));
  CHECK(complex_only.find("struct __half") == std::string::npos);
  CHECK(complex_only.find("struct complex") != std::string::npos);
}

TEST_CASE("GPU modules with some of the types parts compile with NVRTC", "[kernels][types_parts][nvrtc]") {
  // A float32 loop reading float16 arrays (small floats only), a complex64 loop whose function
  // spells no 2-byte type (complex only), a float32 function on complex values (complex only,
  // from the source) and a complex64 loop reading bfloat16 arrays (both).
  const codegen::UfuncSource twice{"twice", "template <class T> T twice(T x) { return x + x; }", "", 1};
  const codegen::UfuncSource mag{
      "mag", "float mag(float x) { return abs(complex<float>(x, x)) + norm(polar(x, 0.5f)); }", "", 1};
  codegen::LoopSpec from_half = spec_of("float32(float32)");
  from_half.inputs = {DType::float16};
  codegen::LoopSpec from_bf16 = spec_of("complex64(complex64)");
  from_bf16.inputs = {DType::bfloat16};
  const std::pair<const codegen::UfuncSource*, codegen::LoopSpec> modules[] = {
      {&twice, from_half}, {&twice, spec_of("complex64(complex64)")}, {&mag, spec_of("float32(float32)")},
      {&twice, from_bf16}};
  for (const auto& [ufunc, spec] : modules) {
    INFO(ufunc->name << " " << spec.describe());
    const compile::CudaBinary binary =
        compile::compile_cuda(kernels::generate_cuda_source(*ufunc, {}, spec), ufunc->name, "sm_90");
    CHECK(binary.cubin.size() > 0);
  }
}
