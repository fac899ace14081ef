// tests/unit/reduce_support.hpp: the case table of Ufunc::reduce and Ufunc::accumulate, run by
// tests/unit/test_reduce.cpp on the cpu and parallel targets and by
// tests/gpu/test_gpu_reduce.cpp on cuda (host and device arrays).
//
// Every case draws fresh random inputs, computes the float64 reference here (a plain fold in C
// order), and writes into poisoned out= buffers whose uncovered elements must stay poisoned.
// Sums of small integers stored as float32 are exact in any order (below 2^24), so those cases
// compare exactly: an element dropped or counted twice cannot hide under a tolerance. The
// rounding of real float sums is checked separately against the bound of jitvec's order.
#pragma once

#include <algorithm>
#include <cmath>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "catch.hpp"
#include "support.hpp"

namespace jitvec_test {

/// The test engine's reduction ufuncs: h3_add (identity 0; int8, int32, int64, float32,
/// float64), h3_max (no identity), h3_mul (identity 1, float64), h3_first (no loop T(T, T)),
/// h3_neg (one input), h3_three (three inputs).
inline jitvec::Engine& reduce_engine() {
  static std::once_flag once;
  jitvec::Engine& engine = shared_engine();
  std::call_once(once, [&] {
    jitvec::VectorizeOptions zero;
    zero.identity = 0;
    engine.vectorize("h3_add",
                     {"int8(int8, int8)", "int32(int32, int32)", "int64(int64, int64)",
                      "float32(float32, float32)", "float64(float64, float64)"},
                     "template <typename T> __device__ T h3_add(T a, T b) { return a + b; }", zero);
    engine.vectorize("h3_max", {"float32(float32, float32)", "float64(float64, float64)", "int32(int32, int32)"},
                     "template <typename T> __device__ T h3_max(T a, T b) { return a > b ? a : b; }");
    jitvec::VectorizeOptions one;
    one.identity = 1;
    engine.vectorize("h3_mul", {"float64(float64, float64)"},
                     "__device__ double h3_mul(double a, double b) { return a * b; }", one);
    engine.vectorize("h3_neg", {"float32(float32)"}, "__device__ float h3_neg(float a) { return -a; }");
    engine.vectorize("h3_first", {"float32(float32, int32)"},
                     "__device__ float h3_first(float a, int b) { return a; }");
    engine.vectorize("h3_three", {"float32(float32, float32, float32)"},
                     "__device__ float h3_three(float a, float b, float c) { return a + b + c; }");
  });
  return engine;
}

inline std::string reduce_error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no error)";
}

using Fold = std::function<double(double, double)>;

/// How a case's arrays reach the call: host views, or device views of the same buffers.
struct Where {
  jitvec::Target target;
  bool device_arrays;
  jitvec::Array view(TestArray& a) const { return device_arrays ? a.device_view() : a.host_view(); }
  /// The output buffer as the host sees it after the call.
  void fetch(TestArray& a) const {
    if (device_arrays) a.fetch_from_device();
  }
};

/// The float64 reference of reduce over the axes marked in `reduced`: each result (in C order
/// over the kept axes) folds its elements in C order, `init` first when given.
inline std::vector<double> reference_reduce(const TestArray& x, const std::vector<bool>& reduced,
                                            const Fold& f, std::optional<double> init) {
  jitvec::Shape kept, red;
  for (std::size_t d = 0; d < reduced.size(); ++d) (reduced[d] ? red : kept).push_back(x.shape()[d]);
  std::vector<double> values;
  for_each_index(kept, [&](const std::vector<std::int64_t>& k) {
    std::optional<double> acc = init;
    for_each_index(red, [&](const std::vector<std::int64_t>& r) {
      std::vector<std::int64_t> idx;
      std::size_t ki = 0, ri = 0;
      for (std::size_t d = 0; d < reduced.size(); ++d) idx.push_back(reduced[d] ? r[ri++] : k[ki++]);
      const double v = x.at(idx);
      acc = acc ? f(*acc, v) : v;
    });
    values.push_back(acc ? *acc : std::nan(""));
  });
  return values;
}

