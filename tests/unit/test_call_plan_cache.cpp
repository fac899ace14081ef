// The call plan's cached resolutions (src/engine/resolution_cache.hpp): a repeated call reuses
// its ufunc's LoopSpec instead of building one, a call with other dtypes (of an input or of
// out=) gets its own, scalars are still checked against the cached loop, a full cache falls
// back to plans that own their spec, and the plan's shape is an input's own when nothing is
// broadcast. Only plans are made here: nothing is compiled or launched.
#include <string>
#include <vector>

#include "catch.hpp"
#include "engine/call_plan.hpp"
#include "engine/engine_impl.hpp"
#include "support.hpp"

using namespace jitvec;

namespace {

// A ufunc defined in its own engine, so its cache starts empty.
struct Fixture {
  Engine engine;
  std::shared_ptr<detail::UfuncImpl> pick;
  Fixture() {
    engine.vectorize("pick",
                     {"int16(int16, int16)", "float32(float32, float32)", "float64(float64, float64)"},
                     "template <class T> T pick(T a, T b) { return a > b ? a : b; }");
    pick = engine.impl().find_ufunc("pick");
  }
  engine::CallPlan plan(std::initializer_list<Arg> args) const {
    return engine::make_call_plan(*pick, Target::cpu, args.begin(), args.size());
  }
};

Array host(DType dtype, Shape shape = {8}) { return Array::empty(dtype, std::move(shape)); }

std::string error_of(const std::function<void()>& call) {
  try {
    call();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("a repeated call reuses the ufunc's cached LoopSpec; other dtypes get their own",
          "[ufunc][call_plan]") {
  Fixture f;
  const Array a16 = host(DType::int16), b16 = host(DType::int16);
  const engine::CallPlan first = f.plan({Arg(a16), Arg(b16)});
  const engine::CallPlan again = f.plan({Arg(a16), Arg(b16)});
  REQUIRE(first.resolution != nullptr);
  CHECK(again.resolution == first.resolution);
  CHECK(&again.spec == &first.spec);  // the cache's own spec: no copy
  CHECK(again.spec_owner == nullptr);
  CHECK(again.spec.loop.to_string() == "int16(int16, int16)");

  // int8 arrays choose the int16 loop too, but read int8: their own entry.
  const Array a8 = host(DType::int8), b8 = host(DType::int8);
  const engine::CallPlan narrow = f.plan({Arg(a8), Arg(b8)});
  CHECK(narrow.resolution != first.resolution);
  CHECK(narrow.spec.loop.to_string() == "int16(int16, int16)");
  CHECK(narrow.spec.inputs == std::vector<DType>{DType::int8, DType::int8});
  CHECK(f.plan({Arg(a16), Arg(b16)}).spec.inputs == std::vector<DType>{DType::int16, DType::int16});

  // The same inputs with a float64 out=: the output's storage dtype differs.
  const Array o64 = host(DType::float64), o16 = host(DType::int16);
  const engine::CallPlan into64 = f.plan({Arg(a16), Arg(b16), Arg(out(o64))});
  CHECK(into64.resolution != first.resolution);
  CHECK(into64.spec.outputs == std::vector<DType>{DType::float64});
  CHECK(f.plan({Arg(a16), Arg(b16), Arg(out(o16))}).spec.outputs == std::vector<DType>{DType::int16});
  CHECK(f.plan({Arg(a16), Arg(b16)}).spec.outputs == std::vector<DType>{DType::int16});

  // float32 and a scalar: the arrays choose, the scalar takes the loop's type.
  const Array a32 = host(DType::float32);
  const engine::CallPlan scaled = f.plan({Arg(a32), Arg(0.5)});
  CHECK(scaled.spec.loop.to_string() == "float32(float32, float32)");
  CHECK(scaled.spec.inputs == std::vector<DType>{DType::float32, DType::float32});
  CHECK(f.plan({Arg(a32), Arg(2.0)}).resolution == scaled.resolution);
  CHECK(f.plan({Arg(0.5), Arg(a32)}).resolution != scaled.resolution);  // the other input
}

TEST_CASE("a scalar that does not fit the cached loop is refused as on the first call",
          "[ufunc][call_plan]") {
  Fixture cold, warm;
  const Array a16 = host(DType::int16);
  const std::string uncached = error_of([&] { cold.plan({Arg(a16), Arg(100000)}); });
  CHECK(uncached.find("cannot be represented as int16") != std::string::npos);
  warm.plan({Arg(a16), Arg(3)});  // cached with a scalar that fits
  CHECK(warm.plan({Arg(a16), Arg(7)}).resolution != nullptr);
  CHECK(error_of([&] { warm.plan({Arg(a16), Arg(100000)}); }) == uncached);
}

TEST_CASE("scalars alone are resolved every call, by their values", "[ufunc][call_plan]") {
  Fixture f;
  const engine::CallPlan ints = f.plan({Arg(3), Arg(4)});
  CHECK(ints.resolution == nullptr);
  REQUIRE(ints.spec_owner != nullptr);
  CHECK(&ints.spec == ints.spec_owner.get());
  CHECK(ints.spec.loop.to_string() == "int16(int16, int16)");
  CHECK(f.plan({Arg(3), Arg(100000)}).spec.loop.to_string() == "float32(float32, float32)");
  CHECK(f.plan({Arg(0.1), Arg(4)}).spec.loop.to_string() == "float32(float32, float32)");
}

TEST_CASE("past the cache's capacity, plans own their spec and stay right", "[ufunc][call_plan]") {
  Fixture f;
  const Array a16 = host(DType::int16);
  const engine::CallPlan early = f.plan({Arg(a16), Arg(a16)});  // the cache's first entry
  REQUIRE(early.resolution != nullptr);
  const DType kinds[] = {DType::bool_,  DType::int8,    DType::uint8,  DType::uint16,
                         DType::float16, DType::float32, DType::float64};
  int made = 1;
  for (DType x : kinds) {
    for (DType y : kinds) {
      const Array a = host(x), b = host(y);
      const engine::CallPlan plan = f.plan({Arg(a), Arg(b)});
      ++made;
      INFO(dtype_name(x) << ", " << dtype_name(y) << ": key " << made);
      if (made <= static_cast<int>(engine::ResolutionCache::kCapacity)) {
        CHECK(plan.resolution != nullptr);
      } else {
        CHECK(plan.resolution == nullptr);
        CHECK(&plan.spec == plan.spec_owner.get());
      }
      CHECK(plan.spec.inputs == std::vector<DType>{x, y});
      // The same loop an uncached engine chooses.
      Fixture fresh;
      CHECK(plan.spec.loop == fresh.plan({Arg(a), Arg(b)}).spec.loop);
      // The first entry is still found, unchanged.
      const engine::CallPlan again = f.plan({Arg(a16), Arg(a16)});
      CHECK(again.resolution == early.resolution);
      CHECK(again.spec.loop.to_string() == "int16(int16, int16)");
      CHECK(again.spec.inputs == std::vector<DType>{DType::int16, DType::int16});
    }
  }
  CHECK(made > static_cast<int>(engine::ResolutionCache::kCapacity));
}

TEST_CASE("the plan's shape is an input's own unless inputs broadcast", "[ufunc][call_plan]") {
  Fixture f;
  const Array a = host(DType::float32, {4, 8}), b = host(DType::float32, {4, 8});
  const engine::CallPlan same = f.plan({Arg(a), Arg(b)});
  CHECK(&same.shape == &a.shape());
  CHECK(same.shape_owner == nullptr);
  CHECK(same.numel == 32);
  const Array row = host(DType::float32, {8});
  const engine::CallPlan wide = f.plan({Arg(row), Arg(a)});
  REQUIRE(wide.shape_owner != nullptr);
  CHECK(wide.shape == Shape{4, 8});
  CHECK(wide.numel == 32);
  const engine::CallPlan copy = wide;  // a copy of a plan keeps a valid shape and spec
  CHECK(copy.shape == Shape{4, 8});
  CHECK(&copy.spec == &wide.spec);
  CHECK(f.plan({Arg(1.0f), Arg(2.0f)}).shape.empty());
  CHECK(&f.plan({Arg(1.0f), Arg(b)}).shape == &b.shape());
}
