// Generalized ufuncs (issue 11) on the cpu and parallel targets: the batched dot product, the
// moving average and the small matrix-vector product of the issue, a two-output gufunc, against
// float64 references (tests/gufunc_cases.hpp) on fresh random inputs with odd shapes, negative
// strides, broadcast loop dimensions, 0-d and empty loop spaces, empty core dimensions, poisoned
// out=, an out= that overlaps an input, casts; then the errors, the layout and signature
// parser, and the cache (a second engine reads the modules from disk).
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>

#include "catch.hpp"
#include "engine/gufunc.hpp"
#include "engine/precompile.hpp"
#include "gufunc_cases.hpp"
#include "support.hpp"

using namespace jitvec;
using namespace jitvec_test;

namespace {

Engine& gufunc_engine() {
  define_test_gufuncs(shared_engine());
  return shared_engine();
}

// The core vector of `t` at loop index `loop` (the last dimension is the core one).
std::vector<double> core_row(const TestArray& t, std::vector<std::int64_t> loop) {
  std::vector<double> row(static_cast<std::size_t>(t.shape().back()));
  loop.push_back(0);
  for (std::size_t i = 0; i < row.size(); ++i) {
    loop.back() = static_cast<std::int64_t>(i);
    row[i] = t.at(loop);
  }
  return row;
}

bool close(double got, double want, double tolerance) {
  return std::fabs(got - want) <= tolerance * (1 + std::fabs(want));
}

const Target kHostTargets[] = {Target::cpu, Target::parallel};

}  // namespace

TEST_CASE("gufunc dot (n),(n)->(): broadcast loop dims, negative strides, out=", "[gufunc]") {
  Gufunc dot = gufunc_engine().gufunc("h4_dot");
  CHECK(dot.layout() == "(n),(n)->()");
  CHECK(dot.nin() == 2);
  CHECK(dot.nout() == 1);
  for (Target t : kHostTargets) {
    CAPTURE(target_name(t));
    const std::int64_t n = 16 + static_cast<std::int64_t>(rng()() % 5);
    // a: (5, 7, n) with its last two dimensions reversed; b: (7, n), broadcast over a's first.
    TestArray a = TestArray::random_view(DType::float64, 5 * 7 * n, 7 * n - 1, {5, 7, n},
                                         {7 * n, -n, -1}, -1, 1);
    TestArray b = TestArray::random(DType::float64, {7, n}, -1, 1);
    Array d = dot(a.host_view(), b.host_view(), target(t));
    REQUIRE(d.shape() == Shape{5, 7});
    REQUIRE(d.dtype() == DType::float64);
    for_each_index({5, 7}, [&](const std::vector<std::int64_t>& idx) {
      const double want = ref_dot(core_row(a, idx), core_row(b, {idx[1]}));
      if (!close(array_at(d, idx), want, 1e-13)) {
        FAIL_CHECK("dot at " << shape_to_string(idx) << ": " << array_at(d, idx) << ", want " << want);
      }
    });

    // float32 into a poisoned strided out= (every third element of a buffer).
    TestArray a32 = TestArray::random(DType::float32, {9, n}, -1, 1);
    TestArray b32 = TestArray::random(DType::float32, {9, n}, -1, 1);
    TestArray o = TestArray::poisoned_view(DType::float32, 27, 26, {9}, {-3});
    Array r = dot(a32.host_view(), b32.host_view(), out(o.host_view()), target(t));
    CHECK(r.data() == o.host_view().data());
    for (std::int64_t i = 0; i < 9; ++i) {
      CHECK(close(o.at({i}), ref_dot(core_row(a32, {i}), core_row(b32, {i})), 1e-5));
    }
    const std::vector<bool> covered = o.covered();
    for (std::int64_t i = 0; i < 27; ++i) {
      if (!covered[static_cast<std::size_t>(i)]) CHECK(o.base_poisoned(i));
    }
  }
}

