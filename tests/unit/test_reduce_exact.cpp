// Issue 25 on the cpu and parallel targets: reduce's initial and identity held exactly (int64
// beyond 2^53, uint64 max, complex, bool accumulators), empty out= arrays with zero strides, the
// definition file's exact identities, duplicate signatures and empty definition files warned.
#include <fstream>

#include "definitions/definition_file.hpp"
#include "log_capture.hpp"
#include "reduce_exact_support.hpp"

using namespace jitvec;
using namespace jitvec_test;

TEST_CASE("reduce: initial and identity exact in int64, uint64, complex and bool accumulators", "[reduce][exact]") {
  for (Target t : {Target::cpu, Target::parallel}) run_reduce_exact_initial(Where{t, false});
}

TEST_CASE("an empty out= (zero strides, as NumPy's) is no broadcast view: calls, reduce, gufuncs", "[reduce][out]") {
  for (Target t : {Target::cpu, Target::parallel}) run_empty_out(Where{t, false});
}

TEST_CASE("Scalar: holds each type's value exactly; equality is dtype and bits", "[exact]") {
  CHECK(Scalar(std::uint64_t(-1)).value().u == 18446744073709551615ull);
  CHECK(Scalar(std::uint64_t(-1)).dtype() == DType::uint64);
  CHECK(Scalar((std::int64_t{1} << 53) + 1).value().i == 9007199254740993);
  CHECK(Scalar(std::int8_t(-3)).dtype() == DType::int8);
  CHECK(Scalar(2.5f).dtype() == DType::float32);
  CHECK(Scalar(true).dtype() == DType::bool_);
  const Scalar c = std::complex<float>(0.5f, -0.25f);
  CHECK(c.dtype() == DType::complex64);
  CHECK(c.value().f == 0.5);
  CHECK(c.value().f_imag == -0.25);
  CHECK(Scalar(half(1.5f)).dtype() == DType::float16);
  CHECK(Scalar(0) == Scalar(0));
  CHECK(Scalar(0) != Scalar(0.0));         // int32 against float64
  CHECK(Scalar(0.0) != Scalar(-0.0));      // bits
  CHECK(Scalar(std::nan("")) == Scalar(std::nan("")));
  ReduceOptions o{std::nullopt, false, 0.5};  // the double initial of before still compiles
  CHECK(o.initial->dtype() == DType::float64);
  VectorizeOptions v;
  v.identity = 0;
  CHECK(v.identity->dtype() == DType::int32);
  CHECK_THROWS_WITH(Scalar(1e4000L), Catch::Matchers::Contains("a long double scalar is beyond float64's range"));
}

TEST_CASE("definition files: identity exact as an integer, float, bool or a uint64 string", "[definitions][exact]") {
  auto identity_of = [](const std::string& value) {
    const definitions::DefinitionSet set = definitions::parse_definition_text(
        "[ufuncs.f]\nsignatures = [\"uint64(uint64, uint64)\"]\nsource = 'x'\nidentity = " + value + "\n", "d.toml");
    REQUIRE(set.ufuncs.size() == 1);
    REQUIRE(set.ufuncs[0].identity);
    return *set.ufuncs[0].identity;
  };
  CHECK(identity_of("9223372036854775807") == Scalar(std::int64_t{9223372036854775807}));
  CHECK(identity_of("24792579599853831") == Scalar(std::int64_t{24792579599853831}));
  CHECK(identity_of("-9223372036854775808") == Scalar(std::numeric_limits<std::int64_t>::min()));
  CHECK(identity_of("\"18446744073709551615\"") == Scalar(std::uint64_t(-1)));
  CHECK(identity_of("\"0xffffffffffffffff\"") == Scalar(std::uint64_t(-1)));
  CHECK(identity_of("false") == Scalar(false));
  CHECK(identity_of("-inf") == Scalar(-std::numeric_limits<double>::infinity()));
  CHECK(identity_of("0.5") == Scalar(0.5));
  CHECK_THAT(error_of([&] { identity_of("\"18446744073709551616\""); }),
             Catch::Matchers::Contains("d.toml:4: ufuncs.f: 'identity' = \"18446744073709551616\": a string identity "
                                       "must hold an unsigned integer that fits uint64"));
  CHECK_THAT(error_of([&] { identity_of("\"-1\""); }), Catch::Matchers::Contains("a string identity must hold"));
  CHECK_THAT(error_of([&] { identity_of("[1]"); }),
             Catch::Matchers::Contains("d.toml:4: ufuncs.f: 'identity' must be a number or a bool, not an array"));
}

TEST_CASE("a uint64 identity from a definition file serves reduce exactly", "[reduce][definitions][exact]") {
  TempDir dir;
  const auto file = dir.path() / "and.toml";
  {
    std::ofstream f(file);
    f << "[ufuncs.x25_file_and]\nsignatures = [\"uint64(uint64, uint64)\"]\nidentity = \"18446744073709551615\"\n"
         "source = '__device__ unsigned long long x25_file_and(unsigned long long a, unsigned long long b) "
         "{ return a & b; }'\n";
  }
  Engine& engine = exact_engine();
  engine.load_definitions(file);
  ReduceOptions o;
  o.target = Target::cpu;
  CHECK(element<std::uint64_t>(engine.ufunc("x25_file_and").reduce(Array::empty(DType::uint64, {0}), o)) ==
        std::numeric_limits<std::uint64_t>::max());
}

TEST_CASE("duplicate signatures are warned about and dropped; an empty definition file is warned about",
          "[definitions][exact]") {
  Engine& engine = exact_engine();
  {
    const LogCapture log;
    Ufunc u = engine.vectorize("x25_dup", {"float32(float32)", "f8(f8)", "f4(f4)"},
                               "template <class T> __device__ T x25_dup(T a) { return -a; }");
    CHECK(log.warnings({"ufunc 'x25_dup': signature 3 \"f4(f4)\" repeats signature 1 \"float32(float32)\" "
                        "(float32(float32)); the duplicate is dropped"}) == 1);
    CHECK(u.signatures().size() == 2);
  }
  TempDir dir;
  const auto file = dir.path() / "dup.toml";
  {
    std::ofstream f(file);
    f << "[ufuncs.x25_file_dup]\nsignatures = [\"int32(int32)\", \"i4(i4)\"]\n"
         "source = '__device__ int x25_file_dup(int a) { return a; }'\n";
  }
  {
    const LogCapture log;
    engine.load_definitions(file);
    CHECK(log.warnings({file.string(), "ufunc 'x25_file_dup': signature 2 \"i4(i4)\" repeats signature 1 "
                        "\"int32(int32)\""}) == 1);
  }
  for (const char* text : {"", "# nothing but a comment\n", "[ufuncs]\n"}) {
    CAPTURE(text);
    const auto empty = dir.path() / "empty.toml";
    {
      std::ofstream f(empty);
      f << text;
    }
    const LogCapture log;
    CHECK(engine.load_definitions(empty).empty());
    CHECK(log.warnings({empty.string(), "the definition file defines nothing"}) == 1);
  }
}
