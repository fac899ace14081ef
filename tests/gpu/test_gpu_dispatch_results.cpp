// The results of warm GPU calls since session 6's dispatch work (bench/NOTES.md, "Session 6:
// dispatch"): a new result shares the layout of its contiguous input (no shape or strides of
// its own), an out= result is a counted copy of out=, and memory blocks recycled on a stream
// while other results are kept never land under a kept result. Every element is checked
// against a float64 reference. Skipped without a GPU; the device-1 case needs two.
#include <algorithm>
#include <cmath>
#include <vector>

#include "catch.hpp"
#include "cuda/device.hpp"
#include "cuda/stream.hpp"
#include "support.hpp"
#include "test_ufuncs.hpp"

using namespace jitvec;
using namespace jitvec_test;

namespace {

std::vector<float> random_floats(std::size_t n) {
  std::uniform_real_distribution<float> d(-3.0f, 3.0f);
  std::vector<float> v(n);
  for (float& value : v) value = d(rng());
  return v;
}

// The largest relative error of gauss(x, mean, sigma) against the float64 reference.
double worst_gauss_error(const Array& result, const std::vector<float>& x, float mean, float sigma,
                         Stream stream) {
  const std::vector<float> got = result.to_vector<float>(stream);
  REQUIRE(got.size() == x.size());
  double worst = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double ref = ref_gauss({x[i], mean, sigma});
    worst = std::max(worst, std::fabs(got[i] - ref) / (std::fabs(ref) + 1e-30));
  }
  return worst;
}

}  // namespace

TEST_CASE("warm calls on a stream: results share the input's layout and recycled blocks spare kept results",
          "[gpu][dispatch]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  define_test_ufuncs(shared_engine());
  const Ufunc gauss = shared_engine().ufunc("gauss");
  cuda::OwnedStream stream(0);
  const Stream s(stream.get());
  const std::vector<float> x = random_floats(1024);
  const Array dx = to_device(x, {}, 0, s);

  struct Kept {
    Array result;
    float mean, sigma;
  };
  std::vector<Kept> kept;
  for (int call = 0; call < 300; ++call) {
    const float mean = 0.01f * static_cast<float>(call % 37), sigma = 1.0f + 0.03f * static_cast<float>(call % 11);
    Array result = gauss(dx, mean, sigma, on(s));
    CHECK(&result.shape() == &dx.shape());
    CHECK(result.is_device());
    CHECK(result.strides() == Strides{1});
    // Every seventh result is kept; the others go back to the stream's blocks at once.
    if (call % 7 == 0) kept.push_back(Kept{std::move(result), mean, sigma});
  }
  for (std::size_t k = 0; k < kept.size(); ++k) {
    INFO("kept result " << k);
    CHECK(worst_gauss_error(kept[k].result, x, kept[k].mean, kept[k].sigma, s) < 2e-6);
  }
  kept.clear();
  stream.synchronize();
  release_cached_memory(s);
}

TEST_CASE("an out= result is out= itself, sharing its layout", "[gpu][dispatch]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  define_test_ufuncs(shared_engine());
  const Ufunc add = shared_engine().ufunc("add");
  const std::vector<float> x = random_floats(4096), y = random_floats(4096);
  const Array dx = to_device(x, {64, 64}), dy = to_device(y, {64, 64});
  const Array out = Array::empty(DType::float32, {64, 64}, Memory::device);
  const Array result = add(dx, dy, jitvec::out(out));
  CHECK(result.data() == out.data());
  CHECK(&result.shape() == &out.shape());
  const std::vector<float> got = out.to_vector<float>();
  std::int64_t bad = 0;
  for (std::size_t i = 0; i < got.size(); ++i) bad += got[i] != static_cast<float>(ref_add({x[i], y[i]}));
  CHECK(bad == 0);
}

TEST_CASE("warm calls on device 1 return device-1 results sharing their input's layout",
          "[gpu][dispatch]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  if (cuda::device_count() < 2) JITVEC_SKIP("needs two GPUs (nvidia-h200-x2)");
  define_test_ufuncs(shared_engine());
  const Ufunc gauss = shared_engine().ufunc("gauss");
  const std::vector<float> x = random_floats(2048);
  const Array dx = to_device(x, {}, 1);
  for (int call = 0; call < 3; ++call) {  // cold, then warm
    const Array result = gauss(dx, 0.5f, 1.5f);
    CHECK(result.device() == 1);
    CHECK(&result.shape() == &dx.shape());
    CHECK(worst_gauss_error(result, x, 0.5f, 1.5f, Stream()) < 2e-6);
  }
}
