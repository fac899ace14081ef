// bench/probes/dispatch_profile.cpp: host nanoseconds per cached GPU ufunc call, with the
// fake driver (bench/probes/fake_cuda_driver.cpp), so the figure is jitvec's own share of a
// dispatch: planning, the loop lookup, allocation, argument packing and the kernel choice.
// Prints the median over batches for gaussian_pdf on 1024 float32 device elements, with and
// without out=, on the null stream and on a created stream. Run under `perf record -g` to see
// where the time goes.
//
//   g++ -O2 -std=c++17 -Iinclude bench/probes/dispatch_profile.cpp -Lbuild-NAME -ljitvec \
//       -Wl,-rpath,$PWD/build-NAME -o /tmp/dispatch_profile
//   JITVEC_CUDA_DRIVER=/tmp/libfakecuda.so JITVEC_CACHE_DIR=/tmp/dispatch-cache /tmp/dispatch_profile
#include <jitvec/jitvec.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

namespace {

template <class Call> double ns_per_call(Call&& call, int batches = 31, int calls = 20000) {
  for (int i = 0; i < calls; ++i) call();
  std::vector<double> per_call;
  for (int b = 0; b < batches; ++b) {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i) call();
    const std::chrono::duration<double, std::nano> took = std::chrono::steady_clock::now() - start;
    per_call.push_back(took.count() / calls);
  }
  std::sort(per_call.begin(), per_call.end());
  return per_call[per_call.size() / 2];
}

}  // namespace

// With arguments `MODE CALLS` (MODE 0-3, the lines above in order) it makes only CALLS calls of
// that mode and prints nothing: `perf stat -e instructions:u` of CALLS=200000 minus CALLS=0,
// divided by 200000, is the instructions a call, which a loaded machine does not blur.
int main(int argc, char** argv) {
  using namespace jitvec;
  Engine engine;
  Ufunc gauss = engine.vectorize("gaussian_pdf", {"float32(float32, float32, float32)"}, R"(
__device__ float gaussian_pdf(float x, float mean, float sigma) {
  const float z = (x - mean) / sigma;
  return expf(-0.5f * z * z) / (sigma * 2.5066282746310002f);
})");
  const Array x = Array::empty(DType::float32, {1024}, Memory::device);
  const Array y = Array::empty(DType::float32, {1024}, Memory::device);
  CUstream_st* tagged = reinterpret_cast<CUstream_st*>(0x1000);  // the fake driver takes any
  const std::function<void()> modes[] = {
      [&] { gauss(x, 0.5f, 2.0f); },
      [&] { gauss(x, 0.5f, 2.0f, out(y)); },
      [&] { gauss(x, 0.5f, 2.0f, on(Stream(tagged))); },
      [&] { gauss(x, 0.5f, 2.0f, out(y), on(Stream(tagged))); },
  };
  const char* const names[] = {"dispatch (no out=), null stream", "dispatch_out, null stream",
                               "dispatch (no out=), on(stream)", "dispatch_out, on(stream)"};
  for (const auto& mode : modes) mode();  // compiled (or read from the cache) and loaded
  if (argc == 3) {
    const auto& mode = modes[std::atoi(argv[1]) & 3];
    for (long i = 0, n = std::atol(argv[2]); i < n; ++i) mode();
  } else {
    for (int m = 0; m < 4; ++m) std::printf("%-34s %7.1f ns/call\n", names[m], ns_per_call(modes[m]));
  }
  release_cached_memory();
  return 0;
}
