// tests/unit/multi_output_cases.hpp: the case table of ufuncs with several outputs, shared by
// the cpu/parallel tests (test_multi_output.cpp) and the cuda ones (gpu/test_gpu_multi_output.cpp).
//
// Two test ufuncs, each written once as source for jitvec and once as a float64 reference here:
//   mo_polar   (r, theta) -> (x, y): polar_to_cartesian, float32 and float64 loops;
//   mo_split3  (a, b) -> (q, s, f): three outputs of three dtypes (float64 floor(a / b), int32
//              sign of a - b, float32 a - q * b), so the outputs differ in element size.
// Every case runs through Ufunc::outputs(); each output is checked element by element against
// the reference (in the loop's result type, then the output's dtype); out= buffers are poisoned
// and elements outside each out= view must stay poisoned.
#pragma once

#include <fmt/format.h>

#include <cmath>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "catch.hpp"
#include "support.hpp"

namespace jitvec_test::multi_output {

inline void define_ufuncs(jitvec::Engine& engine) {
  static std::once_flag once;
  std::call_once(once, [&] {
    engine.vectorize("mo_polar",
                     {"(float32, float32)(float32, float32)", "(float64, float64)(float64, float64)"},
                     "template <typename T> void mo_polar(T r, T theta, T& x, T& y) {\n"
                     "  x = r * cos(theta);\n"
                     "  y = r * sin(theta);\n"
                     "}\n");
    engine.vectorize("mo_split3", {"(float64, int32, float32)(float64, float64)"},
                     "void mo_split3(double a, double b, double& q, int& s, float& f) {\n"
                     "  q = floor(a / b);\n"
                     "  s = a < b ? -1 : (a > b ? 1 : 0);\n"
                     "  f = static_cast<float>(a - q * b);\n"
                     "}\n");
  });
}

inline std::vector<double> ref_polar(const std::vector<double>& a) {
  return {a[0] * std::cos(a[1]), a[0] * std::sin(a[1])};
}
inline std::vector<double> ref_split3(const std::vector<double>& a) {
  const double q = std::floor(a[0] / a[1]);
  return {q, a[0] < a[1] ? -1.0 : (a[0] > a[1] ? 1.0 : 0.0), a[0] - q * a[1]};
}

struct Input {
  std::optional<TestArray> array;
  std::optional<jitvec::Arg> scalar;
  double scalar_value = 0;
};
inline Input array_input(TestArray a) { return Input{std::move(a), std::nullopt, 0}; }
template <class T> Input scalar_input(T v) { return Input{std::nullopt, jitvec::Arg(v), static_cast<double>(v)}; }

struct Case {
  std::string name;
  std::string ufunc;
  std::vector<Input> inputs;
  std::vector<TestArray> outs;  // one poisoned out= view per output, or none
  std::function<std::vector<double>(const std::vector<double>&)> reference;
  std::vector<jitvec::DType> loop_results;  // the loop the case must run in
  jitvec::Shape shape;
  /// out= j is input k itself (the same view): the in-place case; -1 for none.
  int out0_is_input = -1;
};

inline double in_type(jitvec::DType t, double v) {
  unsigned char slot[8];
  store_from_double(t, v, slot);
  return load_as_double(t, slot);
}

// float32 sin/cos within a few ulps of |r| on every target (the GPU's cosf/sinf: 2 ulps).
inline double tolerance(jitvec::DType t, double scale) {
  if (t == jitvec::DType::float32) return 4e-6 * scale + 1e-6;
  if (t == jitvec::DType::float64) return 1e-12 * scale + 1e-300;
  return 0.0;
}

inline jitvec::Strides c_strides(const jitvec::Shape& shape) {
  jitvec::Strides s(shape.size());
  std::int64_t step = 1;
  for (std::size_t d = shape.size(); d-- > 0;) {
    s[d] = step;
    step *= shape[d] > 0 ? shape[d] : 1;
  }
  return s;
}

inline TestArray poisoned(jitvec::DType t, const jitvec::Shape& shape) {
  std::int64_t n = 1;
  for (auto s : shape) n *= s;
  return TestArray::poisoned_view(t, n, 0, shape, c_strides(shape));
}

inline std::vector<Case> make_cases() {
  using jitvec::DType;
  std::vector<Case> cases;
  const double pi = 3.141592653589793;
  cases.push_back(Case{"polar f32 contiguous", "mo_polar",
                       {array_input(TestArray::random(DType::float32, {10007}, 0, 10)),
                        array_input(TestArray::random(DType::float32, {10007}, -pi, pi))},
                       {}, ref_polar, {DType::float32, DType::float32}, {10007}});
  cases.push_back(Case{"polar f64 broadcast (37,1) x (53,)", "mo_polar",
                       {array_input(TestArray::random(DType::float64, {37, 1}, 0, 10)),
                        array_input(TestArray::random(DType::float64, {53}, -pi, pi))},
                       {}, ref_polar, {DType::float64, DType::float64}, {37, 53}});
  cases.push_back(Case{"polar f32 stepped and reversed inputs", "mo_polar",
                       {array_input(TestArray::random_view(DType::float32, 3 * 2001, 0, {2001}, {3}, 0, 10)),
                        array_input(TestArray::random_view(DType::float32, 2001, 2000, {2001}, {-1}, -pi, pi))},
                       {}, ref_polar, {DType::float32, DType::float32}, {2001}});
  cases.push_back(Case{"polar scalar radius (weak float64 -> float32 loop)", "mo_polar",
                       {scalar_input(2.5), array_input(TestArray::random(DType::float32, {4099}, -pi, pi))},
                       {}, ref_polar, {DType::float32, DType::float32}, {4099}});
  {
    // out= with casts and their own strides: x into every other float64, y into a transposed
    // float32 view; the buffers are larger than the views and poisoned.
    Case c{"polar out= float64 stepped + float32 transposed", "mo_polar",
           {array_input(TestArray::random(DType::float32, {67, 45}, 0, 10)),
            array_input(TestArray::random(DType::float32, {67, 45}, -pi, pi))},
           {}, ref_polar, {DType::float32, DType::float32}, {67, 45}};
    c.outs.push_back(TestArray::poisoned_view(DType::float64, 2 * 67 * 45 + 7, 3, {67, 45}, {2 * 45, 2}));
    c.outs.push_back(TestArray::poisoned_view(DType::float32, 67 * 45, 0, {67, 45}, {1, 67}));
    cases.push_back(std::move(c));
  }
  {
    // out= with negative strides: x's rows reversed, y's columns reversed (and cast to float64).
    Case c{"polar out= reversed rows", "mo_polar",
           {array_input(TestArray::random(DType::float32, {33, 129}, 0, 10)), scalar_input(0.75f)},
           {}, ref_polar, {DType::float32, DType::float32}, {33, 129}};
    c.outs.push_back(TestArray::poisoned_view(DType::float32, 33 * 129, 32 * 129, {33, 129}, {-129, 1}));
    c.outs.push_back(TestArray::poisoned_view(DType::float64, 33 * 129, 128, {33, 129}, {129, -1}));
    cases.push_back(std::move(c));
  }
  cases.push_back(Case{"split3 contiguous, big enough to split over threads", "mo_split3",
                       {array_input(TestArray::random(DType::float64, {300007}, -50, 50)),
                        array_input(TestArray::random(DType::float64, {300007}, 0.5, 7))},
                       {}, ref_split3, {DType::float64, DType::int32, DType::float32}, {300007}});
  cases.push_back(Case{"split3 float32 input (safe cast to the float64 loop), int scalar divisor", "mo_split3",
                       {array_input(TestArray::random(DType::float32, {5003}, -50, 50)), scalar_input(3)},
                       {}, ref_split3, {DType::float64, DType::int32, DType::float32}, {5003}});
  {
    // A transposed 2-d input (the GPU's tiled kernel) into out= of three layouts.
    Case c{"split3 transposed input, out= of three layouts", "mo_split3",
           {array_input(TestArray::random_view(DType::float64, 96 * 80, 0, {96, 80}, {1, 96}, -50, 50)),
            array_input(TestArray::random(DType::float64, {80}, 0.5, 7))},
           {}, ref_split3, {DType::float64, DType::int32, DType::float32}, {96, 80}};
    c.outs.push_back(poisoned(DType::float64, {96, 80}));
    c.outs.push_back(TestArray::poisoned_view(DType::int64, 96 * 80, 0, {96, 80}, {1, 96}));
    c.outs.push_back(TestArray::poisoned_view(DType::float64, 96 * 80 * 2, 1, {96, 80}, {160, 2}));
    cases.push_back(std::move(c));
  }
  cases.push_back(Case{"split3 16-row broadcast (rows kernel)", "mo_split3",
                       {array_input(TestArray::random(DType::float64, {16, 1}, -50, 50)),
                        array_input(TestArray::random(DType::float64, {1, 700}, 0.5, 7))},
                       {}, ref_split3, {DType::float64, DType::int32, DType::float32}, {16, 700}});
  // GPU: the N-d vector kernel (3-d broadcast, short rows) and the tiled kernel with a batch
  // (a 3-d permutation that moves the last axis) storing every output.
  cases.push_back(Case{"polar f32 3-d broadcast (6,1,40) x (1,5,1)", "mo_polar",
                       {array_input(TestArray::random(DType::float32, {6, 1, 40}, 0, 10)),
                        array_input(TestArray::random(DType::float32, {1, 5, 1}, -pi, pi))},
                       {}, ref_polar, {DType::float32, DType::float32}, {6, 5, 40}});
  cases.push_back(Case{"split3 3-d permutation moving the last axis", "mo_split3",
                       {array_input(TestArray::random_view(DType::float64, 70 * 3 * 40, 0, {40, 3, 70}, {1, 40, 120}, -50, 50)),
                        array_input(TestArray::random(DType::float64, {70}, 0.5, 7))},
                       {}, ref_split3, {DType::float64, DType::int32, DType::float32}, {40, 3, 70}});
  {
    // In place: out= of the first output is the first input's own view (NumPy allows it).
    Case c{"polar in place: x into r", "mo_polar",
           {array_input(TestArray::random(DType::float32, {3001}, 0, 10)),
            array_input(TestArray::random(DType::float32, {3001}, -pi, pi))},
           {}, ref_polar, {DType::float32, DType::float32}, {3001}};
    c.outs.push_back(poisoned(DType::float32, {3001}));  // stands for input 0 (run_case)
    c.outs.push_back(poisoned(DType::float32, {3001}));
    c.out0_is_input = 0;
    cases.push_back(std::move(c));
  }
  return cases;
}

enum class Where { host, device };

/// Runs `c` on `target` with host or device arrays and checks every output.
inline void run_case(Case& c, jitvec::Target target, Where where) {
  using namespace jitvec;
  Engine& engine = shared_engine();
  define_ufuncs(engine);
  Ufunc f = engine.ufunc(c.ufunc);
  INFO("case: " << c.name << ", target " << target_name(target)
                << (where == Where::device ? ", device arrays" : ", host arrays") << ", seed " << rng_seed());
  auto view = [&](TestArray& a) { return where == Where::device ? a.device_view() : a.host_view(); };
  // out= j's array: the input itself for the in-place case.
  auto out_array = [&](std::size_t j) -> TestArray& {
    return j == 0 && c.out0_is_input >= 0 ? *c.inputs[static_cast<std::size_t>(c.out0_is_input)].array : c.outs[j];
  };

  // The reference first: an in-place case overwrites its input.
  std::vector<std::vector<double>> want(c.loop_results.size());
  for_each_index(c.shape, [&](const std::vector<std::int64_t>& idx) {
    std::vector<double> values;
    for (Input& in : c.inputs) {
      values.push_back(in.array ? in.array->at(broadcast_index(idx, in.array->shape())) : in.scalar_value);
    }
    const std::vector<double> r = c.reference(values);
    for (std::size_t j = 0; j < r.size(); ++j) want[j].push_back(in_type(c.loop_results[j], r[j]));
  });

  std::vector<Arg> args;
  for (Input& in : c.inputs) {
    if (in.array) {
      args.emplace_back(view(*in.array));
    } else {
      args.push_back(*in.scalar);
    }
  }
  for (std::size_t j = 0; j < c.outs.size(); ++j) args.emplace_back(out(view(out_array(j))));
  args.emplace_back(jitvec::target(target));

  std::vector<Array> results = f.call_outputs(args.data(), args.size());
  REQUIRE(results.size() == c.loop_results.size());
  for (std::size_t j = 0; j < results.size(); ++j) {
    INFO("output " << j);
    REQUIRE(results[j].shape() == c.shape);
    if (!c.outs.empty()) {
      REQUIRE(results[j].data() == view(out_array(j)).data());
      if (where == Where::device) out_array(j).fetch_from_device();
    } else {
      CHECK(results[j].dtype() == c.loop_results[j]);
    }
    Array host = !c.outs.empty() ? out_array(j).host_view() : (results[j].is_device() ? results[j].to_host() : results[j]);
    std::int64_t mismatches = 0, i = 0;
    std::string first;
    for_each_index(c.shape, [&](const std::vector<std::int64_t>& idx) {
      const double expect = in_type(host.dtype(), want[j][static_cast<std::size_t>(i++)]);
      const double got = array_at(host, idx);
      const double scale = c.ufunc == "mo_polar" ? 10.0 : 50.0;
      if (!(std::fabs(got - expect) <= tolerance(c.loop_results[j], scale))) {
        if (mismatches++ == 0) first = fmt::format("at ({}): got {}, want {}", fmt::join(idx, ","), got, expect);
      }
    });
    INFO("first mismatch " << first);
    CHECK(mismatches == 0);
    if (!c.outs.empty() && static_cast<int>(j) != (c.out0_is_input >= 0 ? 0 : -1)) {
      const std::vector<bool> covered = c.outs[j].covered();
      std::int64_t touched = 0;
      for (std::int64_t e = 0; e < c.outs[j].base_elements(); ++e) {
        if (!covered[static_cast<std::size_t>(e)] && !c.outs[j].base_poisoned(e)) ++touched;
      }
      CHECK(touched == 0);
    }
  }
}

}  // namespace jitvec_test::multi_output