TEST_CASE("gufunc dot: 0-d and empty loop spaces, an empty core dimension, casts", "[gufunc]") {
  Gufunc dot = gufunc_engine().gufunc("h4_dot");
  for (Target t : kHostTargets) {
    CAPTURE(target_name(t));
    TestArray a = TestArray::random(DType::float32, {16}, -1, 1);
    TestArray b = TestArray::random(DType::float32, {16}, -1, 1);
    Array d = dot(a.host_view(), b.host_view(), target(t));
    REQUIRE(d.shape() == Shape{});
    CHECK(close(array_at(d, {}), ref_dot(core_row(a, {}), core_row(b, {})), 1e-5));

    TestArray none = TestArray::random(DType::float32, {0, 16}, -1, 1);
    CHECK(dot(none.host_view(), b.host_view(), target(t)).shape() == Shape{0});

    TestArray e1 = TestArray::random(DType::float64, {3, 0}, -1, 1);
    Array zero = dot(e1.host_view(), e1.host_view(), target(t));
    REQUIRE(zero.shape() == Shape{3});
    for (std::int64_t i = 0; i < 3; ++i) CHECK(array_at(zero, {i}) == 0.0);

    // int32 casts safely to float64 (not to float32): the float64 loop, inputs cast first.
    TestArray ia = TestArray::random(DType::int32, {4, 5}, -100, 100);
    TestArray ib = TestArray::random(DType::int32, {4, 5}, -100, 100);
    Array di = dot(ia.host_view(), ib.host_view(), target(t));
    REQUIRE(di.dtype() == DType::float64);
    for (std::int64_t i = 0; i < 4; ++i) {
      CHECK(array_at(di, {i}) == ref_dot(core_row(ia, {i}), core_row(ib, {i})));
    }
  }
}

TEST_CASE("gufunc moving average (n),()->(n): scalar and broadcast windows", "[gufunc]") {
  Gufunc avg = gufunc_engine().gufunc("h4_movavg");
  for (Target t : kHostTargets) {
    CAPTURE(target_name(t));
    const std::int64_t n = 37;
    TestArray x = TestArray::random(DType::float64, {4, 3, n}, -1, 1);
    const std::int64_t w = 1 + static_cast<std::int64_t>(rng()() % 9);
    Array y = avg(x.host_view(), w, target(t));
    REQUIRE(y.shape() == Shape{4, 3, n});
    for_each_index({4, 3}, [&](const std::vector<std::int64_t>& idx) {
      const std::vector<double> want = ref_movavg(core_row(x, idx), w);
      for (std::int64_t i = 0; i < n; ++i) {
        std::vector<std::int64_t> at = idx;
        at.push_back(i);
        if (!close(array_at(y, at), want[static_cast<std::size_t>(i)], 1e-13)) {
          FAIL_CHECK("movavg at " << shape_to_string(at));
        }
      }
    });
    // One window per row, broadcast over the middle dimension: windows (4, 1), x (4, 3, n).
    std::vector<std::int64_t> windows = {1, 2, 5, 40};
    Array wins = from_vector(windows).reshape({4, 1});
    Array y2 = avg(x.host_view(), wins, target(t));
    for_each_index({4, 3}, [&](const std::vector<std::int64_t>& idx) {
      const std::vector<double> want = ref_movavg(core_row(x, idx), windows[static_cast<std::size_t>(idx[0])]);
      std::vector<std::int64_t> at = idx;
      at.push_back(n - 1);
      CHECK(close(array_at(y2, at), want.back(), 1e-13));
    });
  }
}

TEST_CASE("gufunc matvec (m,n),(n)->(m): transposed matrices, out= overlapping an input", "[gufunc]") {
  Gufunc matvec = gufunc_engine().gufunc("h4_matvec");
  for (Target t : kHostTargets) {
    CAPTURE(target_name(t));
    const std::int64_t count = 1001;
    TestArray a = TestArray::random(DType::float32, {count, 3, 3}, -1, 1);
    TestArray x = TestArray::random(DType::float32, {count, 3}, -1, 1);
    Array at = a.host_view().permute({0, 2, 1});  // each matrix transposed: strides (9, 1, 3)
    Array y = matvec(at, x.host_view(), target(t));
    REQUIRE(y.shape() == Shape{count, 3});
    auto check = [&](const Array& result, const std::vector<std::vector<double>>& xs) {
      for (std::int64_t s = 0; s < count; ++s) {
        std::vector<std::vector<double>> m(3, std::vector<double>(3));
        for (std::int64_t i = 0; i < 3; ++i) {
          for (std::int64_t j = 0; j < 3; ++j) m[i][j] = a.at({s, j, i});
        }
        const std::vector<double> want = ref_matvec(m, xs[static_cast<std::size_t>(s)]);
        for (std::int64_t i = 0; i < 3; ++i) {
          if (!close(array_at(result, {s, i}), want[static_cast<std::size_t>(i)], 1e-5)) {
            FAIL_CHECK("matvec system " << s << " row " << i);
          }
        }
      }
    };
    std::vector<std::vector<double>> xs;
    for (std::int64_t s = 0; s < count; ++s) xs.push_back(core_row(x, {s}));
    check(y, xs);
    // y = A x in place of x: every system's x is read whole before any of it is written,
    // because the overlapping input is copied first.
    Array xv = x.host_view();
    matvec(at, xv, out(xv), target(t));
    check(xv, xs);
  }
}

