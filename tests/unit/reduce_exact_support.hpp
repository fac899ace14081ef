// tests/unit/reduce_exact_support.hpp: issue 25's reduce cases, run by tests/unit/
// test_reduce_exact.cpp on the cpu and parallel targets and by tests/gpu/
// test_gpu_reduce_exact.cpp on cuda (host and device arrays).
//
// An initial or identity is a jitvec::Scalar held exactly, so every case here uses values that
// float64 cannot carry (2^53 + 1, a 17-digit int64, 2^64 - 1, INT64_MIN), bool and complex
// accumulators, and empty out= arrays whose dimensions have zero strides (as NumPy makes them).
// Inputs are fresh random integers each run; the references are exact integer (wrapping
// uint64) or integer-valued float arithmetic in C++, so the comparisons are exact, and out=
// buffers are poisoned so an element left unwritten shows.
#pragma once

#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "catch.hpp"
#include "gufunc_cases.hpp"
#include "reduce_support.hpp"
#include "support.hpp"

namespace jitvec_test {

/// The ufuncs of these cases: x25_add (identity 0; int64, uint64, float64, complex64,
/// complex128), x25_max (int64, no identity), x25_or (bool(bool, bool), identity the int 0: an
/// integer identity of a bool accumulator), x25_and (uint64 bitwise and, identity 2^64 - 1).
inline jitvec::Engine& exact_engine() {
  static std::once_flag once;
  jitvec::Engine& engine = shared_engine();
  std::call_once(once, [&] {
    jitvec::VectorizeOptions zero;
    zero.identity = 0;
    engine.vectorize("x25_add",
                     {"int64(int64, int64)", "uint64(uint64, uint64)", "float64(float64, float64)",
                      "complex64(complex64, complex64)", "complex128(complex128, complex128)"},
                     "template <typename T> __device__ T x25_add(T a, T b) { return a + b; }", zero);
    engine.vectorize("x25_max", {"int64(int64, int64)"},
                     "__device__ long long x25_max(long long a, long long b) { return a > b ? a : b; }");
    engine.vectorize("x25_or", {"bool(bool, bool)"}, "__device__ bool x25_or(bool a, bool b) { return a || b; }",
                     zero);
    jitvec::VectorizeOptions ones;
    ones.identity = std::numeric_limits<std::uint64_t>::max();
    engine.vectorize("x25_and", {"uint64(uint64, uint64)"},
                     "__device__ unsigned long long x25_and(unsigned long long a, unsigned long long b) "
                     "{ return a & b; }",
                     ones);
  });
  return engine;
}

/// A host array of `values` (copied), 1-d.
template <class T> jitvec::Array host_array(const std::vector<T>& values) {
  jitvec::Array a = jitvec::Array::empty(jitvec::dtype_of<T>(), {static_cast<std::int64_t>(values.size())});
  if (!values.empty()) std::memcpy(a.data(), values.data(), values.size() * sizeof(T));
  return a;
}

/// `a` where the case runs: itself, or a device copy.
inline jitvec::Array placed(const Where& where, const jitvec::Array& a) {
  return where.device_arrays ? a.to_device() : a;
}

/// Element `i` (flat, C order) of a result, read in its own type: no double in between.
template <class T> T element(const jitvec::Array& result, std::int64_t i = 0) {
  const jitvec::Array host = result.to_host();
  REQUIRE(host.dtype() == jitvec::dtype_of<T>());
  REQUIRE(host.is_contiguous());
  T value;
  std::memcpy(&value, static_cast<const char*>(host.data()) + i * static_cast<std::int64_t>(sizeof(T)), sizeof(T));
  return value;
}

/// Random integers in [lo, hi], `n` of them.
template <class T> std::vector<T> random_integers(std::size_t n, T lo, T hi) {
  std::uniform_int_distribution<T> pick(lo, hi);
  std::vector<T> v(n);
  for (T& x : v) x = pick(rng());
  return v;
}

/// Defects 1-3 of issue 25: initial and identity exact in int64, uint64, complex and bool
/// accumulators, and a complex initial on a real accumulator a clear error.
inline void run_reduce_exact_initial(const Where& where) {
  jitvec::Engine& engine = exact_engine();
  jitvec::Ufunc add = engine.ufunc("x25_add"), max = engine.ufunc("x25_max");
  jitvec::Ufunc logical_or = engine.ufunc("x25_or"), bit_and = engine.ufunc("x25_and");
  jitvec::ReduceOptions base;
  base.target = where.target;
  CAPTURE(jitvec::target_name(where.target), where.device_arrays, rng_seed());
  using i64 = std::int64_t;
  using u64 = std::uint64_t;
  constexpr i64 k2p53p1 = (i64{1} << 53) + 1;
  constexpr i64 k17digits = 24792579599853831;
  constexpr u64 kU64Max = std::numeric_limits<u64>::max();
  constexpr i64 kI64Min = std::numeric_limits<i64>::min(), kI64Max = std::numeric_limits<i64>::max();

  // int64: 2^53 + 1 folded into zeros, and into random values (wrapping sums, exact in u64).
  jitvec::ReduceOptions o = base;
  o.initial = k2p53p1;
  CHECK(element<i64>(add.reduce(placed(where, host_array(std::vector<i64>(3, 0))), o)) == k2p53p1);
  const std::vector<i64> big = random_integers<i64>(1000 + rng()() % 3000, -(i64{1} << 60), i64{1} << 60);
  u64 wrapped = static_cast<u64>(k2p53p1);
  for (i64 v : big) wrapped += static_cast<u64>(v);
  CHECK(element<i64>(add.reduce(placed(where, host_array(big)), o)) == static_cast<i64>(wrapped));
  // A maximum-style fold: a 17-digit initial above every element is the result, to the digit;
  // INT64_MIN below every element changes nothing; on an empty input each is the result.
  const std::vector<i64> below = random_integers<i64>(777, -k17digits, k17digits - 1);
  o.initial = k17digits;
  CHECK(element<i64>(max.reduce(placed(where, host_array(below)), o)) == k17digits);
  o.initial = kI64Min;
  CHECK(element<i64>(max.reduce(placed(where, host_array(below)), o)) == *std::max_element(below.begin(), below.end()));
  CHECK(element<i64>(max.reduce(placed(where, host_array(std::vector<i64>{})), o)) == kI64Min);
  o.initial = kI64Max;
  CHECK(element<i64>(max.reduce(placed(where, host_array(std::vector<i64>{})), o)) == kI64Max);

  // uint64: 2^64 - 1 as an initial (NumPy's uint64 max), and as x25_and's identity (empty
  // input, and where='s masked elements).
  o.initial = kU64Max;
  CHECK(element<u64>(add.reduce(placed(where, host_array(std::vector<u64>(5, 0))), o)) == kU64Max);
  const std::vector<u64> bits = random_integers<u64>(2000, 0, kU64Max);
  u64 sum = kU64Max, all = kU64Max;
  for (u64 v : bits) sum += v;
  CHECK(element<u64>(add.reduce(placed(where, host_array(bits)), o)) == sum);
  CHECK(element<u64>(bit_and.reduce(placed(where, host_array(std::vector<u64>{})), base)) == kU64Max);
  jitvec::Array mask = jitvec::Array::empty(jitvec::DType::bool_, {static_cast<i64>(bits.size())});
  for (std::size_t i = 0; i < bits.size(); ++i) {
    const bool keep = rng()() % 64 == 0;  // a few elements: their and is not 0
    static_cast<bool*>(mask.data())[i] = keep;
    if (keep) all &= bits[i];
  }
  o = base;
  o.where = placed(where, mask);
  CHECK(element<u64>(bit_and.reduce(placed(where, host_array(bits)), o)) == all);

  // complex: an initial with both parts, exact in complex64 and complex128 (integer-valued
  // random parts, so the sums are exact in any order).
  for (jitvec::DType t : {jitvec::DType::complex64, jitvec::DType::complex128}) {
    CAPTURE(jitvec::dtype_name(t));
    TestArray x = TestArray::random(t, {37, 50}, -64, 64);
    integerize(x);
    jitvec::ReduceOptions c = base;
    c.axes = std::vector<int>{1};
    c.initial = std::complex<double>(0.5, -0.25);
    const jitvec::Array r = add.reduce(where.view(x), c).to_host();
    REQUIRE(r.dtype() == t);
    for (i64 row = 0; row < 37; ++row) {
      std::complex<double> want(0.5, -0.25);
      const jitvec::Array line = x.host_view().slice(0, row, row + 1, 1).reshape({50});
      for (i64 j = 0; j < 50; ++j) {
        const char* at = static_cast<const char*>(line.data()) +
                         j * line.strides()[0] * static_cast<i64>(jitvec::dtype_size(t));
        if (t == jitvec::DType::complex64) {
          std::complex<float> v;
          std::memcpy(&v, at, sizeof v);
          want += std::complex<double>(v);
        } else {
          std::complex<double> v;
          std::memcpy(&v, at, sizeof v);
          want += v;
        }
      }
      const std::complex<double> got = t == jitvec::DType::complex64
                                           ? std::complex<double>(element<std::complex<float>>(r, row))
                                           : element<std::complex<double>>(r, row);
      CHECK(got == want);
    }
  }
  // A complex initial of a real accumulator: NumPy's casting rule, said so.
  o = base;
  o.initial = std::complex<double>(0.5, -0.25);
  CHECK_THAT(reduce_error_of([&] { add.reduce(placed(where, host_array(std::vector<double>(4, 1.0))), o); }),
             Catch::Matchers::Contains("ufunc 'x25_add': reduce(): the initial (0.5-0.25j) (complex128) does not fit "
                                       "the accumulator type float64: float64 is real, and a complex value does not "
                                       "cast to a real type (NumPy's casting rule: numpy.can_cast(complex128, "
                                       "float64, 'safe') is False)"));
  // An integer float64 cannot hold exactly is refused, not rounded.
  o.initial = k2p53p1;
  CHECK_THAT(reduce_error_of([&] { add.reduce(placed(where, host_array(std::vector<double>(4, 1.0))), o); }),
             Catch::Matchers::Contains("the initial 9007199254740993 (int64) does not fit the accumulator type "
                                       "float64: float64 cannot hold this integer exactly"));
  o.initial = kU64Max;
  CHECK_THAT(reduce_error_of([&] { add.reduce(placed(where, host_array(std::vector<i64>(4, 1))), o); }),
             Catch::Matchers::Contains("the initial 18446744073709551615 (uint64) does not fit the accumulator type "
                                       "int64: it is outside int64's range [-9223372036854775808, "
                                       "9223372036854775807]"));

  // bool: the int identity 0 is false; an initial of false, true, 0 or 1; random rows
  // against a plain any().
  CHECK(element<bool>(logical_or.reduce(placed(where, jitvec::Array::empty(jitvec::DType::bool_, {0})), base)) ==
        false);
  jitvec::Array two = jitvec::Array::empty(jitvec::DType::bool_, {2});
  static_cast<bool*>(two.data())[0] = true;
  static_cast<bool*>(two.data())[1] = false;
  o = base;
  o.initial = false;
  CHECK(element<bool>(logical_or.reduce(placed(where, two), o)) == true);
  const i64 rows = 41, cols = 33;
  jitvec::Array flags = jitvec::Array::empty(jitvec::DType::bool_, {rows, cols});
  std::vector<bool> any(static_cast<std::size_t>(rows), false);
  for (i64 i = 0; i < rows * cols; ++i) {
    const bool v = rng()() % 50 == 0;
    static_cast<bool*>(flags.data())[i] = v;
    if (v) any[static_cast<std::size_t>(i / cols)] = true;
  }
  o.axes = std::vector<int>{1};
  for (int initial : {0, 1}) {
    o.initial = initial;  // an int: 0 and 1 are exact in bool
    const jitvec::Array r = logical_or.reduce(placed(where, flags), o);
    for (i64 i = 0; i < rows; ++i) CHECK(element<bool>(r, i) == (initial == 1 || any[static_cast<std::size_t>(i)]));
  }
  o.axes.reset();
  o.initial = 2;
  CHECK_THAT(reduce_error_of([&] { logical_or.reduce(placed(where, two), o); }),
             Catch::Matchers::Contains("ufunc 'x25_or': reduce(): the initial 2 (int32) does not fit the accumulator "
                                       "type bool: a bool holds only true, false, 0 and 1"));
}

/// Defect 4 of issue 25: an empty out= has zero strides (NumPy's empty arrays do), and is no
/// broadcast view: calls, reduce and gufuncs take it; a non-empty broadcast view is still refused.
inline void run_empty_out(const Where& where) {
  jitvec::Engine& engine = exact_engine();
  jitvec::Ufunc add = engine.ufunc("x25_add");
  CAPTURE(jitvec::target_name(where.target), where.device_arrays);
  const jitvec::Memory memory = where.device_arrays ? jitvec::Memory::device : jitvec::Memory::host;
  // Storage for a zero-stride view (never written: it holds no element).
  jitvec::Array storage = jitvec::Array::empty(jitvec::DType::float64, {1}, memory);
  auto zero_strided = [&](jitvec::Shape shape) {
    return jitvec::Array::wrap(storage.data(), jitvec::DType::float64, shape,
                               jitvec::Strides(shape.size(), 0), memory, storage.device());
  };
  const jitvec::Array ones = jitvec::Array::empty(jitvec::DType::float64, {3, 0, 4}, memory);
  const jitvec::Array out = zero_strided({3, 0, 4});
  const jitvec::Array result = add(ones, 1.0, jitvec::out(out), jitvec::target(where.target));
  CHECK(result.shape() == jitvec::Shape{3, 0, 4});
  // A non-empty broadcast out= is still an error.
  const jitvec::Array full = jitvec::Array::empty(jitvec::DType::float64, {3, 1, 4}, memory);
  CHECK_THAT(reduce_error_of([&] { add(full, 1.0, jitvec::out(zero_strided({3, 1, 4})), jitvec::target(where.target)); }),
             Catch::Matchers::Contains("ufunc 'x25_add': out= has stride 0 in dimension 0 (a broadcast view)"));

  // reduce: (3, 0, 4) over axis 0 is (0, 4), into a zero-strided empty out=.
  jitvec::ReduceOptions o;
  o.target = where.target;
  o.axes = std::vector<int>{0};
  o.out = zero_strided({0, 4});
  CHECK(add.reduce(ones, o).shape() == jitvec::Shape{0, 4});
  // Over axis 1 the result has elements: a zero-strided out= of it is refused.
  o.axes = std::vector<int>{1};
  o.out = zero_strided({3, 4});
  CHECK_THAT(reduce_error_of([&] { add.reduce(ones, o); }),
             Catch::Matchers::Contains("ufunc 'x25_add': reduce(): out= has stride 0 in dimension 0 (a broadcast view)"));
  // ...and into a poisoned out= of its shape it is the identity, everywhere.
  TestArray poisoned = TestArray::poisoned_view(jitvec::DType::float64, 3 * 5, 0, {3, 4}, {5, 1});
  o.out = where.view(poisoned);
  add.reduce(ones, o);
  where.fetch(poisoned);
  for (std::int64_t i = 0; i < 3; ++i) {
    for (std::int64_t j = 0; j < 4; ++j) CHECK(poisoned.at({i, j}) == 0.0);
  }
  check_poison_kept(poisoned);

  // A gufunc: h4_movavg (n),()->(n) over 0 rows of 4, into a zero-strided (0, 4) out=.
  define_test_gufuncs(engine);
  jitvec::Gufunc movavg = engine.gufunc("h4_movavg");
  const jitvec::Array rows = jitvec::Array::empty(jitvec::DType::float64, {0, 4}, memory);
  const jitvec::Array averaged = zero_strided({0, 4});
  CHECK(movavg(rows, std::int64_t{2}, jitvec::out(averaged), jitvec::target(where.target)).shape() ==
        jitvec::Shape{0, 4});
}

}  // namespace jitvec_test
