// Ufunc::outer and Ufunc::at on the cpu and parallel targets (issue 11), against float64
// references computed here from the inputs: odd shapes, negative strides, 0-d, empty, out=
// (poisoned first), and the errors. The cuda target runs the same cases in
// tests/gpu/test_gpu_gufunc.cpp.
#include <algorithm>
#include <cmath>
#include <functional>
#include <mutex>

#include "catch.hpp"
#include "codegen/loop_spec.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "kernels/gufunc.hpp"
#include "kernels/ufunc_at.hpp"
#include "gufunc_cases.hpp"
#include "support.hpp"

using namespace jitvec;
using namespace jitvec_test;

namespace {

// h4_lerp(a, b) = 0.5 a + b: neither commutative nor associative, so a wrong operand order or
// a wrong order of duplicate updates in at() changes the result.
double ref_lerp(double a, double b) { return 0.5 * a + b; }

Engine& methods_engine() {
  static std::once_flag once;
  Engine& engine = shared_engine();
  std::call_once(once, [&] {
    engine.vectorize("h4_lerp", {"float32(float32, float32)", "float64(float64, float64)",
                                 "int64(int64, int64)"},
                     "template <typename T> __device__ T h4_lerp(T a, T b) { return a / 2 + b; }");
    engine.vectorize("h4_three", {"float32(float32, float32, float32)"},
                     "__device__ float h4_three(float a, float b, float c) { return a + b + c; }");
  });
  return engine;
}

Shape concat(const Shape& a, const Shape& b) {
  Shape s = a;
  s.insert(s.end(), b.begin(), b.end());
  return s;
}

// Checks `result` (a host array of shape a.shape + b.shape) against ref_lerp of every pair.
void check_outer(const Array& result, TestArray& a, TestArray& b, double tolerance) {
  REQUIRE(result.shape() == concat(a.shape(), b.shape()));
  for_each_index(result.shape(), [&](const std::vector<std::int64_t>& idx) {
    const std::vector<std::int64_t> ia(idx.begin(), idx.begin() + a.shape().size());
    const std::vector<std::int64_t> ib(idx.begin() + a.shape().size(), idx.end());
    const double want = ref_lerp(a.at(ia), b.at(ib));
    const double got = array_at(result, idx);
    if (std::fabs(got - want) > tolerance * (1 + std::fabs(want))) {
      FAIL_CHECK("outer at " << shape_to_string(idx) << ": " << got << ", want " << want);
    }
  });
}

}  // namespace

TEST_CASE("outer: shape a.shape + b.shape, odd shapes and negative strides", "[outer]") {
  Ufunc lerp = methods_engine().ufunc("h4_lerp");
  for (Target t : {Target::cpu, Target::parallel}) {
    CAPTURE(target_name(t));
    // a: a (3, 5) view of a 3 x 7 buffer read backwards in both dimensions; b: every other
    // element of 9, reversed.
    TestArray a = TestArray::random_view(DType::float32, 21, 20, {3, 5}, {-7, -1}, -4, 4);
    TestArray b = TestArray::random_view(DType::float32, 9, 8, {5}, {-2}, -4, 4);
    check_outer(lerp.outer(a.host_view(), b.host_view(), target(t)), a, b, 1e-6);

    // 2-d x 2-d into a strided out= (every other column of a wider buffer), poisoned.
    TestArray c = TestArray::random(DType::float64, {2, 3}, -1, 1);
    TestArray d = TestArray::random_view(DType::float64, 12, 0, {4, 3}, {1, 4}, -1, 1);
    TestArray o = TestArray::poisoned_view(DType::float64, 2 * 3 * 4 * 6, 0, {2, 3, 4, 3},
                                           {72, 24, 6, 2});
    Array result = lerp.outer(c.host_view(), d.host_view(), out(o.host_view()), target(t));
    CHECK(result.data() == o.host_view().data());
    check_outer(o.host_view(), c, d, 1e-14);
    const std::vector<bool> covered = o.covered();
    for (std::int64_t i = 0; i < o.base_elements(); ++i) {
      if (!covered[static_cast<std::size_t>(i)]) CHECK(o.base_poisoned(i));
    }
  }
}

