// tests/unit/test_integer_division.cpp: an integer division by zero (or INT_MIN / -1) in a
// ufunc's source is a jitvec::Error on the host targets, naming the ufunc and the target; the
// process lives on and the next calls (the thread pool's included) give exact answers. Floats
// are untouched (x / 0.0 is inf). A SIGFPE outside a loop still ends the process as before.
// On the GPU the division does not stop: the elements with a non-zero divisor are exact there.
#include <sys/wait.h>
#include <unistd.h>

#include <complex>
#include <csignal>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "catch.hpp"
#include "cpu/host_fault.hpp"
#include "jitvec/jitvec.hpp"
#include "support.hpp"

using namespace jitvec_test;

namespace {

using jitvec::Target;

// Random dividends and non-zero divisors (either sign), n of each.
template <class T> void random_operands(std::size_t n, std::vector<T>& a, std::vector<T>& b) {
  std::uniform_int_distribution<T> value(std::numeric_limits<T>::min() / 2,
                                         std::numeric_limits<T>::max() / 2);
  std::uniform_int_distribution<T> divisor(1, 1000);
  a.resize(n);
  b.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    a[i] = value(rng());
    b[i] = static_cast<T>(divisor(rng()) * (rng()() % 2 ? 1 : -1));
  }
}

// C++'s truncating quotient and remainder, computed here in 64 bits.
template <class T> void check_exact(const std::vector<T>& a, const std::vector<T>& b,
                                    const std::vector<T>& got, bool remainder) {
  REQUIRE(got.size() == a.size());
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const long long x = a[i], y = b[i];
    if (y == 0) continue;
    const long long want = remainder ? x % y : x / y;
    if (static_cast<long long>(got[i]) != want && wrong++ == 0) {
      INFO("element " << i << ": " << x << (remainder ? " % " : " / ") << y << " gave " << got[i]
                      << ", want " << want);
      CHECK(static_cast<long long>(got[i]) == want);
    }
  }
  CHECK(wrong == 0);
}

jitvec::Ufunc define(const std::string& name, const std::string& type, const std::string& op) {
  jitvec::Engine& engine = shared_engine();
  for (const std::string& known : engine.ufunc_names()) {
    if (known == name) return engine.ufunc(name);
  }
  const std::string c = type == "int64" ? "long long" : "int";
  return engine.vectorize(name, {type + "(" + type + ", " + type + ")"},
                          "__device__ " + c + " " + name + "(" + c + " a, " + c + " b) { return a " +
                              op + " b; }");
}

}  // namespace

TEST_CASE("an integer division by zero on the host is an Error; the next calls are exact",
          "[cpu][parallel][errors][division]") {
  INFO("seed " << rng_seed());
  // Catch installs its own SIGFPE handler for each test case; a program that does so after
  // jitvec's first host call puts jitvec's back the same way.
  jitvec::cpu::ensure_division_fault_handler();
  // 200000 elements: the parallel target cuts them into chunks that the pool's workers run.
  const std::size_t n = 200000;
  for (const char* op : {"/", "%"}) {
    const bool remainder = std::string(op) == "%";
    const jitvec::Ufunc f = define(remainder ? "test_imod32" : "test_idiv32", "int32", op);
    for (Target target : {Target::cpu, Target::parallel}) {
      INFO("a " << op << " b on target " << jitvec::target_name(target));
      std::vector<std::int32_t> a, b;
      random_operands(n, a, b);
      // One zero divisor, late in the range: on the parallel target a worker meets it.
      b[n - 1 - rng()() % 1000] = 0;
      try {
        f(a, b, jitvec::target(target));
        FAIL("dividing by zero did not raise an error");
      } catch (const jitvec::Error& e) {
        const std::string message = e.what();
        INFO(message);
        CHECK(message.find(remainder ? "'test_imod32'" : "'test_idiv32'") != std::string::npos);
        CHECK(message.find(std::string("target ") + std::string(jitvec::target_name(target))) !=
              std::string::npos);
        CHECK(message.find("division by zero") != std::string::npos);
        CHECK(message.find("b != 0 ? a / b : 0") != std::string::npos);
      }
      // The process, the loop and the pool carry on: fresh operands, exact answers, twice.
      for (int again = 0; again < 2; ++again) {
        random_operands(n, a, b);
        check_exact(a, b, f(a, b, jitvec::target(target)).to_vector<std::int32_t>(), remainder);
      }
    }
  }
}

