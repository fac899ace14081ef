// out= overlapping an input (issue 15): the result must be what it would be without the
// overlap, on every target. Each case views one random float64 buffer twice, as an input of
// add(input, y) and as out=; the expected buffer is computed in float64 from copies taken
// before the call. The exact alias (the same view) must stay in place, with no copy.
#include <functional>

#include "catch.hpp"
#include "engine/call_plan.hpp"
#include "engine/engine_impl.hpp"
#include "engine/out_overlap.hpp"
#include "support.hpp"
#include "test_ufuncs.hpp"

using namespace jitvec;
using namespace jitvec_test;

namespace {

struct OverlapCase {
  std::string name;
  std::int64_t total;  // elements of the shared buffer
  Shape shape;         // out='s (and y's) shape
  std::function<Array(const Array& whole)> input, output;
  // For the element at flat C-order index i of out=: where it lives in the buffer, and where
  // the input element it is computed from lives.
  std::function<std::int64_t(std::int64_t)> out_at, in_at;
};

std::vector<OverlapCase> overlap_cases(std::int64_t n) {
  const std::int64_t side = 67;  // a transposed square large enough for the tiled GPU kernel
  auto id = [](std::int64_t i) { return i; };
  return {
      {"out= shifted one forward: f(A[0:n], out=A[1:n+1])", n + 1, {n},
       [n](const Array& w) { return w.slice(0, 0, n); },
       [n](const Array& w) { return w.slice(0, 1, n + 1); },
       [](std::int64_t i) { return i + 1; }, id},
      {"out= shifted one back: f(A[1:n+1], out=A[0:n])", n + 1, {n},
       [n](const Array& w) { return w.slice(0, 1, n + 1); },
       [n](const Array& w) { return w.slice(0, 0, n); }, id,
       [](std::int64_t i) { return i + 1; }},
      {"reversed input: f(A[::-1], out=A)", n, {n},
       [n](const Array& w) { return w.slice(0, n - 1, -n - 1, -1); },
       [](const Array& w) { return w; }, id, [n](std::int64_t i) { return n - 1 - i; }},
      {"reversed out=: f(A, out=A[::-1])", n, {n}, [](const Array& w) { return w; },
       [n](const Array& w) { return w.slice(0, n - 1, -n - 1, -1); },
       [n](std::int64_t i) { return n - 1 - i; }, id},
      {"broadcast input: f(A[0:1], out=A)", n, {n},
       [](const Array& w) { return w.slice(0, 0, 1); }, [](const Array& w) { return w; }, id,
       [](std::int64_t) { return std::int64_t{0}; }},
      {"transposed out=: f(X, out=X.T)", side * side, {side, side},
       [side](const Array& w) { return w.reshape({side, side}); },
       [side](const Array& w) { return w.reshape({side, side}).transpose(); },
       [side](std::int64_t i) { return (i % side) * side + i / side; }, id},
      {"exact alias: f(A, out=A)", n, {n}, [](const Array& w) { return w; },
       [](const Array& w) { return w; }, id, id},
  };
}

std::vector<double> random_values(std::int64_t count) {
  std::uniform_real_distribution<double> dist(-100.0, 100.0);
  std::vector<double> v(static_cast<std::size_t>(count));
  for (double& x : v) x = dist(rng());
  return v;
}

// Runs add(input, y, out=output) over `whole` (host or device memory) and checks the buffer.
// `as_second` passes the overlapping input as argument 2 instead of 1.
void check_case(const OverlapCase& c, Target on, bool device, bool as_second) {
  INFO(c.name << " on " << target_name(on) << (device ? ", device arrays" : ", host arrays")
                << (as_second ? ", overlapping input second" : "") << ", seed " << rng_seed());
  Ufunc add = shared_engine().ufunc("add");
  std::vector<double> buffer = random_values(c.total);
  const std::vector<double> before = buffer;  // the reference reads these
  std::int64_t count = 1;
  for (std::int64_t s : c.shape) count *= s;
  std::vector<double> y = random_values(count);

  std::vector<double> expected = before;
  for (std::int64_t i = 0; i < count; ++i) {
    expected[static_cast<std::size_t>(c.out_at(i))] =
        before[static_cast<std::size_t>(c.in_at(i))] + y[static_cast<std::size_t>(i)];
  }

  Array whole = device ? to_device(buffer) : from_vector(buffer);
  Array ys = device ? to_device(y, c.shape) : from_vector(y).reshape(c.shape);
  const Array input = c.input(whole), output = c.output(whole);
  if (as_second) {
    add(ys, input, out(output), target(on));
  } else {
    add(input, ys, out(output), target(on));
  }
  const std::vector<double> after = device ? whole.to_vector<double>() : buffer;
  std::int64_t wrong = 0, first_wrong = -1;
  for (std::size_t i = 0; i < after.size(); ++i) {
    if (after[i] != expected[i]) {
      if (first_wrong < 0) first_wrong = static_cast<std::int64_t>(i);
      ++wrong;
    }
  }
  INFO("first wrong element " << first_wrong);
  CHECK(wrong == 0);
}

}  // namespace

