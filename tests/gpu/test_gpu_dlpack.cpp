// DLPack with device memory: a test producer hands out device buffers (counting its deleter's
// calls), jitvec computes on them in place and hands its device results back; a producer's
// stream is waited for with wait_for_stream; on two GPUs, a tensor on GPU 1 runs on GPU 1 and
// mixing devices is an error. Each test skips, saying why, where no GPU is usable.
#include <jitvec/dlpack.hpp>

#include <atomic>
#include <cmath>

#include "catch.hpp"
#include "cuda/stream.hpp"
#include "support.hpp"
#include "test_ufuncs.hpp"

using namespace jitvec;
using namespace jitvec_test;

namespace {

std::atomic<int> device_deleter_calls{0};

// A producer library's device tensor: it owns a jitvec device Array as its "allocation".
struct DeviceProducerContext {
  Array storage;
  std::vector<std::int64_t> shape;
  DLManagedTensor managed{};
  static void deleter(DLManagedTensor* self) {
    device_deleter_calls++;
    delete static_cast<DeviceProducerContext*>(self->manager_ctx);
  }
};

DLManagedTensor* produce_on_device(const std::vector<float>& values, int device) {
  auto* ctx = new DeviceProducerContext;
  ctx->storage = Array::wrap(values.data(), {static_cast<std::int64_t>(values.size())}).to_device(device);
  ctx->shape = {static_cast<std::int64_t>(values.size())};
  DLTensor& t = ctx->managed.dl_tensor;
  t.data = ctx->storage.data();
  t.device = DLDevice{kDLCUDA, device};
  t.ndim = 1;
  t.dtype = DLDataType{kDLFloat, 32, 1};
  t.shape = ctx->shape.data();
  t.strides = nullptr;
  t.byte_offset = 0;
  ctx->managed.manager_ctx = ctx;
  ctx->managed.deleter = &DeviceProducerContext::deleter;
  return &ctx->managed;
}

std::vector<float> random_floats(std::size_t n) {
  std::vector<float> v(n);
  std::uniform_real_distribution<float> dist(-3.0f, 3.0f);
  for (float& x : v) x = dist(rng());
  return v;
}

}  // namespace

TEST_CASE("DLPack round-trips device memory and jitvec computes on it in place",
          "[gpu][dlpack]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  define_test_ufuncs(shared_engine());
  Ufunc gauss = shared_engine().ufunc("gauss");
  device_deleter_calls = 0;
  const std::size_t n = 100003;
  const std::vector<float> xs = random_floats(n);
  {
    Array x = Array::from_dlpack(produce_on_device(xs, 0));
    REQUIRE(x.is_device());
    REQUIRE(x.device() == 0);
    Array y = gauss(x, 0.5f, 1.5f);  // device in -> device out
    REQUIRE(y.is_device());

    // jitvec's result, exported and imported back: same device pointer, nothing copied.
    DLManagedTensor* t = y.to_dlpack();
    CHECK(t->dl_tensor.device.device_type == kDLCUDA);
    CHECK(t->dl_tensor.device.device_id == 0);
    CHECK(t->dl_tensor.data == y.data());
    Array back = Array::from_dlpack(t);
    CHECK(back.data() == y.data());
    y = Array();

    // out= into a producer's tensor (poisoned first).
    DLManagedTensor* out_tensor = produce_on_device(std::vector<float>(n, std::nanf("")), 0);
    Array out = Array::from_dlpack(out_tensor);
    gauss(back, 0.5f, 1.5f, jitvec::out(out));
    const std::vector<float> got = back.to_vector<float>();
    const std::vector<float> got_out = out.to_vector<float>();
    std::size_t bad = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const double ref = ref_gauss({xs[i], 0.5, 1.5});
      bad += std::fabs(got[i] - ref) > 1e-5 * (1 + std::fabs(ref));
      // out = gauss(back): gauss applied to the first result.
      const double ref_out = ref_gauss({got[i], 0.5, 1.5});
      bad += std::fabs(got_out[i] - ref_out) > 1e-5 * (1 + std::fabs(ref_out));
    }
    CHECK(bad == 0);
    CHECK(device_deleter_calls == 0);
  }
  CHECK(device_deleter_calls == 2);
}

TEST_CASE("wait_for_stream orders a consumer stream after a producer stream", "[gpu][dlpack]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  define_test_ufuncs(shared_engine());
  Ufunc add = shared_engine().ufunc("add");
  cuda::OwnedStream producer(0), consumer(0);
  const std::size_t n = std::size_t{1} << 26;  // long enough that a missing wait shows
  std::vector<float> xs(n);
  for (std::size_t i = 0; i < n; ++i) xs[i] = static_cast<float>(i % 1000);
  Array x = to_device(xs, {}, 0, producer.get());
  for (int round = 0; round < 3; ++round) {
    Array y = add(x, 1.0f, on(producer.get()));  // the producer's work, still queued
    DLManagedTensor* t = y.to_dlpack();
    Array imported = Array::from_dlpack(t);
    wait_for_stream(consumer.get(), producer.get(), 0);
    Array z = add(imported, 1.0f, on(consumer.get()));
    const std::vector<float> got = z.to_vector<float>(consumer.get());
    std::size_t bad = 0;
    for (std::size_t i = 0; i < n; ++i) bad += got[i] != xs[i] + 2.0f;
    CHECK(bad == 0);
  }
  wait_for_stream(producer.get(), producer.get(), 0);  // same stream: nothing to do
  release_cached_memory(producer.get(), 0);
  release_cached_memory(consumer.get(), 0);
}

TEST_CASE("DLPack tensors on GPU 1 run on GPU 1; mixing GPUs is an error", "[gpu][dlpack][multi]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  if (cuda_device_count() < 2) JITVEC_SKIP("needs two GPUs; this machine has one");
  define_test_ufuncs(shared_engine());
  Ufunc add = shared_engine().ufunc("add");
  device_deleter_calls = 0;
  const std::vector<float> a = random_floats(4096), b = random_floats(4096);
  {
    Array a1 = Array::from_dlpack(produce_on_device(a, 1));
    Array b1 = Array::from_dlpack(produce_on_device(b, 1));
    Array b0 = Array::from_dlpack(produce_on_device(b, 0));
    Array sum = add(a1, b1);
    CHECK(sum.device() == 1);
    DLManagedTensor* t = sum.to_dlpack();
    CHECK(t->dl_tensor.device.device_id == 1);
    t->deleter(t);
    const std::vector<float> got = sum.to_vector<float>();
    std::size_t bad = 0;
    for (std::size_t i = 0; i < a.size(); ++i) bad += got[i] != a[i] + b[i];
    CHECK(bad == 0);
    try {
      add(a1, b0);
      FAIL("expected ArgumentError");
    } catch (const ArgumentError& e) {
      CHECK_THAT(std::string(e.what()), Catch::Matchers::Contains("is on cuda:0") &&
                                            Catch::Matchers::Contains("on cuda:1"));
    }
  }
  CHECK(device_deleter_calls == 3);
}
