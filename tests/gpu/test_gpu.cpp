// GPU-only behaviour: arrays past 2^31 elements (64-bit indexing), many threads asking for one
// new kernel (compiled once), user streams, the disk cache serving a second engine without
// NVRTC, and GPU results agreeing with the CPU target. Each test skips, saying why, where no
// GPU is usable; on such machines the no-driver error itself is checked.
#include <cstring>
#include <thread>

#include "catch.hpp"
#include "cuda/stream.hpp"
#include "support.hpp"
#include "test_ufuncs.hpp"

using namespace jitvec;
using namespace jitvec_test;

TEST_CASE("without a GPU, the cuda target says there is no driver", "[gpu][errors]") {
  if (gpu_usable()) JITVEC_SKIP("a GPU is usable here; this checks machines without one");
  define_test_ufuncs(shared_engine());
  std::vector<float> x(8, 1.0f);
  try {
    shared_engine().ufunc("add")(x, x, target(Target::cuda));
    FAIL("expected CudaError");
  } catch (const CudaError& e) {
    CHECK_THAT(std::string(e.what()), Catch::Matchers::Contains("CUDA driver"));
  }
}

TEST_CASE("arrays past 2^31 elements use 64-bit indexing", "[gpu][large]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  Engine& engine = shared_engine();
  define_test_ufuncs(engine);
  Ufunc add = engine.ufunc("add");
  // Broadcast column + row: strided kernel, 2^31 + 2^15 outputs.
  const std::int64_t rows = 65537, cols = 32768;
  std::vector<std::int8_t> col(rows), row(cols);
  for (auto& v : col) v = static_cast<std::int8_t>(rng()() % 60);
  for (auto& v : row) v = static_cast<std::int8_t>(rng()() % 60);
  Array dcol = to_device(col, {rows, 1}), drow = to_device(row, {1, cols});
  Array out = add(dcol, drow);
  REQUIRE(out.shape() == Shape{rows, cols});
  std::vector<std::int8_t> host = out.to_vector<std::int8_t>();
  std::int64_t bad = 0;
  for (std::int64_t i = 0; i < rows; ++i) {
    const std::int8_t* r = host.data() + i * cols;
    for (std::int64_t j = 0; j < cols; ++j) bad += r[j] != static_cast<std::int8_t>(col[i] + row[j]);
  }
  CHECK(bad == 0);

  // Contiguous: 2^31 + 77 elements with a scalar.
  const std::int64_t n = (std::int64_t{1} << 31) + 77;
  std::vector<std::int8_t> a(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) a[i] = static_cast<std::int8_t>((i * 7 + (i >> 20)) % 101);
  Array da = to_device(a);
  std::vector<std::int8_t> sum = add(da, 3).to_vector<std::int8_t>();
  bad = 0;
  for (std::int64_t i = 0; i < n; ++i) bad += sum[i] != static_cast<std::int8_t>(a[i] + 3);
  CHECK(bad == 0);
}

TEST_CASE("row kernels walk runs of rows and wrap the outer dimensions", "[gpu][rows]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  Engine& engine = shared_engine();
  define_test_ufuncs(engine);
  Ufunc add = engine.ufunc("add");
  // 90000 rows of 256 (more than one block row each): each block walks 2 rows, and dimension
  // 1 (of size 3) wraps inside some blocks' runs. Vector rows, then rows off vector
  // boundaries (a view starting at element 1), then a stepped input (scalar rows).
  const std::int64_t a = 30000, b = 3, c = 256;
  std::vector<float> x(static_cast<std::size_t>(a * b * c + 2 * c + 1)), y(static_cast<std::size_t>(b));
  for (auto& v : x) v = static_cast<float>(rng()() % 1000) * 0.25f;
  for (auto& v : y) v = static_cast<float>(rng()() % 1000) * 0.5f;
  Array dx = to_device(x), dy = to_device(y, {1, b, 1});
  for (int variant = 0; variant < 3; ++variant) {
    INFO("variant " << variant);
    const std::int64_t offset = variant == 1 ? 1 : 0;
    const std::int64_t step = variant == 2 ? 2 : 1;
    const Shape shape{a, b, c};
    const Strides strides{b * c, c, step};  // variant 2: every other element (rows overlap)
    Array view = Array::wrap(static_cast<float*>(dx.data()) + offset, DType::float32, shape,
                             strides, Memory::device, dx.device());
    std::vector<float> got = add(view, dy).to_vector<float>();
    REQUIRE(static_cast<std::int64_t>(got.size()) == a * b * c);
    std::int64_t bad = 0;
    for (std::int64_t i = 0; i < a; ++i)
      for (std::int64_t j = 0; j < b; ++j)
        for (std::int64_t k = 0; k < c; ++k) {
          const float want = x[static_cast<std::size_t>(offset + i * strides[0] + j * strides[1] + k * step)] + y[static_cast<std::size_t>(j)];
          bad += got[static_cast<std::size_t>((i * b + j) * c + k)] != want;
        }
    CHECK(bad == 0);
  }
}

