// Array's shared layout (include/jitvec/array.hpp: detail::ArrayLayout): copies of an Array
// share one shape and strides instead of copying them, views make their own without touching
// the Array they come from, the element count and contiguity computed once agree with an
// independent computation over random views, copies made and dropped on several threads keep
// the count right, and a ufunc's new result shares the layout of a contiguous input of its
// shape (issue 13's dispatch: no shape or strides allocated per call) but never reports
// strides other than the C-contiguous ones Array::empty gives.
#include <atomic>
#include <cmath>
#include <cstdint>
#include <thread>
#include <vector>

#include "catch.hpp"
#include "core/array_access.hpp"
#include "support.hpp"
#include "test_ufuncs.hpp"

using namespace jitvec;
using jitvec_test::rng;

namespace {

// C-contiguity and element count from their definitions, for comparison with the cached
// ones. Contiguous: each dimension after the last one of length 0 (all of them when none
// is) has length 1 or the stride of the product of the dimensions after it.
bool reference_contiguous(const Shape& shape, const Strides& strides) {
  std::size_t first = 0;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 0) first = d + 1;
  }
  for (std::size_t d = first; d < shape.size(); ++d) {
    std::int64_t after = 1;
    for (std::size_t e = d + 1; e < shape.size(); ++e) after *= shape[e];
    if (shape[d] != 1 && strides[d] != after) return false;
  }
  return true;
}

std::int64_t reference_size(const Shape& shape) {
  std::int64_t n = 1;
  for (std::int64_t s : shape) n *= s;
  return n;
}

std::intptr_t references(const Array& a) {
  return ArrayAccess::layout(a)->refs.load(std::memory_order_relaxed);
}

}  // namespace

TEST_CASE("copies of an Array share its shape and strides; views get their own", "[array][layout]") {
  std::vector<float> data(24);
  const Array a = Array::wrap(data.data(), {2, 3, 4});
  const Array b = a;  // NOLINT: the copy is the point
  CHECK(&b.shape() == &a.shape());
  CHECK(&b.strides() == &a.strides());
  CHECK(references(a) == 2);

  // Views of the shared layout leave it as it was.
  const Array t = b.transpose();
  const Array s = b.slice(1, 2, 0, -1);
  const Array r = b.reshape({4, 6});
  const Array w = b.slice(2, 1, 3).broadcast_to({5, 2, 3, 2});
  CHECK(a.shape() == Shape{2, 3, 4});
  CHECK(a.strides() == Strides{12, 4, 1});
  CHECK(t.shape() == Shape{4, 3, 2});
  CHECK(t.strides() == Strides{1, 4, 12});
  CHECK(s.shape() == Shape{2, 2, 4});
  CHECK(s.strides() == Strides{12, -4, 1});
  CHECK(r.shape() == Shape{4, 6});
  CHECK(r.strides() == Strides{6, 1});
  CHECK(w.shape() == Shape{5, 2, 3, 2});
  CHECK(w.strides() == Strides{0, 12, 4, 1});
  CHECK(references(a) == 2);  // the views share a's memory, not its layout
  CHECK(&t.shape() != &a.shape());
}

TEST_CASE("assignment, moves and the default Array keep their shapes", "[array][layout]") {
  std::vector<double> data(6);
  Array a = Array::wrap(data.data(), {2, 3});
  Array c;
  CHECK(c.shape() == Shape{0});
  CHECK(c.strides() == Strides{1});
  CHECK(c.size() == 0);
  c = a;
  CHECK(&c.shape() == &a.shape());
  CHECK(references(a) == 2);
  c = c;  // NOLINT: self-assignment keeps the layout
  CHECK(c.shape() == Shape{2, 3});
  CHECK(references(a) == 2);

  Array moved = std::move(c);
  CHECK(references(a) == 2);
  CHECK(moved.shape() == Shape{2, 3});
  // A moved-from Array is 0-d, as one whose vectors were moved away was.
  CHECK(c.ndim() == 0);        // NOLINT(bugprone-use-after-move)
  CHECK(c.size() == 1);        // NOLINT(bugprone-use-after-move)
  CHECK(c.is_contiguous());    // NOLINT(bugprone-use-after-move)
  c = a.transpose();           // and can be assigned again
  CHECK(c.shape() == Shape{3, 2});
  moved = Array();
  CHECK(references(a) == 1);
  CHECK(moved.shape() == Shape{0});
}