TEST_CASE("outer: 0-d, scalars and empty operands", "[outer]") {
  Ufunc lerp = methods_engine().ufunc("h4_lerp");
  for (Target t : {Target::cpu, Target::parallel}) {
    CAPTURE(target_name(t));
    TestArray zero = TestArray::random(DType::float64, {}, -3, 3);
    TestArray row = TestArray::random(DType::float64, {7}, -3, 3);
    check_outer(lerp.outer(zero.host_view(), row.host_view(), target(t)), zero, row, 1e-14);
    check_outer(lerp.outer(row.host_view(), zero.host_view(), target(t)), row, zero, 1e-14);

    Array with_scalar = lerp.outer(row.host_view(), 2.0, target(t));
    REQUIRE(with_scalar.shape() == Shape{7});
    for (std::int64_t i = 0; i < 7; ++i) CHECK(array_at(with_scalar, {i}) == ref_lerp(row.at({i}), 2.0));

    TestArray empty = TestArray::random(DType::float64, {0, 3}, -3, 3);
    CHECK(lerp.outer(empty.host_view(), row.host_view(), target(t)).shape() == Shape{0, 3, 7});
    CHECK(lerp.outer(row.host_view(), empty.host_view(), target(t)).shape() == Shape{7, 0, 3});
  }
}

TEST_CASE("outer: errors name the ufunc and the method", "[outer][errors]") {
  Engine& engine = methods_engine();
  std::vector<float> x(4, 1.0f), y(3, 2.0f);
  CHECK_THAT(error_of([&] { engine.ufunc("h4_three").outer(x, y, target(Target::cpu)); }),
             Catch::Matchers::Contains("ufunc 'h4_three' takes 3 inputs: outer() is defined only "
                                       "for ufuncs of two inputs"));
  Ufunc lerp = engine.ufunc("h4_lerp");
  CHECK_THAT(error_of([&] { lerp.outer(x, target(Target::cpu)); }),
             Catch::Matchers::Contains("outer() takes two operands (a, b) and options; it was "
                                       "given 1 operands"));
  std::vector<float> wrong(12, -7.0f);
  CHECK_THAT(error_of([&] { lerp.outer(x, y, out(from_vector(wrong)), target(Target::cpu)); }),
             Catch::Matchers::Contains("out= has shape (12,), but the inputs broadcast to (4, 3)"));
  CHECK(wrong == std::vector<float>(12, -7.0f));
}

namespace {

// NumPy's sequential at(): a[idx[j]] = lerp(a[idx[j]], b[j]) in j order, on doubles, rounding to
// float after each update when `round_float` (a float32 a is stored as float each time).
std::vector<double> ref_at(std::vector<double> a, std::int64_t row, const std::vector<std::int64_t>& idx,
                           const std::function<double(std::int64_t j, std::int64_t r)>& b,
                           bool round_float) {
  const std::int64_t rows = static_cast<std::int64_t>(a.size()) / row;
  for (std::size_t j = 0; j < idx.size(); ++j) {
    const std::int64_t i = idx[j] < 0 ? idx[j] + rows : idx[j];
    for (std::int64_t r = 0; r < row; ++r) {
      double& v = a[static_cast<std::size_t>(i * row + r)];
      v = ref_lerp(v, b(static_cast<std::int64_t>(j), r));
      if (round_float) v = static_cast<float>(v);
    }
  }
  return a;
}

// Random indices in [-rows, rows) with many duplicates (few distinct values).
std::vector<std::int64_t> random_indices(std::size_t count, std::int64_t rows) {
  std::vector<std::int64_t> idx(count);
  for (auto& i : idx) i = static_cast<std::int64_t>(rng()() % static_cast<std::uint64_t>(2 * rows)) - rows;
  return idx;
}

}  // namespace