TEST_CASE("many threads asking for one new kernel compile it once", "[gpu][threads]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  // Without stand-ins: exactly the one kernel. With them (the default): the kernel and at most
  // its one stand-in (both race on workers; which one the first calls run depends on timing).
  const bool stand_ins = GENERATE(false, true);
  EngineOptions options{CacheOptions{std::nullopt, std::nullopt, true, std::nullopt}};
  options.stand_ins = stand_ins;
  Engine engine(options);
  Ufunc twice = engine.vectorize("twice", {"float32(float32)"},
                                 "__device__ float twice(float x) { return 2.0f * x; }");
  std::vector<float> x(100000);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i) * 0.5f;
  std::vector<std::thread> threads;
  std::vector<int> ok(8, 0);
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      std::vector<float> y = twice(x).to_vector<float>();
      bool good = true;
      for (std::size_t i = 0; i < x.size(); ++i) good = good && y[i] == 2.0f * x[i];
      ok[t] = good;
    });
  }
  for (auto& th : threads) th.join();
  CHECK(std::count(ok.begin(), ok.end(), 1) == 8);
  INFO("stand_ins = " << stand_ins);
  if (stand_ins) {
    CHECK(engine.stats().compiles >= 1);
    CHECK(engine.stats().compiles <= 2);
  } else {
    CHECK(engine.stats().compiles == 1);
  }
}

TEST_CASE("calls run on the stream they are given", "[gpu][stream]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  Engine& engine = shared_engine();
  define_test_ufuncs(engine);
  cuda::OwnedStream stream(0);
  std::vector<float> x(1 << 20);
  for (auto& v : x) v = std::uniform_real_distribution<float>(-3, 3)(rng());
  Array dx = to_device(x, {}, 0, stream.get());
  Array y = engine.ufunc("gauss")(dx, 0.0f, 1.0f, on(stream.get()));
  std::vector<float> host = y.to_vector<float>(stream.get());
  double worst = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double ref = ref_gauss({x[i], 0.0, 1.0});
    worst = std::max(worst, std::fabs(host[i] - ref) / (std::fabs(ref) + 1e-30));
  }
  CHECK(worst < 2e-6);
}

TEST_CASE("small output blocks are recycled on their own stream only, and results stay intact",
          "[gpu][memory]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  Engine& engine = shared_engine();
  define_test_ufuncs(engine);
  Ufunc add = engine.ufunc("add");
  cuda::OwnedStream s1(0), s2(0);
  std::vector<float> x(1000);
  for (auto& v : x) v = std::uniform_real_distribution<float>(-3, 3)(rng());
  const Array dx = to_device(x, {}, 0, s1.get());

  Array first = add(dx, 1.0f, on(s1.get()));
  const void* block = first.data();
  first = Array();  // its block goes to s1's free list
  Array again = add(dx, 2.0f, on(s1.get()));
  CHECK(again.data() == block);  // reused on the same stream
  const void* again_block = again.data();
  again = Array();
  Array other = add(dx, 3.0f, on(s2.get()));
  CHECK(other.data() != again_block);  // never handed to another stream

  // Results kept alive while others are dropped and their blocks reused: each must hold its own
  // values (an output written into a block still in use would show here).
  std::vector<Array> kept;
  for (int i = 0; i < 64; ++i) {
    Array y = add(dx, static_cast<float>(i), on(s1.get()));
    if (i % 2 == 0) kept.push_back(y);
  }
  for (std::size_t k = 0; k < kept.size(); ++k) {
    const std::vector<float> host = kept[k].to_vector<float>(s1.get());
    std::int64_t bad = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      bad += host[i] != static_cast<float>(static_cast<double>(x[i]) + 2.0 * static_cast<double>(k));
    }
    CHECK(bad == 0);
  }
  kept.clear();
  other = Array();
  release_cached_memory(s1.get());
  release_cached_memory(s2.get());
  release_cached_memory();
}

