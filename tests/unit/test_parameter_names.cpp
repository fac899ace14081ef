// tests/unit/test_parameter_names.cpp: the inputs' names from a ufunc's source
// (src/codegen/parameter_names.hpp), which accuracy ranges use.
#include <string>
#include <vector>

#include "catch.hpp"
#include "codegen/parameter_names.hpp"

using jitvec::codegen::parameter_names;
using Names = std::vector<std::string>;

TEST_CASE("parameter_names: templates, qualifiers, defaults, unnamed parameters", "[parameter_names]") {
  CHECK(parameter_names("template <typename T> __device__ T gaussian_pdf(T x, T mean, T sigma) { return x; }",
                        "gaussian_pdf", 3) == Names{"x", "mean", "sigma"});
  CHECK(parameter_names("__device__ float f(const float& rho, float theta = 2.0f) { return rho; }", "f", 2) ==
        Names{"rho", "theta"});
  CHECK(parameter_names("float f(float, float y) { return y; }", "f", 2) == Names{"0", "y"});
  CHECK(parameter_names("complex<float> f(complex<float> z, int n) { return z; }", "f", 2) == Names{"z", "n"});
  // Several outputs: the first `count` parameters are the inputs.
  CHECK(parameter_names("void f(float r, float t, float& x, float& y) {}", "f", 2) == Names{"r", "t"});
}

TEST_CASE("parameter_names: calls, comments and other functions are not the declaration", "[parameter_names]") {
  const std::string source =
      "// f(int wrong)\n"
      "float g(float a) { return f(a); }\n"
      "float h(float a) { float v = f(a); return v; }\n"
      "float f(float right) { return right; }\n";
  CHECK(parameter_names(source, "f", 1) == Names{"right"});
  CHECK(parameter_names(source, "g", 1) == Names{"a"});
}

TEST_CASE("parameter_names: no declaration, or too few names, give positions", "[parameter_names]") {
  CHECK(parameter_names("float other(float x) { return x; }", "f", 2) == Names{"0", "1"});
  CHECK(parameter_names("float f(float x) { return x; }", "f", 3) == Names{"x", "1", "2"});
}
