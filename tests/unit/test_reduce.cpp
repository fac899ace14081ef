// Ufunc::reduce and Ufunc::accumulate on the cpu and parallel targets (issue 11): the case
// table of reduce_support.hpp, the identity and initial rules, dtype=, out=, the error bound of
// float sums, determinism across runs and between cpu and parallel, and the errors.
#include <fstream>

#include "compile/nvrtc_compiler.hpp"
#include "engine/precompile.hpp"
#include "engine/reduce_where.hpp"
#include "engine/reduction.hpp"
#include "kernels/reduction_source.hpp"
#include "reduce_support.hpp"

using namespace jitvec;
using namespace jitvec_test;

TEST_CASE("reduce: odd shapes, strides, axes and keepdims against float64", "[reduce]") {
  for (Target t : {Target::cpu, Target::parallel}) run_reduce_cases(Where{t, false});
}

TEST_CASE("accumulate: odd shapes, every axis, strides, out= against float64", "[reduce][accumulate]") {
  for (Target t : {Target::cpu, Target::parallel}) run_accumulate_cases(Where{t, false});
}

TEST_CASE("reduce: initial, identity, dtype=, out=, max", "[reduce]") {
  for (Target t : {Target::cpu, Target::parallel}) run_reduce_options(Where{t, false});
}

TEST_CASE("reduce: float32 sums within the order's bound, same bits every run and target", "[reduce]") {
  for (Target t : {Target::cpu, Target::parallel}) run_reduce_rounding(Where{t, false});
}

TEST_CASE("reduction modules compile with NVRTC (no GPU needed)", "[reduce][nvrtc]") {
  // The cuda paths cannot run here; the kernels' text must at least be what NVRTC accepts, for
  // narrow and wide inputs, partial types, conversions to the output and a template function.
  const codegen::UfuncSource add{"h3_add", "template <typename T> __device__ T h3_add(T a, T b) { return a + b; }", "", 1, ""};
  struct Types { const char* loop; DType in; DType out; };
  for (const Types& t : {Types{"float32(float32, float32)", DType::float32, DType::float32},
                         Types{"int64(int64, int64)", DType::int8, DType::int64},
                         Types{"float64(float64, float64)", DType::float32, DType::float32},
                         Types{"int8(int8, int8)", DType::int8, DType::int16},
                         // the scan's tiles differ most here: 16-byte accumulators (one element a
                         // vector), 2-byte inputs, outputs narrower than the accumulator
                         Types{"complex128(complex128, complex128)", DType::complex128, DType::complex128},
                         Types{"complex64(complex64, complex64)", DType::complex64, DType::complex64},
                         Types{"float32(float32, float32)", DType::bfloat16, DType::float16},
                         Types{"int64(int64, int64)", DType::uint8, DType::int64}}) {
    CAPTURE(t.loop);
    const codegen::LoopSpec spec = engine::reduction_spec(Signature::parse(t.loop), t.in, t.out);
    for (kernels::ReductionMethod method : {kernels::ReductionMethod::reduce, kernels::ReductionMethod::accumulate}) {
      CHECK_NOTHROW(compile::compile_cuda(kernels::generate_reduction_source(false, add, {}, spec, method), "h3_add", "sm_90"));
    }
  }
}

