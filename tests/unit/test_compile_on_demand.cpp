// Compile on demand: a call compiles (or reads from the disk cache) only the kernel its layout
// takes, a later call of another layout just that one more, and a module of every kernel
// (`jitvec compile`, Ufunc::precompile) serves every layout with nothing compiled.
//
// The cpu target shows it with the host's entry points (one flat run, read at run time or with
// the scalar pattern fixed; any strides). The
// GPU's kernel variants are checked without a GPU: tests/tools/on_demand_probe runs the engine's
// GPU path on the fake driver (bench/probes/fake_cuda_driver.cpp, which computes nothing) while
// NVRTC compiles for real, and reports what each call compiled and launched.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "catch.hpp"
#include "cache/disk_cache.hpp"
#include "engine/engine_impl.hpp"
#include "engine/loop_builder.hpp"
#include "kernels/module_source.hpp"
#include "support.hpp"

using namespace jitvec;
using jitvec_test::TempDir;

namespace {

const char* const kLerp = "template <typename T> __device__ T lerp(T a, T b, T t) { return a + t * (b - a); }";

EngineOptions in_cache(const std::filesystem::path& dir) {
  EngineOptions options;
  options.cache.dir = dir;
  options.cache.read_only_dirs = std::vector<std::filesystem::path>{};
  return options;
}

std::vector<float> uniform_floats(std::size_t n, float lo, float hi) {
  std::uniform_real_distribution<float> pick(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = pick(jitvec_test::rng());
  return v;
}

// A contiguous and a strided call of lerp on the cpu target; checks the values too.
void contiguous_call(const Ufunc& lerp) {
  const std::vector<float> a = {1, 2, 3, 4}, b = {5, 6, 7, 8};
  CHECK(lerp(a, b, 0.5f, target(Target::cpu)).to_vector<float>() == std::vector<float>{3, 4, 5, 6});
}
void strided_call(const Ufunc& lerp) {
  std::vector<float> a = {1, 0, 2, 0, 3, 0, 4, 0};
  const std::vector<float> b = {5, 6, 7, 8};
  const Array stepped = Array::wrap(a.data(), DType::float32, Shape{4}, Strides{2}, Memory::host);
  CHECK(lerp(stepped, b, 0.5f, target(Target::cpu)).to_vector<float>() == std::vector<float>{3, 4, 5, 6});
}

// The probe's lines, each split into words.
// Stand-ins are off (JITVEC_STAND_IN_MS=off) unless `stand_in_ms` is given, so each call
// compiles what its own kind needs whatever the machine's speed.
std::vector<std::vector<std::string>> probe(const std::string& mode, const std::filesystem::path& cache,
                                            const char* stand_in_ms = "off", bool real_driver = false) {
  std::map<std::string, const char*> environment{{"JITVEC_TARGET", nullptr}, {"JITVEC_STAND_IN_MS", stand_in_ms}};
  if (!real_driver) environment["JITVEC_CUDA_DRIVER"] = JITVEC_FAKE_CUDA_DRIVER;
  const jitvec_test::ChildResult child = jitvec_test::run_tool("on_demand_probe", {mode, cache.string()}, environment);
  INFO(child.output);
  REQUIRE(child.exit_status == 0);
  std::vector<std::vector<std::string>> lines;
  std::istringstream text(child.output);
  for (std::string line; std::getline(text, line);) {
    std::istringstream words(line);
    std::vector<std::string> split;
    for (std::string w; words >> w;) split.push_back(w);
    if (!split.empty() && (split[0] == "call" || split[0] == "again" || split[0] == "threads" ||
                           split[0] == "precompiled" || split[0] == "first" || split[0] == "then" ||
                           split[0] == "compiles" || split[0] == "bits")) {
      lines.push_back(split);
    }
  }
  return lines;
}

// The kernel each layout of the probe's table launches (kernels/choose_kernel.hpp's rules).
const std::map<std::string, std::string>& expected_kernels() {
  static const std::map<std::string, std::string> kernels = {
      {"contiguous_arrays", "jitvec_contig_vec_s0"},
      {"contiguous_parameters", "jitvec_contig_vec_s6"},
      {"contiguous_two_arrays", "jitvec_contig_vec"},
      {"contiguous_misaligned", "jitvec_contig"},
      {"transposed_parameters", "jitvec_tiled_s6"},
      {"transposed_arrays", "jitvec_tiled"},
      {"broadcast_3d", "jitvec_nd_vec"},
      {"padded_long_rows", "jitvec_rows_vec"},
      {"stepped_long_rows", "jitvec_rows"},
      {"short_padded_rows", "jitvec_strided32"},
  };
  return kernels;
}

}  // namespace

TEST_CASE("a cpu call compiles only the entry point its layout takes; another layout one more", "[engine][on_demand]") {
  TempDir dir;
  {
    Engine engine(in_cache(dir.path()));
    Ufunc lerp = engine.vectorize("lerp", {"float32(float32, float32, float32)"}, kLerp);
    contiguous_call(lerp);
    CHECK(engine.stats().compiles == 1);
    contiguous_call(lerp);
    CHECK(engine.stats().compiles == 1);
    strided_call(lerp);  // a layout the first call did not need: exactly one more
    CHECK(engine.stats().compiles == 2);
    strided_call(lerp);
    contiguous_call(lerp);
    CHECK(engine.stats().compiles == 2);
  }
  // A second process finds each entry point in its own cache entry: nothing compiles.
  Engine again(in_cache(dir.path()));
  Ufunc lerp = again.vectorize("lerp", {"float32(float32, float32, float32)"}, kLerp);
  strided_call(lerp);
  contiguous_call(lerp);
  CHECK(again.stats().compiles == 0);
  CHECK(again.stats().disk_hits == 2);
  // Each entry holds the one entry point it was built for (the key names it).
  cache::DiskCache disk(cache::resolve_cache_settings(cache::CacheOverrides{dir.path(), {}, false, std::nullopt}));
  std::vector<std::string> kernels;
  for (const cache::EntryInfo& e : disk.list()) kernels.emplace_back(e.field("kernels"));
  std::sort(kernels.begin(), kernels.end());
  CHECK(kernels == std::vector<std::string>{kernels::kHostFlatSymbol, kernels::kHostStridedSymbol});
}

TEST_CASE("a cpu call of a fixed scalar pattern compiles its own flat entry, with the same bits", "[engine][on_demand]") {
  // Fresh random inputs; t is the same values as a scalar, as an array and in the run-time
  // entry's pattern (a scalar first input), so all three entries compute the same elements.
  const std::vector<float> a = uniform_floats(1000, -100, 100);
  const std::vector<float> b = uniform_floats(1000, -100, 100);
  const float t = uniform_floats(1, 0, 1)[0];
  const std::vector<float> t_array(a.size(), t);
  TempDir dir;
  Engine engine(in_cache(dir.path()));
  Ufunc lerp = engine.vectorize("lerp", {"float32(float32, float32, float32)"}, kLerp);
  const std::vector<float> first_only = lerp(a, 0.25f, t, target(Target::cpu)).to_vector<float>();  // mask 6
  CHECK(engine.stats().compiles == 1);
  const std::vector<float> arrays = lerp(a, b, t_array, target(Target::cpu)).to_vector<float>();  // mask 0
  CHECK(engine.stats().compiles == 2);
  const std::vector<float> run_time = lerp(a, b, t, target(Target::parallel)).to_vector<float>();  // mask 4
  CHECK(engine.stats().compiles == 3);
  const std::vector<float> run_time_2 =
      lerp(a, std::vector<float>(a.size(), 0.25f), t, target(Target::cpu)).to_vector<float>();
  CHECK(engine.stats().compiles == 3);
  std::int64_t bad = 0, bad_first = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double want = a[i] + static_cast<double>(t) * (static_cast<double>(b[i]) - a[i]);
    bad += !(std::fabs(arrays[i] - want) <= 1e-4 * (std::fabs(want) + 1.0));
    bad += std::memcmp(&arrays[i], &run_time[i], sizeof(float)) != 0;
    bad_first += std::memcmp(&first_only[i], &run_time_2[i], sizeof(float)) != 0;
  }
  CHECK(bad == 0);
  CHECK(bad_first == 0);
  cache::DiskCache disk(cache::resolve_cache_settings(cache::CacheOverrides{dir.path(), {}, false, std::nullopt}));
  std::vector<std::string> kernels;
  for (const cache::EntryInfo& e : disk.list()) kernels.emplace_back(e.field("kernels"));
  std::sort(kernels.begin(), kernels.end());
  CHECK(kernels == std::vector<std::string>{"jitvec_cpu_contig", "jitvec_cpu_contig_s0", "jitvec_cpu_contig_s6"});
}