TEST_CASE("the overlap check: byte extents, exact aliases", "[ufunc][overlap]") {
  std::vector<float> v(64);
  const Array a = from_vector(v);
  CHECK(engine::is_exact_alias(a, a));
  CHECK(engine::may_overlap(a, a));
  CHECK(engine::may_overlap(a.slice(0, 0, 8), a.slice(0, 7, 15)));       // one shared element
  CHECK_FALSE(engine::may_overlap(a.slice(0, 0, 8), a.slice(0, 8, 16)));  // adjacent
  CHECK(engine::may_overlap(a.slice(0, 63, -65, -1), a.slice(0, 40, 41)));  // reversed
  // Interleaved views share no element but their extents intersect: counted (conservative).
  CHECK(engine::may_overlap(a.slice(0, 0, 64, 2), a.slice(0, 1, 64, 2)));
  const Array square = a.reshape({8, 8});
  CHECK_FALSE(engine::is_exact_alias(square, square.transpose()));
  CHECK(engine::may_overlap(square, square.transpose()));
  CHECK(engine::is_exact_alias(a, a.slice(0, 0, 64).reshape({64})));
  CHECK_FALSE(engine::is_exact_alias(a.reshape({8, 8}), a.reshape({4, 16})));
  // Other memory, other buffers, empty views: no overlap.
  std::vector<float> w(64);
  CHECK_FALSE(engine::may_overlap(a, from_vector(w)));
  CHECK_FALSE(engine::may_overlap(a, a.slice(0, 3, 3)));
  const Array elsewhere = Array::wrap(v.data(), Shape{64}, {}, Memory::device, 0);
  CHECK_FALSE(engine::may_overlap(a, elsewhere));
  CHECK_FALSE(engine::is_exact_alias(a, elsewhere));
}

TEST_CASE("only inputs that overlap out= are copied, and an exact alias is not",
          "[ufunc][overlap]") {
  Engine& engine = shared_engine();
  define_test_ufuncs(engine);
  const std::shared_ptr<detail::UfuncImpl> add = engine.impl().find_ufunc("add");
  std::vector<double> buffer = random_values(33), other = random_values(32);
  const Array whole = from_vector(buffer), y = from_vector(other);
  const Array shifted = whole.slice(0, 0, 32), out_view = whole.slice(0, 1, 33);

  const Arg alias_args[] = {Arg(out_view), Arg(y), Arg(out(out_view)), Arg(target(Target::cpu))};
  engine::CallPlan alias = engine::make_call_plan(*add, Target::cpu, alias_args, 4);
  engine::OverlapBuffers none;
  engine::buffer_overlapping_inputs(engine.impl(), alias, none);
  CHECK(alias.inputs[0] == &alias_args[0].array());  // in place: the caller's own view
  CHECK(alias.inputs[1] == &alias_args[1].array());
  CHECK_FALSE(none.copies.has(0));

  const Arg shifted_args[] = {Arg(y), Arg(shifted), Arg(out(out_view)), Arg(target(Target::cpu))};
  engine::CallPlan plan = engine::make_call_plan(*add, Target::cpu, shifted_args, 4);
  engine::OverlapBuffers copies;
  engine::buffer_overlapping_inputs(engine.impl(), plan, copies);
  CHECK(plan.inputs[0] == &shifted_args[0].array());  // y does not overlap: untouched
  REQUIRE(copies.copies.has(1));
  CHECK(plan.inputs[1] == &copies.copies[1]);
  CHECK(plan.inputs[1]->data() != shifted.data());
  CHECK(plan.inputs[1]->is_contiguous());
  CHECK(plan.inputs[1]->to_vector<double>() == shifted.to_vector<double>());
}

TEST_CASE("out= overlapping an input gives the answer without overlap on the host targets",
          "[ufunc][overlap]") {
  define_test_ufuncs(shared_engine());
  for (const OverlapCase& c : overlap_cases(1000)) {
    for (bool as_second : {false, true}) {
      check_case(c, Target::cpu, false, as_second);
      check_case(c, Target::parallel, false, as_second);
    }
  }
  // Large enough that `parallel` splits the call over several threads (chunks of 2^15).
  for (const OverlapCase& c : overlap_cases(200003)) check_case(c, Target::parallel, false, false);
}

TEST_CASE("out= overlapping an input gives the answer without overlap on the GPU",
          "[gpu][ufunc][overlap]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  define_test_ufuncs(shared_engine());
  for (const OverlapCase& c : overlap_cases(1000)) {
    for (bool as_second : {false, true}) {
      check_case(c, Target::cuda, true, as_second);   // copied on the device
      check_case(c, Target::cuda, false, as_second);  // host arrays through the GPU
    }
  }
  // Large: many blocks on the device, and host arrays through the overlapped pipeline.
  for (const OverlapCase& c : overlap_cases((std::int64_t{1} << 22) + 3)) {
    check_case(c, Target::cuda, true, false);
    check_case(c, Target::cuda, false, false);
  }
}