TEST_CASE("definition files declare identity and methods; jitvec compile builds the reduction module", "[reduce][definitions]") {
  TempDir dir;
  const auto file = dir.path() / "sums.toml";
  {
    std::ofstream f(file);
    f << "[ufuncs.h3_file_add]\nsignatures = [\"float32(float32, float32)\", \"float64(float32, int32)\"]\n"
         "identity = 0\nmethods = [\"reduce\", \"accumulate\"]\ntargets = [\"cpu\"]\n"
         "source = 'template <typename T, typename U> __device__ T h3_file_add(T a, U b) { return a + b; }'\n";
  }
  EngineOptions options;
  options.cache.dir = dir.path() / "cache";
  Engine engine(options);
  const engine::DefinedTargets defined = engine::load_definition_files(engine, {file});
  const std::vector<engine::PrecompileJob> jobs = engine::plan_precompile(engine, {}, {}, defined);
  // The map loop of each signature, and the reduce module, the accumulate module and
  // reduce(where=)'s select loop of the one loop T(T, T).
  REQUIRE(jobs.size() == 5);
  CHECK(jobs[0].method.empty());
  CHECK(jobs[1].method == engine::kReduceMethod);
  CHECK(jobs[1].signature == "float32(float32, float32)");
  CHECK(jobs[2].method == engine::kAccumulateMethod);
  CHECK(jobs[2].signature == "float32(float32, float32)");
  CHECK(jobs[3].method == engine::kWhereSelectMethod);
  CHECK(jobs[3].signature == "float32(float32, float32)");
  CHECK(jobs[4].method.empty());
  const engine::PrecompileResult built = engine::run_precompile_job(engine, jobs[1]);
  INFO(built.error);
  REQUIRE(built.ok);
  CHECK_FALSE(built.from_cache);
  CHECK(engine::run_precompile_job(engine, jobs[1]).from_cache);

  // The reduce that uses it reads it from the disk cache (a second engine, same cache).
  Engine again(options);
  again.load_definitions(file);
  std::vector<float> empty;
  ReduceOptions o;
  o.target = Target::cpu;
  const EngineStats before = again.stats();
  CHECK(array_at(again.ufunc("h3_file_add").reduce(from_vector(empty), o), {}) == 0.0);  // the identity
  CHECK(again.stats().compiles == before.compiles);
  CHECK(again.stats().disk_hits == before.disk_hits + 1);
  // reduce(where=) finds its select loop precompiled too: no compile, one more disk hit.
  const engine::PrecompileResult select = engine::run_precompile_job(engine, jobs[3]);
  INFO(select.error);
  REQUIRE(select.ok);
  CHECK_FALSE(select.from_cache);
  const std::vector<float> values = {1.0f, 2.0f, 4.0f};
  const std::vector<bool> keep = {true, false, true};
  Array mask = Array::empty(DType::bool_, Shape{3});
  for (std::size_t i = 0; i < keep.size(); ++i) static_cast<bool*>(mask.data())[i] = keep[i];
  o.where = mask;
  const EngineStats before_where = again.stats();
  CHECK(array_at(again.ufunc("h3_file_add").reduce(from_vector(values), o), {}) == 5.0);
  CHECK(again.stats().compiles == before_where.compiles);
  CHECK(again.stats().disk_hits == before_where.disk_hits + 1);
  o.where.reset();

  {
    std::ofstream f(file);
    f << "[ufuncs.h3_bad]\nsignatures = [\"float32(float32, float32)\"]\nmethods = [\"reduce\", \"scan\"]\n"
         "source = '__device__ float h3_bad(float a, float b) { return a; }'\n";
  }
  Engine third(options);
  CHECK_THAT(reduce_error_of([&] { third.load_definitions(file); }),
             Catch::Matchers::Contains("sums.toml:3: ufuncs.h3_bad: unknown method 'scan' (methods are 'reduce' or 'accumulate')"));
}