TEST_CASE("at: duplicates applied in order, like NumPy's sequential loop", "[at]") {
  Ufunc lerp = methods_engine().ufunc("h4_lerp");
  for (Target t : {Target::cpu, Target::parallel}) {
    CAPTURE(target_name(t));
    // 1-d float64 a, 5000 updates on 37 elements (each hit ~135 times), b an array.
    TestArray a = TestArray::random(DType::float64, {37}, -1, 1);
    std::vector<double> before(37);
    for (std::int64_t i = 0; i < 37; ++i) before[static_cast<std::size_t>(i)] = a.at({i});
    const std::vector<std::int64_t> idx = random_indices(5000, 37);
    TestArray b = TestArray::random(DType::float64, {5000}, -1, 1);
    lerp.at(a.host_view(), idx, b.host_view(), target(t));
    const std::vector<double> want =
        ref_at(before, 1, idx, [&](std::int64_t j, std::int64_t) { return b.at({j}); }, false);
    for (std::int64_t i = 0; i < 37; ++i) CHECK(a.at({i}) == want[static_cast<std::size_t>(i)]);

    // 2-d float32 a seen reversed and strided, rows updated whole; b (k, 1) broadcast along
    // each row; int32 indices.
    TestArray m = TestArray::random_view(DType::float32, 11 * 10, 11 * 10 - 1, {11, 5}, {-10, -2}, -1, 1);
    std::vector<double> mb(55);
    for_each_index({11, 5}, [&](const std::vector<std::int64_t>& ix) { mb[static_cast<std::size_t>(ix[0] * 5 + ix[1])] = m.at(ix); });
    const std::vector<std::int64_t> idx64 = random_indices(700, 11);
    std::vector<std::int32_t> idx32(idx64.begin(), idx64.end());
    TestArray col = TestArray::random(DType::float32, {700, 1}, -1, 1);
    lerp.at(m.host_view(), idx32, col.host_view(), target(t));
    const std::vector<double> mwant =
        ref_at(mb, 5, idx64, [&](std::int64_t j, std::int64_t) { return col.at({j, 0}); }, true);
    for_each_index({11, 5}, [&](const std::vector<std::int64_t>& ix) {
      CHECK(m.at(ix) == mwant[static_cast<std::size_t>(ix[0] * 5 + ix[1])]);
    });
  }
}

TEST_CASE("at: an add.at histogram counts every hit", "[at]") {
  Engine& engine = methods_engine();
  static std::once_flag once;
  std::call_once(once, [&] {
    engine.vectorize("h4_add", {"int64(int64, int64)", "float32(float32, float32)"},
                     "template <typename T> __device__ T h4_add(T a, T b) { return a + b; }");
  });
  Ufunc h4_add = engine.ufunc("h4_add");
  for (Target t : {Target::cpu, Target::parallel}) {
    CAPTURE(target_name(t));
    std::vector<std::int64_t> hist(256, 0), want(256, 0);
    std::vector<std::int64_t> idx(100000);
    for (auto& i : idx) {
      i = static_cast<std::int64_t>(rng()() % 300) % 256;  // uneven: bins 0..43 twice as likely
      want[static_cast<std::size_t>(i)]++;
    }
    h4_add.at(hist, idx, 1, target(t));
    CHECK(hist == want);
  }
}

TEST_CASE("at: b overlapping a is read as it was before the call", "[at]") {
  Ufunc lerp = methods_engine().ufunc("h4_lerp");
  for (Target t : {Target::cpu, Target::parallel}) {
    std::vector<double> a(8);
    for (auto& v : a) v = std::uniform_real_distribution<double>(-1, 1)(rng());
    const std::vector<double> before = a;
    const std::vector<std::int64_t> idx = {7, 0, 7, 3, 0, 0, 1, 2};
    lerp.at(a, idx, a, target(t));  // b = a itself, which at() is writing
    const std::vector<double> want = ref_at(before, 1, idx, [&](std::int64_t j, std::int64_t) { return before[static_cast<std::size_t>(j)]; }, false);
    CHECK(a == want);
  }
}