TEST_CASE("gufunc with two outputs (n)->(),()", "[gufunc]") {
  Gufunc minmax = gufunc_engine().gufunc("h4_minmax");
  TestArray x = TestArray::random(DType::int32, {6, 11}, -1000, 1000);
  for (Target t : kHostTargets) {
    std::vector<Array> r = minmax.outputs(x.host_view(), target(t));
    REQUIRE(r.size() == 2);
    for (std::int64_t i = 0; i < 6; ++i) {
      const std::vector<double> row = core_row(x, {i});
      CHECK(array_at(r[0], {i}) == *std::min_element(row.begin(), row.end()));
      CHECK(array_at(r[1], {i}) == *std::max_element(row.begin(), row.end()));
    }
  }
  CHECK_THAT(error_of([&] { minmax(x.host_view(), target(Target::cpu)); }),
             Catch::Matchers::Contains("gufunc 'h4_minmax' (n)->(),() has 2 outputs: call it with "
                                       "outputs(...)"));
}

TEST_CASE("gufunc errors name the operands and the dimensions", "[gufunc][errors]") {
  Engine& engine = gufunc_engine();
  Gufunc dot = engine.gufunc("h4_dot");
  Gufunc avg = engine.gufunc("h4_movavg");
  std::vector<float> a(5 * 16, 1.0f), b(5 * 15, 1.0f), out4(4, -7.0f);
  Array a2 = from_vector(a).reshape({5, 16});
  CHECK_THAT(error_of([&] { dot(a2, from_vector(b).reshape({5, 15}), target(Target::cpu)); }),
             Catch::Matchers::Contains("core dimension 'n' is 16 in argument 1 (shape (5, 16)) but "
                                       "15 in argument 2 (shape (5, 15))"));
  CHECK_THAT(error_of([&] { dot(a2, from_vector(a).reshape({16, 5}).slice(1, 0, 5).slice(0, 0, 4), target(Target::cpu)); }),
             Catch::Matchers::Contains("core dimension 'n' is 16 in argument 1"));
  CHECK_THAT(error_of([&] { dot(a2, from_vector(a).reshape({4, 20}).slice(1, 0, 16), target(Target::cpu)); }),
             Catch::Matchers::Contains("the loop dimensions") &&
                 Catch::Matchers::Contains("(5,)") && Catch::Matchers::Contains("(4,)"));
  CHECK_THAT(error_of([&] { dot(a2, 1.0f, target(Target::cpu)); }),
             Catch::Matchers::Contains("argument 2 is a scalar, but its core dimensions (n) need an array"));
  CHECK_THAT(error_of([&] { dot(a2, target(Target::cpu)); }),
             Catch::Matchers::Contains("gufunc 'h4_dot' (n),(n)->() takes 2 inputs, but 1 were given"));
  CHECK_THAT(error_of([&] { dot(a2, a2, out(from_vector(out4)), target(Target::cpu)); }),
             Catch::Matchers::Contains("out= 1 has shape (4,), but the call's result has shape (5,)"));
  CHECK(out4 == std::vector<float>(4, -7.0f));
  std::vector<double> wrong_type(5, -7.0);
  CHECK_THAT(error_of([&] { dot(a2, a2, out(from_vector(wrong_type)), target(Target::cpu)); }),
             Catch::Matchers::Contains("out= 1 is a float64 array, but signature \"void(float32[:], "
                                       "float32[:], float32)\" writes float32 there"));
  std::vector<float> x(10, 1.0f);
  CHECK_THAT(error_of([&] { avg(x, 2.5, target(Target::cpu)); }),
             Catch::Matchers::Contains("cannot be represented as int32"));
}

