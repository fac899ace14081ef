// Ufuncs with several outputs on the host targets (cpu, parallel): the case table of
// multi_output_cases.hpp (broadcast, strided, negative strides, scalars, out= with casts, in
// place) against float64 references; the alias rules (outputs sharing memory, an output
// overlapping an input); the error texts; the signature spelling; one pass per call.
#include <fmt/format.h>

#include <cmath>
#include <numeric>
#include <vector>

#include "catch.hpp"
#include "codegen/source_parts.hpp"
#include "kernels/module_source.hpp"
#include "multi_output_cases.hpp"
#include "support.hpp"

using namespace jitvec;
using namespace jitvec_test;
using namespace jitvec_test::multi_output;

namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

std::vector<float> iota_floats(std::size_t n, float start, float step) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = start + step * static_cast<float>(i);
  return v;
}

}  // namespace

TEST_CASE("several results: the tuple spelling parses and round-trips", "[types][multi_output]") {
  const Signature s = Signature::parse("(float32, i4, f8)(float32, float64)");
  CHECK(s.results == std::vector<DType>{DType::float32, DType::int32, DType::float64});
  CHECK(s.args == std::vector<DType>{DType::float32, DType::float64});
  CHECK(s.nout() == 3);
  CHECK(s.to_string() == "(float32, int32, float64)(float32, float64)");
  CHECK(Signature::parse(s.to_string()) == s);
  // A one-element tuple is the one-result signature, printed without parentheses.
  CHECK(Signature::parse(" ( f4 ) ( f4 )") == Signature::parse("float32(float32)"));
  CHECK(Signature::parse("(f4)(f4)").to_string() == "float32(float32)");
  CHECK(Signature::parse("float32(float32)").nout() == 1);
  CHECK_THAT(error_of([] { Signature::parse("()(f4)"); }),
             Catch::Matchers::Contains("a ufunc returns at least one result: the result list is empty at column 1"));
  CHECK_THAT(error_of([] { Signature::parse("(f4, f4(f4)"); }), Catch::Matchers::Contains("expected ')' at column 8"));
  CHECK_THAT(error_of([] { Signature::parse("(f4, complex9)(f4)"); }),
             Catch::Matchers::Contains("unknown type 'complex9'"));
}

TEST_CASE("the apply function passes each result by reference", "[codegen][multi_output]") {
  const codegen::UfuncSource polar{"p", "void p(float r, float t, float& x, double& y) {}", "", 1};
  codegen::LoopSpec spec = codegen::LoopSpec::exact(Signature::parse("(float32, float64)(float32, float32)"));
  CHECK(codegen::apply_function(polar, spec, "static inline") ==
        "static inline void jitvec_apply(float a0, float a1, float& r0, double& r1) {\n  p(a0, a1, r0, r1);\n}\n");
  CHECK(spec.describe() == "(float32, float64)(float32, float32) <- [float32, float32] -> (float32, float64)");
  // One pass: each kernel calls the function once per element and stores every output there.
  const std::string cuda = kernels::generate_cuda_source(polar, {}, spec);
  CHECK(cuda.find("float* __restrict__ out0, double* __restrict__ out1, const unsigned scalar_mask") != std::string::npos);
  CHECK(cuda.find("__restrict__ out,") == std::string::npos);
  CHECK(cuda.find("{ float res0; double res1; jitvec_apply(") != std::string::npos);
}

TEST_CASE("multi-output case table on the cpu target", "[ufunc][cpu][multi_output]") {
  for (Case& c : make_cases()) run_case(c, Target::cpu, Where::host);
}

TEST_CASE("multi-output case table on the parallel target", "[ufunc][parallel][multi_output]") {
  for (Case& c : make_cases()) run_case(c, Target::parallel, Where::host);
}

TEST_CASE("a multi-output call computes every output in one host loop call", "[ufunc][multi_output]") {
  Engine& engine = shared_engine();
  define_ufuncs(engine);
  Ufunc polar = engine.ufunc("mo_polar");
  CHECK(polar.nout() == 2);
  CHECK(polar.nin() == 2);
  const std::vector<float> r = iota_floats(1000, 0.5f, 0.01f), t = iota_floats(1000, -3.0f, 0.006f);
  const EngineStats before = engine.stats();
  std::vector<Array> xy = polar.outputs(r, t, target(Target::cpu));
  REQUIRE(xy.size() == 2);
  const std::vector<float> x = xy[0].to_vector<float>(), y = xy[1].to_vector<float>();
  for (std::size_t i = 0; i < r.size(); ++i) {
    CHECK(std::fabs(x[i] - r[i] * std::cos(static_cast<double>(t[i]))) < 1e-5);
    CHECK(std::fabs(y[i] - r[i] * std::sin(static_cast<double>(t[i]))) < 1e-5);
  }
  CHECK(engine.stats().calls == before.calls + 1);
  // outputs() of a one-output ufunc: a vector of one.
  Ufunc add = engine.vectorize("mo_add1", {"float32(float32, float32)"}, "float mo_add1(float a, float b) { return a + b; }");
  const std::vector<Array> one = add.outputs(r, t, target(Target::cpu));
  REQUIRE(one.size() == 1);
  CHECK(one[0].to_vector<float>()[3] == r[3] + t[3]);
}