/// Compares a host result (with or without the kept size-1 axes) with the reference, within
/// `tolerance` (absolute, times 1 + |want|).
inline void check_reduced(const jitvec::Array& result, const std::vector<bool>& reduced, bool keepdims,
                          const std::vector<double>& want, double tolerance) {
  jitvec::Shape kept;
  std::size_t at = 0;
  for (std::size_t d = 0; d < reduced.size(); ++d) {
    if (!reduced[d] || keepdims) kept.push_back(reduced[d] ? 1 : result.shape()[kept.size()]);
  }
  REQUIRE(result.shape() == kept);
  for_each_index(kept, [&](const std::vector<std::int64_t>& idx) {
    const double got = array_at(result, idx);
    const double w = want[at++];
    if (!(std::fabs(got - w) <= tolerance * (1 + std::fabs(w)))) {
      FAIL_CHECK("result at " << jitvec::shape_to_string(idx) << ": " << got << ", want " << w);
    }
  });
}

/// Rounds every element of x's view to an integer (before any device copy is made), so that
/// sums are exact in float32.
inline void integerize(TestArray& x) {
  jitvec::Array v = x.host_view();
  const std::size_t size = jitvec::dtype_size(v.dtype());
  for_each_index(v.shape(), [&](const std::vector<std::int64_t>& idx) {
    std::int64_t offset = 0;
    for (std::size_t d = 0; d < idx.size(); ++d) offset += idx[d] * v.strides()[d];
    void* at = static_cast<char*>(v.data()) + offset * static_cast<std::int64_t>(size);
    store_from_double(v.dtype(), std::round(load_as_double(v.dtype(), at)), at);
  });
}

inline void check_poison_kept(const TestArray& out) {
  const std::vector<bool> covered = out.covered();
  for (std::int64_t i = 0; i < out.base_elements(); ++i) {
    if (!covered[static_cast<std::size_t>(i)]) CHECK(out.base_poisoned(i));
  }
}

inline std::vector<bool> axes_mask(int ndim, const std::optional<std::vector<int>>& axes) {
  std::vector<bool> mask(static_cast<std::size_t>(ndim), !axes.has_value());
  if (axes) {
    for (int a : *axes) mask[static_cast<std::size_t>(a < 0 ? a + ndim : a)] = true;
  }
  return mask;
}

/// One reduce case: a view of a random buffer (small integers as float32: exact sums), reduced
/// over `axes`, with and without keepdims, compared exactly with the reference.
struct ReduceCase {
  std::string name;
  std::int64_t base;
  std::int64_t offset;
  jitvec::Shape shape;
  jitvec::Strides strides;
  std::optional<std::vector<int>> axes;
};

inline std::vector<ReduceCase> reduce_cases() {
  return {
      {"0-d", 1, 0, {}, {}, std::nullopt},
      {"one element", 1, 0, {1}, {1}, std::nullopt},
      {"odd 1-d", 1001, 0, {1001}, {1}, std::nullopt},
      {"1-d over several chunks and two passes", 70001, 0, {70001}, {1}, std::nullopt},
      {"1-d reversed", 5000, 4999, {5000}, {-1}, std::nullopt},
      {"1-d stepped by 3", 3 * 4099, 1, {4099}, {3}, std::nullopt},
      {"rows: (37, 1030) axis 1", 37 * 1030, 0, {37, 1030}, {1030, 1}, std::vector<int>{1}},
      {"rows, padded and reversed rows: (21, 700) of (21, 705)", 21 * 705, 20 * 705 + 2, {21, 700}, {-705, 1}, std::vector<int>{-1}},
      {"cols: (1030, 37) axis 0", 1030 * 37, 0, {1030, 37}, {37, 1}, std::vector<int>{0}},
      {"cols over several chunks: (3000, 5) axis 0", 3000 * 5, 0, {3000, 5}, {5, 1}, std::vector<int>{0}},
      {"short rows: (500, 3) axis 1", 1500, 0, {500, 3}, {3, 1}, std::vector<int>{1}},
      {"transposed: (40, 300) of a (300, 40)", 12000, 0, {40, 300}, {1, 40}, std::vector<int>{1}},
      {"3-d axes (0, 2)", 5 * 7 * 9, 0, {5, 7, 9}, {63, 9, 1}, std::vector<int>{0, 2}},
      {"3-d axes (1,) with negative strides", 6 * 11 * 13, 6 * 11 * 13 - 1, {6, 11, 13}, {-143, -13, -1}, std::vector<int>{1}},
      {"4-d all, stepped", 4 * 6 * 5 * 8, 0, {4, 3, 5, 4}, {240, 80, 16, 2}, std::nullopt},
      {"no axes: the elements themselves", 24, 0, {4, 6}, {6, 1}, std::vector<int>{}},
      {"size-1 axes", 1 * 9 * 1, 0, {1, 9, 1}, {9, 1, 1}, std::vector<int>{0, 2}},
  };
}