TEST_CASE("gufunc definitions: layout and signature errors", "[gufunc][errors]") {
  EngineOptions options;
  options.cache.disabled = true;
  options.default_target = Target::cpu;
  Engine engine(options);
  const std::string src = "__device__ void g(jitvec::View<const float, 1> a, jitvec::View<float, 0> o) { o() = a[0]; }";
  CHECK_THAT(error_of([&] { engine.guvectorize("g", {"void(float32[:], float32)"}, "(n)->", src); }),
             Catch::Matchers::Contains("gufunc 'g': gufunc layout \"(n)->\": expected \"(\" opening "
                                       "an operand's core dimensions (at column 6)"));
  CHECK_THAT(error_of([&] { engine.guvectorize("g", {"void(float32[:], float32)"}, "(n),(1)->()", src); }),
             Catch::Matchers::Contains("expected a dimension name"));
  CHECK_THAT(error_of([&] { engine.guvectorize("g", {"void(float32[:], float32)"}, "(n)", src); }),
             Catch::Matchers::Contains("expected \"->\" after the inputs"));
  CHECK_THAT(error_of([&] { engine.guvectorize("g", {"void(float32[:], float32, float32)"}, "(n)->()", src); }),
             Catch::Matchers::Contains("has 3 operands, but layout \"(n)->()\" has 2"));
  CHECK_THAT(error_of([&] { engine.guvectorize("g", {"void(float32, float32)"}, "(n)->()", src); }),
             Catch::Matchers::Contains("operand 1 ('float32') has 0 dimensions, but layout \"(n)->()\" "
                                       "gives it 1 core dimension"));
  CHECK_THAT(error_of([&] { engine.guvectorize("g", {"void(float33[:], float32)"}, "(n)->()", src); }),
             Catch::Matchers::Contains("operand 1: 'float33' is not a dtype"));
  Gufunc g = engine.guvectorize("g", {"void(float32[:], float32)"}, " ( n ) -> ( ) ", src);
  CHECK(g.layout() == "(n)->()");
  CHECK_THAT(error_of([&] { engine.guvectorize("g", {"void(float32[:], float32)"}, "(n)->()", src); }),
             Catch::Matchers::Contains("'g' is already defined"));
  CHECK_THAT(error_of([&] { engine.gufunc("h"); }), Catch::Matchers::Contains("no gufunc named 'h'"));
  Gufunc grow = engine.guvectorize(
      "grow", {"void(float32[:], float32[:])"}, "(n)->(m)",
      "__device__ void grow(jitvec::View<const float, 1> a, jitvec::View<float, 1> o) { for (long long i = 0; i < o.size(); ++i) o[i] = a[0] + i; }");
  std::vector<float> one(2, 3.0f);
  CHECK_THAT(error_of([&] { grow(from_vector(one).reshape({2, 1})); }),
             Catch::Matchers::Contains("core dimension 'm' of output 1 is in no input, so its size is "
                                       "unknown: pass out="));
  std::vector<float> o(6, -1.0f);
  grow(from_vector(one).reshape({2, 1}), out(from_vector(o).reshape({2, 3})));
  CHECK(o == std::vector<float>{3, 4, 5, 3, 4, 5});
}

TEST_CASE("gufunc modules are cached on disk and keyed apart from map loops", "[gufunc][cache]") {
  TempDir dir;
  const std::string src = R"(__device__ void h4_sum(jitvec::View<const double, 1> a, jitvec::View<double, 0> o) {
  double s = 0; for (long long i = 0; i < a.size(); ++i) s += a[i]; o() = s; })";
  std::vector<double> x(12);
  for (auto& v : x) v = std::uniform_real_distribution<double>(-1, 1)(rng());
  double want = 0;
  for (int i = 0; i < 6; ++i) want += x[static_cast<std::size_t>(i)];
  for (int round = 0; round < 2; ++round) {
    EngineOptions options;
    options.cache.dir = dir.path();
    options.default_target = Target::cpu;
    Engine engine(options);
    Gufunc sum = engine.guvectorize("h4_sum", {"void(float64[:], float64)"}, "(n)->()", src);
    Array s = sum(from_vector(x).reshape({2, 6}));
    CHECK(close(array_at(s, {0}), want, 1e-14));
    const EngineStats stats = engine.stats();
    CHECK(stats.compiles == (round == 0 ? 1u : 0u));
    CHECK(stats.disk_hits == (round == 0 ? 0u : 1u));
  }
}

