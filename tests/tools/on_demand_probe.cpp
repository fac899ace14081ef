// tests/tools/on_demand_probe.cpp: which kernels a GPU call compiles, seen on a machine
// without a GPU (test_compile_on_demand.cpp runs it).
//
// Run with JITVEC_CUDA_DRIVER pointing at the fake driver (bench/probes/fake_cuda_driver.cpp,
// built as jitvec_fake_cuda_driver): every driver call succeeds and computes nothing, while
// NVRTC compiles for real, so what the engine compiles and which kernel each call launches are
// exactly what they are on a GPU. Each mode prints one line per call or per step:
//   on_demand_probe layouts CACHE    each layout of the table, then the table again:
//                                    "call <layout> <launched kernel> <compiles of the call>"
//                                    and "again <compiles of the second round>"
//   on_demand_probe threads CACHE    8 threads, each calling its own layout, started together:
//                                    "threads <compiles> <loaded kernels, distinct, sorted>"
//   on_demand_probe precompile CACHE Ufunc::precompile(cuda), then a second engine on the same
//                                    cache calls every layout: "precompiled <compiles>" and
//                                    "call <layout> <kernel> <compiles>" lines
//   on_demand_probe stand_in CACHE   (run with JITVEC_STAND_IN_MS=0) polar_distance on four
//                                    arrays until its vector kernel has replaced the stand-in:
//                                    "first <kernel>", "then <kernel> after <calls>", "compiles
//                                    <n>", and "bits equal" or "bits differ" (the stand-in's
//                                    result against the vector kernel's; meaningful on a GPU)
// Exits 0, or 1 with a line on stderr when something throws.
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "jitvec/jitvec.hpp"