inline void run_reduce_cases(const Where& where) {
  jitvec::Ufunc add = reduce_engine().ufunc("h3_add");
  const Fold plus = [](double a, double b) { return a + b; };
  for (const ReduceCase& c : reduce_cases()) {
    for (bool keepdims : {false, true}) {
      CAPTURE(c.name, keepdims, jitvec::target_name(where.target), where.device_arrays);
      TestArray x = TestArray::random_view(jitvec::DType::float32, c.base, c.offset, c.shape, c.strides, -8, 8);
      integerize(x);
      const std::vector<bool> mask = axes_mask(static_cast<int>(c.shape.size()), c.axes);
      jitvec::ReduceOptions options;
      options.axes = c.axes;
      options.keepdims = keepdims;
      options.target = where.target;
      jitvec::Array result = add.reduce(where.view(x), options).to_host();
      check_reduced(result, mask, keepdims, reference_reduce(x, mask, plus, std::nullopt), 0.0);
    }
  }
}


/// The float64 reference of accumulate along `axis`: each line folded in order.
inline std::vector<double> reference_accumulate(const TestArray& x, int axis, const Fold& f) {
  if (axis < 0) axis += static_cast<int>(x.shape().size());
  std::vector<double> values;
  for_each_index(x.shape(), [&](const std::vector<std::int64_t>& idx) {
    std::vector<std::int64_t> j = idx;
    double acc = 0;
    for (std::int64_t i = 0; i <= idx[static_cast<std::size_t>(axis)]; ++i) {
      j[static_cast<std::size_t>(axis)] = i;
      acc = i == 0 ? x.at(j) : f(acc, x.at(j));
    }
    values.push_back(acc);
  });
  return values;
}

inline void check_same_shape(const jitvec::Array& result, const std::vector<double>& want, double tolerance) {
  std::size_t at = 0;
  for_each_index(result.shape(), [&](const std::vector<std::int64_t>& idx) {
    const double got = array_at(result, idx);
    const double w = want[at++];
    if (!(std::fabs(got - w) <= tolerance * (1 + std::fabs(w)))) {
      FAIL_CHECK("result at " << jitvec::shape_to_string(idx) << ": " << got << ", want " << w);
    }
  });
}

struct AccumulateCase {
  std::string name;
  std::int64_t base;
  std::int64_t offset;
  jitvec::Shape shape;
  jitvec::Strides strides;
  int axis;
};

inline std::vector<AccumulateCase> accumulate_cases() {
  return {
      {"one element", 1, 0, {1}, {1}, 0},
      {"odd 1-d", 1001, 0, {1001}, {1}, 0},
      {"1-d over several tiles", 20001, 0, {20001}, {1}, -1},
      {"1-d reversed", 9000, 8999, {9000}, {-1}, 0},
      {"rows of several tiles: (3, 10000) axis 1", 30000, 0, {3, 10000}, {10000, 1}, 1},
      {"lines: (2000, 3) axis 0", 6000, 0, {2000, 3}, {3, 1}, 0},
      {"short rows: (300, 5) axis 1", 1500, 0, {300, 5}, {5, 1}, 1},
      {"3-d axis 1, negative strides", 5 * 7 * 9, 5 * 7 * 9 - 1, {5, 7, 9}, {-63, -9, -1}, 1},
      {"3-d axis 0, stepped", 6 * 4 * 10, 0, {6, 4, 5}, {40, 10, 2}, 0},
      {"transposed rows: (70, 200) of (200, 70) axis 1", 14000, 0, {70, 200}, {1, 70}, 1},
      {"empty", 1, 0, {0, 4}, {4, 1}, 1},
  };
}

