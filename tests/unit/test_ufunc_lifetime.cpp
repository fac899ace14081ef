// A Ufunc outlives the Engine that made it (issue 15): its handle keeps alive what its calls
// use (helpers, loaded loops, disk cache, counters, thread pool), so calls after the Engine is
// destroyed work, including ones that must build a new loop. Under AddressSanitizer the old
// design (UfuncImpl referring to a freed Engine::Impl) fails here with heap-use-after-free.
#include "catch.hpp"
#include "support.hpp"

using namespace jitvec;
using namespace jitvec_test;

TEST_CASE("a Ufunc keeps working after its Engine is destroyed", "[ufunc][lifetime]") {
  TempDir dir;
  std::uniform_real_distribution<float> dist(-50.0f, 50.0f);
  std::vector<float> x(5000);
  for (float& v : x) v = dist(rng());
  INFO("seed " << rng_seed());

  Ufunc scale;
  {
    EngineOptions options;
    options.cache.dir = dir.path();
    options.cache.read_only_dirs = std::vector<std::filesystem::path>{};
    options.threads = 3;
    Engine engine(options);
    engine.define_device_function("twice_of",
                                  "template <typename T> __device__ T twice_of(T x) { return x + x; }");
    scale = engine.vectorize("scale", {"float32(float32, float32)", "float64(float64, float64)"},
                             "template <typename T> __device__ T scale(T x, T k) { return twice_of(x) * k; }");
    scale(x, 1.0f, target(Target::cpu));  // one loop loaded while the engine lives
    // The registry stays the engine's: a name lookup works now, not after.
    CHECK(engine.ufunc("scale").name() == "scale");
  }

  // The loaded float32 loop, on one thread and on the thread pool (made only now).
  std::vector<float> got = scale(x, 3.0f, target(Target::cpu)).to_vector<float>();
  for (std::size_t i = 0; i < x.size(); ++i) CHECK(got[i] == (x[i] + x[i]) * 3.0f);
  got = scale(x, 0.5f, target(Target::parallel)).to_vector<float>();
  for (std::size_t i = 0; i < x.size(); ++i) CHECK(got[i] == (x[i] + x[i]) * 0.5f);

  // A loop never built before: it needs the helper registry, the disk cache and the counters.
  std::vector<double> xd(x.begin(), x.end());
  const std::vector<double> gotd = scale(xd, 0.25, target(Target::cpu)).to_vector<double>();
  for (std::size_t i = 0; i < xd.size(); ++i) CHECK(gotd[i] == (xd[i] + xd[i]) * 0.25);

  // Copies share the state; the last one to go frees it.
  Ufunc copy = scale;
  scale = Ufunc();
  CHECK(copy.name() == "scale");
  const Target fallback = copy.default_target();  // the engine's, resolved after it is gone
  CHECK((fallback == Target::cpu || fallback == Target::cuda));
  copy.precompile(1, Target::cpu);
  CHECK(copy(xd, 1.0, target(Target::cpu)).to_vector<double>()[7] == xd[7] + xd[7]);
}