#if defined(__x86_64__)
TEST_CASE("INT64_MIN / -1 on the host is the same Error (x86-64 traps on it)",
          "[cpu][errors][division]") {
  jitvec::cpu::ensure_division_fault_handler();  // over Catch's own (see above)
  const jitvec::Ufunc f = define("test_idiv64", "int64", "/");
  const std::int64_t lowest = std::numeric_limits<std::int64_t>::min();
  for (Target target : {Target::cpu, Target::parallel}) {
    std::vector<std::int64_t> a = {7, lowest, 9}, b = {2, -1, 3};
    CHECK_THROWS_AS(f(a, b, jitvec::target(target)), jitvec::Error);
    a = {7, lowest, 9};
    b = {2, 1, -3};
    CHECK(f(a, b, jitvec::target(target)).to_vector<std::int64_t>() ==
          std::vector<std::int64_t>{3, lowest, -3});
  }
}
#endif

TEST_CASE("a float division by zero on the host is still inf, and no error",
          "[cpu][division]") {
  jitvec::Engine& engine = shared_engine();
  jitvec::Ufunc f;
  for (const std::string& known : engine.ufunc_names()) {
    if (known == "test_fdiv32") f = engine.ufunc(known);
  }
  if (!f) {
    f = engine.vectorize("test_fdiv32", {"float32(float32, float32)"},
                         "__device__ float test_fdiv32(float a, float b) { return a / b; }");
  }
  const std::vector<float> a = {1.0f, -2.0f, 3.0f}, b = {0.0f, 0.0f, 4.0f};
  for (Target target : {Target::cpu, Target::parallel}) {
    const std::vector<float> got = f(a, b, jitvec::target(target)).to_vector<float>();
    CHECK(got[0] == std::numeric_limits<float>::infinity());
    CHECK(got[1] == -std::numeric_limits<float>::infinity());
    CHECK(got[2] == 0.75f);
  }
}

// a / b as the processor does it, out of UBSan's reach: in the sanitizer build UBSan would
// report the division and exit the process instead of letting the division fault.
__attribute__((noinline, no_sanitize("undefined"))) int divide_unchecked(int a, int b) { return a / b; }

TEST_CASE("a SIGFPE outside a jitvec loop still ends the process", "[cpu][division]") {
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    // The process's own disposition (the default; not the test framework's handler), then
    // jitvec's handler on top of it, installed by a guarded call.
    ::signal(SIGFPE, SIG_DFL);
    if (jitvec::cpu::run_catching_division_faults([](void*) {}, nullptr)) _exit(3);
    volatile int dividend = 7, zero = 0;
    volatile int quotient = divide_unchecked(dividend, zero);  // a real fault, no guard here
    (void)quotient;
    _exit(0);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  INFO("child status " << status);
  CHECK(WIFSIGNALED(status));
  if (WIFSIGNALED(status)) CHECK(WTERMSIG(status) == SIGFPE);
}

TEST_CASE("an integer division by zero on the GPU does not stop the call; other elements are "
          "exact",
          "[gpu][division]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  INFO("seed " << rng_seed());
  const jitvec::Ufunc f = define("test_idiv32", "int32", "/");
  const std::size_t n = 1 << 20;
  std::vector<std::int32_t> a, b;
  random_operands(n, a, b);
  for (int z = 0; z < 16; ++z) b[rng()() % n] = 0;
  check_exact(a, b, f(a, b, jitvec::target(Target::cuda)).to_vector<std::int32_t>(), false);
}

