// tests/unit/test_include_rules.cpp: the #include allow-list holds for what the preprocessor
// sees, not for the text (codegen/source_lexer, codegen/portable_source). Each way of spelling
// a directive that reaches a file (digraphs, line splices, comments, form feeds, carriage
// returns, trigraphs, macros, pragmas, __has_include, token pasting, raw strings) is refused
// with a message naming the ufunc, the line and what the preprocessor would read; the same
// sources are run through the compilers' own preprocessors (GCC, Clang, NVRTC) to show that
// they do read the file; and sources that only look like includes still compile on both.
#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "catch.hpp"
#include "codegen/portable_source.hpp"
#include "codegen/source_lexer.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "cpu/host_compiler.hpp"
#include "cpu/subprocess.hpp"
#include "jitvec/errors.hpp"
#include "kernels/module_source.hpp"
#include "support.hpp"

using namespace jitvec;
using namespace jitvec::codegen;

namespace {

// `@` in a row's source stands for the path of a file that holds `#error jitvec_secret_marker`:
// a compiler that includes it says the marker.
constexpr const char* kMarker = "jitvec_secret_marker";

struct Bypass {
  const char* what;
  const char* source;  // the ufunc `f` follows on the next line
  int line;            // 1-based, where the refused directive or name is
  const char* found;   // part of the message: what the preprocessor reads
  // Which compilers read the file (checked with each one's own preprocessor).
  bool gcc = false, clang = false, nvrtc = false, gcc_trigraphs = false;
};

const Bypass kBypasses[] = {
    {"a digraph", "%:include \"@\"", 1, "#include \"@\" is not available to ufunc source", true, true, true},
    {"a line splice in the name", "#inc\\\nlude \"@\"", 1, "#include \"@\" is not available", true, true, true},
    {"a line splice after the #", "# \\\n include \"@\"", 1, "#include \"@\" is not available", true, true, true},
    {"comments around the #", "/**/ # /**/ include \"@\"", 1, "#include \"@\" is not available", true, true, true},
    {"a comment across lines", "\n#/*\n*/include \"@\"", 2, "#include \"@\" is not available", true, true, true},
    {"tabs", "\t#\tinclude\t\"@\"", 1, "#include \"@\" is not available", true, true, true},
    {"form feeds and vertical tabs", "\f#\v\finclude\f\"@\"", 1, "#include \"@\" is not available", true, true, true},
    {"a splice with a space after the backslash (GCC, Clang)", "#inc\\ \nlude \"@\"", 1,
     "#include \"@\" is not available", true, true, false},
    {"a carriage return alone as a line end (GCC, Clang)", "int a;\r#include \"@\"", 1,
     "#include \"@\" is not available", true, true, false},
    {"a trigraph #", "??=include \"@\"", 1, "#include \"@\" is not available", false, false, false, true},
    {"a trigraph splice", "#inc??/\nlude \"@\"", 1, "#include \"@\" is not available", false, false, false, true},
    {"an include through a macro", "#define X \"@\"\n#include X", 2,
     "'#include X' does not name a header", true, true, true},
    {"an angled include through a macro", "#define X <@>\n#include X", 2,
     "'#include X' does not name a header", true, true, true},
    {"#include_next", "#include_next \"@\"", 1, "'#include_next \"@\"' reads a file", true, true, false},
    {"#import", "#import \"@\"", 1, "'#import \"@\"' reads a file", true, true, false},
    {"#embed", "#embed \"@\"", 1, "'#embed \"@\"' reads a file"},
    {"#pragma GCC dependency", "#pragma GCC dependency \"@\"", 1,
     "'#pragma GCC dependency \"@\"' reads files"},
    {"#pragma clang module", "#pragma clang module import std", 1, "'#pragma clang module import std' reads files"},
    {"_Pragma", "_Pragma(\"GCC dependency \\\"@\\\"\")", 1, "'_Pragma(\"GCC dependency \\\"@\\\"\")' reads files"},
    {"_Pragma of a stringized argument", "#define P(x) _Pragma(#x)\nP(GCC dependency \"@\")", 1,
     "_Pragma is given something other than a string literal"},
    {"__has_include", "#if __has_include(\"@\")\n#endif", 1, "'__has_include' looks for files"},
    {"__has_include pasted together", "#define CAT(a, b) a##b\n#if CAT(__has_, include)(\"@\")\n#endif", 2,
     "'__has_' with token pasting (##) in the source could be pasted into '__has_include'"},
    {"_Pragma pasted together with a digraph ##", "#define CAT(a, b) a%:%:b\nCAT(_Pra, gma)(\"GCC dependency \\\"@\\\"\")", 2,
     "'_Pra' with token pasting (##) in the source could be pasted into '_Pragma'"},
    {"a raw string only NVRTC sees, after a name with $", "int x$R = 0; const char* s = x$R\"a(\n#include \"@\"\n)a\";", 2,
     "#include \"@\" is not available", true, true, false},
    {"a raw string delimiter that is not valid", "const char* s = R\"a b(\n#include \"@\"\n)a b\";", 1,
     "is a raw string literal whose delimiter is not valid"},
};

std::string with_path(std::string text, const std::string& path) {
  for (std::size_t at = text.find('@'); at != std::string::npos; at = text.find('@', at + path.size())) {
    text.replace(at, 1, path);
  }
  return text;
}

// What the compiler's preprocessor (or NVRTC's compile) prints for `source`.
std::string preprocessed(const std::string& compiler, const std::string& source,
                         const std::string& file, std::vector<std::string> flags) {
  std::ofstream(file, std::ios::binary) << source;
  std::vector<std::string> command{compiler, "-std=c++17", "-E", "-x", "c++"};
  command.insert(command.end(), flags.begin(), flags.end());
  command.push_back(file);
  return cpu::run_program(command, std::chrono::seconds(60)).output;
}

std::string nvrtc_log(const std::string& source) {
  try {
    compile::compile_cuda(source, "f", "sm_90");
  } catch (const CompileError& e) {
    return e.log();
  }
  return "";
}

}  // namespace

