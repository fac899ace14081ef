// The table of ufunc cases run on every available target (cpu, parallel, and cuda where a GPU
// is usable, with host arrays and with device arrays): broadcasting, strides (zero, negative,
// transposed), 0-d, empty, out= (strided, cast), mixed dtypes, weak scalars, every dtype.
// Every element is checked against a float64 reference computed here; out= buffers are
// poisoned first, and elements outside the out= view must stay poisoned.
#include <fmt/format.h>

#include <functional>
#include <optional>

#include "catch.hpp"
#include "support.hpp"
#include "test_ufuncs.hpp"

using namespace jitvec;
using namespace jitvec_test;

namespace {

struct Input {
  std::optional<TestArray> array;
  std::optional<Arg> scalar;  // a scalar argument
  double scalar_value = 0;
};

Input array_input(TestArray a) { return Input{std::move(a), std::nullopt, 0}; }
template <class T> Input scalar_input(T v) { return Input{std::nullopt, Arg(v), static_cast<double>(v)}; }

struct Case {
  std::string name;
  std::string ufunc;
  std::vector<Input> inputs;
  std::optional<TestArray> out;                // out= buffer (poisoned view), if any
  std::function<double(const std::vector<double>&)> reference;
  DType loop_type;                             // the loop the case must run in
  Shape expected_shape;
};

Strides c_strides(const Shape& shape) {
  Strides s(shape.size());
  std::int64_t step = 1;
  for (std::size_t d = shape.size(); d-- > 0;) {
    s[d] = step;
    step *= shape[d] > 0 ? shape[d] : 1;
  }
  return s;
}

// Loop-type rounding of a reference value: integers exact, floats rounded to the type.
double in_type(DType t, double v) {
  unsigned char slot[8];
  store_from_double(t, v, slot);
  return load_as_double(t, slot);
}

double tolerance(DType loop, double ref) {
  if (loop == DType::float32) return 2e-6 * std::fabs(ref) + 1e-7;
  if (loop == DType::float64) return 1e-13 * std::fabs(ref) + 1e-300;
  return 0.0;
}

std::vector<Case> make_cases() {
  std::vector<Case> cases;
  // Every dtype through `add`, contiguous; values small enough that no type overflows.
  for (DType t : {DType::int8, DType::int16, DType::int32, DType::int64, DType::uint8,
                  DType::uint16, DType::uint32, DType::uint64, DType::float32, DType::float64}) {
    const double hi = dtype_kind(t) == DTypeKind::floating ? 1e3 : 60;
    cases.push_back(Case{fmt::format("add {} contiguous", dtype_name(t)), "add",
                         {array_input(TestArray::random(t, {1003}, 0, hi)),
                          array_input(TestArray::random(t, {1003}, 0, hi))},
                         std::nullopt, ref_add, t, {1003}});
  }
  cases.push_back(Case{"select on bool", "select",
                       {array_input(TestArray::random(DType::bool_, {517}, 0, 1)),
                        array_input(TestArray::random(DType::float32, {517}, -5, 5)),
                        scalar_input(2.5f)},
                       std::nullopt, ref_select, DType::float32, {517}});
  cases.push_back(Case{"gauss f32, scalars", "gauss",
                       {array_input(TestArray::random(DType::float32, {100003}, -3, 3)),
                        scalar_input(0.25f), scalar_input(1.5f)},
                       std::nullopt, ref_gauss, DType::float32, {100003}});
  cases.push_back(Case{"gauss f64, double scalars", "gauss",
                       {array_input(TestArray::random(DType::float64, {4099}, -3, 3)),
                        scalar_input(-0.5), scalar_input(0.75)},
                       std::nullopt, ref_gauss, DType::float64, {4099}});
  cases.push_back(Case{"gauss f32, all arrays", "gauss",
                       {array_input(TestArray::random(DType::float32, {333}, -3, 3)),
                        array_input(TestArray::random(DType::float32, {333}, -1, 1)),
                        array_input(TestArray::random(DType::float32, {333}, 0.5, 2))},
                       std::nullopt, ref_gauss, DType::float32, {333}});
  cases.push_back(Case{"broadcast (3,1) + (1,4)", "add",
                       {array_input(TestArray::random(DType::float32, {3, 1}, -9, 9)),
                        array_input(TestArray::random(DType::float32, {1, 4}, -9, 9))},
                       std::nullopt, ref_add, DType::float32, {3, 4}});
  cases.push_back(Case{"broadcast (5,4,3) + (3,)", "add",
                       {array_input(TestArray::random(DType::float64, {5, 4, 3}, -9, 9)),
                        array_input(TestArray::random(DType::float64, {3}, -9, 9))},
                       std::nullopt, ref_add, DType::float64, {5, 4, 3}});
  cases.push_back(Case{"0-d array + (7,)", "add",
                       {array_input(TestArray::random(DType::int32, {}, -9, 9)),
                        array_input(TestArray::random(DType::int32, {7}, -9, 9))},
                       std::nullopt, ref_add, DType::int32, {7}});
  cases.push_back(Case{"two 0-d arrays", "add",
                       {array_input(TestArray::random(DType::float32, {}, -9, 9)),
                        array_input(TestArray::random(DType::float32, {}, -9, 9))},
                       std::nullopt, ref_add, DType::float32, {}});
  cases.push_back(Case{"all scalars -> 0-d", "gauss",
                       {scalar_input(0.5f), scalar_input(0.0f), scalar_input(1.0f)},
                       std::nullopt, ref_gauss, DType::float32, {}});
  cases.push_back(Case{"transposed input", "add",
                       {array_input(TestArray::random_view(DType::float32, 6 * 40, 0, {40, 6}, {1, 40}, -9, 9)),
                        array_input(TestArray::random(DType::float32, {40, 6}, -9, 9))},
                       std::nullopt, ref_add, DType::float32, {40, 6}});
  cases.push_back(Case{"transposed input, tiles with ragged edges (GPU: shared-memory tiles)", "mix",
                       {array_input(TestArray::random_view(DType::int16, 70 * 45, 0, {70, 45}, {1, 70}, -999, 999)),
                        array_input(TestArray::random(DType::float32, {70, 45}, -9, 9)),
                        array_input(TestArray::random_view(DType::float64, 64 * 70, 69, {70, 45}, {-1, 64}, -9, 9))},
                       std::nullopt, ref_mix, DType::float64, {70, 45}});
  cases.push_back(Case{"transposed input with scalar parameters (GPU: the f(x, scalars) tiles)", "gauss",
                       {array_input(TestArray::random_view(DType::float64, 130 * 97, 0, {97, 130}, {1, 97}, -3, 3)),
                        scalar_input(0.25), scalar_input(1.5)},
                       std::nullopt, ref_gauss, DType::float64, {97, 130}});
  cases.push_back(Case{"step-2 slice and negative stride", "add",
                       {array_input(TestArray::random_view(DType::float32, 2000, 1, {999}, {2}, -9, 9)),
                        array_input(TestArray::random_view(DType::float32, 999, 998, {999}, {-1}, -9, 9))},
                       std::nullopt, ref_add, DType::float32, {999}});
  cases.push_back(Case{"2-d negative strides both dims", "hyp",
                       {array_input(TestArray::random_view(DType::float32, 12 * 11, 12 * 11 - 1, {11, 12}, {-12, -1}, -9, 9)),
                        scalar_input(3.0f)},
                       std::nullopt, ref_hyp, DType::float32, {11, 12}});
  cases.push_back(Case{"stride-0 (broadcast_to) view", "add",
                       {array_input(TestArray::random_view(DType::int16, 5, 0, {9, 5}, {0, 1}, -99, 99)),
                        array_input(TestArray::random(DType::int16, {9, 5}, -99, 99))},
                       std::nullopt, ref_add, DType::int16, {9, 5}});
  cases.push_back(Case{"out= transposed, poisoned", "gauss",
                       {array_input(TestArray::random(DType::float32, {17, 23}, -3, 3)),
                        scalar_input(0.0f), scalar_input(1.0f)},
                       TestArray::poisoned_view(DType::float32, 23 * 17, 0, {17, 23}, {1, 17}),
                       ref_gauss, DType::float32, {17, 23}});
  cases.push_back(Case{"out= every other element of a bigger buffer", "add",
                       {array_input(TestArray::random(DType::int32, {64}, -99, 99)),
                        array_input(TestArray::random(DType::int32, {64}, -99, 99))},
                       TestArray::poisoned_view(DType::int32, 130, 1, {64}, {2}), ref_add,
                       DType::int32, {64}});
  cases.push_back(Case{"out= float64 from a float32 loop", "gauss",
                       {array_input(TestArray::random(DType::float32, {1000}, -3, 3)),
                        scalar_input(0.0f), scalar_input(2.0f)},
                       TestArray::poisoned_view(DType::float64, 1000, 0, {1000}, {1}), ref_gauss,
                       DType::float32, {1000}});
  cases.push_back(Case{"mixed dtypes: int16 + float32 arrays -> float32 loop", "add",
                       {array_input(TestArray::random(DType::int16, {2049}, -999, 999)),
                        array_input(TestArray::random(DType::float32, {2049}, -9, 9))},
                       std::nullopt, ref_add, DType::float32, {2049}});
  cases.push_back(Case{"mixed loop types, scalar double", "mix",
                       {array_input(TestArray::random(DType::int16, {3, 300}, -999, 999)),
                        array_input(TestArray::random(DType::float32, {300}, -9, 9)),
                        scalar_input(0.125)},
                       std::nullopt, ref_mix, DType::float64, {3, 300}});
  // 2-D rows of >= 256 columns: on the GPU, vector loads along the row when every operand runs
  // along it from aligned row starts or is constant along it (jitvec_rows_vec), else jitvec_rows.
  cases.push_back(Case{"row broadcast (40, 1024) + (1024,)", "add",
                       {array_input(TestArray::random(DType::float32, {40, 1024}, -9, 9)),
                        array_input(TestArray::random(DType::float32, {1024}, -9, 9))},
                       std::nullopt, ref_add, DType::float32, {40, 1024}});
  cases.push_back(Case{"column broadcast (40, 1) + (40, 520) int16", "add",
                       {array_input(TestArray::random(DType::int16, {40, 1}, -999, 999)),
                        array_input(TestArray::random(DType::int16, {40, 520}, -999, 999))},
                       std::nullopt, ref_add, DType::int16, {40, 520}});
  cases.push_back(Case{"rows with a ragged tail: (24, 514) views of (24, 520), out= poisoned", "gauss",
                       {array_input(TestArray::random_view(DType::float32, 24 * 520, 0, {24, 514}, {520, 1}, -3, 3)),
                        scalar_input(0.5f), scalar_input(1.25f)},
                       TestArray::poisoned_view(DType::float32, 24 * 520, 0, {24, 514}, {520, 1}),
                       ref_gauss, DType::float32, {24, 514}});
  cases.push_back(Case{"rows starting off a vector boundary: (24, 514) view at element 1", "add",
                       {array_input(TestArray::random_view(DType::float32, 24 * 520 + 1, 1, {24, 514}, {520, 1}, -9, 9)),
                        array_input(TestArray::random(DType::float32, {514}, -9, 9))},
                       std::nullopt, ref_add, DType::float32, {24, 514}});
  // N-d spaces with rows of >= 256 columns (GPU: the row kernels, any number of dimensions).
  cases.push_back(Case{"3-d broadcast (B,1,L) + (1,C,1), L = 260 (vector rows)", "add",
                       {array_input(TestArray::random(DType::float32, {6, 1, 260}, -9, 9)),
                        array_input(TestArray::random(DType::float32, {1, 5, 1}, -9, 9))},
                       std::nullopt, ref_add, DType::float32, {6, 5, 260}});
  cases.push_back(Case{"3-d broadcast (B,1,L) + (1,C,1), L = 258 (rows off vector boundaries)", "add",
                       {array_input(TestArray::random(DType::float32, {6, 1, 258}, -9, 9)),
                        array_input(TestArray::random(DType::float32, {1, 5, 1}, -9, 9))},
                       std::nullopt, ref_add, DType::float32, {6, 5, 258}});
  cases.push_back(Case{"4-d (N,C,H,W) + (1,C,1,1) int16", "add",
                       {array_input(TestArray::random(DType::int16, {2, 3, 4, 256}, -999, 999)),
                        array_input(TestArray::random(DType::int16, {1, 3, 1, 1}, -999, 999))},
                       std::nullopt, ref_add, DType::int16, {2, 3, 4, 256}});
  cases.push_back(Case{"6-d, size-1 axes between full ones", "mix",
                       {array_input(TestArray::random(DType::int16, {2, 1, 3, 1, 2, 264}, -999, 999)),
                        array_input(TestArray::random(DType::float32, {1, 2, 1, 3, 1, 264}, -9, 9)),
                        scalar_input(0.5)},
                       std::nullopt, ref_mix, DType::float64, {2, 2, 3, 3, 2, 264}});
  cases.push_back(Case{"stepped view x[::3], 1-d", "add",
                       {array_input(TestArray::random_view(DType::float32, 3 * 700, 2, {700}, {3}, -9, 9)),
                        scalar_input(1.5f)},
                       std::nullopt, ref_add, DType::float32, {700}});
  cases.push_back(Case{"stepped along an outer axis x[::2, :]", "add",
                       {array_input(TestArray::random_view(DType::float32, 20 * 512, 0, {10, 512}, {1024, 1}, -9, 9)),
                        array_input(TestArray::random(DType::float32, {10, 512}, -9, 9))},
                       std::nullopt, ref_add, DType::float32, {10, 512}});
  cases.push_back(Case{"3-d permutation keeping the last axis, (A,B,C) read as (B,A,C)", "add",
                       {array_input(TestArray::random_view(DType::float64, 4 * 3 * 300, 0, {3, 4, 300}, {300, 900, 1}, -9, 9)),
                        array_input(TestArray::random(DType::float64, {3, 4, 300}, -9, 9))},
                       std::nullopt, ref_add, DType::float64, {3, 4, 300}});
  cases.push_back(Case{"mix: permuted + broadcast + scalar into a strided out=", "mix",
                       {array_input(TestArray::random_view(DType::int16, 4 * 5 * 300, 0, {5, 4, 300}, {300, 1500, 1}, -999, 999)),
                        array_input(TestArray::random(DType::float32, {300}, -9, 9)),
                        scalar_input(0.25)},
                       TestArray::poisoned_view(DType::float64, 5 * 4 * 600, 0, {5, 4, 300}, {2400, 600, 2}),
                       ref_mix, DType::float64, {5, 4, 300}});
  // GPU: jitvec_nd_vec (rows of whole 16-byte vectors, 3+ dimensions or short rows; each input
  // splatted, vector-loaded or read element by element) and jitvec_tiled with a batch (a
  // permutation that moves the last axis), with ragged tile edges.
  cases.push_back(Case{"3-d broadcast with short rows (7,1,12) + (1,5,1)", "add",
                       {array_input(TestArray::random(DType::float32, {7, 1, 12}, -9, 9)),
                        array_input(TestArray::random(DType::float32, {1, 5, 1}, -9, 9))},
                       std::nullopt, ref_add, DType::float32, {7, 5, 12}});
  cases.push_back(Case{"3-d: a stepped input, a misaligned input, a splatted input", "gauss",
                       {array_input(TestArray::random_view(DType::float32, 4 * 6 * 80, 0, {4, 6, 40}, {480, 80, 2}, -3, 3)),
                        array_input(TestArray::random_view(DType::float32, 6 * 40 + 1, 1, {6, 40}, {40, 1}, -1, 1)),
                        array_input(TestArray::random(DType::float32, {4, 1, 1}, 0.5, 2))},
                       std::nullopt, ref_gauss, DType::float32, {4, 6, 40}});
  cases.push_back(Case{"short rows of 4: (1000, 4) + (4,) float64", "add",
                       {array_input(TestArray::random(DType::float64, {1000, 4}, -9, 9)),
                        array_input(TestArray::random(DType::float64, {4}, -9, 9))},
                       std::nullopt, ref_add, DType::float64, {1000, 4}});
  cases.push_back(Case{"3-d permutation moving the last axis: (66,3,40) read as (40,3,66)", "add",
                       {array_input(TestArray::random_view(DType::float32, 66 * 3 * 40, 0, {40, 3, 66}, {1, 40, 120}, -9, 9)),
                        array_input(TestArray::random(DType::float32, {3, 1}, -9, 9))},
                       std::nullopt, ref_add, DType::float32, {40, 3, 66}});
  cases.push_back(Case{"4-d permutation (0,3,2,1) of (3,70,5,45), ragged tiles, batch of 15", "add",
                       {array_input(TestArray::random_view(DType::float64, 3 * 70 * 5 * 45, 0, {3, 45, 5, 70}, {15750, 1, 45, 225}, -9, 9)),
                        array_input(TestArray::random(DType::float64, {3, 45, 5, 70}, -9, 9))},
                       std::nullopt, ref_add, DType::float64, {3, 45, 5, 70}});
  cases.push_back(Case{"tiles with a batch: permuted int16 + broadcast + scalar into a padded out=", "mix",
                       {array_input(TestArray::random_view(DType::int16, 70 * 5 * 45, 0, {45, 5, 70}, {1, 45, 225}, -999, 999)),
                        array_input(TestArray::random(DType::float32, {70}, -9, 9)),
                        scalar_input(0.25)},
                       TestArray::poisoned_view(DType::float64, 45 * 5 * 72 + 3, 3, {45, 5, 70}, {360, 72, 1}),
                       ref_mix, DType::float64, {45, 5, 70}});
  cases.push_back(Case{"weak scalar 15.0 into int16 (seed's zero_suppress)", "zero_suppress",
                       {array_input(TestArray::random(DType::int16, {10000}, -40, 40)),
                        scalar_input(15.0)},
                       std::nullopt, ref_zero_suppress, DType::int16, {10000}});
  cases.push_back(Case{"helpers used transitively", "hyp",
                       {array_input(TestArray::random(DType::float32, {5000}, -9, 9)),
                        array_input(TestArray::random(DType::float32, {5000}, -9, 9))},
                       std::nullopt, ref_hyp, DType::float32, {5000}});
  cases.push_back(Case{"empty (0,)", "add",
                       {array_input(TestArray::random(DType::float32, {0}, 0, 1)),
                        array_input(TestArray::random(DType::float32, {0}, 0, 1))},
                       std::nullopt, ref_add, DType::float32, {0}});
  cases.push_back(Case{"empty (3,0) broadcast with (1,0)", "add",
                       {array_input(TestArray::random(DType::float32, {3, 0}, 0, 1)),
                        array_input(TestArray::random(DType::float32, {1, 0}, 0, 1))},
                       std::nullopt, ref_add, DType::float32, {3, 0}});
  {
    // 16 dimensions that cannot merge: alternating broadcast dimensions.
    Shape a_shape, b_shape, full;
    for (int d = 0; d < 16; ++d) {
      a_shape.push_back(d % 2 ? 2 : 1);
      b_shape.push_back(d % 2 ? 1 : 2);
      full.push_back(2);
    }
    cases.push_back(Case{"16-d alternating broadcast", "add",
                         {array_input(TestArray::random(DType::float32, a_shape, -9, 9)),
                          array_input(TestArray::random(DType::float32, b_shape, -9, 9))},
                         std::nullopt, ref_add, DType::float32, full});
  }
  cases.push_back(Case{"big enough to split over threads", "gauss",
                       {array_input(TestArray::random(DType::float32, {300007}, -3, 3)),
                        scalar_input(0.0f), scalar_input(1.0f)},
                       std::nullopt, ref_gauss, DType::float32, {300007}});
  cases.push_back(Case{"big strided, split over threads", "add",
                       {array_input(TestArray::random_view(DType::float32, 1000 * 301, 0, {301, 1000}, {1, 301}, -9, 9)),
                        array_input(TestArray::random(DType::float32, {1000}, -9, 9))},
                       std::nullopt, ref_add, DType::float32, {301, 1000}});
  return cases;
}

enum class Where { host, device };

void run_case(Case& c, Target target, Where where) {
  Engine& engine = shared_engine();
  define_test_ufuncs(engine);
  Ufunc f = engine.ufunc(c.ufunc);
  INFO("case: " << c.name << ", target " << target_name(target)
                << (where == Where::device ? ", device arrays" : ", host arrays")
                << ", seed " << rng_seed());

  std::vector<Arg> args;
  for (Input& in : c.inputs) {
    if (in.array) {
      args.emplace_back(where == Where::device ? in.array->device_view() : in.array->host_view());
    } else {
      args.push_back(*in.scalar);
    }
  }
  if (c.out) args.emplace_back(out(where == Where::device ? c.out->device_view() : c.out->host_view()));
  args.emplace_back(jitvec::target(target));

  Array result = f.call(args.data(), args.size());
  REQUIRE(result.shape() == c.expected_shape);
  if (c.out) {
    REQUIRE(result.data() == (where == Where::device ? c.out->device_view() : c.out->host_view()).data());
    if (where == Where::device) c.out->fetch_from_device();
  }
  Array host = c.out ? c.out->host_view() : (result.is_device() ? result.to_host() : result);
  REQUIRE(host.memory() == Memory::host);
  bool any_array = static_cast<bool>(c.out);
  for (const Input& in : c.inputs) any_array = any_array || in.array;
  REQUIRE(result.is_device() == (where == Where::device && target == Target::cuda && any_array));

  std::int64_t mismatches = 0;
  std::string first;
  for_each_index(c.expected_shape, [&](const std::vector<std::int64_t>& idx) {
    std::vector<double> values;
    for (Input& in : c.inputs) {
      values.push_back(in.array ? in.array->at(broadcast_index(idx, in.array->shape()))
                                : in.scalar_value);
    }
    const double want = in_type(host.dtype(), in_type(c.loop_type, c.reference(values)));
    const double got = array_at(host, idx);
    const bool nan_ok = std::isnan(want) && std::isnan(got);
    if (!nan_ok && !(std::fabs(got - want) <= tolerance(c.loop_type, want))) {
      if (mismatches++ == 0) first = fmt::format("at ({}): got {}, want {}", fmt::join(idx, ","), got, want);
    }
  });
  INFO("first mismatch " << first);
  CHECK(mismatches == 0);
  if (c.out) {  // nothing outside the out= view was written
    const std::vector<bool> covered = c.out->covered();
    std::int64_t touched = 0;
    for (std::int64_t i = 0; i < c.out->base_elements(); ++i) {
      if (!covered[static_cast<std::size_t>(i)] && !c.out->base_poisoned(i)) ++touched;
    }
    CHECK(touched == 0);
  }
}

}  // namespace

TEST_CASE("ufunc case table on the cpu target", "[ufunc][cpu]") {
  for (Case& c : make_cases()) run_case(c, Target::cpu, Where::host);
}

TEST_CASE("ufunc case table on the parallel target", "[ufunc][parallel]") {
  for (Case& c : make_cases()) run_case(c, Target::parallel, Where::host);
}

TEST_CASE("ufunc case table on the cuda target, host arrays", "[ufunc][gpu]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  for (Case& c : make_cases()) run_case(c, Target::cuda, Where::host);
}

TEST_CASE("ufunc case table on the cuda target, device arrays", "[ufunc][gpu]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  for (Case& c : make_cases()) run_case(c, Target::cuda, Where::device);
}
