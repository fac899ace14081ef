// The engine and its disk cache on the host target (runs in CI): a second engine over the same
// folder compiles nothing; a scalar or array argument does not change the binary; each field of
// the loop key changes the key; a cached loop that fails to load is compiled again.
#include <algorithm>
#include <fstream>
#include <iterator>

#include "cache/cache_entry.hpp"
#include "catch.hpp"
#include "engine/loop_builder.hpp"
#include "support.hpp"

using namespace jitvec;
using namespace jitvec_test;

namespace {

EngineOptions options_in(const TempDir& dir) {
  EngineOptions options;
  options.cache.dir = dir.path();
  options.cache.read_only_dirs = std::vector<std::filesystem::path>{};
  return options;
}

}  // namespace

TEST_CASE("a second engine reads host loops from disk and compiles nothing", "[engine][cache]") {
  TempDir dir;
  const char* src = "__device__ float lerp(float a, float b, float t) { return a + t * (b - a); }";
  std::vector<float> a = {0, 1, 2}, b = {10, 11, 12};
  {
    Engine first(options_in(dir));
    Ufunc lerp = first.vectorize("lerp", {"float32(float32, float32, float32)"}, src);
    lerp(a, b, 0.5f, target(Target::cpu));
    // Same entry: the run-time one serves every scalar pattern but the two with copies of
    // their own (every input an array; only the first one), kernels/host_loops.hpp.
    lerp(0.0f, b, std::vector<float>{0.5f, 0.5f, 0.5f}, target(Target::cpu));
    lerp(a, b, 0.25f, target(Target::parallel));                            // same binary
    CHECK(first.stats().compiles == 1);
    CHECK(first.stats().memory_hits == 2);
  }
  Engine second(options_in(dir));
  Ufunc lerp = second.vectorize("lerp", {"float32(float32, float32, float32)"}, src);
  CHECK(lerp(a, b, 0.5f, target(Target::cpu)).to_vector<float>() == std::vector<float>{5, 6, 7});
  CHECK(second.stats().compiles == 0);
  CHECK(second.stats().disk_hits == 1);
  // The time of that disk read and of loading the shared object is counted; nothing compiled.
  CHECK(second.stats().disk_read_seconds > 0.0);
  CHECK(second.stats().load_seconds > 0.0);
  CHECK(second.stats().compile_seconds == 0.0);
}

TEST_CASE("every field of a loop changes its cache key", "[engine][cache]") {
  codegen::UfuncSource u{"f", "__device__ float f(float x) { return x; }", "", 1};
  const engine::LoopDefinition def{&u, {}, codegen::LoopSpec::exact(Signature::parse("f4(f4)"))};
  const std::string base = engine::cuda_loop_key(def, "sm_90", "source").hex();
  CHECK(engine::cuda_loop_key(def, "sm_90", "source").hex() == base);   // stable
  CHECK(engine::cuda_loop_key(def, "sm_80", "source").hex() != base);   // arch
  CHECK(engine::cuda_loop_key(def, "sm_90", "source2").hex() != base);  // source
  CHECK(engine::host_loop_key(def, "source").hex() != base);            // target, compiler
  engine::LoopDefinition other = def;
  other.spec.outputs = {DType::float64};
  CHECK(engine::cuda_loop_key(other, "sm_90", "source").hex() != base);  // loop
  // The kernels the module holds: one, another, or every one ("all").
  engine::LoopDefinition one = def;
  one.kernels = {"jitvec_contig_vec_s0"};
  const std::string one_key = engine::cuda_loop_key(one, "sm_90", "source").hex();
  CHECK(one_key != base);
  one.kernels = {"jitvec_rows"};
  CHECK(engine::cuda_loop_key(one, "sm_90", "source").hex() != one_key);
  CHECK(engine::cuda_loop_key(one, "sm_90", "source").hex() != base);
  const cache::KeyFields fields = engine::cuda_loop_key(def, "sm_90", "source").fields();
  CHECK(std::count(fields.begin(), fields.end(), std::pair<std::string, std::string>{"kernels", "all"}) == 1);
}

namespace {

// Rewrites every entry in `dir` through `edit` (re-serialized: the checksum stays valid, so
// only loading the binary can find the damage). Returns how many entries it rewrote.
template <class Edit> int rewrite_entries(const std::filesystem::path& dir, Edit edit) {
  int rewritten = 0;
  for (const auto& file : std::filesystem::recursive_directory_iterator(dir)) {
    if (!file.is_regular_file()) continue;
    std::ifstream in(file.path(), std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    in.close();
    cache::CacheEntry entry;
    try {
      entry = cache::parse(bytes, file.path().string());
    } catch (const std::exception&) {
      continue;  // not an entry (a lock or temporary file)
    }
    edit(entry);
    std::ofstream(file.path(), std::ios::binary | std::ios::trunc) << cache::serialize(entry);
    ++rewritten;
  }
  return rewritten;
}

}  // namespace

TEST_CASE("a cached host loop that fails to load is a miss, compiled again", "[engine][cache]") {
  const char* src = "__device__ double affine(double x, double a) { return a * x + 1.0; }";
  std::vector<double> x(100);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<double>(i) * 0.25 - 3.0;
  const bool drop_payload = GENERATE(false, true);
  INFO((drop_payload ? "entry without its shared object" : "shared object replaced by junk"));
  TempDir dir;
  {
    Engine first(options_in(dir));
    first.vectorize("affine", {"float64(float64, float64)"}, src)(x, 2.0, target(Target::cpu));
  }
  const int damaged = rewrite_entries(dir.path(), [&](cache::CacheEntry& entry) {
    for (cache::Payload& payload : entry.payloads) {
      if (payload.kind != cache::payload_kind::shared_object) continue;
      if (drop_payload) {
        payload.kind = "unused";
      } else {
        payload.bytes = std::string(4096, 'j');  // checksummed, but no ELF file
      }
    }
  });
  REQUIRE(damaged == 1);
  Engine second(options_in(dir));
  Ufunc affine = second.vectorize("affine", {"float64(float64, float64)"}, src);
  const std::vector<double> y = affine(x, 2.0, target(Target::cpu)).to_vector<double>();
  for (std::size_t i = 0; i < x.size(); ++i) CHECK(y[i] == 2.0 * x[i] + 1.0);
  CHECK(second.stats().compiles == 1);
  CHECK(second.stats().disk_hits == 0);
  CHECK(second.stats().disk_misses == 1);
  // The fresh binary was stored over the damaged entry: a third engine compiles nothing.
  Engine third(options_in(dir));
  third.vectorize("affine", {"float64(float64, float64)"}, src)(x, 2.0, target(Target::cpu));
  CHECK(third.stats().compiles == 0);
  CHECK(third.stats().disk_hits == 1);
}