TEST_CASE("gufuncs in definition files, precompiled by jitvec compile's jobs", "[gufunc][definitions]") {
  TempDir dir;
  const std::filesystem::path file = dir.path() / "g.toml";
  {
    std::ofstream f(file);
    f << "[gufuncs.h4_norm1]\n"
         "signatures = [\"void(float64[:], float64)\"]\n"
         "layout = \"(n)->()\"\n"
         "source = '''\n"
         "__device__ void h4_norm1(jitvec::View<const double, 1> x, jitvec::View<double, 0> o) {\n"
         "  double s = 0; for (long long i = 0; i < x.size(); ++i) s += fabs(x[i]); o() = s; }\n"
         "'''\n";
  }
  EngineOptions options;
  options.cache.dir = dir.path() / "cache";
  options.default_target = Target::cpu;
  Engine engine(options);
  engine.load_definitions(file);
  CHECK(engine.gufunc_names() == std::vector<std::string>{"h4_norm1"});
  std::vector<double> x = {1, -2, 3, -4, 5, -6};
  Array n = engine.gufunc("h4_norm1")(from_vector(x).reshape({2, 3}));
  CHECK(n.to_vector<double>() == std::vector<double>{6, 15});

  // jitvec compile's plan holds the gufunc's host job, and running it hits the cache the call
  // above filled.
  const std::vector<engine::PrecompileJob> jobs = engine::plan_precompile(engine, {Target::cpu}, {});
  REQUIRE(jobs.size() == 1);
  CHECK(jobs[0].ufunc == "h4_norm1");
  CHECK(jobs[0].signature == "void(float64[:], float64)");
  const engine::PrecompileResult result = engine::run_precompile_job(engine, jobs[0]);
  CHECK(result.ok);
  CHECK(result.from_cache);

  const std::filesystem::path bad = dir.path() / "bad.toml";
  {
    std::ofstream f(bad);
    f << "[gufuncs.h4_bad]\nsignatures = [\"void(float64[:], float64)\"]\nsource = 'void h4_bad() {}'\n";
  }
  CHECK_THAT(error_of([&] { engine.load_definitions(bad); }),
             Catch::Matchers::Contains("bad.toml:1: gufuncs.h4_bad: missing 'layout'"));
  {
    std::ofstream f(bad);
    f << "[gufuncs.h4_bad]\nsignatures = [\"void(float64[:], float64)\"]\nlayout = \"(n)->()->()\"\n"
         "source = 'void h4_bad() {}'\n";
  }
  CHECK_THAT(error_of([&] { engine.load_definitions(bad); }),
             Catch::Matchers::Contains("gufuncs.h4_bad: gufunc 'h4_bad': gufunc layout \"(n)->()->()\": "
                                       "unexpected text after the outputs"));
}

TEST_CASE("gufunc staged rows: several blocks, a partial last one, staged and broadcast operands", "[gufunc]") {
  // C-ordered (rows, n) operands take the staged kernels (kernels/gufunc.hpp: rows copied
  // through a stage in blocks of 256); a broadcast operand next to them does not.
  Gufunc dot = gufunc_engine().gufunc("h4_dot");
  Gufunc avg = gufunc_engine().gufunc("h4_movavg");
  for (Target t : kHostTargets) {
    CAPTURE(target_name(t));
    const std::int64_t rows = 256 * 3 + 17, n = 16;
    TestArray a = TestArray::random(DType::float32, {rows, n}, -1, 1);
    TestArray b = TestArray::random(DType::float32, {n}, -1, 1);
    TestArray o = TestArray::poisoned_view(DType::float32, rows, 0, {rows}, {1});
    dot(a.host_view(), b.host_view(), out(o.host_view()), target(t));
    for (std::int64_t r = 0; r < rows; ++r) {
      if (!close(o.at({r}), ref_dot(core_row(a, {r}), core_row(b, {})), 1e-5)) FAIL_CHECK("dot row " << r);
    }
    // Rows of 300 elements are past the staging limit (256 a row): straight to memory.
    TestArray x = TestArray::random(DType::float64, {300, 300}, -1, 1);
    TestArray y = TestArray::poisoned_view(DType::float64, 300 * 300, 0, {300, 300}, {300, 1});
    avg(x.host_view(), 4, out(y.host_view()), target(t));
    for (std::int64_t r = 0; r < 300; r += 37) {
      const std::vector<double> want = ref_movavg(core_row(x, {r}), 4);
      for (std::int64_t i = 0; i < 300; ++i) CHECK(close(y.at({r, i}), want[static_cast<std::size_t>(i)], 1e-13));
    }
    // Rows of 20: input and output staged (2 x 256 x 21 float64 fit the 48 KiB stage).
    TestArray x2 = TestArray::random(DType::float64, {513, 20}, -1, 1);
    Array y2 = avg(x2.host_view(), 3, target(t));
    for (std::int64_t r = 0; r < 513; ++r) {
      const std::vector<double> want = ref_movavg(core_row(x2, {r}), 3);
      for (std::int64_t i = 0; i < 20; ++i) {
        if (!close(array_at(y2, {r, i}), want[static_cast<std::size_t>(i)], 1e-13)) FAIL_CHECK("movavg " << r << "," << i);
      }
    }
  }
}
