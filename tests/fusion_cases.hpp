// tests/fusion_cases.hpp: the fused-ufunc case table, run on every target (test_fusion.cpp on
// cpu and parallel, tests/gpu/test_gpu_fusion.cpp on cuda with host and device arrays).
//
// Each case is an expression over the stage ufuncs defined by define_fusion_stages() and its
// inputs (arrays with any strides, broadcasts, scalars, mixed dtypes). check_fused_case()
// fuses it, calls it, and checks the result (1) bit for bit against the same chain run as
// separate calls of the stage ufuncs on the same target (evaluated from the parsed expression,
// intermediates as arrays), and (2) against an independent float64 reference written here,
// exactly where the reference rounds as the loops do, else within a float tolerance. out=
// buffers are poisoned, and elements outside the out= view must stay poisoned.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "catch.hpp"
#include "codegen/fusion_expression.hpp"
#include "support.hpp"

namespace jitvec_test {

/// The stage ufuncs of the fusion tests (and a helper two of them share), defined once.
inline void define_fusion_stages(jitvec::Engine& engine) {
  // Integers first, so that integer arrays stay in integer loops (int32 casts safely to float64).
  const std::vector<std::string> arithmetic = {"int32(int32, int32)", "uint32(uint32, uint32)",
                                               "int64(int64, int64)", "float32(float32, float32)",
                                               "float64(float64, float64)"};
  engine.vectorize("vmul", arithmetic, "template <class T> T vmul(T a, T b) { return a * b; }");
  engine.vectorize("vadd", arithmetic, "template <class T> T vadd(T a, T b) { return a + b; }");
  engine.vectorize("i16add", {"int16(int16, int16)"},
                   "short i16add(short a, short b) { return static_cast<short>(a + b); }");
  // Computes in float64 and returns float32: the intermediate must be rounded to float32.
  engine.vectorize("narrow_div", {"float32(float64, float64)"},
                   "double narrow_div(double a, double b) { return a / b; }");
  engine.vectorize("dsq", {"float64(float64)"}, "double dsq(double x) { return x * x; }");
  engine.vectorize("gt", {"bool(float32, float32)", "bool(float64, float64)"},
                   "template <class T> bool gt(T a, T b) { return a > b; }");
  engine.vectorize("pick", {"float32(bool, float32, float32)"},
                   "float pick(bool c, float a, float b) { return c ? a : b; }");
  // Two ufuncs using one helper: a fusion of both pastes it once.
  engine.define_device_function("fusion_sq",
                                "__device__ float fusion_sq(float v) { return v * v; }");
  engine.vectorize("norm2", {"float32(float32, float32)"},
                   "#include <cmath>\nfloat norm2(float a, float b) { return sqrtf(fusion_sq(a) + "
                   "fusion_sq(b)); }");
  engine.vectorize("sqplus", {"float32(float32, float32)"},
                   "float sqplus(float a, float b) { return fusion_sq(a) + b; }");
  // Two ufuncs whose sources define the same auxiliary name: each stage has its namespace.
  engine.vectorize(
      "aux_a", {"float32(float32)"},
      "float aux(float v) { return v + 1.0f; }\nfloat aux_a(float a) { return aux(a); }");
  engine.vectorize(
      "aux_b", {"float32(float32)"},
      "float aux(float v) { return v * 2.0f; }\nfloat aux_b(float a) { return aux(a); }");
}

/// The fusion tests' engine: its own disk cache in a temporary folder, the stages defined.
inline jitvec::Engine& fusion_engine() {
  static TempDir cache_dir;
  static jitvec::Engine engine([] {
    jitvec::EngineOptions options;
    options.cache.dir = cache_dir.path();
    options.cache.read_only_dirs = std::vector<std::filesystem::path>{};
    options.threads = 3;
    return options;
  }());
  static const bool defined = (define_fusion_stages(engine), true);
  (void)defined;
  return engine;
}

struct FusedInput {
  std::optional<TestArray> array;
  std::optional<jitvec::Arg> scalar;
  double scalar_value = 0;
};
inline FusedInput fused_array(TestArray a) { return FusedInput{std::move(a), std::nullopt, 0}; }
template <class T>
FusedInput fused_scalar(T v) {
  return FusedInput{std::nullopt, jitvec::Arg(v), static_cast<double>(v)};
}

struct FusedCase {
  std::string name;
  std::string expression;
  std::vector<FusedInput> inputs;
  /// The independent reference on the inputs' values (as doubles).
  std::function<double(const std::vector<double>&)> reference;
  /// 0: the reference rounds as the loops do and must match exactly; else the relative
  /// tolerance.
  double tolerance = 0;
  jitvec::DType result = jitvec::DType::float32;
  jitvec::Shape shape;
  std::optional<TestArray> out;  // out= (a poisoned view), if any
};

inline float f32(double v) { return static_cast<float>(v); }
inline double wrap_i16(double v) {
  return static_cast<double>(static_cast<std::int16_t>(static_cast<std::int64_t>(v)));
}
inline double wrap_u32(double v) {
  return static_cast<double>(
      static_cast<std::uint32_t>(static_cast<std::uint64_t>(static_cast<std::int64_t>(v))));
}

inline std::vector<FusedCase> fused_cases() {
  using jitvec::DType;
  std::vector<FusedCase> cases;
  // float32 multiply then add: the pattern an FMA would contract across the stage boundary.
  cases.push_back({"vadd(vmul(x, y), z) float32 contiguous",
                   "vadd(vmul(x, y), z)",
                   {fused_array(TestArray::random(DType::float32, {100003}, -9, 9)),
                    fused_array(TestArray::random(DType::float32, {100003}, -9, 9)),
                    fused_array(TestArray::random(DType::float32, {100003}, -9, 9))},
                   [](const std::vector<double>& a) { return double(f32(a[0] * a[1])) + a[2]; },
                   4e-7,
                   DType::float32,
                   {100003}});
  cases.push_back({"three stages, four inputs, float64",
                   "vadd(vmul(vadd(x, y), z), w)",
                   {fused_array(TestArray::random(DType::float64, {4099}, -9, 9)),
                    fused_array(TestArray::random(DType::float64, {4099}, -9, 9)),
                    fused_array(TestArray::random(DType::float64, {4099}, -9, 9)),
                    fused_array(TestArray::random(DType::float64, {4099}, -9, 9))},
                   [](const std::vector<double>& a) { return (a[0] + a[1]) * a[2] + a[3]; },
                   1e-13,
                   DType::float64,
                   {4099}});
  cases.push_back({"broadcast (3,1) x (1,4) + (4,)",
                   "vadd(vmul(x, y), z)",
                   {fused_array(TestArray::random(DType::float32, {3, 1}, -9, 9)),
                    fused_array(TestArray::random(DType::float32, {1, 4}, -9, 9)),
                    fused_array(TestArray::random(DType::float32, {4}, -9, 9))},
                   [](const std::vector<double>& a) { return double(f32(a[0] * a[1])) + a[2]; },
                   4e-7,
                   DType::float32,
                   {3, 4}});
  cases.push_back({"rows: (40, 1024) with a (1024,) row and a (40, 1) column",
                   "vadd(vmul(x, y), z)",
                   {fused_array(TestArray::random(DType::float32, {40, 1024}, -9, 9)),
                    fused_array(TestArray::random(DType::float32, {1024}, -9, 9)),
                    fused_array(TestArray::random(DType::float32, {40, 1}, -9, 9))},
                   [](const std::vector<double>& a) { return double(f32(a[0] * a[1])) + a[2]; },
                   4e-7,
                   DType::float32,
                   {40, 1024}});
  cases.push_back(
      {"strides: transposed, negative, step 2",
       "vadd(vmul(x, y), z)",
       {fused_array(TestArray::random_view(DType::float32, 6 * 40, 0, {40, 6}, {1, 40}, -9, 9)),
        fused_array(TestArray::random_view(DType::float32, 240, 239, {40, 6}, {-6, -1}, -9, 9)),
        fused_array(TestArray::random_view(DType::float32, 2 * 240, 0, {40, 6}, {12, 2}, -9, 9))},
       [](const std::vector<double>& a) { return double(f32(a[0] * a[1])) + a[2]; },
       4e-7,
       DType::float32,
       {40, 6}});
  cases.push_back(
      {"transposed tiles with ragged edges",
       "vadd(vmul(x, y), z)",
       {fused_array(TestArray::random_view(DType::float32, 70 * 45, 0, {70, 45}, {1, 70}, -9, 9)),
        fused_array(TestArray::random(DType::float32, {70, 45}, -9, 9)), fused_scalar(0.5f)},
       [](const std::vector<double>& a) { return double(f32(a[0] * a[1])) + a[2]; },
       4e-7,
       DType::float32,
       {70, 45}});
  cases.push_back(
      {"a literal and a scalar input",
       "vadd(vmul(x, 2.5), s)",
       {fused_array(TestArray::random(DType::float32, {1003}, -9, 9)), fused_scalar(0.1f)},
       [](const std::vector<double>& a) { return double(f32(a[0] * 2.5)) + double(0.1f); },
       4e-7,
       DType::float32,
       {1003}});
  cases.push_back({"an input used three times",
                   "vadd(vmul(x, x), x)",
                   {fused_array(TestArray::random(DType::float32, {777}, -9, 9))},
                   [](const std::vector<double>& a) { return double(f32(a[0] * a[0])) + a[0]; },
                   4e-7,
                   DType::float32,
                   {777}});
  // A double scalar that both a float32 and a float64 stage take: it goes in its own type.
  cases.push_back({"a scalar taken by a float32 and a float64 stage",
                   "vadd(vmul(x, s), vmul(y, s))",
                   {fused_array(TestArray::random(DType::float32, {500}, -9, 9)), fused_scalar(0.3),
                    fused_array(TestArray::random(DType::float64, {500}, -9, 9))},
                   [](const std::vector<double>& a) {
                     return double(f32(a[0] * double(f32(a[1])))) + a[2] * a[1];
                   },
                   1e-12,
                   DType::float64,
                   {500}});
  cases.push_back({"mixed dtypes: int16 x float32 -> float32 loop, + float64 -> float64 loop",
                   "vadd(vmul(x, y), z)",
                   {fused_array(TestArray::random(DType::int16, {2049}, -999, 999)),
                    fused_array(TestArray::random(DType::float32, {2049}, -9, 9)),
                    fused_array(TestArray::random(DType::float64, {2049}, -9, 9))},
                   [](const std::vector<double>& a) { return double(f32(a[0] * a[1])) + a[2]; },
                   0,
                   DType::float64,
                   {2049}});
  cases.push_back(
      {"int16 wrap-around between stages, bit for bit",
       "i16add(i16add(x, y), z)",
       {fused_array(TestArray::random(DType::int16, {3001}, -32000, 32000)),
        fused_array(TestArray::random(DType::int16, {3001}, -32000, 32000)),
        fused_array(TestArray::random(DType::int16, {3001}, -32000, 32000))},
       [](const std::vector<double>& a) { return wrap_i16(wrap_i16(a[0] + a[1]) + a[2]); },
       0,
       DType::int16,
       {3001}});
  cases.push_back({"uint32 wrap-around, an int16 intermediate widened",
                   "vmul(vadd(x, y), i16add(z, z))",
                   {fused_array(TestArray::random(DType::uint32, {1500}, 0, 4e9)),
                    fused_array(TestArray::random(DType::uint32, {1500}, 0, 4e9)),
                    fused_array(TestArray::random(DType::int16, {1500}, -30000, 30000))},
                   [](const std::vector<double>& a) {
                     // vadd takes the uint32 loop; vmul(uint32, int16) the int64 one.
                     const double sum = wrap_u32(a[0] + a[1]);
                     return sum * wrap_i16(a[2] + a[2]);
                   },
                   0,
                   DType::int64,
                   {1500}});
  cases.push_back({"an integer literal in an int32 chain",
                   "vadd(vmul(x, 3), -7)",
                   {fused_array(TestArray::random(DType::int32, {999}, -99999, 99999))},
                   [](const std::vector<double>& a) { return a[0] * 3 - 7; },
                   0,
                   DType::int32,
                   {999}});
  cases.push_back({"a float32 intermediate computed in float64 is rounded to float32",
                   "dsq(narrow_div(x, y))",
                   {fused_array(TestArray::random(DType::float64, {4001}, -9, 9)),
                    fused_array(TestArray::random(DType::float64, {4001}, 1, 9))},
                   [](const std::vector<double>& a) {
                     const double t = f32(a[0] / a[1]);
                     return t * t;
                   },
                   0,
                   DType::float64,
                   {4001}});
  cases.push_back({"a bool intermediate",
                   "pick(gt(x, y), x, y)",
                   {fused_array(TestArray::random(DType::float32, {1234}, -9, 9)),
                    fused_array(TestArray::random(DType::float32, {1234}, -9, 9))},
                   [](const std::vector<double>& a) { return a[0] > a[1] ? a[0] : a[1]; },
                   0,
                   DType::float32,
                   {1234}});
  cases.push_back({"one helper for two stages",
                   "sqplus(norm2(x, y), z)",
                   {fused_array(TestArray::random(DType::float32, {640}, -9, 9)),
                    fused_array(TestArray::random(DType::float32, {640}, -9, 9)),
                    fused_array(TestArray::random(DType::float32, {640}, -9, 9))},
                   [](const std::vector<double>& a) { return a[0] * a[0] + a[1] * a[1] + a[2]; },
                   2e-6,
                   DType::float32,
                   {640}});
  cases.push_back({"stages defining the same auxiliary name",
                   "aux_b(aux_a(x))",
                   {fused_array(TestArray::random(DType::float32, {300}, -9, 9))},
                   [](const std::vector<double>& a) { return double(f32(a[0] + 1.0)) * 2.0; },
                   0,
                   DType::float32,
                   {300}});
  cases.push_back({"scalars and a 0-d array",
                   "vadd(vmul(x, y), z)",
                   {fused_scalar(1.5f), fused_array(TestArray::random(DType::float32, {}, -9, 9)),
                    fused_array(TestArray::random(DType::float32, {5, 7}, -9, 9))},
                   [](const std::vector<double>& a) { return double(f32(a[0] * a[1])) + a[2]; },
                   4e-7,
                   DType::float32,
                   {5, 7}});
  cases.push_back({"only scalars -> 0-d",
                   "vadd(vmul(x, y), z)",
                   {fused_scalar(1.5f), fused_scalar(-2.25f), fused_scalar(0.125f)},
                   [](const std::vector<double>& a) { return a[0] * a[1] + a[2]; },
                   0,
                   DType::float32,
                   {}});
  cases.push_back({"empty",
                   "vadd(vmul(x, y), z)",
                   {fused_array(TestArray::random(DType::float32, {0, 3}, -9, 9)),
                    fused_array(TestArray::random(DType::float32, {3}, -9, 9)), fused_scalar(1.0f)},
                   [](const std::vector<double>& a) { return a[0]; },
                   0,
                   DType::float32,
                   {0, 3}});
  {
    FusedCase c{"out= a transposed, poisoned float64 view",
                "vadd(vmul(x, y), z)",
                {fused_array(TestArray::random(DType::float32, {17, 23}, -9, 9)),
                 fused_array(TestArray::random(DType::float32, {23}, -9, 9)), fused_scalar(0.75f)},
                [](const std::vector<double>& a) { return double(f32(a[0] * a[1])) + 0.75; },
                4e-7,
                DType::float64,
                {17, 23}};
    c.out = TestArray::poisoned_view(DType::float64, 23 * 17, 0, {17, 23}, {1, 17});
    cases.push_back(std::move(c));
  }
  return cases;
}

/// The expression run as separate calls of its stages on `options` (a target, a stream), the
/// intermediates as arrays, the last stage into `out` when given.
inline jitvec::Array run_unfused(jitvec::Engine& engine, const std::string& expression,
                                 const std::vector<jitvec::Arg>& inputs,
                                 const std::vector<jitvec::Arg>& options,
                                 const std::optional<jitvec::Array>& out) {
  const jitvec::codegen::FusionExpression parsed =
      jitvec::codegen::parse_fusion_expression(expression, "unfused");
  std::function<jitvec::Array(const jitvec::codegen::FusionNode&, bool)> eval =
      [&](const jitvec::codegen::FusionNode& node, bool root) {
        std::vector<jitvec::Array> held;  // intermediates, alive through the call
        held.reserve(node.args.size());
        std::vector<jitvec::Arg> args;
        for (const auto& arg : node.args) {
          using Kind = jitvec::codegen::FusionNode::Kind;
          if (arg.kind == Kind::call) {
            held.push_back(eval(arg, false));
            args.emplace_back(held.back());
          } else if (arg.kind == Kind::input) {
            args.push_back(inputs[static_cast<std::size_t>(arg.index)]);
          } else {
            const auto& literal = parsed.literals[static_cast<std::size_t>(arg.index)];
            using L = jitvec::codegen::FusionLiteral::Kind;
            if (literal.kind == L::integer)
              args.emplace_back(literal.integer);
            else if (literal.kind == L::floating)
              args.emplace_back(literal.floating);
            else
              args.emplace_back(literal.boolean);
          }
        }
        for (const jitvec::Arg& o : options) args.push_back(o);
        if (root && out) args.emplace_back(jitvec::out(*out));
        return engine.ufunc(node.name).call(args.data(), args.size());
      };
  return eval(parsed.root, true);
}

/// Element `idx` of `a` (any memory) as its bits widened to 64, for bit-for-bit comparisons.
inline std::uint64_t bits_at(const jitvec::Array& host, const std::vector<std::int64_t>& idx) {
  std::int64_t offset = 0;
  for (std::size_t d = 0; d < idx.size(); ++d) offset += idx[d] * host.strides()[d];
  std::uint64_t bits = 0;
  std::memcpy(&bits,
              static_cast<const char*>(host.data()) +
                  offset * static_cast<std::int64_t>(jitvec::dtype_size(host.dtype())),
              jitvec::dtype_size(host.dtype()));
  return bits;
}

/// Fuses `c` as `name` (or takes the fused ufunc of that name made earlier), runs it and the
/// unfused chain with `options`, and checks both results (see the header comment). `device` passes
/// the arrays as device arrays.
inline void check_fused_case(jitvec::Engine& engine, FusedCase& c, const std::string& name,
                             const std::vector<jitvec::Arg>& options, bool device) {
  INFO("case: " << c.name << " (" << c.expression << ")" << (device ? ", device arrays" : ""));
  INFO("seed: " << rng_seed());
  const std::vector<std::string> defined = engine.ufunc_names();
  jitvec::Ufunc fused = std::find(defined.begin(), defined.end(), name) != defined.end()
                            ? engine.ufunc(name)
                            : engine.fuse(name, c.expression);
  std::vector<jitvec::Arg> inputs;
  std::vector<jitvec::Array> views;
  views.reserve(c.inputs.size());
  for (FusedInput& in : c.inputs) {
    if (in.array) {
      views.push_back(device ? in.array->device_view() : in.array->host_view());
      inputs.emplace_back(views.back());
    } else {
      inputs.push_back(*in.scalar);
    }
  }
  std::vector<jitvec::Arg> args = inputs;
  for (const jitvec::Arg& o : options) args.push_back(o);
  std::optional<TestArray> unfused_out;
  std::optional<jitvec::Array> out_view;
  if (c.out) {
    unfused_out = TestArray::poisoned_view(c.out->dtype(), c.out->base_elements(), 0,
                                           c.out->shape(), c.out->strides());
    out_view = device ? c.out->device_view() : c.out->host_view();
    args.emplace_back(jitvec::out(*out_view));
  }
  jitvec::Array result = fused.call(args.data(), args.size());
  std::optional<jitvec::Array> unfused_view;
  if (unfused_out) unfused_view = device ? unfused_out->device_view() : unfused_out->host_view();
  jitvec::Array unfused = run_unfused(engine, c.expression, inputs, options, unfused_view);
  if (c.out && device) {
    c.out->fetch_from_device();
    unfused_out->fetch_from_device();
  }
  const jitvec::Array fused_host = c.out ? c.out->host_view() : result.to_host();
  const jitvec::Array unfused_host = unfused_out ? unfused_out->host_view() : unfused.to_host();
  REQUIRE(fused_host.dtype() == c.result);
  REQUIRE(unfused_host.dtype() == c.result);
  REQUIRE(fused_host.shape() == c.shape);
  std::int64_t mismatches = 0, off_reference = 0;
  for_each_index(c.shape, [&](const std::vector<std::int64_t>& idx) {
    if (bits_at(fused_host, idx) != bits_at(unfused_host, idx) && mismatches++ < 5) {
      UNSCOPED_INFO(fmt::format("at {}: fused {} != unfused {}", fmt::join(idx, ","),
                                array_at(fused_host, idx), array_at(unfused_host, idx)));
    }
    std::vector<double> values;
    for (const FusedInput& in : c.inputs) {
      values.push_back(in.array ? in.array->at(broadcast_index(idx, in.array->shape()))
                                : in.scalar_value);
    }
    const double expected = c.reference(values);
    const double got = array_at(fused_host, idx);
    const bool close = c.tolerance == 0
                           ? got == expected
                           : std::fabs(got - expected) <= c.tolerance * (std::fabs(expected) + 1);
    if (!close && off_reference++ < 5) {
      UNSCOPED_INFO(
          fmt::format("at {}: fused {} != reference {}", fmt::join(idx, ","), got, expected));
    }
  });
  CHECK(mismatches == 0);
  CHECK(off_reference == 0);
  if (c.out) {
    const std::vector<bool> covered = c.out->covered();
    for (std::int64_t i = 0; i < c.out->base_elements(); ++i) {
      if (!covered[static_cast<std::size_t>(i)]) REQUIRE(c.out->base_poisoned(i));
    }
  }
}

}  // namespace jitvec_test
