// bench/probes/dispatch_profile.cpp: host nanoseconds per cached GPU ufunc call, with the
// fake driver (bench/probes/fake_cuda_driver.cpp), so the figure is jitvec's own share of a
// dispatch: planning, the loop lookup, allocation, argument packing and the kernel choice.
// Prints the median over batches for gaussian_pdf on 1024 float32 device elements, with and
// without out=, on the null stream and on a created stream. Run under `perf record -g` to see
// where the time goes. For each it also prints the driver calls a call makes (the fake
// driver's count; FAKE_CUDA_LOG_CALLS=1 lists them by entry point at exit) and the heap
// allocations a call makes (malloc and its kin, counted by this program's own definitions,
// which the library's calls reach too).
//
//   g++ -O2 -std=c++17 -Iinclude bench/probes/dispatch_profile.cpp -Lbuild-NAME -ljitvec \
//       -ldl -Wl,-rpath,$PWD/build-NAME -o /tmp/dispatch_profile
//   JITVEC_CUDA_DRIVER=/tmp/libfakecuda.so JITVEC_CACHE_DIR=/tmp/dispatch-cache /tmp/dispatch_profile
#include <dlfcn.h>
#include <jitvec/jitvec.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

// Heap allocations: glibc's own functions behind counting definitions (operator new and the
// containers reach malloc through them).
extern "C" {
void* __libc_malloc(std::size_t);
void* __libc_calloc(std::size_t, std::size_t);
void* __libc_realloc(void*, std::size_t);
void* __libc_memalign(std::size_t, std::size_t);
}
namespace {
std::atomic<unsigned long long> g_allocations{0};
}  // namespace
extern "C" {
void* malloc(std::size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_malloc(n);
}
void* calloc(std::size_t k, std::size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_calloc(k, n);
}
void* realloc(void* p, std::size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_realloc(p, n);
}
void* aligned_alloc(std::size_t alignment, std::size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_memalign(alignment, n);
}
int posix_memalign(void** p, std::size_t alignment, std::size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  *p = __libc_memalign(alignment, n);
  return *p ? 0 : 12;  // ENOMEM
}
}  // extern "C"

namespace {

// The fake driver's count of its calls (0 when another driver is loaded).
unsigned long long driver_calls() {
  static const auto count = [] {
    const char* path = std::getenv("JITVEC_CUDA_DRIVER");
    void* library = path ? dlopen(path, RTLD_NOW | RTLD_NOLOAD) : nullptr;
    return library ? reinterpret_cast<unsigned long long (*)()>(
                         dlsym(library, "fake_cuda_driver_calls"))
                   : nullptr;
  }();
  return count ? count() : 0;
}

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

// One call of a mode, the result's destruction included: the function to name in callgrind's
// --toggle-collect=dispatch_profile_call (instructions of the calls alone, no start-up).
extern "C" __attribute__((noinline)) void dispatch_profile_call(const std::function<void()>& mode) {
  mode();
}

// With arguments `MODE CALLS` (MODE 0-3, the lines above in order) it makes only CALLS calls of
// that mode and prints nothing: `perf stat -e instructions:u` of CALLS=200000 minus CALLS=0,
// divided by 200000, is the instructions a call, which a loaded machine does not blur; or
// `valgrind --tool=callgrind --toggle-collect=dispatch_profile_call` of it, per function.
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
    for (long i = 0, n = std::atol(argv[2]); i < n; ++i) dispatch_profile_call(mode);
  } else {
    for (int m = 0; m < 4; ++m) {
      constexpr int kCounted = 1000;
      const unsigned long long calls_before = driver_calls(), allocations_before = g_allocations;
      for (int i = 0; i < kCounted; ++i) modes[m]();
      const double calls = double(driver_calls() - calls_before) / kCounted;
      const double allocations = double(g_allocations - allocations_before) / kCounted;
      std::printf("%-34s %7.1f ns/call  %5.2f driver calls/call  %5.2f heap allocations/call\n",
                  names[m], ns_per_call(modes[m]), calls, allocations);
    }
  }
  release_cached_memory();
  return 0;
}
