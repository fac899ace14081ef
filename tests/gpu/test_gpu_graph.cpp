// jitvec::capture on the GPU: 16 calls recorded and replayed with new inputs (every stage
// checked against a float64 host reference), replay on another stream, the Graph holding its
// arrays, a loop compiled inside a capture, and the refusals (no out=, a temporary copy, host
// arrays, a capture someone else started) leaving the stream usable. Skipped without a GPU
// (tests/unit/test_graph.cpp checks the no-GPU behaviour and the rules without launching).
#include <cmath>
#include <limits>
#include <vector>

#include "catch.hpp"
#include "cuda/context.hpp"
#include "cuda/graph.hpp"
#include "cuda/memory.hpp"
#include "cuda/stream.hpp"
#include "engine/graph_capture.hpp"
#include "support.hpp"
#include "test_ufuncs.hpp"

using namespace jitvec;
using namespace jitvec_test;

namespace {

constexpr std::int64_t kN = 1024;
constexpr int kStages = 16;
constexpr float kSigma = 3.0f, kThreshold = 0.05f;

std::vector<float> random_floats(std::int64_t n, double lo, double hi) {
  std::uniform_real_distribution<double> d(lo, hi);
  std::vector<float> v(static_cast<std::size_t>(n));
  for (float& x : v) x = static_cast<float>(d(rng()));
  return v;
}

void upload(const Array& a, const std::vector<float>& v, CUstream stream) {
  cuda::copy_host_to_device(a.data(), v.data(), v.size() * sizeof(float), stream);
  cuda::synchronize(stream);  // the vector may change right after
}

void poison(const Array& a, CUstream stream) {
  upload(a, std::vector<float>(static_cast<std::size_t>(a.size()),
                               std::numeric_limits<float>::quiet_NaN()),
         stream);
}

// Stage k's float64 reference, element i, from the GPU's own stage k-1 (so each stage is
// checked alone and rounding does not compound along the chain).
double stage_reference(int k, double prev, double a, double b, double mean) {
  switch (k % 4) {
    case 0: return ref_add({prev, b});
    case 1: return ref_hyp({prev, a});
    case 2: return ref_gauss({prev, mean, kSigma});
    default: return ref_zero_suppress({prev, static_cast<double>(kThreshold)});
  }
}

struct Chain {
  Ufunc add, hyp, gauss, zero_suppress;
  Array a, b, mean;      // inputs: (n,), (n,), (1,) broadcast
  std::vector<Array> t;  // one output per stage

