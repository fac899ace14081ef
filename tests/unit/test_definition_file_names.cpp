// tests/unit/test_definition_file_names.cpp: a definition file may have any name the file
// system allows. Its base name goes into the generated source's `#line` directives
// (codegen/line_directive), written as a C string literal, so a newline, a quote, a backslash,
// a control character or UTF-8 in it neither breaks the compile nor adds a preprocessor line;
// compile errors still name the file as the user gave it, at the right line, from the host
// compiler and from NVRTC.
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "catch.hpp"
#include "codegen/line_directive.hpp"
#include "codegen/portable_source.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "definitions/definition_file.hpp"
#include "jitvec/jitvec.hpp"
#include "kernels/module_source.hpp"
#include "support.hpp"

using namespace jitvec;

namespace {

const char* const kStrangeNames[] = {
    "new\nline.toml",
    "q\"uote.toml",
    "back\\slash.toml",
    "inj\n#error INJECTED\n.toml",
    "inj2\n#define float int\n.toml",
    "\xc3\xbc" "ber-\xc3\xb1" "and-\xe2\x82\xac.toml",  // "über-ñand-€.toml"
    "tab\tbell\x07" "del\x7f.toml",
    "ends-with-backslash\\",
    "digits-after-an-escape\n123.toml",
};

constexpr const char* kDefinitions = R"toml([device_functions.twice]
source = '''
float twice(float x) { return 2.0f * x; }
'''

[ufuncs.plus_twice]
signatures = ["float32(float32, float32)"]
source = '''
float plus_twice(float a, float b) { return a + twice(b); }
'''

[gufuncs.total]
signatures = ["void(float32[:], float32)"]
layout = "(n)->()"
source = '''
void total(jitvec::View<const float, 1> a, jitvec::View<float, 0> out) {
  float s = 0.0f;
  for (long long i = 0; i < a.size(); ++i) s += a[i];
  out() = s;
}
'''

[fusions.plus_twice_twice]
expression = "plus_twice(x, plus_twice(y, z))"
)toml";

// The ufunc's error is on line 6 of the file, column 14.
constexpr const char* kBroken = R"toml(# a ufunc with an error
[ufuncs.broken]
signatures = ["float32(float32)"]
source = '''
float broken(float x) {
  return x + undefined_thing;
}
'''
)toml";

std::filesystem::path write_file(const std::filesystem::path& path, const char* text) {
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

Engine engine_without_disk_cache() {
  return Engine(EngineOptions{CacheOptions{std::nullopt, std::nullopt, true, std::nullopt}});
}

// The ufunc `name` of `file` as the engine defines it: under its base name, with the path as
// given for messages.
codegen::UfuncSource ufunc_from(const std::filesystem::path& file, const std::string& name) {
  for (const definitions::UfuncDefinition& def : definitions::parse_definition_file(file).ufuncs) {
    if (def.name == name) {
      return codegen::UfuncSource{name, def.source, file.filename().string(), def.origin.line,
                                  file.string()};
    }
  }
  FAIL("no ufunc " << name);
  return {};
}

}  // namespace

TEST_CASE("#line names are C string literals; ordinary names are spelled as before",
          "[codegen][definitions]") {
  CHECK(codegen::line_directive(3, "defs.toml") == "#line 3 \"defs.toml\"\n");
  CHECK(codegen::line_directive(1, "ufunc:f") == "#line 1 \"ufunc:f\"\n");
  CHECK(codegen::c_string_literal("a b-c_d.e+f~!@#$%^&*()[]{}<>,;:'?") ==
        "\"a b-c_d.e+f~!@#$%^&*()[]{}<>,;:'?\"");
  CHECK(codegen::c_string_literal("q\"b\\") == "\"q\\\"b\\\\\"");
  CHECK(codegen::c_string_literal("a\nb\r\t\x01\x7f") == "\"a\\012b\\015\\011\\001\\177\"");
  CHECK(codegen::c_string_literal("\xc3\xbc" "1") == "\"\\303\\2741\"");  // a digit after an escape
  CHECK(codegen::line_directive(7, "inj\n#error x\n") == "#line 7 \"inj\\012#error x\\012\"\n");
}

