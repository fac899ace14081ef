// outer, at and generalized ufuncs on the cuda target (issue 11), against float64 references:
// device and host operands, strided and reversed views, a stream, duplicates in at() (an
// order-sensitive function and an add.at histogram), the three gufunc examples with
// the matrix-vector product on 2^22 systems. Each test skips, saying why, where no GPU is usable.
#include <algorithm>
#include <cmath>
#include <mutex>

#include "catch.hpp"
#include "cuda/stream.hpp"
#include "gufunc_cases.hpp"
#include "support.hpp"

using namespace jitvec;
using namespace jitvec_test;

namespace {

Engine& gpu_methods_engine() {
  static std::once_flag once;
  Engine& engine = shared_engine();
  define_test_gufuncs(engine);
  std::call_once(once, [&] {
    engine.vectorize("h4_gpu_lerp", {"float32(float32, float32)", "float64(float64, float64)"},
                     "template <typename T> __device__ T h4_gpu_lerp(T a, T b) { return a / 2 + b; }");
    engine.vectorize("h4_gpu_add", {"int32(int32, int32)", "int64(int64, int64)"},
                     "template <typename T> __device__ T h4_gpu_add(T a, T b) { return a + b; }");
  });
  return engine;
}

std::vector<double> random_doubles(std::size_t n) {
  std::vector<double> v(n);
  for (auto& x : v) x = std::uniform_real_distribution<double>(-1, 1)(rng());
  return v;
}

}  // namespace

TEST_CASE("cuda outer: device and host operands, a reversed view, out= on the device", "[gpu][outer]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  Ufunc lerp = gpu_methods_engine().ufunc("h4_gpu_lerp");
  const std::vector<double> a = random_doubles(3 * 67), b = random_doubles(1025);
  Array da = to_device(a, {3, 67});
  Array db = to_device(b).slice(0, 1024, -1026, -1);  // reversed
  Array r = lerp.outer(da, db).to_host();
  REQUIRE(r.shape() == Shape{3, 67, 1025});
  std::int64_t bad = 0;
  for_each_index(r.shape(), [&](const std::vector<std::int64_t>& i) {
    const double want = 0.5 * a[static_cast<std::size_t>(i[0] * 67 + i[1])] + b[static_cast<std::size_t>(1024 - i[2])];
    if (array_at(r, i) != want) ++bad;
  });
  CHECK(bad == 0);
  // Host operands on the cuda target come back to the host; out= on the device is written.
  Array host = lerp.outer(from_vector(a), from_vector(b), target(Target::cuda));
  CHECK(!host.is_device());
  Array dout = Array::empty(DType::float64, {3 * 67, 1025}, Memory::device);
  lerp.outer(from_vector(a), db, out(dout));
  Array back = dout.to_host();
  CHECK(array_at(back, {5, 7}) == 0.5 * a[5] + b[1024 - 7]);
}

TEST_CASE("cuda at: duplicates applied in call order, on device and host arrays", "[gpu][at]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  Ufunc lerp = gpu_methods_engine().ufunc("h4_gpu_lerp");
  const std::int64_t rows = 101, row = 3, k = 200000;
  const std::vector<double> a0 = random_doubles(rows * row), b = random_doubles(k * row);
  std::vector<std::int64_t> idx(k);
  for (auto& i : idx) i = static_cast<std::int64_t>(rng()() % (2 * rows)) - rows;
  std::vector<double> want = a0;
  for (std::int64_t j = 0; j < k; ++j) {
    const std::int64_t i = idx[j] < 0 ? idx[j] + rows : idx[j];
    for (std::int64_t r = 0; r < row; ++r) {
      double& v = want[static_cast<std::size_t>(i * row + r)];
      v = 0.5 * v + b[static_cast<std::size_t>(j * row + r)];
    }
  }
  Array da = to_device(a0, {rows, row});
  lerp.at(da, to_device(idx), to_device(b, {k, row}));
  CHECK(da.to_vector<double>() == want);  // the same sequential result, bit for bit

  std::vector<double> ha = a0;  // a host array on the cuda target: copied there and back
  lerp.at(from_vector(ha).reshape({rows, row}), idx, from_vector(b).reshape({k, row}), target(Target::cuda));
  CHECK(ha == want);

  std::vector<std::int64_t> bad = {0, rows};
  Array untouched = to_device(a0, {rows, row});
  CHECK_THROWS_AS(lerp.at(untouched, bad, 1.0), ArgumentError);
  CHECK(untouched.to_vector<double>() == a0);
}