TEST_CASE("outputs may not share memory; an output may be an input exactly", "[ufunc][multi_output][overlap]") {
  Engine& engine = shared_engine();
  define_ufuncs(engine);
  Ufunc polar = engine.ufunc("mo_polar");
  const Target where = GENERATE(Target::cpu, Target::parallel);
  INFO("target " << target_name(where));
  std::vector<float> r = iota_floats(50000, 1.0f, 1e-4f), t = iota_floats(50000, -3.0f, 1e-4f);
  const std::vector<float> r0 = r, t0 = t;
  Array a = Array::wrap(r.data(), {50000}), b = Array::wrap(t.data(), {50000});

  // The same array twice, and two overlapping slices: errors naming both outputs.
  std::vector<float> buffer(100001, -1.0f);
  Array whole = Array::wrap(buffer.data(), {100001});
  CHECK(error_of([&] { polar.outputs(a, b, out(whole.slice(0, 0, 50000)), out(whole.slice(0, 0, 50000)), target(where)); }) ==
        "ufunc 'mo_polar': out= of output 1 and out= of output 2 share memory (their byte ranges overlap); each "
        "output needs its own memory");
  CHECK_THAT(error_of([&] { polar.outputs(a, b, out(whole.slice(0, 0, 50000)), out(whole.slice(0, 49999, 99999)), target(where)); }),
             Catch::Matchers::Contains("out= of output 1 and out= of output 2 share memory"));
  // Interleaved views share no element but their extents overlap: refused too (conservative).
  CHECK_THAT(error_of([&] { polar.outputs(a, b, out(whole.slice(0, 0, 100000, 2)), out(whole.slice(0, 1, 100000, 2)), target(where)); }),
             Catch::Matchers::Contains("share memory"));
  CHECK(buffer[0] == -1.0f);  // nothing ran

  // Both outputs into the inputs exactly: in place, each element read before it is written.
  std::vector<Array> xy = polar.outputs(a, b, out(a), out(b), target(where));
  CHECK(xy[0].data() == r.data());
  CHECK(xy[1].data() == t.data());
  for (std::size_t i = 0; i < r.size(); i += 97) {
    CHECK(std::fabs(r[i] - r0[i] * std::cos(static_cast<double>(t0[i]))) < 1e-5);
    CHECK(std::fabs(t[i] - r0[i] * std::sin(static_cast<double>(t0[i]))) < 1e-5);
  }

  // y into theta shifted by one element (and x into r reversed): overlapping inputs are copied
  // first, so the result is what it would be without the overlap.
  std::vector<float> theta(50001);
  for (std::size_t i = 0; i < theta.size(); ++i) theta[i] = -3.0f + 1e-4f * static_cast<float>(i);
  const std::vector<float> theta0 = theta;
  r = r0;
  Array th = Array::wrap(theta.data(), {50001});
  polar.outputs(a, th.slice(0, 0, 50000), out(a.slice(0, 49999, -50001, -1)), out(th.slice(0, 1, 50001)), target(where));
  std::int64_t bad = 0;
  for (std::size_t i = 0; i < 50000; ++i) {
    const double x = r0[i] * std::cos(static_cast<double>(theta0[i]));
    const double y = r0[i] * std::sin(static_cast<double>(theta0[i]));
    if (std::fabs(r[49999 - i] - x) > 1e-5 || std::fabs(theta[i + 1] - y) > 1e-5) ++bad;
  }
  CHECK(bad == 0);
}

TEST_CASE("multi-output call errors say what and where", "[ufunc][multi_output][errors]") {
  Engine& engine = shared_engine();
  define_ufuncs(engine);
  Ufunc polar = engine.ufunc("mo_polar");
  std::vector<float> r(10, 1.0f), t(10, 0.5f), x(10), y(10);
  std::vector<std::int32_t> ints(10);
  std::vector<float> wrong(12);
  CHECK(error_of([&] { polar(r, t, target(Target::cpu)); }) ==
        "ufunc 'mo_polar' has 2 outputs ((float32, float32)(float32, float32)); calling it returns one "
        "Array: call mo_polar.outputs(...) for all of them");
  CHECK(error_of([&] { polar.outputs(r, t, out(Array::wrap(x.data(), {10})), target(Target::cpu)); }) ==
        "ufunc 'mo_polar' has 2 outputs but out= was given 1 time: give out() once per output, in order "
        "(all of them or none)");
  CHECK(error_of([&] {
          polar.outputs(r, t, out(Array::wrap(x.data(), {10})), out(Array::wrap(y.data(), {10})),
                        out(Array::wrap(wrong.data(), {12})), target(Target::cpu));
        }) == "ufunc 'mo_polar' has 2 outputs but out= was given more than 2 times (give out() once per output, in order)");
  CHECK(error_of([&] {
          polar.outputs(r, t, out(Array::wrap(x.data(), {10})), out(Array::wrap(ints.data(), {10})), target(Target::cpu));
        }) == "ufunc 'mo_polar': out= of output 2 is a int32 array, but loop (float32, float32)(float32, float32) "
              "returns float32 as output 2, which does not cast to int32 (casting='same_kind')");
  CHECK(error_of([&] {
          polar.outputs(r, t, out(Array::wrap(x.data(), {10})), out(Array::wrap(wrong.data(), {12})), target(Target::cpu));
        }) == "ufunc 'mo_polar': out= of output 2 has shape (12,), but the inputs broadcast to (10,)");
  CHECK(x == std::vector<float>(10, 0.0f));  // nothing ran
  // Every signature of a ufunc returns as many results.
  CHECK(error_of([&] {
          engine.vectorize("mo_mixed_nout", {"(f4, f4)(f4)", "f8(f8)"}, "void mo_mixed_nout(float a, float& b, float& c) {}");
        }) == "ufunc 'mo_mixed_nout': signature \"f8(f8)\" returns 1 results but \"(f4, f4)(f4)\" returns 2; every "
              "signature of a ufunc returns the same number");
  // The user's function must take the results by reference: the compiler says where.
  Ufunc by_value = engine.vectorize("mo_by_value", {"(f4, f4)(f4)"}, "float mo_by_value(float a) { return a; }");
  CHECK_THROWS_AS(by_value.outputs(r, target(Target::cpu)), CompileError);
}
