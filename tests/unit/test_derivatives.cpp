// Derivative ufuncs (Engine::derivative, src/engine/derivative.hpp) on the cpu targets: the
// checks of tests/derivative_cases.hpp (the samples against closed forms and central
// differences, every math function jitvec::dual has, integer inputs and template helpers), the
// refusals (each message names the ufunc and the input and says what to write), a plain helper's
// compile error with its note, the default names, the disk cache, definition files'
// [derivatives] table with `jitvec compile`'s jobs, and NVRTC compiling the same derivative
// loops for the GPU (which needs no GPU).
#include <fmt/format.h>

#include <fstream>
#include <algorithm>
#include <functional>
#include <set>

#include "codegen/dual_number.hpp"
#include "codegen/function_declaration.hpp"
#include "codegen/helper_closure.hpp"
#include "compile/nvrtc_library.hpp"
#include "derivative_cases.hpp"
#include "engine/precompile.hpp"

using namespace jitvec;
using namespace jitvec_test;

namespace {

std::string thrown_message(const std::function<void()>& action) {
  try {
    action();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(nothing thrown)";
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("gaussian_pdf's derivatives match their closed forms and central differences", "[derivative]") {
  for (Target t : {Target::cpu, Target::parallel}) check_gaussian_pdf(t);
}

TEST_CASE("zero_suppress's derivative is 1 where it passes, 0 where it zeroes", "[derivative]") {
  for (Target t : {Target::cpu, Target::parallel}) check_zero_suppress(t);
}

TEST_CASE("every math function of jitvec::dual has the right derivative on the host", "[derivative][dual]") {
  check_zoo(Target::cpu);
}

TEST_CASE("integer inputs pass through; template helpers take the dual", "[derivative]") {
  for (Target t : {Target::cpu, Target::parallel}) check_pass_through(t);
}

TEST_CASE("the zoo covers every function jitvec::dual defines", "[derivative][dual]") {
  std::string all;
  for (const ZooCase& c : zoo_cases()) all += std::string(c.accurate) + "\n" + c.single + "\n";
  const std::set<std::string> used = codegen::identifiers_in(all);
  for (const std::string& name : codegen::dual_function_names()) {
    INFO(name);
    CHECK(used.count(name) == 1);
    // ...and the dual text defines it.
    CHECK(codegen::identifiers_in(codegen::dual_number_source()).count(name) == 1);
  }
}

TEST_CASE("function declarations are read from the source's tokens", "[derivative][codegen]") {
  const auto d = codegen::find_function_declaration(
      "// f(int) in a comment\n#define f(a) a\nstatic float helper(float);\n"
      "template <typename T, class U = float, int N = 3>\n__device__ __forceinline__ T f(const T& x, U y, int n = 2, T) {\n"
      "  return f(x, y);\n}\n",
      "f");
  REQUIRE(d);
  CHECK(d->is_template);
  CHECK(d->template_parameters == std::vector<std::string>{"T", "U", "N"});
  CHECK(d->return_type == "T");
  REQUIRE(d->parameters.size() == 4);
  CHECK(d->parameters[0].type == "const T &");
  CHECK(d->parameters[0].name == "x");
  CHECK(d->parameters[0].dependent);
  CHECK(d->parameters[1].name == "y");
  CHECK(d->parameters[1].dependent);
  CHECK(d->parameters[2].type == "int");
  CHECK(d->parameters[2].name == "n");
  CHECK_FALSE(d->parameters[2].dependent);
  CHECK(d->parameters[3].name.empty());
  CHECK(d->parameters[3].dependent);
  CHECK(d->line == 4);
  // A plain overload, and a template one after it: the template is taken.
  const auto overloaded = codegen::find_function_declaration(
      "float g(float x) { return x; }\ntemplate <class T> T g(T x, T y) { return x; }", "g");
  REQUIRE(overloaded);
  CHECK(overloaded->is_template);
  CHECK(overloaded->parameters.size() == 2);
  const auto plain = codegen::find_function_declaration("__device__ float h(float rho, double) { return rho; }", "h");
  REQUIRE(plain);
  CHECK_FALSE(plain->is_template);
  CHECK(plain->parameters[1].type == "double");
  CHECK(plain->parameters[1].name.empty());
  CHECK_FALSE(codegen::find_function_declaration("int k = 0; void other() { h(1); }", "h"));
}

TEST_CASE("derivatives are refused with what to write instead", "[derivative][errors]") {
  Engine& engine = derivative_engine();
  CHECK(thrown_message([&] { engine.derivative("polar_distance", "rho1"); }) ==
        "cannot take the derivative of ufunc 'polar_distance' with respect to input 'rho1': its "
        "function is not a template, so it cannot be instantiated with jitvec::dual<T> (the value and "
        "its derivative); write it as `template <typename T> __device__ T polar_distance(T rho1, T "
        "theta1, T rho2, T theta2)` (and each device function it calls with those values as a template "
        "too)");
  CHECK(thrown_message([&] { engine.derivative("gaussian_pdf", 3); }) ==
        "cannot take the derivative of ufunc 'gaussian_pdf' with respect to input 3: it takes 3 "
        "inputs (x, mean, sigma), numbered from 0");
  CHECK(thrown_message([&] { engine.derivative("gaussian_pdf", -1); }) ==
        "cannot take the derivative of ufunc 'gaussian_pdf' with respect to input -1: it takes 3 "
        "inputs (x, mean, sigma), numbered from 0");
  CHECK(thrown_message([&] { engine.value_and_derivative("gaussian_pdf", "mu"); }) ==
        "cannot take the value_and_derivative of ufunc 'gaussian_pdf' with respect to input 'mu': it "
        "has no input of that name; its inputs are x, mean, sigma (or give the input's index)");
  CHECK(thrown_message([&] { engine.derivative("int_power", "n"); }) ==
        "cannot take the derivative of ufunc 'int_power' with respect to input 'n': input 'n' is "
        "declared 'int', which cannot take jitvec::dual<T>; declare it with the template's type: "
        "`template <typename T> __device__ T int_power(T x, T n)`");
  CHECK(contains(thrown_message([&] { engine.derivative("gaussian_pdfs", 0); }),
                 "no ufunc named 'gaussian_pdfs' is defined in this engine; did you mean 'gaussian_pdf'?"));
  engine.vectorize("deriv_int_only", {"int32(int32, int32)"}, "template <class T> T deriv_int_only(T a, T b) { return a * b; }");
  CHECK(thrown_message([&] { engine.derivative("deriv_int_only", 0); }) ==
        "cannot take the derivative of ufunc 'deriv_int_only' with respect to input 0: none of its "
        "loops (int32(int32, int32)) has input 'a' and the result in float32 or float64; add a float32 "
        "or float64 signature");
  engine.vectorize("deriv_two_results", {"(float32, float32)(float32)"},
                   "template <class T> void deriv_two_results(T x, T& a, T& b) { a = x; b = -x; }");
  CHECK(thrown_message([&] { engine.derivative("deriv_two_results", 0); }) ==
        "cannot take the derivative of ufunc 'deriv_two_results' with respect to input 0: it has 2 "
        "results; a derivative is taken of a ufunc of one result");
  engine.fuse("deriv_fused", "int_power(x, n)");
  CHECK(thrown_message([&] { engine.derivative("deriv_fused", 0); }) ==
        "cannot take the derivative of ufunc 'deriv_fused' with respect to input 0: it is a fused "
        "ufunc; take the derivative of the ufuncs it composes");
  engine.derivative("int_power", 0);
  CHECK(thrown_message([&] { engine.derivative("d_int_power_dx", 0); }) ==
        "cannot take the derivative of ufunc 'd_int_power_dx' with respect to input 0: it is itself a "
        "derivative (jitvec takes first derivatives only); differentiate your own closed form of it, "
        "written as a template");
  CHECK(thrown_message([&] { engine.derivative("int_power", 0, DerivativeOptions{"square_sum"}); }) ==
        "'square_sum' is already defined in this engine");
  CHECK(thrown_message([&] { engine.derivative("int_power", 0, DerivativeOptions{"not a name"}); }) ==
        "derivative name 'not a name' is not a C++ identifier");
}

TEST_CASE("a derivative is an ordinary ufunc: names, signatures, one per request", "[derivative]") {
  Engine& engine = derivative_engine();
  const Ufunc d = engine.derivative("gaussian_pdf", "x");
  CHECK(d.name() == "d_gaussian_pdf_dx");
  CHECK(engine.ufunc("d_gaussian_pdf_dx").name() == "d_gaussian_pdf_dx");
  CHECK(d.nin() == 3);
  CHECK(d.nout() == 1);
  std::vector<std::string> signatures;
  for (const Signature& s : d.signatures()) signatures.push_back(s.to_string());
  CHECK(signatures == std::vector<std::string>{"float32(float32, float32, float32)", "float64(float64, float64, float64)"});
  const Ufunc vd = engine.value_and_derivative("gaussian_pdf", 2);
  CHECK(vd.name() == "value_and_d_gaussian_pdf_dsigma");
  CHECK(vd.signatures()[0].to_string() == "(float32, float32)(float32, float32, float32)");
  // The same request again is the same ufunc (by index or by name); another name is another one.
  CHECK(engine.derivative("gaussian_pdf", 0).name() == "d_gaussian_pdf_dx");
  const std::vector<std::string> names = engine.ufunc_names();
  CHECK(std::count(names.begin(), names.end(), "d_gaussian_pdf_dx") == 1);
  const Ufunc named = engine.derivative("gaussian_pdf", "x", DerivativeOptions{"dgauss_dx_named"});
  CHECK(named.name() == "dgauss_dx_named");
  std::vector<double> x = {0.5}, mean = {0.0}, sigma = {1.0};
  const double want = -0.5 * std::exp(-0.125) / 2.5066282746310002;
  CHECK(named(x, mean, sigma, jitvec::target(Target::cpu)).to_vector<double>()[0] == Approx(want).epsilon(1e-14));
  // Scalars broadcast as in any call.
  CHECK(d(x, 0.0, 1.0, jitvec::target(Target::cpu)).to_vector<double>()[0] == Approx(want).epsilon(1e-14));
}

TEST_CASE("a helper written for float fails to compile with a note on what to write", "[derivative][errors]") {
  Engine& engine = derivative_engine();
  engine.define_device_function("deriv_plain_twice", "__device__ float deriv_plain_twice(float v) { return 2 * v; }");
  engine.vectorize("deriv_calls_plain", {"float32(float32)"},
                   "template <typename T> T deriv_calls_plain(T x) { return deriv_plain_twice(x); }");
  const Ufunc d = engine.derivative("deriv_calls_plain", "x");
  std::vector<float> x = {1.0f};
  const std::string message = thrown_message([&] { d(x, jitvec::target(Target::cpu)); });
  INFO(message);
  CHECK(contains(message, "deriv_plain_twice"));
  CHECK(contains(message, "note: 'd_deriv_calls_plain_dx' is the derivative of ufunc 'deriv_calls_plain' with "
                          "respect to x: its function runs with jitvec::dual<float> or jitvec::dual<double>"));
  CHECK(contains(message, "a device function `float g(float)` must be a template: `template <typename T> T g(T x)`"));
}

TEST_CASE("derivative loops are cached on disk like any loop", "[derivative][cache]") {
  TempDir dir;
  EngineOptions options;
  options.cache.dir = dir.path();
  options.cache.read_only_dirs = std::vector<std::filesystem::path>{};
  const std::filesystem::path gaussian = std::filesystem::path(JITVEC_SOURCE_DIR) / "samples" / "gaussian_pdf.toml";
  std::vector<double> x = {0.5, -1.0}, mean = {0.0, 0.0}, sigma = {1.0, 2.0};
  std::vector<double> first_result;
  {
    Engine first(options);
    first.load_definitions(gaussian);
    first_result = first.derivative("gaussian_pdf", "x")(x, mean, sigma, jitvec::target(Target::cpu)).to_vector<double>();
    CHECK(first.stats().compiles == 1);
  }
  Engine second(options);
  second.load_definitions(gaussian);
  CHECK(second.derivative("gaussian_pdf", "x")(x, mean, sigma, jitvec::target(Target::cpu)).to_vector<double>() ==
        first_result);
  CHECK(second.stats().compiles == 0);
  CHECK(second.stats().disk_hits == 1);
  // The ordinary loop is another entry.
  second.ufunc("gaussian_pdf")(x, mean, sigma, jitvec::target(Target::cpu));
  CHECK(second.stats().compiles == 1);
}

TEST_CASE("definition files declare derivatives; jitvec compile builds them", "[derivative][definitions]") {
  TempDir dir;
  const std::filesystem::path file = dir.path() / "derivs.toml";
  std::ofstream(file) << "[ufuncs.softplus]\n"
                         "signatures = [\"float32(float32, float32)\", \"float64(float64, float64)\"]\n"
                         "source = '''\n"
                         "template <typename T> T softplus(T x, T beta) { return log1p(exp(beta * x)) / beta; }\n"
                         "'''\n\n"
                         "[derivatives.dsoftplus_dx]\n"
                         "of = \"softplus\"\n"
                         "wrt = \"x\"\n"
                         "targets = [\"cpu\"]\n\n"
                         "[derivatives.softplus_and_dbeta]\n"
                         "of = \"softplus\"\n"
                         "wrt = 1\n"
                         "value = true\n";
  EngineOptions options;
  options.cache.dir = dir.path() / "cache";
  options.cache.read_only_dirs = std::vector<std::filesystem::path>{};
  Engine engine(options);
  const engine::DefinedTargets targets = engine::load_definition_files(engine, {file});
  CHECK(targets.at("dsoftplus_dx") == std::vector<Target>{Target::cpu});
  const Ufunc d = engine.ufunc("dsoftplus_dx");
  std::vector<double> x = {-1.0, 0.0, 2.0};
  const std::vector<double> got = d(x, 2.0, jitvec::target(Target::cpu)).to_vector<double>();
  for (std::size_t i = 0; i < x.size(); ++i) {
    CHECK(got[i] == Approx(1.0 / (1.0 + std::exp(-2.0 * x[i]))).epsilon(1e-14));  // the logistic function
  }
  const Ufunc vd = engine.ufunc("softplus_and_dbeta");
  CHECK(vd.nout() == 2);
  const std::vector<Array> both = vd.outputs(x, 2.0, jitvec::target(Target::cpu));
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double e = std::exp(2.0 * x[i]);
    CHECK(both[0].to_vector<double>()[i] == Approx(std::log1p(e) / 2.0).epsilon(1e-14));
    CHECK(both[1].to_vector<double>()[i] == Approx(x[i] * e / (1.0 + e) / 2.0 - std::log1p(e) / 4.0).epsilon(1e-12).margin(1e-15));
  }
  // `jitvec compile`'s jobs: the derivative's host loops, from the file's targets.
  std::size_t built = 0;
  for (const engine::PrecompileJob& job : engine::plan_precompile(engine, {}, {"sm_90"}, targets)) {
    if (job.ufunc != "dsoftplus_dx") continue;
    CHECK(job.target == Target::cpu);
    const engine::PrecompileResult result = engine::run_precompile_job(engine, job);
    INFO(result.error);
    CHECK(result.ok);
    ++built;
  }
  CHECK(built == 2);
  // Errors name the file, the line and the entry.
  const std::filesystem::path bad = dir.path() / "bad.toml";
  std::ofstream(bad) << "[derivatives.dbad]\nof = \"softplus\"\nwrt = \"gamma\"\n";
  CHECK(thrown_message([&] { engine.load_definitions(bad); }) ==
        bad.string() + ":1: derivatives.dbad: cannot take the derivative of ufunc 'softplus' with respect to "
                       "input 'gamma': it has no input of that name; its inputs are x, beta (or give the "
                       "input's index)");
  std::ofstream(bad) << "[derivatives.dbad]\nof = \"softplus\"\nwrt = 1.5\n";
  CHECK(thrown_message([&] { engine.load_definitions(bad); }) ==
        bad.string() + ":3: derivatives.dbad: 'wrt' must be an input's name (a string) or index (an integer), "
                       "not a floating-point number");
  std::ofstream(bad) << "[derivatives.dbad]\nwrt = 0\n";
  CHECK(thrown_message([&] { engine.load_definitions(bad); }) ==
        bad.string() + ":1: derivatives.dbad: missing 'of' (the ufunc to differentiate)");
}

TEST_CASE("NVRTC compiles the derivative loops for the GPU (no GPU needed)", "[derivative][nvrtc]") {
  if (!compile::nvrtc_available()) JITVEC_SKIP("skipped: NVRTC is not available");
  Engine& engine = derivative_engine();
  engine.derivative("gaussian_pdf", "x");
  engine.value_and_derivative("gaussian_pdf", "sigma");
  engine.derivative("zoo64", "x");
  engine.derivative("zoo32", "x");
  engine.derivative("zero_suppress", "value");
  engine.derivative("square_sum", "b");
  std::size_t built = 0;
  for (const engine::PrecompileJob& job : engine::plan_precompile(engine, {Target::cuda}, {"sm_90"})) {
    const Ufunc u = engine.ufunc(job.ufunc);
    if (u.name() != "d_gaussian_pdf_dx" && u.name() != "value_and_d_gaussian_pdf_dsigma" && u.name() != "d_zoo64_dx" &&
        u.name() != "d_zoo32_dx" && u.name() != "d_zero_suppress_dvalue" && u.name() != "d_square_sum_db") {
      continue;
    }
    const engine::PrecompileResult result = engine::run_precompile_job(engine, job);
    INFO(job.ufunc << " " << job.signature << ": " << result.error);
    CHECK(result.ok);
    ++built;
  }
  CHECK(built == 8);
}
