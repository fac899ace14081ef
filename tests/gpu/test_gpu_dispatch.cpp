// The warm call's trust in the thread's remembered context (cuda/context.hpp): a cached call
// asks the driver nothing before its launch, so when another library has changed the thread's
// current context since jitvec last looked (cuCtxSetCurrent(NULL), cudaSetDevice(1)), the
// launch is refused and made again in the right context. Each case checks every element
// against a float64 reference and which context is current afterwards. Skipped without a GPU.
#include <vector>

#include "catch.hpp"
#include "cuda/context.hpp"
#include "cuda/device.hpp"
#include "cuda/driver.hpp"
#include "support.hpp"
#include "test_ufuncs.hpp"

using namespace jitvec;
using namespace jitvec_test;

namespace {

CUcontext current_context() {
  CUcontext c = nullptr;
  cuda::check(cuda::driver().ctxGetCurrent(&c), "cuCtxGetCurrent");
  return c;
}

void set_context(CUcontext c) { cuda::check(cuda::driver().ctxSetCurrent(c), "cuCtxSetCurrent"); }

// add(x, y) on device 0 into `out`, then every element checked.
void check_add(const Ufunc& add, const std::vector<float>& x, const std::vector<float>& y,
               const Array& dx, const Array& dy, const Array& out) {
  add(dx, dy, jitvec::out(out));
  const std::vector<float> got = out.to_vector<float>();
  REQUIRE(got.size() == x.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i);
    CHECK(got[i] == static_cast<float>(ref_add({x[i], y[i]})));
  }
}

std::vector<float> random_floats(std::size_t n) {
  std::uniform_real_distribution<float> d(-8.0f, 8.0f);
  std::vector<float> v(n);
  for (float& value : v) value = d(rng());
  return v;
}

}  // namespace

TEST_CASE("a warm call whose thread lost its context launches again in the right one",
          "[gpu][dispatch][refused_launch]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  define_test_ufuncs(shared_engine());
  const Ufunc add = shared_engine().ufunc("add");
  const std::vector<float> x = random_floats(1024), y = random_floats(1024);
  const Array dx = to_device(x), dy = to_device(y);
  const Array out = Array::empty(DType::float32, {1024}, Memory::device);
  check_add(add, x, y, dx, dy, out);  // warm: the thread remembers device 0's context
  const CUcontext ours = cuda::primary_context(0);
  CHECK(current_context() == ours);

  set_context(nullptr);  // behind jitvec's back
  for (int call = 0; call < 3; ++call) {
    INFO("call " << call << " after the context was unset");
    check_add(add, x, y, dx, dy, out);
    CHECK(current_context() == ours);  // set, as a call on a thread without one leaves it
  }
}

TEST_CASE("a warm call while another device's context is current runs on its own device",
          "[gpu][dispatch][refused_launch]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  if (cuda::device_count() < 2) JITVEC_SKIP("needs two GPUs (nvidia-h200-x2)");
  define_test_ufuncs(shared_engine());
  const Ufunc add = shared_engine().ufunc("add");
  const std::vector<float> x = random_floats(4096), y = random_floats(4096);
  const Array dx = to_device(x), dy = to_device(y);
  const Array out = Array::empty(DType::float32, {4096}, Memory::device);
  set_context(cuda::primary_context(0));
  check_add(add, x, y, dx, dy, out);  // warm on device 0

  const CUcontext other = cuda::primary_context(1);
  set_context(other);  // what cudaSetDevice(1) does
  for (int call = 0; call < 3; ++call) {
    INFO("call " << call << " with device 1's context current");
    check_add(add, x, y, dx, dy, out);
    CHECK(current_context() == other);  // pushed and popped: the caller's choice stays
  }
  set_context(cuda::primary_context(0));
}
