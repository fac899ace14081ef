// GPU-only checks of the N-d kernels (issue 14) past what the ufunc case table covers: a tiled
// permutation past 2^31 elements (64-bit tile and batch offsets) and the N-d vector kernel on
// many odd shapes, each against a host reference. The case table (tests/unit/
// test_ufunc_cases.cpp) runs the small layouts on the GPU too.
#include <cstring>

#include "catch.hpp"
#include "support.hpp"
#include "test_ufuncs.hpp"

using namespace jitvec;
using namespace jitvec_test;

TEST_CASE("a permutation moving the last axis past 2^31 elements", "[gpu][large][layouts]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  Engine& engine = shared_engine();
  define_test_ufuncs(engine);
  Ufunc add = engine.ufunc("add");
  // x stored (A, B, C), read as x.permute(2, 1, 0): 2^31 + 2^20 int8 outputs, tiles along
  // x's fast axis (the output's outermost) and the output's rows, B batches.
  const std::int64_t A = 2049, B = 1024, C = 1024;
  std::vector<std::int8_t> x(static_cast<std::size_t>(A * B * C));
  const std::uint64_t salt = rng()();
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<std::int8_t>(((i * 2654435761u) ^ salt) >> 7);
  Array dx = to_device(x, {A, B, C});
  Array out = add(dx.permute({2, 1, 0}), std::int8_t{3});
  REQUIRE(out.shape() == Shape{C, B, A});
  const std::vector<std::int8_t> got = out.to_vector<std::int8_t>();
  std::int64_t bad = 0;
  for (std::int64_t i = 0; i < C; ++i)
    for (std::int64_t j = 0; j < B; ++j) {
      const std::int8_t* row = got.data() + (i * B + j) * A;
      for (std::int64_t k = 0; k < A; ++k) {
        bad += row[k] != static_cast<std::int8_t>(x[static_cast<std::size_t>((k * B + j) * C + i)] + 3);
      }
    }
  CHECK(bad == 0);
}

TEST_CASE("the N-d vector kernel on odd shapes, every element written once", "[gpu][layouts]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  Engine& engine = shared_engine();
  define_test_ufuncs(engine);
  Ufunc add = engine.ufunc("add");
  // (B, 1, L) + (1, C, 1) for short and long rows, sizes that leave partial blocks, into a
  // poisoned out= whose rows are padded by 4 (so a write past a row shows).
  for (const Shape& bcl : {Shape{1, 1, 4}, Shape{3, 7, 8}, Shape{17, 9, 36}, Shape{5, 33, 1028}, Shape{129, 65, 4}}) {
    const std::int64_t b = bcl[0], c = bcl[1], l = bcl[2];
    INFO("B, C, L = " << b << ", " << c << ", " << l);
    std::vector<float> xs(static_cast<std::size_t>(b * l)), ys(static_cast<std::size_t>(c));
    for (auto& v : xs) v = static_cast<float>(rng()() % 2000) * 0.125f;
    for (auto& v : ys) v = static_cast<float>(rng()() % 2000) * 0.5f;
    const std::int64_t pitch = l + 4;
    std::vector<float> poison(static_cast<std::size_t>(b * c * pitch), -7777.0f);
    Array buffer = to_device(poison);
    Array out_view = Array::wrap(buffer.data(), DType::float32, {b, c, l}, {c * pitch, pitch, 1},
                                 Memory::device, buffer.device());
    add(to_device(xs, {b, 1, l}), to_device(ys, {1, c, 1}), jitvec::out(out_view));
    const std::vector<float> got = buffer.to_vector<float>();
    std::int64_t bad = 0;
    for (std::int64_t i = 0; i < b; ++i)
      for (std::int64_t j = 0; j < c; ++j)
        for (std::int64_t k = 0; k < pitch; ++k) {
          const float have = got[static_cast<std::size_t>((i * c + j) * pitch + k)];
          const float want = k < l ? xs[static_cast<std::size_t>(i * l + k)] + ys[static_cast<std::size_t>(j)] : -7777.0f;
          bad += have != want;
        }
    CHECK(bad == 0);
  }
}
