// Ufunc::reduce's where= mask on the cpu and parallel targets (issue 11): the case table of
// reduce_where_support.hpp against NumPy's semantics in float64, all-true masks against no
// mask bit for bit, and the errors (no identity, an identity the dtype cannot hold, a mask
// that is not bool or does not broadcast, a device mask on a host target).
#include "compile/nvrtc_compiler.hpp"
#include "engine/reduce_where.hpp"
#include "engine/type_resolution.hpp"
#include "kernels/module_source.hpp"
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
             Catch::Matchers::Contains("ufunc 'rw_max': reduce(): the identity -inf (float32) does not fit the input's "
                                       "dtype int8 exactly, as where= needs for its masked elements: int8 has no "
                                       "infinity or NaN"));

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

TEST_CASE("reduce where=: the select ufunc takes each dtype's own loop, and every loop compiles with NVRTC",
          "[reduce][where][nvrtc]") {
  // Loop choice for (a bool mask, an array of T, the identity as a scalar: float64, or bool for
  // a bool T): T's own loop.
  const std::vector<Signature> loops = engine::where_select_signatures();
  for (const Signature& loop : loops) {
    const DType t = loop.results[0];
    CAPTURE(dtype_name(t));
    ScalarValue identity;  // float64 0.0
    if (t == DType::bool_) {
      identity.type = DType::bool_;
      identity.b = false;
    }
    const engine::CallInput inputs[] = {{false, DType::bool_, nullptr}, {false, t, nullptr}, {true, identity.type, &identity}};
    CHECK(loops[engine::resolve_loop(engine::kWhereSelectName, loops, inputs, 3)].results[0] == t);
  }
  // The GPU loops cannot run here; their text must at least be what NVRTC accepts (one loop of
  // each kind of type: the integer loops differ only in the type's name).
  const codegen::UfuncSource select{engine::kWhereSelectName, engine::kWhereSelectSource, "", 1, ""};
  for (const Signature& loop : loops) {
    const DType t = loop.results[0];
    if (dtype_kind(t) != DTypeKind::floating && dtype_kind(t) != DTypeKind::complex && t != DType::bool_ &&
        t != DType::int8 && t != DType::uint64) {
      continue;
    }
    CAPTURE(loop.to_string());
    CHECK_NOTHROW(compile::compile_cuda(kernels::generate_cuda_source(select, {}, codegen::LoopSpec::exact(loop)),
                                        engine::kWhereSelectName, "sm_90"));
  }
}

TEST_CASE("reduce where=: float16, bfloat16 and complex128 inputs", "[reduce][where][dtype]") {
  Engine& engine = where_engine();
  static std::once_flag once;
  std::call_once(once, [&] {
    VectorizeOptions zero;
    zero.identity = 0;
    engine.vectorize("rw_wide_add",
                     {"float16(float16, float16)", "bfloat16(bfloat16, bfloat16)", "complex128(complex128, complex128)"},
                     "template <typename T> __device__ T rw_wide_add(T a, T b) { return a + b; }", zero);
  });
  Ufunc add = engine.ufunc("rw_wide_add");
  const Fold plus = [](double a, double b) { return a + b; };
  for (DType t : {DType::float16, DType::bfloat16, DType::complex128}) {
    CAPTURE(dtype_name(t));
    TestArray x = TestArray::random(t, {5, 40}, -4, 4);
    integerize(x);  // sums below 2^8 of small integers: exact even in bfloat16
    TestArray mask = TestArray::random(DType::bool_, {5, 40}, 0, 1);
    ReduceOptions o;
    o.axes = std::vector<int>{1};
    o.target = Target::cpu;
    o.where = mask.host_view();
    Array r = add.reduce(x.host_view(), o);
    CHECK(r.dtype() == t);
    check_reduced(r, axes_mask(2, o.axes), false, reference_where(x, mask, axes_mask(2, o.axes), plus, std::nullopt, 0.0), 0.0);
  }
}