TEST_CASE("reduce and accumulate: errors name the ufunc and the method", "[reduce][errors]") {
  Engine& engine = reduce_engine();
  std::vector<float> x(6, 1.0f);
  ReduceOptions o;
  o.target = Target::cpu;
  AccumulateOptions a;
  a.target = Target::cpu;
  CHECK_THAT(reduce_error_of([&] { engine.ufunc("h3_neg").reduce(from_vector(x), o); }),
             Catch::Matchers::Contains("ufunc 'h3_neg' takes 1 input and returns 1 result: reduce() is "
                                       "defined only for ufuncs of two inputs and one output"));
  CHECK_THAT(reduce_error_of([&] { engine.ufunc("h3_three").accumulate(from_vector(x), 0, a); }),
             Catch::Matchers::Contains("ufunc 'h3_three' takes 3 inputs and returns 1 result: accumulate()"));
  std::vector<float> none;
  CHECK_THAT(reduce_error_of([&] { engine.ufunc("h3_max").reduce(from_vector(none), o); }),
             Catch::Matchers::Contains("ufunc 'h3_max': reduce() of a zero-size reduction (shape (0,)) "
                                       "needs an identity, and 'h3_max' declares none"));
  Ufunc add = engine.ufunc("h3_add");
  Array m = from_vector(x).reshape({2, 3});
  o.axes = std::vector<int>{2};
  CHECK_THAT(reduce_error_of([&] { add.reduce(m, o); }),
             Catch::Matchers::Contains("ufunc 'h3_add': reduce(): axis 2 is out of bounds for an array of 2 dimensions"));
  o.axes = std::vector<int>{1, -1};
  CHECK_THAT(reduce_error_of([&] { add.reduce(m, o); }),
             Catch::Matchers::Contains("ufunc 'h3_add': reduce(): axis 1 is given twice"));
  o.axes = std::vector<int>{1};
  std::vector<float> wrong(3, -7.0f);
  o.out = from_vector(wrong);
  CHECK_THAT(reduce_error_of([&] { add.reduce(m, o); }),
             Catch::Matchers::Contains("ufunc 'h3_add': reduce(): out= has shape (3,), but the result has shape (2,)"));
  std::vector<std::int32_t> ints(2, 7);
  o.out = from_vector(ints);
  CHECK_THAT(reduce_error_of([&] { add.reduce(m, o); }),
             Catch::Matchers::Contains("out= is a int32 array, but the accumulator is float32, which does not cast to int32"));
  CHECK(wrong == std::vector<float>(3, -7.0f));
  CHECK(ints == std::vector<std::int32_t>(2, 7));
  o.out.reset();
  std::vector<std::int32_t> counts{1, 2, 3, 4, 5, 6};
  Array c = from_vector(counts).reshape({2, 3});
  o.initial = 0.5;
  o.dtype = DType::int64;
  CHECK_THAT(reduce_error_of([&] { add.reduce(c, o); }),
             Catch::Matchers::Contains("ufunc 'h3_add': reduce(): the initial 0.5 (float64) does not fit the accumulator type "
                                       "int64: it is not an integer (NumPy would truncate it; jitvec refuses a value that "
                                       "would change)"));
  o.initial.reset();
  o.dtype = DType::uint16;  // no loop uint16(uint16, uint16): the first one it casts to safely
  CHECK(add.reduce(c, o).dtype() == DType::int32);
  o.dtype = DType::int8;
  CHECK_THAT(reduce_error_of([&] { add.reduce(m, o); }),
             Catch::Matchers::Contains("ufunc 'h3_add': reduce(): a float32 input cannot be accumulated in int8"));
  o.dtype.reset();
  o.axes.reset();
  CHECK_THAT(reduce_error_of([&] { engine.ufunc("h3_first").reduce(from_vector(x), o); }),
             Catch::Matchers::Contains("ufunc 'h3_first': reduce() folds each result back into the function's first "
                                       "argument, so it needs a loop T(T, T) to which the input's float32 casts safely; "
                                       "the loops are float32(float32, int32)"));
  std::vector<float> one(1, 2.0f);
  CHECK_THAT(reduce_error_of([&] { add.accumulate(from_vector(one).reshape({}), 0, a); }),
             Catch::Matchers::Contains("ufunc 'h3_add': accumulate() needs an array of at least one dimension"));
  CHECK_THAT(reduce_error_of([&] { add.accumulate(m, -3, a); }),
             Catch::Matchers::Contains("ufunc 'h3_add': accumulate(): axis -3 is out of bounds"));
  CHECK_THAT(reduce_error_of([] { Ufunc().reduce(Array()); }),
             Catch::Matchers::Contains("Ufunc::reduce: this Ufunc is empty"));
}