TEST_CASE("an integer division by zero in a reduce combiner, a gufunc or at() is an Error too",
          "[cpu][parallel][errors][division][reduce][gufunc][at]") {
  jitvec::cpu::ensure_division_fault_handler();
  jitvec::Engine& engine = shared_engine();
  const jitvec::Ufunc div = define("div_reduce_guard", "int32", "/");
  jitvec::Gufunc ratio_sum = engine.guvectorize(
      "ratio_sum_guard", {"void(int32[:], int32[:], int32[:])"}, "(n),(n)->()",
      "__device__ void ratio_sum_guard(jitvec::View<const int, 1> a, jitvec::View<const int, 1> b,\n"
      "                                jitvec::View<int, 0> r) {\n"
      "  int s = 0;\n"
      "  for (long long i = 0; i < a.size(0); ++i) s += a[i] / b[i];\n"
      "  r() = s;\n"
      "}");
  for (Target target : {Target::cpu, Target::parallel}) {
    INFO("target " << jitvec::target_name(target));
    // 100 / 5 / 0 / ... : the fold meets the zero.
    std::vector<std::int32_t> x(50000, 5);
    x[0] = 100;
    x[25000] = 0;
    jitvec::ReduceOptions reduce_options;
    reduce_options.target = target;
    CHECK_THROWS_WITH(div.reduce(jitvec::from_vector(x), reduce_options),
                      Catch::Matchers::Contains("div_reduce_guard") && Catch::Matchers::Contains("division"));
    std::vector<std::int32_t> a(4 * 1000, 7), b(4 * 1000, 1);
    b[1234] = 0;
    CHECK_THROWS_WITH(ratio_sum(jitvec::from_vector(a).reshape({1000, 4}),
                                jitvec::from_vector(b).reshape({1000, 4}), jitvec::target(target)),
                      Catch::Matchers::Contains("ratio_sum_guard") && Catch::Matchers::Contains("division"));
    std::vector<std::int32_t> hist(8, 9), indices{1, 3, 3, 5};
    jitvec::Array h = jitvec::from_vector(hist);
    CHECK_THROWS_WITH(div.at(h, jitvec::from_vector(indices), 0, jitvec::target(target)),
                      Catch::Matchers::Contains("div_reduce_guard") && Catch::Matchers::Contains("division"));
    // The process lives on and the same functions give exact answers without the zero.
    b[1234] = 1;
    const jitvec::Array sums = ratio_sum(jitvec::from_vector(a).reshape({1000, 4}),
                                         jitvec::from_vector(b).reshape({1000, 4}),
                                         jitvec::target(target));
    const std::vector<std::int32_t> got = sums.to_vector<std::int32_t>();
    REQUIRE(got.size() == 1000);
    for (std::int32_t v : got) CHECK(v == 28);
  }
}

TEST_CASE("a complex128 scalar into gufuncs and at() is refused, not cut to 8 bytes",
          "[cpu][errors][gufunc][at][dtype]") {
  jitvec::Engine& engine = shared_engine();
  jitvec::Gufunc scale = engine.guvectorize(
      "scale_c16_guard", {"void(complex128[:], complex128, complex128[:])"}, "(n),()->(n)",
      "__device__ void scale_c16_guard(jitvec::View<const complex128, 1> x,\n"
      "                                jitvec::View<const complex128, 0> s,\n"
      "                                jitvec::View<complex128, 1> y) {\n"
      "  for (long long i = 0; i < x.size(0); ++i) y[i] = x[i] * s();\n"
      "}");
  std::vector<std::complex<double>> x(6, {1.0, 2.0});
  CHECK_THROWS_WITH(scale(jitvec::from_vector(x).reshape({2, 3}), std::complex<double>(0.5, 3.0),
                          jitvec::target(Target::cpu)),
                    Catch::Matchers::Contains("scale_c16_guard") && Catch::Matchers::Contains("0-d array"));
  const jitvec::Ufunc cadd = engine.vectorize(
      "cadd_c16_guard", {"complex128(complex128, complex128)"},
      "__device__ complex128 cadd_c16_guard(complex128 a, complex128 b) { return a + b; }");
  jitvec::Array a = jitvec::from_vector(x);
  std::vector<std::int64_t> indices{0, 2};
  CHECK_THROWS_WITH(cadd.at(a, jitvec::from_vector(indices), std::complex<double>(1.0, 1.0),
                            jitvec::target(Target::cpu)),
                    Catch::Matchers::Contains("cadd_c16_guard") && Catch::Matchers::Contains("0-d array"));
  // Nothing was written.
  for (const std::complex<double>& v : a.to_vector<std::complex<double>>()) {
    CHECK(v == std::complex<double>(1.0, 2.0));
  }
}