inline void run_accumulate_cases(const Where& where) {
  jitvec::Ufunc add = reduce_engine().ufunc("h3_add");
  jitvec::Ufunc max = reduce_engine().ufunc("h3_max");
  const Fold plus = [](double a, double b) { return a + b; };
  const Fold larger = [](double a, double b) { return std::max(a, b); };
  for (const AccumulateCase& c : accumulate_cases()) {
    CAPTURE(c.name, jitvec::target_name(where.target), where.device_arrays);
    TestArray x = TestArray::random_view(jitvec::DType::float32, c.base, c.offset, c.shape, c.strides, -8, 8);
    integerize(x);
    jitvec::AccumulateOptions options;
    options.target = where.target;
    jitvec::Array sum = add.accumulate(where.view(x), c.axis, options).to_host();
    REQUIRE(sum.shape() == c.shape);
    check_same_shape(sum, reference_accumulate(x, c.axis, plus), 0.0);
    jitvec::Array running_max = max.accumulate(where.view(x), c.axis, options).to_host();
    check_same_shape(running_max, reference_accumulate(x, c.axis, larger), 0.0);

    // Into a poisoned out= of float64 whose rows are padded and reversed.
    if (c.shape.size() == 2 && c.shape[0] > 0) {
      const std::int64_t rows = c.shape[0], cols = c.shape[1];
      TestArray o = TestArray::poisoned_view(jitvec::DType::float64, rows * (cols + 3), (rows - 1) * (cols + 3),
                                             c.shape, {-(cols + 3), 1});
      options.out = where.view(o);
      add.accumulate(where.view(x), c.axis, options);
      options.out.reset();
      where.fetch(o);
      check_same_shape(o.host_view(), reference_accumulate(x, c.axis, plus), 0.0);
      check_poison_kept(o);
    }
  }
}

