// tests/unit/accumulate_cases.hpp: Ufunc::accumulate around the scan's chunk and tile sizes
// (kernels/scan.hpp), for every dtype the method reads, run by tests/unit/test_accumulate_tiles.cpp
// on cpu and parallel and by tests/gpu/test_gpu_accumulate.cpp on cuda (host and device arrays).
//
// Inputs are fresh random small integers (both parts of a complex), so every prefix is exact in
// the accumulator whatever the fold order and the results are compared exactly with a float64
// reference: an element dropped, counted twice or taken from the wrong tile cannot hide under a
// tolerance. Outputs go into poisoned buffers (contiguous, and every other element of a
// reversed one) whose elements must all be written, the gaps left alone. tiles_order_reference
// is the GPU's documented tiles order written out in float32, for the [gpu] bit-for-bit test.
#pragma once

#include <algorithm>
#include <complex>
#include <cstring>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "catch.hpp"
#include "kernels/scan.hpp"
#include "support.hpp"

namespace jitvec_test {

/// The engine's accumulate ufuncs: h5_add (identity 0; int32, int64, float32, float64,
/// complex64, complex128) and h5_max (no identity; int32, float32, float64).
inline jitvec::Engine& accumulate_engine() {
  static std::once_flag once;
  jitvec::Engine& engine = shared_engine();
  std::call_once(once, [&] {
    jitvec::VectorizeOptions zero;
    zero.identity = 0;
    engine.vectorize("h5_add",
                     {"int32(int32, int32)", "int64(int64, int64)", "float32(float32, float32)",
                      "float64(float64, float64)", "complex64(complex64, complex64)",
                      "complex128(complex128, complex128)"},
                     "template <typename T> __device__ T h5_add(T a, T b) { return a + b; }", zero);
    engine.vectorize("h5_max", {"int32(int32, int32)", "float32(float32, float32)", "float64(float64, float64)"},
                     "template <typename T> __device__ T h5_max(T a, T b) { return a > b ? a : b; }");
  });
  return engine;
}

/// A value of any dtype as (real, imaginary).
using Value = std::pair<double, double>;

inline bool is_complex(jitvec::DType t) {
  return t == jitvec::DType::complex64 || t == jitvec::DType::complex128;
}

inline Value load_value(jitvec::DType t, const unsigned char* at) {
  if (t == jitvec::DType::complex64) {
    float v[2];
    std::memcpy(v, at, sizeof v);
    return {v[0], v[1]};
  }
  if (t == jitvec::DType::complex128) {
    double v[2];
    std::memcpy(v, at, sizeof v);
    return {v[0], v[1]};
  }
  return {load_as_double(t, at), 0.0};
}

inline void store_value(jitvec::DType t, Value v, unsigned char* at) {
  if (t == jitvec::DType::complex64) {
    const float parts[2] = {static_cast<float>(v.first), static_cast<float>(v.second)};
    std::memcpy(at, parts, sizeof parts);
  } else if (t == jitvec::DType::complex128) {
    const double parts[2] = {v.first, v.second};
    std::memcpy(at, parts, sizeof parts);
  } else {
    store_from_double(t, v.first, at);
  }
}

/// Element i of a 1-d host array (any stride).
inline Value element(const jitvec::Array& a, std::int64_t i) {
  const std::int64_t size = static_cast<std::int64_t>(jitvec::dtype_size(a.dtype()));
  return load_value(a.dtype(), static_cast<const unsigned char*>(a.data()) + i * a.strides()[0] * size);
}

constexpr unsigned char kPoisonByte = 0x7B;

/// A 1-d host array of `n` random integers in [lo, hi] (both parts of a complex).
inline jitvec::Array random_integers(jitvec::DType t, std::int64_t n, int lo, int hi) {
  jitvec::Array a = jitvec::Array::empty(t, jitvec::Shape{n});
  std::uniform_int_distribution<int> pick(lo, hi);
  auto* bytes = static_cast<unsigned char*>(a.data());
  const std::size_t size = jitvec::dtype_size(t);
  for (std::int64_t i = 0; i < n; ++i) {
    const double re = pick(rng());
    const double im = is_complex(t) ? pick(rng()) : 0.0;
    store_value(t, {re, im}, bytes + static_cast<std::size_t>(i) * size);
  }
  return a;
}

/// A poisoned host buffer of `elements`.
inline jitvec::Array poisoned(jitvec::DType t, std::int64_t elements) {
  jitvec::Array a = jitvec::Array::empty(t, jitvec::Shape{elements});
  std::memset(a.data(), kPoisonByte, static_cast<std::size_t>(elements) * jitvec::dtype_size(t));
  return a;
}

inline bool is_poison(const jitvec::Array& buffer, std::int64_t i) {
  const std::size_t size = jitvec::dtype_size(buffer.dtype());
  const auto* at = static_cast<const unsigned char*>(buffer.data()) + static_cast<std::size_t>(i) * size;
  return std::all_of(at, at + size, [](unsigned char b) { return b == kPoisonByte; });
}

/// The float64 reference of a 1-d accumulate: `f` folded in order, each prefix stored as
/// `result` would hold it (so a float16 output compares with the rounded prefix).
inline std::vector<Value> reference_scan(const jitvec::Array& x, const std::function<Value(Value, Value)>& f,
                                         jitvec::DType result) {
  std::vector<Value> out;
  unsigned char slot[16];
  Value run{0.0, 0.0};
  for (std::int64_t i = 0; i < x.shape()[0]; ++i) {
    run = i == 0 ? element(x, 0) : f(run, element(x, i));
    store_value(result, run, slot);
    out.push_back(load_value(result, slot));
  }
  return out;
}

/// One dtype configuration: the input's dtype, the ufunc, ReduceOptions-style dtype=, and an
/// out= dtype other than the accumulator's (nullopt: the accumulator's).
struct AccumulateConfig {
  std::string name;
  jitvec::DType input;
  const char* ufunc;
  std::optional<jitvec::DType> dtype;
  jitvec::DType result;
  int lo, hi;
};

inline std::vector<AccumulateConfig> accumulate_configs() {
  using jitvec::DType;
  return {
      {"float32", DType::float32, "h5_add", std::nullopt, DType::float32, -8, 8},
      {"float64", DType::float64, "h5_add", std::nullopt, DType::float64, -8, 8},
      {"int32", DType::int32, "h5_add", std::nullopt, DType::int32, -8, 8},
      {"int64", DType::int64, "h5_add", std::nullopt, DType::int64, -8, 8},
      {"int8 in int64", DType::int8, "h5_add", DType::int64, DType::int64, -8, 8},
      {"uint8 in int32", DType::uint8, "h5_add", DType::int32, DType::int32, 0, 8},
      {"float16 in float32", DType::float16, "h5_add", DType::float32, DType::float32, -8, 8},
      {"bfloat16 in float32", DType::bfloat16, "h5_add", DType::float32, DType::float32, -8, 8},
      {"complex64", DType::complex64, "h5_add", std::nullopt, DType::complex64, -8, 8},
      {"complex128", DType::complex128, "h5_add", std::nullopt, DType::complex128, -8, 8},
      {"max float32", DType::float32, "h5_max", std::nullopt, DType::float32, -1000, 1000},
      {"float32 into float16 out=", DType::float32, "h5_add", std::nullopt, DType::float16, -2, 2},
  };
}

/// Axis lengths around the boundaries of config `c`: the lines kind's chunk (kScanLineChunk),
/// the rows and tiles for the input's type, and (with `big`) lines of 64 tiles, -1/0/+1
/// element (tree ranges up to 64 tiles; the last tiles wait on six ranges).
inline std::vector<std::int64_t> accumulate_lengths(const AccumulateConfig& c, bool big) {
  const std::int64_t tile = jitvec::kernels::scan_tile(c.input);
  const std::int64_t row = tile / jitvec::kernels::kScanRows;
  const std::int64_t chunk = jitvec::kernels::kScanLineChunk;
  std::vector<std::int64_t> n = {0,        1,     2,        31,       63,      64,      65,       chunk - 1,
                                 chunk,    chunk + 1, 1001, row - 1, row,     row + 1, tile - 1, tile,
                                 tile + 1, 2 * tile + 3};
  if (big) {
    for (std::int64_t d : {-1, 0, 1}) n.push_back(jitvec::kernels::kScanTilesMinLength * tile + d);
  }
  std::sort(n.begin(), n.end());
  n.erase(std::unique(n.begin(), n.end()), n.end());
  return n;
}

inline std::function<Value(Value, Value)> fold_of(const char* ufunc) {
  if (std::string(ufunc) == "h5_max") return [](Value a, Value b) { return a.first > b.first ? a : b; };
  return [](Value a, Value b) { return Value{a.first + b.first, a.second + b.second}; };
}

/// Runs every config and length on `target`; `device`: the arrays are device arrays.
inline void run_accumulate_lengths(jitvec::Target target, bool device, bool big) {
  jitvec::Engine& engine = accumulate_engine();
  const jitvec::Stream stream{};
  auto place = [&](const jitvec::Array& a) { return device ? a.to_device(0, stream) : a; };
  auto fetch = [&](const jitvec::Array& a) { return device ? a.to_host(stream) : a; };
  for (const AccumulateConfig& c : accumulate_configs()) {
    jitvec::Ufunc f = engine.ufunc(c.ufunc);
    for (std::int64_t n : accumulate_lengths(c, big)) {
      CAPTURE(c.name, n, jitvec::target_name(target), device);
      const jitvec::Array x = random_integers(c.input, n, c.lo, c.hi);
      const std::vector<Value> want = reference_scan(x, fold_of(c.ufunc), c.result);
      jitvec::AccumulateOptions o;
      o.target = target;
      o.dtype = c.dtype;
      auto check = [&](const jitvec::Array& got, const char* what) {
        INFO(what);
        REQUIRE(got.shape() == jitvec::Shape{n});
        std::int64_t wrong = 0;
        for (std::int64_t i = 0; i < n; ++i) {
          const Value g = element(got, i);
          if (g != want[static_cast<std::size_t>(i)] && wrong++ < 5) {
            FAIL_CHECK("element " << i << ": (" << g.first << ", " << g.second << "), want ("
                                  << want[static_cast<std::size_t>(i)].first << ", "
                                  << want[static_cast<std::size_t>(i)].second << ")");
          }
        }
        CHECK(wrong == 0);
      };
      const jitvec::Array dx = place(x);
      // A contiguous poisoned out= (on the GPU: 16-byte stores when the types allow).
      jitvec::Array whole = poisoned(c.result, n);
      jitvec::Array dwhole = place(whole);
      o.out = dwhole;
      f.accumulate(dx, 0, o);
      check(fetch(dwhole), "contiguous out=");
      if (n == 0) continue;
      // Every other element of a reversed poisoned buffer: element i at 2 (n - 1 - i) + 1
      // (scalar stores, a negative output stride along the axis).
      jitvec::Array gaps = place(poisoned(c.result, 2 * n + 1));
      o.out = gaps.slice(0, 2 * n - 1, -2 * n - 2, -2);
      f.accumulate(dx, 0, o);
      const jitvec::Array host_gaps = fetch(gaps);
      check(host_gaps.slice(0, 2 * n - 1, -2 * n - 2, -2), "reversed strided out=");
      std::int64_t touched = 0;
      for (std::int64_t i = 0; i < 2 * n + 1; i += 2) touched += is_poison(host_gaps, i) ? 0 : 1;
      CHECK(touched == 0);
      // A reversed input (scalar loads), into a new array.
      if (c.result == (c.dtype ? *c.dtype : c.input)) {
        const jitvec::Array reversed = x.slice(0, n - 1, -n - 1, -1);
        const std::vector<Value> want_reversed = reference_scan(reversed, fold_of(c.ufunc), c.result);
        o.out.reset();
        const jitvec::Array got = fetch(f.accumulate(dx.slice(0, n - 1, -n - 1, -1), 0, o));
        REQUIRE(got.shape() == jitvec::Shape{n});
        std::int64_t wrong = 0;
        for (std::int64_t i = 0; i < n; ++i) wrong += element(got, i) != want_reversed[static_cast<std::size_t>(i)] ? 1 : 0;
        CHECK(wrong == 0);
      }
    }
  }
}

/// Element (i, j) of a 2-d host array.
inline Value element2(const jitvec::Array& a, std::int64_t i, std::int64_t j) {
  const std::int64_t size = static_cast<std::int64_t>(jitvec::dtype_size(a.dtype()));
  return load_value(a.dtype(), static_cast<const unsigned char*>(a.data()) +
                                   (i * a.strides()[0] + j * a.strides()[1]) * size);
}

/// 2-d float32 and complex128 arrays along axis 0 (the lines kind: chunks of kScanLineChunk down
/// each column) and axis 1 (tiles), C-ordered and transposed, into a new array and a poisoned
/// out=.
inline void run_accumulate_lines(jitvec::Target target, bool device) {
  jitvec::Ufunc add = accumulate_engine().ufunc("h5_add");
  const jitvec::Stream stream{};
  const std::int64_t chunk = jitvec::kernels::kScanLineChunk;
  struct Shape2 { std::int64_t rows, cols; };
  for (jitvec::DType t : {jitvec::DType::float32, jitvec::DType::complex128}) {
    for (const Shape2 s : {Shape2{chunk - 1, 3}, Shape2{chunk, 5}, Shape2{chunk + 1, 7}, Shape2{2 * chunk + 1, 33},
                           Shape2{1000, 2}, Shape2{3, 4097}, Shape2{2, 64 * 4096 + 1}}) {
      for (bool transposed : {false, true}) {
        for (int axis : {0, 1}) {
          CAPTURE(jitvec::dtype_name(t), s.rows, s.cols, transposed, axis, jitvec::target_name(target), device);
          const jitvec::Array flat = random_integers(t, s.rows * s.cols, -8, 8);
          // (rows, cols): C-ordered, or the transpose of a C-ordered (cols, rows).
          const jitvec::Array x = transposed ? flat.reshape({s.cols, s.rows}).transpose() : flat.reshape({s.rows, s.cols});
          std::vector<Value> want(static_cast<std::size_t>(s.rows * s.cols));
          for (std::int64_t i = 0; i < s.rows; ++i) {
            for (std::int64_t j = 0; j < s.cols; ++j) {
              const Value v = element2(x, i, j);
              const bool first = axis == 0 ? i == 0 : j == 0;
              const Value before = first ? Value{0, 0} : want[static_cast<std::size_t>(axis == 0 ? (i - 1) * s.cols + j : i * s.cols + j - 1)];
              want[static_cast<std::size_t>(i * s.cols + j)] = {before.first + v.first, before.second + v.second};
            }
          }
          jitvec::AccumulateOptions o;
          o.target = target;
          const jitvec::Array dx = device ? flat.to_device(0, stream) : flat;
          const jitvec::Array dview = transposed ? dx.reshape({s.cols, s.rows}).transpose() : dx.reshape({s.rows, s.cols});
          jitvec::Array out = poisoned(t, s.rows * s.cols);
          if (device) out = out.to_device(0, stream);
          o.out = out.reshape({s.rows, s.cols});
          add.accumulate(dview, axis, o);
          const jitvec::Array got = (device ? out.to_host(stream) : out).reshape({s.rows, s.cols});
          std::int64_t wrong = 0;
          for (std::int64_t i = 0; i < s.rows; ++i) {
            for (std::int64_t j = 0; j < s.cols; ++j) {
              if (element2(got, i, j) != want[static_cast<std::size_t>(i * s.cols + j)] && wrong++ < 5) {
                FAIL_CHECK("element (" << i << ", " << j << ") is wrong");
              }
            }
          }
          CHECK(wrong == 0);
        }
      }
    }
  }
}

/// The GPU's tiles order of kernels/scan.hpp for + on float32, written out step by step: each
/// tile's rows (threads of 4 in order, Kogge-Stone in each warp of 32, the warps in order,
/// rows chained), the tiles' prefixes from the aligned binary tree of their aggregates (the
/// ranges of k's binary digits, largest first), each element f(f(carry, thread prefix), own).
inline float tiles_order_tile(const std::vector<float>& x, std::int64_t k, const float* prefix, float* out) {
  constexpr int kBlock = 256, kVec = 4, kRow = kBlock * kVec, kRows = jitvec::kernels::kScanRows;
  const std::int64_t tile = static_cast<std::int64_t>(kRows) * kRow;
  const std::int64_t start = k * tile;
  const std::int64_t len = std::min<std::int64_t>(tile, static_cast<std::int64_t>(x.size()) - start);
  bool has_carry = prefix != nullptr;
  float carry = prefix ? *prefix : 0.0f;
  for (int u = 0; u < kRows; ++u) {
    const std::int64_t row_len = std::min<std::int64_t>(len - static_cast<std::int64_t>(u) * kRow, kRow);
    if (row_len <= 0) break;
    const int active = static_cast<int>((row_len + kVec - 1) / kVec);
    std::vector<float> local(static_cast<std::size_t>(active) * kVec), ks(static_cast<std::size_t>(active));
    std::vector<int> m(static_cast<std::size_t>(active));
    const std::int64_t row_start = start + static_cast<std::int64_t>(u) * kRow;
    for (int t = 0; t < active; ++t) {
      m[t] = static_cast<int>(std::min<std::int64_t>(kVec, row_len - static_cast<std::int64_t>(t) * kVec));
      float s = x[static_cast<std::size_t>(row_start + t * kVec)];
      local[static_cast<std::size_t>(t) * kVec] = s;
      for (int j = 1; j < m[t]; ++j) {
        s = s + x[static_cast<std::size_t>(row_start + t * kVec + j)];
        local[static_cast<std::size_t>(t) * kVec + j] = s;
      }
      ks[t] = s;
    }
    for (int d = 1; d < 32; d *= 2) {
      std::vector<float> next = ks;
      for (int t = 0; t < active; ++t) {
        if (t % 32 >= d) next[t] = ks[t - d] + ks[t];
      }
      ks = next;
    }
    const int warps = (active + 31) / 32;
    std::vector<float> before(static_cast<std::size_t>(warps));  // the fold of the warps before
    float total = ks[std::min(31, active - 1)];
    for (int w = 1; w < warps; ++w) {
      before[w] = total;
      total = total + ks[std::min(32 * w + 31, active - 1)];
    }
    if (out) {
      for (int t = 0; t < active; ++t) {
        const int lane = t % 32, w = t / 32;
        const bool has_excl = t > 0;
        const float excl = lane == 0 ? before[w] : w > 0 ? before[w] + ks[t - 1] : ks[t - 1];
        const bool has_c = has_carry || has_excl;
        const float c = has_carry && has_excl ? carry + excl : has_carry ? carry : excl;
        for (int j = 0; j < m[t]; ++j) {
          const float v = local[static_cast<std::size_t>(t) * kVec + j];
          out[row_start + t * kVec + j] = has_c ? c + v : v;
        }
      }
    }
    carry = has_carry ? carry + total : total;
    has_carry = true;
  }
  return carry;
}

/// The sum of the aligned range of `size` (a power of two) aggregates from `first`, as a
/// binary tree: left half + right half.
inline float tiles_tree_range(const std::vector<float>& aggregates, std::int64_t first, std::int64_t size) {
  if (size == 1) return aggregates[static_cast<std::size_t>(first)];
  return tiles_tree_range(aggregates, first, size / 2) + tiles_tree_range(aggregates, first + size / 2, size / 2);
}

inline std::vector<float> tiles_order_reference(const std::vector<float>& x) {
  const std::int64_t tile = jitvec::kernels::scan_tile(jitvec::DType::float32);
  const std::int64_t n = static_cast<std::int64_t>(x.size());
  const std::int64_t chunks = (n + tile - 1) / tile;
  // prefixes[k - 1]: the tiles 0..k-1, the ranges of k's binary digits (largest first) in order.
  std::vector<float> prefixes;
  if (chunks > 1) {
    std::vector<float> aggregates(static_cast<std::size_t>(chunks));
    for (std::int64_t k = 0; k < chunks; ++k) aggregates[static_cast<std::size_t>(k)] = tiles_order_tile(x, k, nullptr, nullptr);
    for (std::int64_t k = 1; k < chunks; ++k) {
      float run = 0.0f;
      bool first_range = true;
      std::int64_t at = 0;
      for (int bit = 62; bit >= 0; --bit) {
        const std::int64_t size = std::int64_t{1} << bit;
        if ((k & size) == 0) continue;
        const float range = tiles_tree_range(aggregates, at, size);
        run = first_range ? range : run + range;
        first_range = false;
        at += size;
      }
      prefixes.push_back(run);
    }
  }
  std::vector<float> out(x.size());
  for (std::int64_t k = 0; k < chunks; ++k) {
    tiles_order_tile(x, k, k > 0 ? &prefixes[static_cast<std::size_t>(k - 1)] : nullptr, out.data());
  }
  return out;
}

}  // namespace jitvec_test