TEST_CASE("GPU and CPU targets agree", "[gpu][compare]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  Engine& engine = shared_engine();
  define_test_ufuncs(engine);
  std::vector<float> a(1 << 20), b(1 << 20);
  for (auto& v : a) v = std::uniform_real_distribution<float>(-100, 100)(rng());
  for (auto& v : b) v = std::uniform_real_distribution<float>(-100, 100)(rng());
  std::vector<float> gpu = engine.ufunc("hyp")(a, b, target(Target::cuda)).to_vector<float>();
  std::vector<float> cpu = engine.ufunc("hyp")(a, b, target(Target::cpu)).to_vector<float>();
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    worst = std::max(worst, std::fabs(double(gpu[i]) - cpu[i]) / (std::fabs(double(cpu[i])) + 1e-30));
  }
  INFO("largest relative difference " << worst);
  CHECK(worst <= 2.4e-7);  // sqrtf is correctly rounded on both: at most one rounding apart
}

TEST_CASE("a second engine loads GPU loops from the disk cache without compiling", "[gpu][cache]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  TempDir dir;
  EngineOptions options;
  options.cache.dir = dir.path();
  options.cache.read_only_dirs = std::vector<std::filesystem::path>{};
  const char* src = "__device__ float cube(float x) { return x * x * x; }";
  std::vector<float> x = {1, 2, 3, 4};
  {
    Engine first(options);
    first.vectorize("cube", {"float32(float32)"}, src)(x);
    CHECK(first.stats().compiles == 1);
  }
  Engine second(options);
  std::vector<float> y = second.vectorize("cube", {"float32(float32)"}, src)(x).to_vector<float>();
  CHECK(y == std::vector<float>{1, 8, 27, 64});
  CHECK(second.stats().compiles == 0);
  CHECK(second.stats().disk_hits == 1);
}

TEST_CASE("large host arrays go through the overlapped pipeline and come back whole", "[gpu][pipeline]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  Engine& engine = shared_engine();
  define_test_ufuncs(engine);
  // Mixed operand sizes (int16, scalar, float64 -> float64) and more chunks than slots.
  const std::size_t n = (std::size_t{1} << 23) + 12345;
  std::vector<std::int16_t> a(n);
  std::vector<double> c(n);
  for (std::size_t i = 0; i < n; ++i) {
    a[i] = static_cast<std::int16_t>(static_cast<int>(rng()() % 2001) - 1000);
    c[i] = std::uniform_real_distribution<double>(-5, 5)(rng());
  }
  std::vector<double> result(n, std::nan(""));
  engine.ufunc("mix")(a, 0.5f, c, out(from_vector(result)), target(Target::cuda));
  std::size_t bad = 0;
  for (std::size_t i = 0; i < n; ++i) bad += result[i] != ref_mix({double(a[i]), 0.5, c[i]});
  CHECK(bad == 0);
  // Without out=: a new host array.
  std::vector<double> fresh = engine.ufunc("mix")(a, 0.25f, c).to_vector<double>();
  bad = 0;
  for (std::size_t i = 0; i < n; ++i) bad += fresh[i] != ref_mix({double(a[i]), 0.25, c[i]});
  CHECK(bad == 0);
}