TEST_CASE("every spelling of a directive that reads a file is refused, as the compilers read it",
          "[codegen][same_source][includes]") {
  jitvec_test::TempDir dir;
  const std::string secret = (dir.path() / "secret.h").string();
  std::ofstream(secret) << "#error " << kMarker << "\n";
  const std::string gcc = "/usr/bin/g++";
  const std::string clang = "/usr/bin/clang++";
  const LoopSpec spec = LoopSpec::exact(Signature::parse("f4(f4)"));
  for (const Bypass& row : kBypasses) {
    const std::string source = with_path(row.source, secret) + "\nfloat f(float x) { return x; }\n";
    INFO(row.what << ":\n" << source);
    const UfuncSource ufunc{"f", source, "defs.toml", 10, "conf/defs.toml"};
    for (int target = 0; target < 2; ++target) {
      try {
        (void)(target ? kernels::generate_host_source(ufunc, {}, spec)
                      : kernels::generate_cuda_source(ufunc, {}, spec));
        FAIL_CHECK("accepted");
      } catch (const DefinitionError& e) {
        const std::string message = e.what();
        INFO(message);
        CHECK_THAT(message, Catch::Matchers::StartsWith(
                                "conf/defs.toml:" + std::to_string(9 + row.line) + ": ufunc 'f': "));
        CHECK_THAT(message, Catch::Matchers::Contains(with_path(row.found, secret)));
      }
    }
    // The compilers do read the file, so the check is no formality.
    const std::string file = (dir.path() / "probe.cpp").string();
    if (row.gcc && std::ifstream(gcc)) {
      CHECK_THAT(preprocessed(gcc, source, file, {}), Catch::Matchers::Contains(kMarker));
    }
    if (row.gcc_trigraphs && std::ifstream(gcc)) {
      CHECK_THAT(preprocessed(gcc, source, file, {}), !Catch::Matchers::Contains(kMarker));
      CHECK_THAT(preprocessed(gcc, source, file, {"-trigraphs"}), Catch::Matchers::Contains(kMarker));
    }
    if (row.clang && std::ifstream(clang)) {
      CHECK_THAT(preprocessed(clang, source, file, {}), Catch::Matchers::Contains(kMarker));
    }
    if (row.nvrtc) CHECK_THAT(nvrtc_log(source), Catch::Matchers::Contains(kMarker));
  }
}