  explicit Chain(CUstream stream) {
    define_test_ufuncs(shared_engine());
    add = shared_engine().ufunc("add");
    hyp = shared_engine().ufunc("hyp");
    gauss = shared_engine().ufunc("gauss");
    zero_suppress = shared_engine().ufunc("zero_suppress");
    a = Array::empty(DType::float32, {kN}, Memory::device, 0, stream);
    b = Array::empty(DType::float32, {kN}, Memory::device, 0, stream);
    mean = Array::empty(DType::float32, {1}, Memory::device, 0, stream);
    for (int k = 0; k < kStages; ++k) {
      t.push_back(Array::empty(DType::float32, {kN}, Memory::device, 0, stream));
    }
  }
  // The 16 calls, with no stream named: inside a capture they go to the capturing stream.
  void calls() const {
    for (int k = 0; k < kStages; ++k) {
      const Array& prev = k == 0 ? a : t[k - 1];
      switch (k % 4) {
        case 0: add(prev, b, out(t[k])); break;
        case 1: hyp(prev, a, out(t[k])); break;
        case 2: gauss(prev, mean, kSigma, out(t[k])); break;
        default: zero_suppress(prev, kThreshold, out(t[k])); break;
      }
    }
  }
  // New random inputs; returns them for the reference.
  void refill(std::vector<float>& ha, std::vector<float>& hb, std::vector<float>& hm,
              CUstream stream) const {
    ha = random_floats(kN, -2, 2);
    hb = random_floats(kN, -2, 2);
    hm = random_floats(1, -1, 1);
    upload(a, ha, stream);
    upload(b, hb, stream);
    upload(mean, hm, stream);
    for (const Array& out_k : t) poison(out_k, stream);
  }
  // Every stage against its reference; returns the number of wrong elements.
  std::int64_t wrong(const std::vector<float>& ha, const std::vector<float>& hb,
                     const std::vector<float>& hm, CUstream stream) const {
    std::int64_t bad = 0;
    std::vector<float> prev = ha;
    for (int k = 0; k < kStages; ++k) {
      const std::vector<float> got = t[k].to_vector<float>(stream);
      for (std::int64_t i = 0; i < kN; ++i) {
        const double ref = stage_reference(k, prev[i], ha[i], hb[i], hm[0]);
        const double err = std::fabs(static_cast<double>(got[i]) - ref);
        if (!(err <= 1e-5 * std::fabs(ref) + 1e-6)) {
          if (bad < 5) UNSCOPED_INFO("stage " << k << " element " << i << ": " << got[i] << " vs " << ref);
          ++bad;
        }
      }
      prev = got;
    }
    return bad;
  }
};

template <class F> std::string error_of(F f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("16 captured calls replay with new inputs each time", "[gpu][graph]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  cuda::OwnedStream stream(0), other(0);
  Chain chain(stream.get());
  std::vector<float> ha, hb, hm;
  chain.refill(ha, hb, hm, stream.get());
  chain.calls();  // every loop loaded before capturing (the compile-inside case is below)
  for (const Array& out_k : chain.t) poison(out_k, stream.get());

  const Graph graph = capture(Stream(stream.get()), [&] { chain.calls(); });
  CHECK(graph.calls() == kStages);
  CHECK(graph.nodes() == kStages);
  CHECK(graph.stream().handle() == stream.get());
  // Capturing records without running: the outputs are still poisoned.
  for (float v : chain.t.back().to_vector<float>(stream.get())) REQUIRE(std::isnan(v));

  for (int replay = 0; replay < 4; ++replay) {
    INFO("replay " << replay);
    chain.refill(ha, hb, hm, stream.get());
    if (replay == 2) {
      graph.replay(Stream(other.get()));
      other.synchronize();
    } else {
      graph.replay();
    }
    CHECK(chain.wrong(ha, hb, hm, stream.get()) == 0);
  }
  // Eager calls on the stream still work after the capture.
  chain.refill(ha, hb, hm, stream.get());
  chain.calls();
  cuda::synchronize(nullptr);
  CHECK(chain.wrong(ha, hb, hm, nullptr) == 0);
}

TEST_CASE("a Graph holds the arrays its calls use", "[gpu][graph]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  define_test_ufuncs(shared_engine());
  Ufunc add = shared_engine().ufunc("add");
  cuda::OwnedStream stream(0);
  const CUstream s = stream.get();
  Array result = Array::empty(DType::float32, {kN}, Memory::device, 0, s);
  const std::vector<float> hx = random_floats(kN, -10, 10), hy = random_floats(kN, -10, 10);
  const void* x_address = nullptr;
  Graph graph;
  {
    Array x = Array::empty(DType::float32, {kN}, Memory::device, 0, s);
    Array y = Array::empty(DType::float32, {kN}, Memory::device, 0, s);
    upload(x, hx, s);
    upload(y, hy, s);
    x_address = x.data();
    add(x, y, out(result), on(Stream(s)));  // loaded before capturing
    graph = capture(Stream(s), [&] { add(x, y, out(result)); });
  }  // our handles of x and y are gone; the graph's are not
  // Without the graph's share, the block cache would hand x's block to the next allocation
  // of its size on this stream.
  const Array fresh = Array::empty(DType::float32, {kN}, Memory::device, 0, s);
  CHECK(fresh.data() != x_address);
  poison(result, s);
  graph.replay();
  const std::vector<float> got = result.to_vector<float>(s);
  std::int64_t bad = 0;
  for (std::int64_t i = 0; i < kN; ++i) {
    bad += static_cast<double>(got[i]) != static_cast<double>(hx[i] + hy[i]);
  }
  CHECK(bad == 0);
  // Destroying the graph releases them (after its last replay).
  graph = Graph();
  const Array reused = Array::empty(DType::float32, {kN}, Memory::device, 0, s);
  (void)reused;
}

TEST_CASE("a loop first used inside a capture compiles and loads there", "[gpu][graph]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  TempDir cache;
  EngineOptions options;
  options.cache.dir = cache.path();
  Engine engine(options);
  Ufunc triple = engine.vectorize("triple_plus", {"float32(float32, float32)"},
                                  "__device__ float triple_plus(float a, float b) { return 3 * a + b; }");
  cuda::OwnedStream stream(0);
  const CUstream s = stream.get();
  const std::vector<float> hx = random_floats(kN, -10, 10);
  Array x = Array::empty(DType::float32, {kN}, Memory::device, 0, s);
  Array y = Array::empty(DType::float32, {kN}, Memory::device, 0, s);
  upload(x, hx, s);
  poison(y, s);
  const Graph graph = capture(Stream(s), [&] { triple(x, 0.5f, out(y)); });
  CHECK(engine.stats().compiles == 1);  // compiled inside the capture
  graph.replay();
  const std::vector<float> got = y.to_vector<float>(s);
  std::int64_t bad = 0;
  for (std::int64_t i = 0; i < kN; ++i) {
    const double ref = 3.0 * hx[i] + 0.5;
    bad += !(std::fabs(got[i] - ref) <= 1e-6 * std::fabs(ref) + 1e-6);
  }
  CHECK(bad == 0);
}

TEST_CASE("refusals inside a capture abandon it and leave the stream usable", "[gpu][graph]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  define_test_ufuncs(shared_engine());
  Ufunc add = shared_engine().ufunc("add");
  cuda::OwnedStream stream(0);
  const CUstream s = stream.get();
  const std::vector<float> hx = random_floats(kN, -10, 10);
  Array x = Array::empty(DType::float32, {kN}, Memory::device, 0, s);
  Array y = Array::empty(DType::float32, {kN}, Memory::device, 0, s);
  upload(x, hx, s);
  add(x, x, out(y), on(Stream(s)));  // loaded

  CHECK_THAT(error_of([&] { capture(Stream(s), [&] { add(x, x); }); }),
             Catch::Matchers::Contains("inside jitvec::capture has no out="));
  // out= overlapping a reversed input needs a temporary copy: an allocation, refused.
  CHECK_THAT(error_of([&] {
               capture(Stream(s), [&] { add(x.slice(0, kN - 1, -kN - 1, -1), x, out(x)); });
             }),
             Catch::Matchers::Contains("inside jitvec::capture"));
  std::vector<float> host(kN, 1.0f);
  CHECK_THAT(error_of([&] { capture(Stream(s), [&] { add(host, x, out(y)); }); }),
             Catch::Matchers::Contains("argument 1 is a host array"));
  CHECK_THAT(error_of([&] { capture(Stream(s), [&] { add(x, x, out(y), target(Target::cpu)); }); }),
             Catch::Matchers::Contains("a capture records GPU work only"));
  CHECK(engine::active_capture() == nullptr);
  CHECK_FALSE(cuda::is_capturing(s));

  // A capture started by someone else: a jitvec allocation on that stream is refused too.
  {
    cuda::ContextGuard guard(0);
    cuda::begin_capture(s);
    CHECK_THAT(error_of([&] { add(x, x, on(Stream(s))); }),
               Catch::Matchers::Contains("which is being captured into a CUDA graph"));
    cuda::abandon_capture(s);
  }
  CHECK_FALSE(cuda::is_capturing(s));

  // x and y are as they were, and the stream computes eagerly again.
  poison(y, s);
  add(x, x, out(y), on(Stream(s)));
  const std::vector<float> got = y.to_vector<float>(s);
  const std::vector<float> x_now = x.to_vector<float>(s);
  std::int64_t bad = 0;
  for (std::int64_t i = 0; i < kN; ++i) {
    bad += x_now[i] != hx[i];
    bad += static_cast<double>(got[i]) != static_cast<double>(hx[i] + hx[i]);
  }
  CHECK(bad == 0);
}