TEST_CASE("a precompiled loop serves every layout with nothing compiled", "[engine][on_demand]") {
  TempDir dir;
  {
    Engine engine(in_cache(dir.path()));
    Ufunc lerp = engine.vectorize("lerp", {"float32(float32, float32, float32)"}, kLerp);
    lerp.precompile(0, Target::cpu);
    CHECK(engine.stats().compiles == 1);  // one shared object of both entry points
    contiguous_call(lerp);
    strided_call(lerp);
    CHECK(engine.stats().compiles == 1);
  }
  Engine again(in_cache(dir.path()));
  Ufunc lerp = again.vectorize("lerp", {"float32(float32, float32, float32)"}, kLerp);
  contiguous_call(lerp);
  strided_call(lerp);
  CHECK(again.stats().compiles == 0);
  CHECK(again.stats().disk_hits == 1);  // the whole module, read once
}

TEST_CASE("a whole-module entry without an entry point is not trusted for it", "[engine][on_demand]") {
  // A damaged or stale entry under the key of every entry point that holds only the flat one:
  // the flat call uses it, the strided call builds its own entry point (and stores it).
  TempDir dir;
  Engine engine(in_cache(dir.path()));
  Ufunc lerp = engine.vectorize("lerp", {"float32(float32, float32, float32)"}, kLerp);
  const detail::UfuncImpl& impl = *engine.impl().find_ufunc("lerp");
  const codegen::LoopSpec spec = codegen::LoopSpec::exact(impl.signatures[0]);
  engine::LoopDefinition whole = engine.impl().loop_definition(impl, spec);
  engine::LoopDefinition flat_only = whole;
  flat_only.kernels = {kernels::kHostFlatSymbol};
  engine::BuildCounters counters;
  const engine::HostBinary flat = engine::build_host_loop(flat_only, nullptr, counters);
  cache::CacheEntry entry;
  entry.add_payload(cache::payload_kind::shared_object, flat.shared_object);
  // A map loop's key hashes the text its modules share (the kernels are named, not hashed).
  const std::string source = kernels::host_module_common(*whole.ufunc, whole.helpers, whole.spec);
  engine.impl().disk()->store(engine::host_loop_key(whole, source), entry);

  Engine fresh(in_cache(dir.path()));
  Ufunc again = fresh.vectorize("lerp", {"float32(float32, float32, float32)"}, kLerp);
  contiguous_call(again);
  CHECK(fresh.stats().compiles == 0);  // from the whole-module entry
  strided_call(again);
  CHECK(fresh.stats().compiles == 1);  // the missing entry point, on its own
}