namespace {

using jitvec::Array;
using jitvec::DType;
using jitvec::Shape;

const char* last_launched() {
  static auto* name = [] {
    const char* path = std::getenv("JITVEC_CUDA_DRIVER");
    void* library = path ? dlopen(path, RTLD_NOW | RTLD_NOLOAD) : nullptr;
    return library ? reinterpret_cast<const char* (*)()>(dlsym(library, "fake_cuda_last_launched")) : nullptr;
  }();
  return name ? name() : "?";
}

Array device_array(Shape shape) {
  return Array::empty(DType::float32, std::move(shape), jitvec::Memory::device, 0);
}

struct Layout {
  const char* name;
  std::function<void(const jitvec::Ufunc&)> call;
};

// One call per kernel variant a float32 loop of three inputs can launch (strided64 needs a
// space past 2^31 elements and is left out).
std::vector<Layout> layouts() {
  using jitvec::out;
  return {
      {"contiguous_arrays",
       [](const jitvec::Ufunc& f) { f(device_array({4096}), device_array({4096}), device_array({4096})); }},
      {"contiguous_parameters", [](const jitvec::Ufunc& f) { f(device_array({4096}), 0.5f, 2.0f); }},
      {"contiguous_two_arrays",
       [](const jitvec::Ufunc& f) { f(device_array({4096}), device_array({4096}), 2.0f); }},
      {"contiguous_misaligned",
       [](const jitvec::Ufunc& f) { f(device_array({4097}).slice(0, 1, 4097), 0.5f, 2.0f); }},
      {"transposed_parameters",
       [](const jitvec::Ufunc& f) { f(device_array({256, 256}).transpose(), 0.5f, 2.0f); }},
      {"transposed_arrays",
       [](const jitvec::Ufunc& f) {
         f(device_array({256, 256}).transpose(), device_array({256, 256}), device_array({256, 256}));
       }},
      {"broadcast_3d",
       [](const jitvec::Ufunc& f) {
         f(device_array({8, 1, 64}), device_array({1, 16, 1}), device_array({8, 16, 64}));
       }},
      {"padded_long_rows",
       [](const jitvec::Ufunc& f) {
         Array x = device_array({8, 4112}).slice(1, 0, 4096);
         f(x, device_array({8, 4096}), device_array({4096}));
       }},
      {"stepped_long_rows",
       [](const jitvec::Ufunc& f) { f(device_array({8, 8192}).slice(1, 0, 8192, 2), device_array({8, 4096}), 1.0f); }},
      {"short_padded_rows",
       [](const jitvec::Ufunc& f) { f(device_array({1000, 8}).slice(1, 0, 3), device_array({1000, 3}), 1.0f); }},
  };
}

jitvec::Engine make_engine(const std::string& cache) {
  jitvec::EngineOptions options;
  options.cache.dir = cache;
  return jitvec::Engine(options);
}

jitvec::Ufunc define(jitvec::Engine& engine) {
  return engine.vectorize("probe_pdf", {"float32(float32, float32, float32)"}, R"(
template <typename T> __device__ T probe_pdf(T x, T mean, T sigma) {
  const T z = (x - mean) / sigma;
  return exp(T(-0.5) * z * z) / sigma;
})");
}

// "call <layout> <kernel> <compiles> <milliseconds>" for each layout.
void run_layouts(jitvec::Engine& engine, const jitvec::Ufunc& f) {
  for (const Layout& layout : layouts()) {
    const auto before = engine.stats().compiles;
    const auto started = std::chrono::steady_clock::now();
    layout.call(f);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    std::printf("call %s %s %llu %.1f\n", layout.name, last_launched(),
                static_cast<unsigned long long>(engine.stats().compiles - before), ms);
  }
}

int run(const std::string& mode, const std::string& cache) {
  jitvec::Engine engine = make_engine(cache);
  const jitvec::Ufunc f = define(engine);
  if (mode == "layouts") {
    run_layouts(engine, f);
    const auto before = engine.stats().compiles;
    for (const Layout& layout : layouts()) layout.call(f);
    std::printf("again %llu\n", static_cast<unsigned long long>(engine.stats().compiles - before));
    return 0;
  }
  if (mode == "threads") {
    const std::vector<Layout> table = layouts();
    std::mutex mutex;
    std::condition_variable go;
    bool started = false;
    std::set<std::string> errors;
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t) {
      threads.emplace_back([&, t] {
        {
          std::unique_lock<std::mutex> lock(mutex);
          go.wait(lock, [&] { return started; });
        }
        try {
          table[static_cast<std::size_t>(t)].call(f);
        } catch (const std::exception& e) {
          std::lock_guard<std::mutex> lock(mutex);
          errors.insert(e.what());
        }
      });
    }
    {
      std::lock_guard<std::mutex> lock(mutex);
      started = true;
    }
    go.notify_all();
    for (std::thread& t : threads) t.join();
    for (const std::string& e : errors) std::fprintf(stderr, "error: %s\n", e.c_str());
    std::printf("threads %llu\n", static_cast<unsigned long long>(engine.stats().compiles));
    return errors.empty() ? 0 : 1;
  }
  if (mode == "precompile") {
    f.precompile(0, jitvec::Target::cuda);
    std::printf("precompiled %llu\n", static_cast<unsigned long long>(engine.stats().compiles));
    jitvec::Engine second = make_engine(cache);
    run_layouts(second, define(second));
    return 0;
  }
  if (mode == "stand_in") {
    const jitvec::Ufunc polar = engine.vectorize("probe_polar", {"float32(float32, float32, float32, float32)"}, R"(
__device__ float probe_polar(float r1, float t1, float r2, float t2) {
  const float x = r1 * cosf(t1) - r2 * cosf(t2), y = r1 * sinf(t1) - r2 * sinf(t2);
  return sqrtf(x * x + y * y);
})");
    std::vector<float> r(1 << 16), t(1 << 16);
    for (std::size_t i = 0; i < r.size(); ++i) {
      r[i] = 0.5f + static_cast<float>(i % 97) / 13.0f;
      t[i] = -3.0f + static_cast<float>(i % 89) / 7.0f;
    }
    const Array rd = jitvec::to_device(r), td = jitvec::to_device(t);
    const std::vector<float> first = polar(rd, td, td, rd).to_vector<float>();
    const std::string first_kernel = last_launched();
    std::printf("first %s\n", first_kernel.c_str());
    // The worker's compile is counted before its module is loaded and published: wait for the
    // count, then a little more, then call (the fake driver also names what was launched).
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(300);
    while (engine.stats().compiles < 2 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    std::vector<float> then;
    int calls = 1;
    for (; calls < 1000; ++calls) {
      then = polar(rd, td, td, rd).to_vector<float>();
      if (first_kernel != last_launched() || first_kernel == "?") break;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    std::printf("then %s after %d\n", last_launched(), calls);
    std::printf("compiles %llu\n", static_cast<unsigned long long>(engine.stats().compiles));
    std::printf("bits %s\n", std::memcmp(first.data(), then.data(), first.size() * sizeof(float)) == 0 ? "equal" : "differ");
    return 0;
  }
  std::fprintf(stderr, "usage: on_demand_probe layouts|threads|precompile|stand_in CACHE_DIR\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) return run("", "");
  try {
    return run(argv[1], argv[2]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "on_demand_probe: %s\n", e.what());
    return 1;
  }
}