TEST_CASE("a refused directive's message says what the preprocessor reads and what was written",
          "[codegen][same_source][includes]") {
  const LoopSpec spec = LoopSpec::exact(Signature::parse("f4(f4)"));
  const UfuncSource digraph{"f", "float f(float x) { return x; }\n%:include \"/etc/hostname\"\n",
                            "defs.toml", 4, "conf/defs.toml"};
  CHECK_THROWS_WITH(kernels::generate_host_source(digraph, {}, spec),
                    "conf/defs.toml:5: ufunc 'f': #include \"/etc/hostname\" is not available to "
                    "ufunc source: ufuncs compile for the GPU (NVRTC) and the host alike, and may "
                    "include only <cmath>, <math.h>, <cstdint>, <stdint.h>, <cfloat>, <float.h>, "
                    "<climits>, <limits.h>, <type_traits> (the math functions and int32_t, "
                    "uint8_t, ... need no #include); the line as written: "
                    "\"%:include \\\"/etc/hostname\\\"\"");
  const HelperSource spliced{"h", "#inc\\\nlude </etc/hostname>\nfloat h(float x) { return x; }",
                             "", 1};
  const UfuncSource caller{"f", "float f(float x) { return h(x); }", "", 1};
  CHECK_THROWS_WITH(kernels::generate_cuda_source(caller, {&spliced}, spec),
                    Catch::Matchers::StartsWith("helper:h:1: device function 'h': #include "
                                                "</etc/hostname> is not available") &&
                        Catch::Matchers::EndsWith("; the line as written: \"#inc\\\\\\012lude "
                                                  "</etc/hostname>\""));
  const UfuncSource lone_cr{"f", "float f(float x) { return x; }\r#include <vector>\n", "", 1};
  CHECK_THROWS_WITH(kernels::generate_host_source(lone_cr, {}, spec),
                    Catch::Matchers::StartsWith("ufunc:f:1: ufunc 'f': #include <vector> is not "
                                                "available") &&
                        Catch::Matchers::EndsWith("(when the source is read with a carriage "
                                                  "return alone taken as a line end (as GCC and "
                                                  "Clang take it))"));
}

namespace {

// Sources that look like includes, or use the preprocessor harmlessly; each must pass the
// check and compile with both compilers.
const char* const kLegitimate[] = {
    "%:include <cmath>\nfloat f(float x) { return sqrtf(x); }",
    "#inc\\\nlude <cmath>\nfloat f(float x) { return sqrtf(x); }",
    "/* a comment */ # /**/ include <cfloat> // #include <vector>\nfloat f(float x) { return x < FLT_MAX ? x : 0; }",
    "#include \"cmath\"\nfloat f(float x) { return expf(x); }",
    "// #include <vector>\n/* #include \"/etc/hostname\"\n#include <map> */\nfloat f(float x) { return x; }",
    "float f(float x) {\n  const char* s = \"#include </etc/hostname>\"; const char c = '#';\n  return s[0] == c ? x : -x;\n}",
    "float f(float x) {\n  const char* s = R\"raw(\n#include </etc/hostname>\n)raw\";\n  return s[1] == '#' ? x : -x;\n}",
    "float f(float x) {\n  const char* s = u8\"%:include <vector>\"; int n = 1'000'000;\n  return s[0] == '%' ? x + n - n : -x;\n}",
    "#define SQUARE(T) T square_##T(T v) { return v * v; }\nSQUARE(float)\nfloat f(float x) { return square_float(x); }",
    "float f(float x) {\n  float s = 0;\n#pragma unroll\n  for (int i = 0; i < 4; ++i) s += x;\n  _Pragma(\"unroll\") for (int i = 0; i < 4; ++i) s -= x;\n  return s + x;\n}",
    "#if defined(__CUDA_ARCH__)\n#define ON_GPU 1\n#else\n#define ON_GPU 0\n#endif\nfloat f(float x) { return x + ON_GPU - ON_GPU; }",
};

}  // namespace

