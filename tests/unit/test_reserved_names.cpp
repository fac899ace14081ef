// Names that would bind the host C library's function instead of the user's (codegen/
// reserved_names.hpp): C23's narrowing functions such as `float fadd(double, double)`. On the
// cpu target a ufunc `template <class T> T fadd(T, T)` called with float64 arrays ran glibc's
// fadd and returned the sum rounded to float (1 + 1e-10 gave 1); such names are now refused
// for ufuncs, device functions and fusions, on every target, while a name that only looks
// alike computes the user's function in float64.
#include <random>
#include <string>
#include <vector>

#include "catch.hpp"
#include "jitvec/jitvec.hpp"
#include "support.hpp"

namespace {

std::string sum_source(const std::string& name) {
  return "template <class T> T " + name + "(T a, T b) { return a + b; }";
}

}  // namespace

TEST_CASE("ufunc names of C23 <math.h> narrowing functions are refused", "[reserved_names]") {
  jitvec::Engine engine;
  for (const std::string name : {"fadd", "fsub", "fmul", "fdiv", "ffma", "fsqrt", "daddl", "dadd",
                                 "fsubl", "f32addf64", "f64xmulf128"}) {
    INFO(name);
    try {
      engine.vectorize(name, {"float64(float64, float64)"}, sum_source(name));
      FAIL("vectorize accepted the name " << name);
    } catch (const jitvec::DefinitionError& e) {
      const std::string message = e.what();
      CHECK(message.find("ufunc name '" + name + "'") != std::string::npos);
      CHECK(message.find("C23 <math.h>") != std::string::npos);
      CHECK(message.find("choose another name") != std::string::npos);
    }
  }
  CHECK_THROWS_AS(engine.define_device_function("fmul", "double fmul(double a, double b) { return a * b; }"),
                  jitvec::DefinitionError);
  engine.vectorize("plus", {"float64(float64, float64)"}, sum_source("plus"));
  try {
    engine.fuse("fadd", "plus(x, y)");
    FAIL("fuse accepted the name fadd");
  } catch (const jitvec::DefinitionError& e) {
    CHECK(std::string(e.what()).find("fusion name 'fadd'") != std::string::npos);
  }
}

TEST_CASE("names that only look like C23 narrowing functions compute the user's function",
          "[reserved_names][host]") {
  jitvec::Engine& engine = jitvec_test::shared_engine();
  // Not narrowing functions: no such operation, or more after the argument format.
  const std::vector<std::string> names{"fadd2", "faddition", "dsum"};
  std::mt19937_64 random(std::random_device{}());
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  std::vector<double> a(257), b(257);
  for (std::size_t i = 0; i < a.size(); ++i) {
    a[i] = 1.0 + value(random);
    b[i] = 1e-10 * value(random);  // lost if the sum were rounded to float
  }
  for (const std::string& name : names) {
    INFO(name);
    jitvec::Ufunc f = engine.vectorize(name, {"float64(float64, float64)"}, sum_source(name));
    std::vector<double> poison(a.size(), -12345.0);
    jitvec::Array out = jitvec::from_vector(poison);
    f(a, b, jitvec::out(out), jitvec::target(jitvec::Target::cpu));
    const std::vector<double> got = out.to_vector<double>();
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < a.size(); ++i) wrong += got[i] != a[i] + b[i] ? 1 : 0;
    CHECK(wrong == 0);
  }
}
