// Ufunc::reduce's where= mask on the cpu and parallel targets (issue 11): the case table of
// reduce_where_support.hpp against NumPy's semantics in float64, all-true masks against no
// mask bit for bit, and the errors (no identity, an identity the dtype cannot hold, a mask
// that is not bool or does not broadcast, a device mask on a host target).
#include "reduce_where_support.hpp"

using namespace jitvec;
using namespace jitvec_test;

TEST_CASE("reduce where=: odd shapes, strides, broadcast masks, keepdims, initial against float64", "[reduce][where]") {
  for (Target t : {Target::cpu, Target::parallel}) run_where_cases(Where{t, false});
}

TEST_CASE("reduce where=: strided masks, all false, max, mul, empty axes", "[reduce][where]") {
  for (Target t : {Target::cpu, Target::parallel}) run_where_masks(Where{t, false});
}

TEST_CASE("reduce where=: dtype=, out=, bool and complex inputs", "[reduce][where]") {
  for (Target t : {Target::cpu, Target::parallel}) run_where_options(Where{t, false});
}

TEST_CASE("reduce where=: an all-true mask gives the bits of no mask", "[reduce][where]") {
  for (Target t : {Target::cpu, Target::parallel}) run_where_all_true(Where{t, false});
}

TEST_CASE("reduce where=: errors name the ufunc, reduce() and the problem", "[reduce][where][errors]") {
  Engine& engine = where_engine();
  std::vector<float> values(6, 1.0f);
  Array x = from_vector(values).reshape({2, 3});
  TestArray mask = constant_mask({2, 3}, true);
  ReduceOptions o;
  o.target = Target::cpu;
  o.where = mask.host_view();

  // No identity: an error even with initial, which cannot stand in for it.
  CHECK_THAT(reduce_error_of([&] { engine.ufunc("h3_max").reduce(x, o); }),
             Catch::Matchers::Contains("ufunc 'h3_max': reduce(): where= needs the ufunc's identity: masked elements "
                                       "take its value, and 'h3_max' declares none; declare VectorizeOptions::identity"));
  o.initial = 0.0;
  CHECK_THAT(reduce_error_of([&] { engine.ufunc("h3_max").reduce(x, o); }),
             Catch::Matchers::Contains("ReduceOptions::initial cannot stand in for it"));
  o.initial.reset();

  // An identity the input's dtype cannot hold: -inf in int8.
  std::vector<std::int8_t> bytes(6, 3);
  CHECK_THAT(reduce_error_of([&] { engine.ufunc("rw_max").reduce(from_vector(bytes).reshape({2, 3}), o); }),
             Catch::Matchers::Contains("ufunc 'rw_max': reduce(): where= gives masked elements the identity -inf, "
                                       "which the input's dtype int8 cannot hold exactly"));

  // A mask that is not bool, or that does not broadcast to x's shape (never wider than x).
  Ufunc add = engine.ufunc("h3_add");
  std::vector<std::int32_t> ints(6, 1);
  o.where = from_vector(ints).reshape({2, 3});
  CHECK_THAT(reduce_error_of([&] { add.reduce(x, o); }),
             Catch::Matchers::Contains("ufunc 'h3_add': reduce(): where= must be a bool array (as NumPy, which casts "
                                       "it to bool only safely); it is a int32 array"));
  TestArray wrong = constant_mask({3, 2}, true);
  o.where = wrong.host_view();
  CHECK_THAT(reduce_error_of([&] { add.reduce(x, o); }),
             Catch::Matchers::Contains("ufunc 'h3_add': reduce(): where= of shape (3, 2) does not broadcast to the "
                                       "input's shape (2, 3)"));
  CHECK_THROWS_AS(add.reduce(x, o), BroadcastError);
  TestArray wider = constant_mask({4, 2, 3}, true);
  o.where = wider.host_view();
  CHECK_THAT(reduce_error_of([&] { add.reduce(x, o); }),
             Catch::Matchers::Contains("where= of shape (4, 2, 3) does not broadcast to the input's shape (2, 3)"));

  // A device mask on a host target (the memory is never touched: the check comes first).
  alignas(16) static bool fake[6];
  o.where = Array::wrap(fake, Shape{2, 3}, {}, Memory::device, 0);
  CHECK_THAT(reduce_error_of([&] { add.reduce(x, o); }),
             Catch::Matchers::Contains("ufunc 'h3_add': reduce(): where= is in device memory (cuda:0), but target cpu "
                                       "runs on the host"));
  CHECK_THROWS_AS(add.reduce(x, o), TargetError);

  // The other checks of reduce() still come: a ufunc that is not binary, a bad axis.
  o.where = mask.host_view();
  CHECK_THAT(reduce_error_of([&] { engine.ufunc("h3_neg").reduce(x, o); }),
             Catch::Matchers::Contains("ufunc 'h3_neg' takes 1 input and returns 1 result: reduce()"));
  o.axes = std::vector<int>{2};
  CHECK_THAT(reduce_error_of([&] { add.reduce(x, o); }),
             Catch::Matchers::Contains("ufunc 'h3_add': reduce(): axis 2 is out of bounds"));
}

TEST_CASE("reduce where=: the select loops are cached (one build per dtype)", "[reduce][where]") {
  Engine& engine = where_engine();
  Ufunc add = engine.ufunc("h3_add");
  TestArray x = TestArray::random(DType::float64, {10, 20}, -1, 1);
  TestArray mask = TestArray::random(DType::bool_, {10, 20}, 0, 1);
  ReduceOptions o;
  o.target = Target::cpu;
  o.where = mask.host_view();
  add.reduce(x.host_view(), o);  // builds (or loads) the float64 select loop and reduction module
  const EngineStats before = engine.stats();
  for (int i = 0; i < 3; ++i) add.reduce(x.host_view(), o);
  CHECK(engine.stats().compiles == before.compiles);
  CHECK(engine.stats().disk_hits == before.disk_hits);
}