TEST_CASE("cuda at: an add.at histogram counts every hit", "[gpu][at]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  Ufunc add = gpu_methods_engine().ufunc("h4_gpu_add");
  std::vector<std::int64_t> idx(1 << 20), want(1000, 0);
  for (auto& i : idx) {
    i = static_cast<std::int64_t>(rng()() % 1200) % 1000;
    want[static_cast<std::size_t>(i)]++;
  }
  Array hist = to_device(std::vector<std::int64_t>(1000, 0));
  cuda::OwnedStream stream(0);
  add.at(hist, to_device(idx), 1, on(stream.get()));
  CHECK(hist.to_vector<std::int64_t>(stream.get()) == want);
}

TEST_CASE("cuda gufuncs: dot, moving average, 3x3 matvec on 2^22 systems", "[gpu][gufunc]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  Engine& engine = gpu_methods_engine();
  Gufunc dot = engine.gufunc("h4_dot"), avg = engine.gufunc("h4_movavg"), matvec = engine.gufunc("h4_matvec");

  // dot: (4097, 16) x (16,) broadcast, float32, against float64.
  TestArray a = TestArray::random(DType::float32, {4097, 16}, -1, 1);
  TestArray v = TestArray::random(DType::float32, {16}, -1, 1);
  Array d = dot(a.device_view(), v.device_view());
  REQUIRE(d.is_device());
  Array dh = d.to_host();
  std::int64_t bad = 0;
  for (std::int64_t i = 0; i < 4097; ++i) {
    double want = 0;
    for (std::int64_t j = 0; j < 16; ++j) want += a.at({i, j}) * v.at({j});
    if (std::fabs(array_at(dh, {i}) - want) > 1e-5 * (1 + std::fabs(want))) ++bad;
  }
  CHECK(bad == 0);

  // moving average with a scalar window, host operands on the cuda target.
  TestArray x = TestArray::random(DType::float64, {33, 100}, -1, 1);
  Array y = avg(x.host_view(), 7, target(Target::cuda));
  CHECK(!y.is_device());
  Array yc = avg(x.host_view(), 7, target(Target::cpu));
  CHECK(y.to_vector<double>() == yc.to_vector<double>());

  // 2^22 3x3 systems, the matrices transposed (strides (9, 1, 3)), against float64.
  const std::int64_t systems = std::int64_t{1} << 22;
  TestArray m = TestArray::random(DType::float32, {systems, 3, 3}, -1, 1);
  TestArray xs = TestArray::random(DType::float32, {systems, 3}, -1, 1);
  Array out_dev = Array::empty(DType::float32, {systems, 3}, Memory::device);
  matvec(m.device_view().permute({0, 2, 1}), xs.device_view(), out(out_dev));
  const std::vector<float> got = out_dev.to_vector<float>();
  bad = 0;
  for (std::int64_t s = 0; s < systems; ++s) {
    for (std::int64_t i = 0; i < 3; ++i) {
      double want = 0;
      for (std::int64_t j = 0; j < 3; ++j) want += m.at({s, j, i}) * xs.at({s, j});
      if (std::fabs(got[static_cast<std::size_t>(s * 3 + i)] - want) > 1e-5 * (1 + std::fabs(want))) ++bad;
    }
  }
  CHECK(bad == 0);
}

TEST_CASE("cuda gufunc: two outputs, out= overlapping an input, a stream", "[gpu][gufunc]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  Engine& engine = gpu_methods_engine();
  TestArray x = TestArray::random(DType::int32, {1000, 13}, -100000, 100000);
  std::vector<Array> r = engine.gufunc("h4_minmax").outputs(x.device_view());
  const std::vector<std::int32_t> lo = r[0].to_vector<std::int32_t>(), hi = r[1].to_vector<std::int32_t>();
  for (std::int64_t i = 0; i < 1000; ++i) {
    double a = x.at({i, 0}), b = a;
    for (std::int64_t j = 1; j < 13; ++j) {
      a = std::min(a, x.at({i, j}));
      b = std::max(b, x.at({i, j}));
    }
    CHECK(lo[static_cast<std::size_t>(i)] == a);
    CHECK(hi[static_cast<std::size_t>(i)] == b);
  }
  TestArray m = TestArray::random(DType::float32, {500, 3, 3}, -1, 1);
  TestArray v = TestArray::random(DType::float32, {500, 3}, -1, 1);
  Array dv = v.device_view();
  cuda::OwnedStream stream(0);
  engine.gufunc("h4_matvec")(m.device_view(), dv, out(dv), on(stream.get()));  // y = A y
  const std::vector<float> got = dv.to_vector<float>(stream.get());
  for (std::int64_t s = 0; s < 500; ++s) {
    for (std::int64_t i = 0; i < 3; ++i) {
      double want = 0;
      for (std::int64_t j = 0; j < 3; ++j) want += m.at({s, i, j}) * v.at({s, j});
      CHECK(std::fabs(got[static_cast<std::size_t>(s * 3 + i)] - want) <= 1e-5 * (1 + std::fabs(want)));
    }
  }
}