TEST_CASE("at: errors are clear and leave a untouched", "[at][errors]") {
  Engine& engine = methods_engine();
  Ufunc lerp = engine.ufunc("h4_lerp");
  std::vector<float> a(10, 1.0f);
  const std::vector<float> before = a;
  std::vector<std::int64_t> bad = {1, 2, 10, 3};
  CHECK_THAT(error_of([&] { lerp.at(a, bad, 1.0f, target(Target::cpu)); }),
             Catch::Matchers::Contains("ufunc 'h4_lerp': at(): index 10 (indices[2]) is out of bounds "
                                       "for axis 0 of a, of size 10; nothing was written"));
  std::vector<std::int64_t> negative = {-11};
  CHECK_THAT(error_of([&] { lerp.at(a, negative, 1.0f, target(Target::cpu)); }),
             Catch::Matchers::Contains("index -11 (indices[0]) is out of bounds"));
  CHECK(a == before);
  std::vector<float> fidx = {1.0f};
  CHECK_THAT(error_of([&] { lerp.at(a, fidx, 1.0f, target(Target::cpu)); }),
             Catch::Matchers::Contains("at() takes integer indices; they are a float32 array"));
  std::vector<std::int64_t> ok = {1, 2};
  std::vector<float> b3(3, 1.0f);
  CHECK_THAT(error_of([&] { lerp.at(a, ok, b3, target(Target::cpu)); }),
             Catch::Matchers::Contains("b has shape (3,), which does not broadcast to the updated "
                                       "rows' shape (2,)"));
  CHECK_THAT(error_of([&] { engine.ufunc("h4_three").at(a, ok, 1.0f, target(Target::cpu)); }),
             Catch::Matchers::Contains("ufunc 'h4_three' takes 3 inputs: at() is defined only for "
                                       "ufuncs of two inputs"));
  CHECK_THAT(error_of([&] { lerp.at(a, ok, target(Target::cpu)); }),
             Catch::Matchers::Contains("at() takes three operands (a, indices, b)"));
  CHECK_THAT(error_of([&] { lerp.at(a, ok, 1.0f, out(from_vector(a)), target(Target::cpu)); }),
             Catch::Matchers::Contains("takes no out="));
  std::vector<float> scalar_a(1, 0.0f);
  CHECK_THAT(error_of([&] { lerp.at(from_vector(scalar_a).reshape({}), ok, 1.0f, target(Target::cpu)); }),
             Catch::Matchers::Contains("a is 0-d"));
  CHECK(a == before);
  // Empty indices: nothing happens.
  std::vector<std::int64_t> none;
  lerp.at(a, none, 1.0f, target(Target::cpu));
  CHECK(a == before);
}

TEST_CASE("at() and gufunc modules compile with NVRTC (no GPU needed)", "[at][gufunc][nvrtc]") {
  // The cuda paths cannot run here; their kernels' text must at least be what NVRTC accepts,
  // for every dtype pair the tests use and for a template user function.
  const codegen::UfuncSource lerp{"h4_lerp", "template <typename T> __device__ T h4_lerp(T a, T b) { return a / 2 + b; }", "", 1, ""};
  for (const char* loop : {"float32(float32, float32)", "int64(int64, int64)", "float64(float64, float64)"}) {
    codegen::LoopSpec spec = codegen::LoopSpec::exact(Signature::parse(loop));
    spec.inputs = {DType::int16, DType::uint8};  // a's and b's storage may differ from the loop
    CAPTURE(loop);
    CHECK_NOTHROW(compile::compile_cuda(kernels::generate_at_cuda_source(lerp, {}, spec), "h4_lerp", "sm_90"));
  }
  const codegen::UfuncSource mv{"mv", R"(template <class A, class X, class S, class Y>
__device__ void mv(A a, X x, S scale, Y y) {
  for (long long i = 0; i < a.size(0); ++i) { y(i) = 0; for (long long j = 0; j < a.size(1); ++j) y(i) += a(i, j) * x[j] * scale(); }
})", "", 1, ""};
  kernels::GufuncSpec spec{kernels::GufuncLayout::parse("(m,n),(n),()->(m)"),
                           {DType::float32, DType::float32, DType::int32, DType::float32}};
  CHECK_NOTHROW(compile::compile_cuda(kernels::generate_gufunc_cuda_source(mv, {}, spec), "mv", "sm_90"));
}
