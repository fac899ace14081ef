// tests/unit/reduce_where_support.hpp: the cases of Ufunc::reduce's where= mask, run by
// tests/unit/test_reduce_where.cpp on the cpu and parallel targets and by
// tests/gpu/test_gpu_reduce_where.cpp on cuda (device arrays, and host arrays).
//
// Every case draws fresh random inputs and masks and compares with a float64 reference computed
// here with NumPy's semantics (each output folds its selected elements in C order, `initial`
// first when given; one with no selected element is `initial`, else the identity). Inputs are
// small integers stored as float32 (exact sums in any order), so the comparisons are exact: an
// element masked wrongly, dropped or counted twice shows. out= buffers are poisoned, and what
// the view does not cover must stay poisoned. Real float data checks that an all-true mask
// gives the same bits as no mask.
#pragma once

#include <cstring>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "reduce_support.hpp"

namespace jitvec_test {

/// reduce_engine()'s ufuncs plus: rw_max (identity -inf; float32, int8), rw_or (bool, identity
/// 0) and rw_cadd (complex64 add, identity 0).
inline jitvec::Engine& where_engine() {
  static std::once_flag once;
  jitvec::Engine& engine = reduce_engine();
  std::call_once(once, [&] {
    jitvec::VectorizeOptions low;
    low.identity = -INFINITY;
    engine.vectorize("rw_max", {"float32(float32, float32)", "int8(int8, int8)"},
                     "template <typename T> __device__ T rw_max(T a, T b) { return a > b ? a : b; }", low);
    jitvec::VectorizeOptions zero;
    zero.identity = 0;
    engine.vectorize("rw_or", {"bool(bool, bool)"}, "__device__ bool rw_or(bool a, bool b) { return a || b; }", zero);
    engine.vectorize("rw_cadd", {"complex64(complex64, complex64)"},
                     "__device__ complex<float> rw_cadd(complex<float> a, complex<float> b) { return a + b; }", zero);
  });
  return engine;
}

/// The reference of reduce(x, where=mask) over the axes marked in `reduced`: NumPy's result.
inline std::vector<double> reference_where(const TestArray& x, const TestArray& mask,
                                           const std::vector<bool>& reduced, const Fold& f,
                                           std::optional<double> init, double identity) {
  jitvec::Shape kept, red;
  for (std::size_t d = 0; d < reduced.size(); ++d) (reduced[d] ? red : kept).push_back(x.shape()[d]);
  std::vector<double> values;
  for_each_index(kept, [&](const std::vector<std::int64_t>& k) {
    std::optional<double> acc = init;
    for_each_index(red, [&](const std::vector<std::int64_t>& r) {
      std::vector<std::int64_t> idx;
      std::size_t ki = 0, ri = 0;
      for (std::size_t d = 0; d < reduced.size(); ++d) idx.push_back(reduced[d] ? r[ri++] : k[ki++]);
      if (mask.at(broadcast_index(idx, mask.shape())) == 0) return;
      const double v = x.at(idx);
      acc = acc ? f(*acc, v) : v;
    });
    values.push_back(acc ? *acc : identity);
  });
  return values;
}

/// A contiguous bool array of `shape` holding `value` everywhere.
inline TestArray constant_mask(const jitvec::Shape& shape, bool value) {
  TestArray mask = TestArray::random(jitvec::DType::bool_, shape, 0, 1);
  jitvec::Array view = mask.host_view();
  std::memset(view.data(), value ? 1 : 0, static_cast<std::size_t>(view.size()));
  return mask;
}

/// Mask shapes for x's shape: x's own, and where x has two dimensions or more, (1, ..., n) and
/// (m, 1, ..., 1); for a 1-d x, (1,) too.
inline std::vector<jitvec::Shape> mask_shapes(const jitvec::Shape& shape) {
  std::vector<jitvec::Shape> shapes{shape};
  if (shape.size() >= 2) {
    jitvec::Shape last(shape.size(), 1), first(shape.size(), 1);
    last.back() = shape.back();
    first.front() = shape.front();
    shapes.push_back(last);
    shapes.push_back(first);
    shapes.push_back(jitvec::Shape(shape.begin() + 1, shape.end()));  // fewer dimensions
  } else if (shape.size() == 1) {
    shapes.push_back(jitvec::Shape{1});
  }
  return shapes;
}

/// reduce_cases() (odd shapes, negative and stepped strides, 0-d, no axes, size-1 axes) with
/// masks of each shape of mask_shapes(), with and without keepdims and initial.
inline void run_where_cases(const Where& where) {
  jitvec::Ufunc add = where_engine().ufunc("h3_add");
  const Fold plus = [](double a, double b) { return a + b; };
  for (const ReduceCase& c : reduce_cases()) {
    for (const jitvec::Shape& mshape : mask_shapes(c.shape)) {
      for (int variant = 0; variant < 2; ++variant) {
        const bool keepdims = variant == 1;
        const std::optional<double> initial = variant == 1 ? std::optional<double>(1000.0) : std::nullopt;
        CAPTURE(c.name, jitvec::shape_to_string(mshape), keepdims, jitvec::target_name(where.target),
                where.device_arrays);
        TestArray x = TestArray::random_view(jitvec::DType::float32, c.base, c.offset, c.shape, c.strides, -8, 8);
        integerize(x);
        TestArray mask = TestArray::random(jitvec::DType::bool_, mshape, 0, 1);
        const std::vector<bool> reduced = axes_mask(static_cast<int>(c.shape.size()), c.axes);
        jitvec::ReduceOptions options;
        options.axes = c.axes;
        options.keepdims = keepdims;
        options.initial = initial;
        options.target = where.target;
        options.where = where.view(mask);
        jitvec::Array result = add.reduce(where.view(x), options);
        CHECK(result.is_device() == where.device_arrays);
        check_reduced(result.to_host(), reduced, keepdims, reference_where(x, mask, reduced, plus, initial, 0.0), 0.0);
      }
    }
  }
}

/// A reversed, stepped mask view; all-false and all-true masks; several axes; max with an
/// identity of -inf; mul (identity 1).
inline void run_where_masks(const Where& where) {
  jitvec::Engine& engine = where_engine();
  jitvec::Ufunc add = engine.ufunc("h3_add");
  const Fold plus = [](double a, double b) { return a + b; };
  CAPTURE(jitvec::target_name(where.target), where.device_arrays);
  jitvec::ReduceOptions base;
  base.target = where.target;

  // The mask itself a strided view: rows reversed, every other column.
  TestArray x = TestArray::random(jitvec::DType::float32, {9, 300}, -8, 8);
  integerize(x);
  TestArray mask = TestArray::random_view(jitvec::DType::bool_, 9 * 600, 8 * 600, {9, 300}, {-600, 2}, 0, 1);
  for (const std::optional<std::vector<int>>& axes :
       {std::optional<std::vector<int>>{std::vector<int>{0}}, std::optional<std::vector<int>>{std::vector<int>{1}},
        std::optional<std::vector<int>>{}, std::optional<std::vector<int>>{std::vector<int>{}}}) {
    jitvec::ReduceOptions o = base;
    o.axes = axes;
    o.where = where.view(mask);
    const std::vector<bool> reduced = axes_mask(2, axes);
    check_reduced(add.reduce(where.view(x), o).to_host(), reduced, false,
                  reference_where(x, mask, reduced, plus, std::nullopt, 0.0), 0.0);
  }

  // All false: each output is initial, else the identity (0 for add, 1 for mul, -inf for max).
  TestArray none = constant_mask({5, 1}, false);
  jitvec::ReduceOptions o = base;
  o.axes = std::vector<int>{1};
  o.where = where.view(none);
  jitvec::Array zeros = add.reduce(where.view(x).slice(0, 0, 5), o).to_host();
  for (std::int64_t i = 0; i < 5; ++i) CHECK(array_at(zeros, {i}) == 0.0);
  o.initial = -3.0;
  jitvec::Array initials = add.reduce(where.view(x).slice(0, 0, 5), o).to_host();
  for (std::int64_t i = 0; i < 5; ++i) CHECK(array_at(initials, {i}) == -3.0);
  TestArray ones = TestArray::random(jitvec::DType::float64, {5, 7}, 0.5, 2);
  o.initial.reset();
  CHECK(array_at(engine.ufunc("h3_mul").reduce(where.view(ones), o).to_host(), {2}) == 1.0);
  TestArray r = TestArray::random(jitvec::DType::float32, {5, 7}, -100, 100);
  CHECK(array_at(engine.ufunc("rw_max").reduce(where.view(r), o).to_host(), {4}) == -INFINITY);

  // Max with a mask: the largest selected element.
  TestArray half_mask = TestArray::random(jitvec::DType::bool_, {5, 7}, 0, 1);
  o.where = where.view(half_mask);
  const std::vector<bool> reduced = axes_mask(2, o.axes);
  const std::vector<double> want = reference_where(r, half_mask, reduced, [](double a, double b) { return std::max(a, b); },
                                                   std::nullopt, -INFINITY);
  jitvec::Array largest = engine.ufunc("rw_max").reduce(where.view(r), o).to_host();
  REQUIRE(largest.shape() == jitvec::Shape{5});
  for (std::int64_t i = 0; i < 5; ++i) CHECK(array_at(largest, {i}) == want[static_cast<std::size_t>(i)]);  // -inf too

  // An empty reduced axis: identity or initial, as without where=.
  TestArray empty = TestArray::random(jitvec::DType::float32, {3, 0}, -8, 8);
  TestArray empty_mask = TestArray::random(jitvec::DType::bool_, {3, 0}, 0, 1);
  o = base;
  o.axes = std::vector<int>{1};
  o.where = where.view(empty_mask);
  jitvec::Array e = add.reduce(where.view(empty), o).to_host();
  REQUIRE(e.shape() == jitvec::Shape{3});
  for (std::int64_t i = 0; i < 3; ++i) CHECK(array_at(e, {i}) == 0.0);
}

/// dtype= (int8 summed into int64 under a mask), out= (poisoned, strided, keepdims), bool and
/// complex64 inputs.
inline void run_where_options(const Where& where) {
  jitvec::Engine& engine = where_engine();
  jitvec::Ufunc add = engine.ufunc("h3_add");
  const Fold plus = [](double a, double b) { return a + b; };
  CAPTURE(jitvec::target_name(where.target), where.device_arrays);
  jitvec::ReduceOptions base;
  base.target = where.target;

  // int8 into int64: the masked sum is exact, where int8 would wrap.
  TestArray bytes = TestArray::random(jitvec::DType::int8, {3, 4000}, -100, 100);
  TestArray mask = TestArray::random(jitvec::DType::bool_, {1, 4000}, 0, 1);
  jitvec::ReduceOptions o = base;
  o.axes = std::vector<int>{1};
  o.dtype = jitvec::DType::int64;
  o.where = where.view(mask);
  jitvec::Array wide = add.reduce(where.view(bytes), o).to_host();
  CHECK(wide.dtype() == jitvec::DType::int64);
  check_reduced(wide, axes_mask(2, o.axes), false, reference_where(bytes, mask, axes_mask(2, o.axes), plus, std::nullopt, 0.0), 0.0);

  // out=: a float64 column of a wider buffer, poisoned; the mask broadcast from (7, 1).
  TestArray m = TestArray::random(jitvec::DType::float32, {7, 300}, -8, 8);
  integerize(m);
  TestArray rows = TestArray::random(jitvec::DType::bool_, {7, 1}, 0, 1);
  TestArray col = TestArray::poisoned_view(jitvec::DType::float64, 7 * 3, 1, {7}, {3});
  o = base;
  o.axes = std::vector<int>{1};
  o.where = where.view(rows);
  o.out = where.view(col);
  add.reduce(where.view(m), o);
  where.fetch(col);
  check_reduced(col.host_view(), axes_mask(2, o.axes), false,
                reference_where(m, rows, axes_mask(2, o.axes), plus, std::nullopt, 0.0), 0.0);
  check_poison_kept(col);
  // keepdims into out=, the other axis, a full mask
  TestArray full = TestArray::random(jitvec::DType::bool_, {7, 300}, 0, 1);
  TestArray kept = TestArray::poisoned_view(jitvec::DType::float32, 2 * 300, 300, {1, 300}, {300, -1});
  o.axes = std::vector<int>{0};
  o.keepdims = true;
  o.where = where.view(full);
  o.out = where.view(kept);
  add.reduce(where.view(m), o);
  where.fetch(kept);
  check_reduced(kept.host_view(), axes_mask(2, o.axes), true,
                reference_where(m, full, axes_mask(2, o.axes), plus, std::nullopt, 0.0), 0.0);
  check_poison_kept(kept);

  // bool: any() of the selected elements (the identity false).
  TestArray flags = TestArray::random(jitvec::DType::bool_, {6, 50}, 0, 1);
  TestArray fmask = TestArray::random(jitvec::DType::bool_, {6, 50}, 0, 1);
  o = base;
  o.axes = std::vector<int>{1};
  o.where = where.view(fmask);
  check_reduced(engine.ufunc("rw_or").reduce(where.view(flags), o).to_host(), axes_mask(2, o.axes), false,
                reference_where(flags, fmask, axes_mask(2, o.axes), [](double a, double b) { return a != 0 || b != 0 ? 1.0 : 0.0; },
                                std::nullopt, 0.0),
                0.0);

  // complex64: the real parts (the reference reads those) of a masked sum of small integers.
  TestArray z = TestArray::random(jitvec::DType::complex64, {4, 33}, -8, 8);
  integerize(z);
  TestArray zmask = TestArray::random(jitvec::DType::bool_, {4, 33}, 0, 1);
  o.where = where.view(zmask);
  check_reduced(engine.ufunc("rw_cadd").reduce(where.view(z), o).to_host(), axes_mask(2, o.axes), false,
                reference_where(z, zmask, axes_mask(2, o.axes), plus, std::nullopt, 0.0), 0.0);
}

/// An all-true mask gives the bits of no mask, for real float sums of several layouts (both
/// reduction kinds, transposed, reversed, broadcast inputs).
inline void run_where_all_true(const Where& where) {
  jitvec::Ufunc add = where_engine().ufunc("h3_add");
  CAPTURE(jitvec::target_name(where.target), where.device_arrays);
  struct Layout {
    const char* name;
    std::int64_t base, offset;
    jitvec::Shape shape;
    jitvec::Strides strides;
  };
  for (const Layout& l : {Layout{"rows", 300 * 2000, 0, {300, 2000}, {2000, 1}},
                          Layout{"transposed", 300 * 2000, 0, {2000, 300}, {1, 2000}},
                          Layout{"reversed, padded", 40 * 1030, 39 * 1030 + 1029, {40, 1000}, {-1030, -1}},
                          Layout{"broadcast rows", 3000, 0, {50, 3000}, {0, 1}},
                          Layout{"1-d, two passes", 1 << 20, 0, {1 << 20}, {1}}}) {
    TestArray x = TestArray::random_view(jitvec::DType::float32, l.base, l.offset, l.shape, l.strides, -1, 1);
    TestArray yes = constant_mask({1}, true);
    for (int axis = -1; axis < static_cast<int>(l.shape.size()); ++axis) {
      CAPTURE(l.name, axis);
      jitvec::ReduceOptions o;
      o.target = where.target;
      if (axis >= 0) o.axes = std::vector<int>{axis};
      const std::vector<float> plain = add.reduce(where.view(x), o).to_vector<float>();
      o.where = where.view(yes);
      const std::vector<float> masked = add.reduce(where.view(x), o).to_vector<float>();
      REQUIRE(plain.size() == masked.size());
      CHECK(std::memcmp(plain.data(), masked.data(), plain.size() * sizeof(float)) == 0);
    }
  }
}

}  // namespace jitvec_test
