// Bad input through the public API: each mistake gives an exception that names it, and leaves
// the user's arrays untouched. Runs on the cpu target (and on cuda where a GPU is usable).
#include <cstring>

#include "catch.hpp"
#include "support.hpp"
#include "test_ufuncs.hpp"

using namespace jitvec;
using namespace jitvec_test;

namespace {

template <class F> std::string error_of(F f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

Engine& engine_with_ufuncs() {
  define_test_ufuncs(shared_engine());
  return shared_engine();
}

}  // namespace

TEST_CASE("wrong argument count", "[errors]") {
  Ufunc gauss = engine_with_ufuncs().ufunc("gauss");
  std::vector<float> x(10, 1.0f);
  CHECK_THAT(error_of([&] { gauss(x, 1.0f, target(Target::cpu)); }),
             Catch::Matchers::Contains("takes 3 inputs, but 2 were given"));
}

TEST_CASE("shapes that do not broadcast are shown", "[errors]") {
  Ufunc add = engine_with_ufuncs().ufunc("add");
  std::vector<float> a(6), b(4);
  const std::string m = error_of([&] {
    add(from_vector(a).reshape({2, 3}), from_vector(b).reshape({4, 1}), target(Target::cpu));
  });
  CHECK_THAT(m, Catch::Matchers::Contains("do not broadcast") &&
                    Catch::Matchers::Contains("argument 1: (2, 3)") &&
                    Catch::Matchers::Contains("argument 2: (4, 1)"));
}

TEST_CASE("no signature for the dtypes lists them and the signatures", "[errors]") {
  Ufunc sel = engine_with_ufuncs().ufunc("select");
  std::vector<double> c(4), a(4), b(4);
  const std::string m = error_of([&] { sel(c, a, b, target(Target::cpu)); });
  CHECK_THAT(m, Catch::Matchers::Contains("no loop for inputs (float64 array, float64 array, "
                                          "float64 array)") &&
                    Catch::Matchers::Contains("float32(bool, float32, float32)"));
}

TEST_CASE("a scalar that would change value is refused", "[errors]") {
  Ufunc zs = engine_with_ufuncs().ufunc("zero_suppress");
  std::vector<std::int16_t> w(8, 3);
  // The int16 array chooses the int16 loop (the seed's zero_suppress(waveform, 15.0) works);
  // 15.5 would change in it.
  CHECK(zs(w, 15.0, target(Target::cpu)).dtype() == DType::int16);
  CHECK_THAT(error_of([&] { zs(w, 15.5, target(Target::cpu)); }),
             Catch::Matchers::Contains("scalar argument 2 (float64 15.5) cannot be represented as int16"));
  std::vector<std::int8_t> small(8, 3);
  Ufunc add = engine_with_ufuncs().ufunc("add");
  CHECK_THAT(error_of([&] { add(small, 300, target(Target::cpu)); }),
             Catch::Matchers::Contains("scalar argument 2 (int32 300) cannot be represented as int8"));
}

TEST_CASE("out= of the wrong shape or dtype is refused and not written", "[errors]") {
  Ufunc gauss = engine_with_ufuncs().ufunc("gauss");
  std::vector<float> x(12, 0.5f);
  std::vector<float> wrong_shape(10, -7.0f);
  CHECK_THAT(error_of([&] { gauss(x, 0.0f, 1.0f, out(from_vector(wrong_shape)), target(Target::cpu)); }),
             Catch::Matchers::Contains("out= has shape (10,), but the inputs broadcast to (12,)"));
  CHECK(wrong_shape == std::vector<float>(10, -7.0f));
  std::vector<std::int32_t> wrong_type(12, -7);
  CHECK_THAT(error_of([&] { gauss(x, 0.0f, 1.0f, out(from_vector(wrong_type)), target(Target::cpu)); }),
             Catch::Matchers::Contains("out= is a int32 array, but loop float32(float32, float32, "
                                       "float32) returns float32"));
  CHECK(wrong_type == std::vector<std::int32_t>(12, -7));
  std::vector<float> one(3, -7.0f);
  CHECK_THAT(error_of([&] {
               gauss(from_vector(x).reshape({4, 3}), 0.0f, 1.0f,
                     out(from_vector(one).broadcast_to({4, 3})), target(Target::cpu));
             }),
             Catch::Matchers::Contains("stride 0"));
}

TEST_CASE("null and misaligned pointers are refused", "[errors]") {
  CHECK_THAT(error_of([] { Array::wrap(static_cast<float*>(nullptr), Shape{4}); }),
             Catch::Matchers::Contains("null data pointer for a float32 array of shape (4,)"));
  alignas(8) unsigned char bytes[64];
  CHECK_THAT(error_of([&] { Array::wrap(bytes + 1, DType::float32, Shape{4}); }),
             Catch::Matchers::Contains("not aligned to 4 bytes"));
  CHECK_NOTHROW(Array::wrap(static_cast<float*>(nullptr), Shape{0}));
}

TEST_CASE("a compile error points at the user's line", "[errors]") {
  Engine engine(EngineOptions{CacheOptions{std::nullopt, std::nullopt, true, std::nullopt}});
  Ufunc bad = engine.vectorize("bad", {"float32(float32)"},
                               "__device__ float bad(float x) {\n"
                               "  float y = x * 2;\n"
                               "  return y + undefined_thing;\n"
                               "}\n");
  std::vector<float> x(4, 1.0f);
  try {
    bad(x, target(Target::cpu));
    FAIL("expected CompileError");
  } catch (const CompileError& e) {
    CHECK(e.ufunc() == "bad");
    CHECK_THAT(e.log(), Catch::Matchers::Contains("ufunc:bad:3"));
    CHECK_THAT(std::string(e.what()), Catch::Matchers::Contains("undefined_thing"));
    CHECK_FALSE(e.options().empty());
  }
  // Nothing half-built is kept: the next call compiles again and fails the same way.
  CHECK_THROWS_AS(bad(x, target(Target::cpu)), CompileError);
  CHECK(engine.stats().compiles == 0);
}

TEST_CASE("definitions are checked", "[errors]") {
  Engine engine(EngineOptions{CacheOptions{std::nullopt, std::nullopt, true, std::nullopt}});
  CHECK_THAT(error_of([&] { engine.vectorize("f", {"float32(float32, flaot32)"}, "__device__ float f(float a, float b) { return a; }"); }),
             Catch::Matchers::Contains("unknown type 'flaot32'"));
  CHECK_THAT(error_of([&] { engine.vectorize("f", {"f4(f4)", "f8(f8, f8)"}, "__device__ float f(float a) { return a; }"); }),
             Catch::Matchers::Contains("every signature of a ufunc takes the same number"));
  CHECK_THAT(error_of([&] { engine.vectorize("g", {"f4(f4)"}, "__device__ float f(float a) { return a; }"); }),
             Catch::Matchers::Contains("does not mention 'g'"));
  CHECK_THAT(error_of([&] { engine.vectorize("2x", {"f4(f4)"}, "x"); }),
             Catch::Matchers::Contains("not a C++ identifier"));
  engine.vectorize("h", {"f4(f4)"}, "__device__ float h(float a) { return a; }");
  CHECK_THAT(error_of([&] { engine.vectorize("h", {"f4(f4)"}, "__device__ float h(float a) { return a; }"); }),
             Catch::Matchers::Contains("'h' is already defined"));
  CHECK_THAT(error_of([&] { engine.ufunc("nope"); }), Catch::Matchers::Contains("no ufunc named 'nope'"));
}

TEST_CASE("device arrays on a CPU target are refused", "[errors][gpu]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  Ufunc add = engine_with_ufuncs().ufunc("add");
  Array d = to_device(std::vector<float>(16, 1.0f));
  CHECK_THAT(error_of([&] { add(d, d, target(Target::cpu)); }),
             Catch::Matchers::Contains("argument 1 is in device memory (cuda:0), but target cpu runs on the host"));
}

TEST_CASE("an unknown ufunc name lists the defined ones and suggests the closest", "[errors]") {
  Engine engine(EngineOptions{CacheOptions{std::nullopt, std::nullopt, true, std::nullopt}});
  CHECK_THAT(error_of([&] { engine.ufunc("name"); }),
             Catch::Matchers::Contains("no ufunc named 'name'") &&
                 Catch::Matchers::Contains("defines no ufuncs yet"));
  engine.vectorize("name", {"f4(f4)"}, "__device__ float name(float a) { return a; }");
  engine.vectorize("other", {"f4(f4)"}, "__device__ float other(float a) { return a; }");
  CHECK(error_of([&] { engine.ufunc("nmae"); }) ==
        "no ufunc named 'nmae' is defined in this engine; did you mean 'name'? Defined: name, other");
  // Nothing close: only the list.
  CHECK(error_of([&] { engine.ufunc("gaussian_pdf"); }) ==
        "no ufunc named 'gaussian_pdf' is defined in this engine. Defined: name, other");
}

TEST_CASE("a ufunc calling an undefined helper is told about define_device_function",
          "[errors]") {
  Engine engine(EngineOptions{CacheOptions{std::nullopt, std::nullopt, true, std::nullopt}});
  Ufunc f = engine.vectorize("calls_missing", {"f4(f4)"},
                             "__device__ float calls_missing(float a) { return halve_it(a); }");
  std::vector<float> x(4, 1.0f);
  try {
    f(x, target(Target::cpu));
    FAIL("expected CompileError");
  } catch (const CompileError& e) {
    const std::string m = e.what();
    CHECK_THAT(m, Catch::Matchers::Contains("halve_it"));
    CHECK_THAT(m, Catch::Matchers::Contains(
                      "'halve_it' is not defined for this ufunc: a device function it calls must "
                      "be defined in the same engine with "
                      "Engine::define_device_function(\"halve_it\", source)"));
    CHECK(e.ufunc() == "calls_missing");
    CHECK_FALSE(e.log().empty());
  }
  // Defining it (a new engine: definitions are fixed once used) makes the same source work.
  Engine fixed(EngineOptions{CacheOptions{std::nullopt, std::nullopt, true, std::nullopt}});
  fixed.define_device_function("halve_it", "__device__ float halve_it(float a) { return a / 2; }");
  Ufunc g = fixed.vectorize("calls_missing", {"f4(f4)"},
                            "__device__ float calls_missing(float a) { return halve_it(a); }");
  CHECK(g(x, target(Target::cpu)).to_vector<float>() == std::vector<float>(4, 0.5f));
}

TEST_CASE("device arrays without a GPU say that they need one", "[errors]") {
  if (gpu_usable()) JITVEC_SKIP("a GPU is usable here; this checks machines without one");
  const std::vector<float> v(8, 1.0f);
  const std::string to_device_error = error_of([&] { to_device(v); });
  CHECK_THAT(to_device_error, Catch::Matchers::StartsWith("to_device: device arrays need a GPU, "
                                                          "and this machine has no usable one ("));
  CHECK_THAT(to_device_error, Catch::Matchers::Contains("target(Target::cpu)"));
  CHECK_THROWS_AS(from_vector(v).to_device(), CudaError);
  CHECK_THAT(error_of([] { Array::empty(DType::float32, {4}, Memory::device); }),
             Catch::Matchers::StartsWith("Array::empty(Memory::device): device arrays need a GPU"));
  // Nothing to allocate: no GPU needed, as before.
  CHECK(Array::empty(DType::float32, {0}, Memory::device).size() == 0);
}