/// initial, the identity of an empty reduction, dtype=, out= (poisoned, strided), max and mul.
inline void run_reduce_options(const Where& where) {
  jitvec::Engine& engine = reduce_engine();
  jitvec::Ufunc add = engine.ufunc("h3_add");
  const Fold plus = [](double a, double b) { return a + b; };
  jitvec::ReduceOptions base;
  base.target = where.target;
  CAPTURE(jitvec::target_name(where.target), where.device_arrays);

  // initial, folded into every result; keepdims; several axes.
  TestArray x = TestArray::random(jitvec::DType::float32, {6, 5, 4}, -8, 8);
  integerize(x);
  jitvec::ReduceOptions o = base;
  o.axes = std::vector<int>{0, 2};
  o.initial = 100.0;
  check_reduced(add.reduce(where.view(x), o).to_host(), axes_mask(3, o.axes), false,
                reference_reduce(x, axes_mask(3, o.axes), plus, 100.0), 0.0);

  // The identity (or initial) is the result of an empty reduction; other shapes stay empty.
  TestArray empty = TestArray::random(jitvec::DType::float32, {3, 0}, -8, 8);
  o = base;
  o.axes = std::vector<int>{1};
  jitvec::Array zeros = add.reduce(where.view(empty), o).to_host();
  REQUIRE(zeros.shape() == jitvec::Shape{3});
  for (std::int64_t i = 0; i < 3; ++i) CHECK(array_at(zeros, {i}) == 0.0);
  o.initial = -2.5;
  jitvec::Array initials = add.reduce(where.view(empty), o).to_host();
  for (std::int64_t i = 0; i < 3; ++i) CHECK(array_at(initials, {i}) == -2.5);
  o = base;
  o.axes = std::vector<int>{0};
  CHECK(add.reduce(where.view(empty), o).shape() == jitvec::Shape{0});
  jitvec::Ufunc mul = engine.ufunc("h3_mul");
  TestArray none = TestArray::random(jitvec::DType::float64, {0}, 0, 1);
  CHECK(array_at(mul.reduce(where.view(none), base).to_host(), {}) == 1.0);
  jitvec::Ufunc max = engine.ufunc("h3_max");
  o = base;
  o.axes = std::vector<int>{0};
  CHECK(max.reduce(where.view(empty), o).shape() == jitvec::Shape{0});  // no element to fold: fine

  // dtype=: int8 summed in int8 wraps; in int64 it is exact.
  TestArray bytes = TestArray::random(jitvec::DType::int8, {4000}, -100, 100);
  double exact = 0;
  for (std::int64_t i = 0; i < 4000; ++i) exact += bytes.at({i});
  o = base;
  o.dtype = jitvec::DType::int64;
  jitvec::Array wide = add.reduce(where.view(bytes), o).to_host();
  CHECK(wide.dtype() == jitvec::DType::int64);
  CHECK(array_at(wide, {}) == exact);
  jitvec::Array narrow = add.reduce(where.view(bytes), base).to_host();
  CHECK(narrow.dtype() == jitvec::DType::int8);
  CHECK(array_at(narrow, {}) == static_cast<double>(static_cast<std::int8_t>(static_cast<std::int64_t>(exact))));

  // out=: a float64 column of a wider buffer, poisoned; the call returns it.
  TestArray m = TestArray::random(jitvec::DType::float32, {7, 300}, -8, 8);
  integerize(m);
  TestArray col = TestArray::poisoned_view(jitvec::DType::float64, 7 * 3, 1, {7}, {3});
  o = base;
  o.axes = std::vector<int>{1};
  o.out = where.view(col);
  add.reduce(where.view(m), o);
  where.fetch(col);
  check_reduced(col.host_view(), axes_mask(2, o.axes), false,
                reference_reduce(m, axes_mask(2, o.axes), plus, std::nullopt), 0.0);
  check_poison_kept(col);
  // with keepdims, out= has the kept axis
  TestArray kept = TestArray::poisoned_view(jitvec::DType::float32, 7, 0, {7, 1}, {1, 1});
  o.keepdims = true;
  o.out = where.view(kept);
  add.reduce(where.view(m), o);
  where.fetch(kept);
  check_reduced(kept.host_view(), axes_mask(2, o.axes), true,
                reference_reduce(m, axes_mask(2, o.axes), plus, std::nullopt), 0.0);

  // max (no identity) of real floats: exact in any order.
  TestArray r = TestArray::random_view(jitvec::DType::float64, 9 * 40, 9 * 40 - 1, {9, 40}, {-40, -1}, -1e3, 1e3);
  for (int axis : {0, 1}) {
    o = base;
    o.axes = std::vector<int>{axis};
    check_reduced(max.reduce(where.view(r), o).to_host(), axes_mask(2, o.axes), false,
                  reference_reduce(r, axes_mask(2, o.axes), [](double a, double b) { return std::max(a, b); },
                                   std::nullopt),
                  0.0);
  }
}

/// Real float32 sums: the error stays within jitvec's bound, the bits are the same from run to
/// run (and, on the host, between cpu and parallel).
inline void run_reduce_rounding(const Where& where) {
  jitvec::Ufunc add = reduce_engine().ufunc("h3_add");
  CAPTURE(jitvec::target_name(where.target), where.device_arrays);
  for (std::int64_t n : {std::int64_t{1} << 20, std::int64_t{3000001}}) {
    CAPTURE(n);
    TestArray x = TestArray::random(jitvec::DType::float32, {n}, 0, 1);
    double exact = 0, magnitude = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      exact += x.at({i});
      magnitude += std::fabs(x.at({i}));
    }
    jitvec::ReduceOptions o;
    o.target = where.target;
    const float first = add.reduce(where.view(x), o).to_host().to_vector<float>()[0];
    // The longest chain of roundings of jitvec's order for n elements: per pass, kReduceItems
    // sequential folds of a slot, then log2(VEC) + log2(256) tree levels; at most 3 passes here.
    const double depth = 3 * (16 + 2 + 8);
    const double unit = std::ldexp(1.0, -24);
    CHECK(std::fabs(first - exact) <= depth * unit * magnitude);
    for (int run = 0; run < 3; ++run) {
      CHECK(add.reduce(where.view(x), o).to_host().to_vector<float>()[0] == first);
    }
    if (where.target != jitvec::Target::cuda) {
      o.target = where.target == jitvec::Target::cpu ? jitvec::Target::parallel : jitvec::Target::cpu;
      CHECK(add.reduce(where.view(x), o).to_host().to_vector<float>()[0] == first);
    }
  }
}

}  // namespace jitvec_test