TEST_CASE("size and contiguity computed with the layout agree with their definitions over random views",
          "[array][layout]") {
  std::vector<std::int16_t> data(4096);
  std::uniform_int_distribution<int> dim(0, 5), pick(0, 4), axis_pick(0, 3);
  for (int trial = 0; trial < 2000; ++trial) {
    Shape shape(static_cast<std::size_t>(1 + axis_pick(rng())));
    std::int64_t n = 1;
    for (auto& s : shape) {
      s = dim(rng());
      n *= s > 0 ? s : 1;
    }
    if (n > static_cast<std::int64_t>(data.size())) continue;
    Array v = Array::wrap(data.data(), shape);
    for (int step = 0; step < 3; ++step) {
      const int axis = static_cast<int>(static_cast<std::size_t>(axis_pick(rng())) % v.shape().size());
      switch (pick(rng())) {
        case 0: v = v.transpose(); break;
        case 1: v = v.slice(axis, 1, v.shape()[axis]); break;
        case 2: v = v.slice(axis, -1, -v.shape()[axis] - 1, -1); break;
        case 3: v = v.slice(axis, 0, v.shape()[axis], 2); break;
        default: {
          Shape wider = v.shape();
          wider.insert(wider.begin(), 3);
          v = v.broadcast_to(wider);
        }
      }
      INFO("shape " << shape_to_string(v.shape()) << " strides " << shape_to_string(v.strides()));
      CHECK(v.size() == reference_size(v.shape()));
      CHECK(v.is_contiguous() == reference_contiguous(v.shape(), v.strides()));
    }
  }
}

TEST_CASE("copies made and dropped on several threads keep the layout's count", "[array][layout][threads]") {
  std::vector<float> data(64);
  const Array a = Array::wrap(data.data(), {8, 8});
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      while (!go.load()) std::this_thread::yield();
      for (int i = 0; i < 20000; ++i) {
        Array copy = a;
        Array second = copy;
        if (second.shape()[0] != 8) std::abort();
      }
    });
  }
  go = true;
  for (auto& t : threads) t.join();
  CHECK(references(a) == 1);
  CHECK(a.shape() == Shape{8, 8});
}

TEST_CASE("a ufunc's new result shares the layout of a contiguous input of its shape, only with C strides",
          "[array][layout][ufunc][cpu]") {
  Engine& engine = jitvec_test::shared_engine();
  jitvec_test::define_test_ufuncs(engine);
  const Ufunc add = engine.ufunc("add");
  std::uniform_real_distribution<double> value(-100.0, 100.0);

  std::vector<double> xs(12), ys(12);
  for (auto& v : xs) v = value(rng());
  for (auto& v : ys) v = value(rng());
  const Array x = Array::wrap(xs.data(), {3, 4});
  const Array y = Array::wrap(ys.data(), {3, 4});
  const Array sum = add(x, y, target(Target::cpu));
  CHECK(&sum.shape() == &x.shape());  // shared: nothing allocated for the result's layout
  CHECK(sum.strides() == Strides{4, 1});
  const std::vector<double> got = sum.to_vector<double>();
  for (std::size_t i = 0; i < got.size(); ++i) CHECK(got[i] == xs[i] + ys[i]);

  // Contiguous, but with a size-1 dimension's stride that Array::empty would not give: the
  // result gets its own C-contiguous strides.
  const Array column = Array::wrap(xs.data(), DType::float64, {12, 1}, {1, 7});
  REQUIRE(column.is_contiguous());
  const Array twice = add(column, column, target(Target::cpu));
  CHECK(&twice.shape() != &column.shape());
  CHECK(twice.shape() == Shape{12, 1});
  CHECK(twice.strides() == Strides{1, 1});
  const std::vector<double> doubled = twice.to_vector<double>();
  for (std::size_t i = 0; i < doubled.size(); ++i) CHECK(doubled[i] == xs[i] + xs[i]);

  // Broadcast inputs: the result has the broadcast shape and its own layout.
  const Array row = Array::wrap(ys.data(), {4});
  const Array wide = add(x, row, target(Target::cpu));
  CHECK(wide.shape() == Shape{3, 4});
  CHECK(wide.strides() == Strides{4, 1});
  const std::vector<double> broadcast = wide.to_vector<double>();
  for (std::size_t i = 0; i < broadcast.size(); ++i) CHECK(broadcast[i] == xs[i] + ys[i % 4]);

  // The result outlives the input it shares a layout with.
  Array kept;
  {
    std::vector<double> local(5, 1.5);
    const Array l = Array::wrap(local.data(), {5});
    kept = add(l, l, target(Target::cpu));
  }
  CHECK(kept.shape() == Shape{5});
  CHECK(kept.to_vector<double>() == std::vector<double>(5, 3.0));
}