TEST_CASE("definition files with any name load, compile on cpu and with NVRTC, and report lines",
          "[definitions][codegen][nvrtc][host]") {
  jitvec_test::TempDir dir;
  const codegen::LoopSpec spec = codegen::LoopSpec::exact(Signature::parse("float32(float32, float32)"));
  for (const char* name : kStrangeNames) {
    const std::filesystem::path file = write_file(dir.path() / name, kDefinitions);
    INFO("file name: " << codegen::c_string_literal(name));
    Engine engine = engine_without_disk_cache();
    engine.load_definitions(file);

    const std::vector<float> a{1.0f, 2.0f}, b{3.0f, 4.0f}, c{0.5f, 1.5f};
    CHECK(engine.ufunc("plus_twice")(a, b, target(Target::cpu)).to_vector<float>() ==
          std::vector<float>{7.0f, 10.0f});
    // plus_twice(x, plus_twice(y, z)) = x + 2 (y + 2 z)
    CHECK(engine.ufunc("plus_twice_twice")(a, b, c, target(Target::cpu)).to_vector<float>() ==
          std::vector<float>{9.0f, 16.0f});
    const std::vector<float> row{1.0f, 2.0f, 4.0f};
    CHECK(engine.gufunc("total")(row, target(Target::cpu)).to_vector<float>() ==
          std::vector<float>{7.0f});

    // The same source for the GPU: NVRTC compiles it (no GPU needed).
    const codegen::UfuncSource ufunc = ufunc_from(file, "plus_twice");
    const codegen::HelperSource twice{"twice", "float twice(float x) { return 2.0f * x; }\n",
                                      file.filename().string(), 3, file.string()};
    const std::string generated = kernels::generate_cuda_source(ufunc, {&twice}, spec);
    CHECK(generated.find("\n#error") == std::string::npos);
    CHECK_NOTHROW(compile::compile_cuda(generated, "plus_twice", "sm_90"));
  }
}

TEST_CASE("a compile error in a file with any name names the file as given, at its line",
          "[definitions][codegen][nvrtc][host][errors]") {
  jitvec_test::TempDir dir;
  const codegen::LoopSpec spec = codegen::LoopSpec::exact(Signature::parse("float32(float32)"));
  for (const char* name : kStrangeNames) {
    const std::filesystem::path file = write_file(dir.path() / name, kBroken);
    INFO("file name: " << codegen::c_string_literal(name));
    Engine engine = engine_without_disk_cache();
    engine.load_definitions(file);
    const std::vector<float> x{1.0f};
    try {
      engine.ufunc("broken")(x, target(Target::cpu));
      FAIL_CHECK("no CompileError on the cpu target");
    } catch (const CompileError& e) {
      const std::string message = e.what();
      INFO(message);
      CHECK_THAT(message, Catch::Matchers::Contains(file.string() + ":6:14: error"));
      CHECK_THAT(message, Catch::Matchers::Contains("\n    return x + undefined_thing;\n"
                                                    "               ^"));
      CHECK_THAT(message, !Catch::Matchers::Contains("error: #error") &&
                              !Catch::Matchers::Contains("#error directive"));
    }
    const codegen::UfuncSource ufunc = ufunc_from(file, "broken");
    const std::string generated = kernels::generate_cuda_source(ufunc, {}, spec);
    try {
      compile::compile_cuda(generated, "broken", "sm_90");
      FAIL_CHECK("no CompileError from NVRTC");
    } catch (const CompileError& raw) {
      const std::string message = codegen::with_user_lines(raw, generated, ufunc, {}).what();
      INFO(message);
      CHECK_THAT(message, Catch::Matchers::Contains(file.string() + "(6): error"));
      CHECK_THAT(message, Catch::Matchers::Contains("undefined_thing"));
      CHECK_THAT(message, !Catch::Matchers::Contains("error: #error") &&
                              !Catch::Matchers::Contains("#error directive"));
    }
  }
}
