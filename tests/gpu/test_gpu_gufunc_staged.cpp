// The staged gufunc kernel on the cuda target (kernels/gufunc.hpp): C-ordered rows copied into
// shared memory 16 bytes at a time where the block's run starts on 16 bytes and a row holds
// whole vectors, element by element otherwise. Each variant (vector loads; a misaligned base;
// rows of 6 float32 and 7 float64, not whole vectors; float64 rows of 8; a staged output, both
// paths), with a partial last block, writes into a poisoned out= and is checked against float64
// references (tests/gufunc_cases.hpp). Each test skips, saying why, without a GPU.
#include <cmath>

#include "../unit/reduce_support.hpp"
#include "gufunc_cases.hpp"

using namespace jitvec;
using namespace jitvec_test;

namespace {

std::vector<double> row_of(const TestArray& a, std::int64_t r, std::int64_t n) {
  std::vector<double> v;
  for (std::int64_t i = 0; i < n; ++i) v.push_back(a.at({r, i}));
  return v;
}

}  // namespace

TEST_CASE("cuda staged gufunc: 16-byte and element staging of inputs, partial blocks, poisoned out=", "[gpu][gufunc]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  Engine& engine = shared_engine();
  define_test_gufuncs(engine);
  Gufunc dot = engine.gufunc("h4_dot");
  const std::int64_t rows = 256 * 5 + 13;
  struct Variant { const char* what; DType t; std::int64_t n; std::int64_t offset; };
  for (const Variant v : {Variant{"float32 rows of 16, aligned", DType::float32, 16, 0},
                          Variant{"float32 rows of 16 at a 4-byte offset", DType::float32, 16, 1},
                          Variant{"float32 rows of 6", DType::float32, 6, 0},
                          Variant{"float64 rows of 8", DType::float64, 8, 0},
                          Variant{"float64 rows of 7", DType::float64, 7, 0}}) {
    CAPTURE(v.what);
    TestArray a = TestArray::random_view(v.t, rows * v.n + v.offset, v.offset, {rows, v.n}, {v.n, 1}, -1, 1);
    TestArray b = TestArray::random_view(v.t, rows * v.n + v.offset, v.offset, {rows, v.n}, {v.n, 1}, -1, 1);
    TestArray o = TestArray::poisoned_view(v.t, 2 * rows, 1, {rows}, {2});
    dot(a.device_view(), b.device_view(), out(o.device_view()));
    o.fetch_from_device();
    std::int64_t wrong = 0;
    for (std::int64_t r = 0; r < rows; ++r) {
      const double want = ref_dot(row_of(a, r, v.n), row_of(b, r, v.n));
      if (!(std::fabs(o.at({r}) - want) <= 1e-5 * (1 + std::fabs(want))) && wrong++ < 5) {
        FAIL_CHECK("row " << r << ": " << o.at({r}) << ", want " << want);
      }
    }
    CHECK(wrong == 0);
    check_poison_kept(o);
  }
}

TEST_CASE("cuda staged gufunc: staged outputs written 16 bytes at a time and element by element", "[gpu][gufunc]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  Engine& engine = shared_engine();
  define_test_gufuncs(engine);
  Gufunc avg = engine.gufunc("h4_movavg");
  const std::int64_t rows = 256 * 3 + 5;
  for (const std::pair<DType, std::int64_t> v : {std::pair<DType, std::int64_t>{DType::float32, 20},
                                                 std::pair<DType, std::int64_t>{DType::float64, 7}}) {
    const std::int64_t n = v.second;
    CAPTURE(dtype_name(v.first), n);
    TestArray x = TestArray::random(v.first, {rows, n}, -1, 1);
    TestArray y = TestArray::poisoned_view(v.first, rows * n, 0, {rows, n}, {n, 1});
    avg(x.device_view(), 3, out(y.device_view()));
    y.fetch_from_device();
    std::int64_t wrong = 0;
    const double tolerance = v.first == DType::float32 ? 1e-5 : 1e-12;
    for (std::int64_t r = 0; r < rows; ++r) {
      const std::vector<double> want = ref_movavg(row_of(x, r, n), 3);
      for (std::int64_t i = 0; i < n; ++i) {
        if (!(std::fabs(y.at({r, i}) - want[static_cast<std::size_t>(i)]) <= tolerance) && wrong++ < 5) {
          FAIL_CHECK("(" << r << ", " << i << "): " << y.at({r, i}) << ", want " << want[static_cast<std::size_t>(i)]);
        }
      }
    }
    CHECK(wrong == 0);
  }
}
