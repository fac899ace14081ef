// jitvec::loop(i, casting): a call that names its loop (NumPy's dtype=), Ufunc::loop_for, and
// Engine::set_num_threads, on the cpu and parallel targets, against float64 / exact references.
#include <cstdint>
#include <random>
#include <vector>

#include "catch.hpp"
#include "jitvec/jitvec.hpp"
#include "support.hpp"

using namespace jitvec;
using jitvec_test::TempDir;

namespace {

Engine make_engine(const TempDir& dir) {
  EngineOptions options;
  options.cache.dir = dir.path();
  options.default_target = Target::cpu;
  return Engine(options);
}

}  // namespace

TEST_CASE("loop() runs the named loop, its inputs cast by the casting rule", "[loop][cpu]") {
  TempDir dir;
  Engine engine = make_engine(dir);
  Ufunc add = engine.vectorize("chosen_add", {"float64(float64, float64)", "float32(float32, float32)", "int64(int64, int64)"},
                               "template <class T> T chosen_add(T a, T b) { return a + b; }");
  std::mt19937_64 rng(std::random_device{}());
  std::vector<std::int64_t> a(37), b(37);
  for (std::size_t i = 0; i < a.size(); ++i) {
    a[i] = static_cast<std::int64_t>(rng() % 2001) - 1000;
    b[i] = static_cast<std::int64_t>(rng() % 2001) - 1000;
  }
  const Array ia = Array::wrap(a.data(), Shape{37}), ib = Array::wrap(b.data(), Shape{37});
  const Arg plain[] = {ia, ib};
  CHECK(add.loop_for(plain, 2) == 0);  // int64 casts safely to float64: the first loop
  for (Target target : {Target::cpu, Target::parallel}) {
    std::vector<float> poisoned(37, -12345.0f);
    Array out = Array::wrap(poisoned.data(), Shape{37});
    add(ia, ib, jitvec::loop(1), jitvec::out(out), jitvec::target(target));  // float32, same_kind
    for (std::size_t i = 0; i < a.size(); ++i) CHECK(poisoned[i] == static_cast<float>(a[i]) + static_cast<float>(b[i]));
    const Array exact = add(ia, ib, jitvec::loop(2, Casting::no), jitvec::target(target));
    REQUIRE(exact.dtype() == DType::int64);
    for (std::size_t i = 0; i < a.size(); ++i) CHECK(static_cast<const std::int64_t*>(exact.data())[i] == a[i] + b[i]);
  }
  CHECK_THROWS_WITH(add(ia, ib, jitvec::loop(1, Casting::safe)),
                    Catch::Contains("does not cast to it with casting='safe'"));
  CHECK_THROWS_WITH(add(ia, ib, jitvec::loop(3)), Catch::Contains("loop(3) asked for, but it has 3 loops"));
  CHECK_THROWS_WITH(add(ia, 0.5, jitvec::loop(2)), Catch::Contains("cannot hold the scalar 0.5"));
}

TEST_CASE("set_num_threads bounds the parallel target's threads", "[threads][cpu]") {
  TempDir dir;
  EngineOptions options;
  options.cache.dir = dir.path();
  options.threads = 3;
  Engine engine(options);
  CHECK(engine.max_threads() == 3);
  CHECK(engine.num_threads() == 3);
  engine.set_num_threads(1);
  CHECK(engine.num_threads() == 1);
  CHECK_THROWS_AS(engine.set_num_threads(0), ArgumentError);
  CHECK_THROWS_AS(engine.set_num_threads(4), ArgumentError);
  Ufunc twice = engine.vectorize("threads_twice", {"float64(float64)"}, "double threads_twice(double x) { return 2 * x; }");
  std::vector<double> x(1 << 18);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<double>(i) * 0.25;
  for (int n : {1, 2, 3}) {
    engine.set_num_threads(n);
    const Array y = twice(x, jitvec::target(Target::parallel));
    const double* p = static_cast<const double*>(y.data());
    bool all = true;
    for (std::size_t i = 0; i < x.size(); ++i) all &= p[i] == 2 * x[i];
    CHECK(all);
  }
}