TEST_CASE("GPU calls compile one kernel a layout, each once (fake driver, NVRTC for real)", "[engine][on_demand][nvrtc]") {
  TempDir dir;
  const auto lines = probe("layouts", dir.path() / "cache");
  REQUIRE(lines.size() == expected_kernels().size() + 1);
  for (std::size_t i = 0; i + 1 < lines.size(); ++i) {
    const std::vector<std::string>& line = lines[i];
    REQUIRE(line.size() == 5);
    INFO("layout " << line[1]);
    CHECK(line[2] == expected_kernels().at(line[1]));
    CHECK(line[3] == "1");  // the first call of each layout compiles its kernel, alone
  }
  CHECK(lines.back() == std::vector<std::string>{"again", "0"});

  // A second process on the same cache compiles nothing: each kernel is an entry of its own.
  const auto second = probe("layouts", dir.path() / "cache");
  for (std::size_t i = 0; i + 1 < second.size(); ++i) CHECK(second[i][3] == "0");
}

TEST_CASE("8 threads calling 8 layouts at once compile each kernel once", "[engine][on_demand][nvrtc]") {
  TempDir dir;
  const auto lines = probe("threads", dir.path() / "cache");
  REQUIRE(lines.size() == 1);
  // The table's first 8 layouts take 8 different kernels.
  CHECK(lines[0] == std::vector<std::string>{"threads", "8"});
}

TEST_CASE("a GPU loop precompiled whole serves every layout with 0 compiles", "[engine][on_demand][nvrtc]") {
  TempDir dir;
  const auto lines = probe("precompile", dir.path() / "cache");
  REQUIRE(lines.size() == expected_kernels().size() + 1);
  CHECK(lines[0] == std::vector<std::string>{"precompiled", "1"});  // one module of every kernel
  for (std::size_t i = 1; i < lines.size(); ++i) {
    INFO("layout " << lines[i][1]);
    CHECK(lines[i][2] == expected_kernels().at(lines[i][1]));
    CHECK(lines[i][3] == "0");
  }
}

TEST_CASE("on the GPU, the stand-in's results are the vector kernel's, bit for bit", "[gpu][on_demand]") {
  if (!jitvec_test::gpu_usable()) JITVEC_SKIP(jitvec_test::gpu_skip_reason());
  TempDir dir;
  const auto lines = probe("stand_in", dir.path() / "cache", "0", /*real_driver=*/true);
  REQUIRE(lines.size() == 4);
  CHECK(lines[2] == std::vector<std::string>{"compiles", "2"});  // the stand-in and the vector kernel
  CHECK(lines[3] == std::vector<std::string>{"bits", "equal"});
}

TEST_CASE("a slow first compile is stood in for by the grid-stride kernel, then replaced", "[engine][on_demand][nvrtc]") {
  // JITVEC_STAND_IN_MS=0: the vector kernel's compile never finishes in time, so the first call
  // runs jitvec_contig_s0 (its stand-in, compiled beside it); later calls run jitvec_contig_vec_s0
  // once the worker has loaded it.
  TempDir dir;
  const auto lines = probe("stand_in", dir.path() / "cache", "0");
  REQUIRE(lines.size() == 4);
  CHECK(lines[0] == std::vector<std::string>{"first", "jitvec_contig_s0"});  // its pattern fixed
  REQUIRE(lines[1].size() == 4);
  CHECK(lines[1][1] == "jitvec_contig_vec_s0");
  CHECK(lines[2] == std::vector<std::string>{"compiles", "2"});
}