TEST_CASE("sources that only look like includes, or include an allowed header oddly, compile on both",
          "[codegen][nvrtc][host][same_source][includes]") {
  const LoopSpec spec = LoopSpec::exact(Signature::parse("f4(f4)"));
  for (const char* text : kLegitimate) {
    INFO(text);
    const UfuncSource ufunc{"f", text, "", 1};
    std::string host_error, gpu_error;
    try {
      cpu::compile_shared_object(kernels::generate_host_source(ufunc, {}, spec), "f",
                                 cpu::host_compiler());
    } catch (const Error& e) {
      host_error = e.what();
    }
    try {
      compile::compile_cuda(kernels::generate_cuda_source(ufunc, {}, spec), "f", "sm_90");
    } catch (const Error& e) {
      gpu_error = e.what();
    }
    CHECK(host_error == "");
    CHECK(gpu_error == "");
  }
}

TEST_CASE("the lexer sees directives, comments and literals as translation phases 1-3 do",
          "[codegen][includes]") {
  auto directives = [](const char* text, SourceReading reading = {}) {
    std::vector<std::string> out;
    for (const SourceDirective& d : source_directives(preprocessing_tokens(text, reading))) {
      std::string line = std::to_string(d.line) + ":#" + d.name;
      for (const SourceToken& t : d.operands) line += " " + t.text;
      out.push_back(line);
    }
    return out;
  };
  using V = std::vector<std::string>;
  CHECK(directives("#include <a b>\n  # define X(a) a ## b\n") == V{"0:#include <a b>", "1:#define X ( a ) a ## b"});
  CHECK(directives("x; /* \n */ #include <a>\n") == V{});  // the # is not first on its line
  CHECK(directives("/* x */ %:%:include <a>\n") == V{});  // ## is not #
  CHECK(directives("#error don't\n#include <a>\n") == V{"0:#error don 't", "1:#include <a>"});
  CHECK(directives("s = \"a\\\n#include <b>\";\n") == V{});  // a string spliced over the line
  CHECK(directives("// a comment \\\n#include <b>\n") == V{});   // a comment spliced over it
  CHECK(directives("#\n# 12 \"file\"\n") == V{"0:#", "1:# 12 \"file\""});
  CHECK(directives("R\"x(\n#include <a>\n)x\" \n#include <b>") == V{"3:#include <b>"});
  CHECK(directives("a ??= b\n??=include <c>") == V{});
  CHECK(directives("a ??= b\n??=include <c>", SourceReading{true, false, false, false}) == V{"1:#include <c>"});
  CHECK(directives("int a;\r#x\n") == V{});
  CHECK(directives("int a;\r#x\n", SourceReading{false, false, true, false}) == V{"0:#x"});
  CHECK(every_source_reading("float f(float x) { return x; }").size() == 1);
  CHECK(every_source_reading("a ?? b\r $").size() == 8);
  CHECK(every_source_reading("#inc??/ \nlude <a>").size() == 4);
  CHECK(directives("#inc??/ \nlude <a>", SourceReading{true, true, false, false}) ==
        V{"0:#include <a>"});
  CHECK(directives("#inc??/ \nlude <a>", SourceReading{true, false, false, false}) ==
        V{"0:#inc \\"});
}
