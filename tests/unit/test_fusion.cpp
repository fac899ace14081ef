// Fused ufuncs (Engine::fuse, src/engine/fusion.hpp) on the cpu targets: the case table of
// tests/fusion_cases.hpp (same bits as the separate calls, and an independent reference),
// the expression's errors (with the column), unknown names (with the closest one), errors of
// a call, the exact signatures, the disk cache (a key per stage source; a second engine reads
// it), definition files' [fusions] and `jitvec compile`'s jobs for them.
#include <fmt/format.h>

#include <fstream>

#include "cache/cache_settings.hpp"
#include "cache/disk_cache.hpp"
#include "catch.hpp"
#include "engine/precompile.hpp"
#include "fusion_cases.hpp"
#include "support.hpp"

using namespace jitvec;
using namespace jitvec_test;

namespace {

std::string thrown_message(const std::function<void()>& action) {
  try {
    action();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(nothing thrown)";
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("a fused chain gives the separate calls' bits on the cpu targets", "[fusion]") {
  Engine& engine = fusion_engine();
  for (Target t : {Target::cpu, Target::parallel}) {
    std::vector<FusedCase> cases = fused_cases();
    for (std::size_t i = 0; i < cases.size(); ++i) {
      check_fused_case(engine, cases[i], fmt::format("fused_case_{}", i), {jitvec::target(t)},
                       false);
    }
  }
}

TEST_CASE("a fused ufunc is an ordinary ufunc: inputs, signatures, nesting, precompile",
          "[fusion]") {
  Engine& engine = fusion_engine();
  Ufunc fma_like = engine.fuse("fused_api_chain", "vadd(vmul(x, y), z)");
  CHECK(fma_like.name() == "fused_api_chain");
  CHECK(fma_like.nin() == 3);
  CHECK(engine.ufunc("fused_api_chain").name() == "fused_api_chain");
  // The exact loops: each combination of the stages' signatures with no conversion between them.
  std::vector<std::string> signatures;
  for (const Signature& s : fma_like.signatures()) signatures.push_back(s.to_string());
  CHECK(signatures ==
        std::vector<std::string>{"int32(int32, int32, int32)", "uint32(uint32, uint32, uint32)",
                                 "int64(int64, int64, int64)", "float32(float32, float32, float32)",
                                 "float64(float64, float64, float64)"});
  // A repeated input is one input; a stage may be a fused ufunc (its expression is substituted).
  Ufunc nested = engine.fuse("fused_api_nested", "fused_api_chain(a, b, vmul(a, c))");
  CHECK(nested.nin() == 3);
  std::vector<float> a = {1.5f, -2.0f, 3.25f}, b = {0.5f, 4.0f, -1.0f}, c = {2.0f, 0.25f, -3.0f};
  const std::vector<float> got = nested(a, b, c, jitvec::target(Target::cpu)).to_vector<float>();
  for (std::size_t i = 0; i < a.size(); ++i) CHECK(got[i] == a[i] * b[i] + a[i] * c[i]);
  // precompile() builds the variant a call of exactly that signature uses.
  const std::uint64_t compiles = engine.stats().compiles;
  fma_like.precompile(3, Target::cpu);
  CHECK(engine.stats().compiles == compiles + 1);
  std::vector<float> x = {1, 2}, y = {3, 4}, z = {5, 6};
  CHECK(fma_like(x, y, z, jitvec::target(Target::cpu)).to_vector<float>() ==
        std::vector<float>{8, 14});
  CHECK(engine.stats().compiles == compiles + 1);
}

TEST_CASE("fusion expressions: parse errors name the column", "[fusion][errors]") {
  Engine& engine = fusion_engine();
  CHECK(thrown_message([&] { engine.fuse("bad1", "vadd(vmul(x, y), z"); }) ==
        "fusion 'bad1': the call of 'vadd' is not closed: expected ')' or ',' at column 19 of "
        "the expression:\n  vadd(vmul(x, y), z\n                    ^");
  CHECK(thrown_message([&] { engine.fuse("bad2", "vadd(vmul(x y), z)"); }) ==
        "fusion 'bad2': expected ')' or ',' in the call of 'vmul', found 'y' at column 13 of the "
        "expression:\n  vadd(vmul(x y), z)\n              ^");
  CHECK(contains(thrown_message([&] { engine.fuse("bad3", "x"); }),
                 "the expression must be a call of a ufunc"));
  CHECK(contains(thrown_message([&] { engine.fuse("bad4", ""); }), "the expression is empty"));
  CHECK(contains(thrown_message([&] { engine.fuse("bad5", "vadd(x, 2.5f)"); }),
                 "unexpected 'f' in a number"));
  CHECK(contains(thrown_message([&] { engine.fuse("bad6", "vadd(x, y) z"); }),
                 "unexpected 'z' after the end of the expression at column 12"));
  CHECK(contains(thrown_message([&] { engine.fuse("bad7", "vadd(x, 1e999)"); }),
                 "1e999 is beyond float64's range at column 9"));
  CHECK(contains(thrown_message([&] { engine.fuse("bad8", "vadd()"); }),
                 "'vadd()' has no arguments"));
  CHECK_THROWS_AS(engine.fuse("bad9", "vadd(x, $)"), DefinitionError);
  CHECK_THROWS_AS(engine.fuse("not an identifier", "vadd(x, y)"), DefinitionError);
}

TEST_CASE("fusion definitions: unknown names, arity, composition, duplicates", "[fusion][errors]") {
  Engine& engine = fusion_engine();
  const std::string unknown =
      thrown_message([&] { engine.fuse("bad_name", "vadd(vmull(x, y), z)"); });
  CHECK(contains(unknown,
                 "fusion 'bad_name': no ufunc named 'vmull' is defined in this engine; did "
                 "you mean 'vmul'?"));
  CHECK(contains(unknown, "at column 6 of the expression:\n  vadd(vmull(x, y), z)\n       ^"));
  CHECK(contains(thrown_message([&] { engine.fuse("bad_arity", "vadd(vmul(x), z)"); }),
                 "'vmul' takes 2 inputs, but 1 is given at column 6"));
  CHECK(contains(thrown_message([&] { engine.fuse("bad_helper", "fusion_sq(x)"); }),
                 "'fusion_sq' is a device function, not a ufunc"));
  // dsq returns float64, which pick's float32 argument does not take safely.
  CHECK(contains(thrown_message([&] { engine.fuse("bad_types", "pick(gt(x, y), dsq(x), y)"); }),
                 "fusion 'bad_types' = pick(gt(x, y), dsq(x), y): its stages never compose"));
  engine.fuse("fused_dup", "vadd(x, y)");
  CHECK(thrown_message([&] { engine.fuse("fused_dup", "vmul(x, y)"); }) ==
        "'fused_dup' is already defined in this engine");
  CHECK_THROWS_AS(engine.fuse("vmul", "vadd(x, y)"), DefinitionError);
}

TEST_CASE("calls of a fused ufunc: errors name the stage, as separate calls would fail",
          "[fusion][errors]") {
  Engine& engine = fusion_engine();
  Ufunc f = engine.fuse("fused_call_errors", "i16add(i16add(x, s), y)");
  std::vector<std::int16_t> x = {1, 2}, y = {3, 4};
  const std::string scalar = thrown_message([&] { f(x, 40000, y, jitvec::target(Target::cpu)); });
  CHECK(contains(scalar,
                 "fused ufunc 'fused_call_errors' = i16add(i16add(x, s), y): in stage 1, "
                 "i16add(x, s) (column 8): ufunc 'i16add': scalar argument 2 (int32 "
                 "40000) cannot be represented as int16"));
  CHECK(thrown_message([&] { f(x, jitvec::target(Target::cpu)); }) ==
        "fused ufunc 'fused_call_errors' takes 3 inputs (x, s, y), but 1 was given");
  std::vector<float> xf = {1, 2};
  CHECK(contains(thrown_message([&] { f(xf, 1, y, jitvec::target(Target::cpu)); }),
                 "ufunc 'i16add' has no loop for inputs (float32 array, int32 scalar 1)"));
  std::vector<std::int16_t> three = {1, 2, 3};
  CHECK_THROWS_AS(f(x, 1, three, jitvec::target(Target::cpu)), BroadcastError);
  // A literal that fits no loop fails when fused.
  CHECK(contains(thrown_message([&] { engine.fuse("fused_bad_literal", "i16add(x, 40000)"); }),
                 "scalar argument 2 (int64 40000) cannot be represented as int16"));
}

TEST_CASE("fused loops are cached on disk under every stage's source", "[fusion][cache]") {
  TempDir dir;
  EngineOptions options;
  options.cache.dir = dir.path();
  options.cache.read_only_dirs = std::vector<std::filesystem::path>{};
  std::vector<float> x = {1, 2, 3}, y = {4, 5, 6}, z = {7, 8, 9};
  const std::vector<float> expected = {11, 18, 27};
  {
    Engine first(options);
    define_fusion_stages(first);
    CHECK(first.fuse("fgh", "vadd(vmul(x, y), z)")(x, y, z, jitvec::target(Target::cpu))
              .to_vector<float>() == expected);
    CHECK(first.stats().compiles == 1);
  }
  {
    Engine second(options);
    define_fusion_stages(second);
    CHECK(second.fuse("fgh", "vadd(vmul(x, y), z)")(x, y, z, jitvec::target(Target::cpu))
              .to_vector<float>() == expected);
    CHECK(second.stats().compiles == 0);
    CHECK(second.stats().disk_hits == 1);
  }
  {
    // The same names, another source for one stage: another key, compiled again.
    Engine changed(options);
    changed.vectorize("vmul", {"float32(float32, float32)"},
                      "float vmul(float a, float b) { return a * b + 1.0f; }");
    changed.vectorize("vadd", {"float32(float32, float32)"},
                      "float vadd(float a, float b) { return a + b; }");
    CHECK(changed.fuse("fgh", "vadd(vmul(x, y), z)")(x, y, z, jitvec::target(Target::cpu))
              .to_vector<float>() == std::vector<float>{12, 19, 28});
    CHECK(changed.stats().compiles == 1);
  }
  // What `jitvec cache list` prints: the fused ufunc's name and its loop.
  cache::DiskCache disk(cache::resolve_cache_settings(cache::CacheOverrides{
      dir.path(), std::vector<std::filesystem::path>{}, false, std::nullopt}));
  int fused_entries = 0;
  for (const cache::EntryInfo& entry : disk.list()) {
    if (entry.field("ufunc") == "fgh") {
      ++fused_entries;
      CHECK(entry.field("loop") ==
            "float32(float32, float32, float32) <- [float32, float32, float32] -> float32");
    }
  }
  CHECK(fused_entries == 2);
}

TEST_CASE("definition files: [fusions] tables, precompiled by jitvec compile's jobs",
          "[fusion][definitions]") {
  TempDir dir;
  const std::filesystem::path file = dir.path() / "fused.toml";
  std::ofstream(file) << R"toml([ufuncs.scale]
signatures = ["float32(float32, float32)"]
source = '''
float scale(float a, float k) { return a * k; }
'''

[ufuncs.shift]
signatures = ["float32(float32, float32)"]
source = '''
float shift(float a, float b) { return a + b; }
'''

[fusions.scale_shift]
expression = "shift(scale(x, 2.0), y)"
targets = ["cpu"]
)toml";
  EngineOptions options;
  options.cache.dir = dir.path() / "cache";
  options.cache.read_only_dirs = std::vector<std::filesystem::path>{};
  {
    Engine engine(options);
    const engine::DefinedTargets targets = engine::load_definition_files(engine, {file});
    CHECK(targets.at("scale_shift") == std::vector<Target>{Target::cpu});
    const std::vector<engine::PrecompileJob> jobs =
        engine::plan_precompile(engine, {}, {"sm_90"}, targets);
    bool planned = false;
    for (const engine::PrecompileJob& job : jobs) {
      if (job.ufunc != "scale_shift") continue;
      planned = true;
      CHECK(job.target == Target::cpu);
      CHECK(job.signature == "float32(float32, float32)");
      const engine::PrecompileResult result = engine::run_precompile_job(engine, job);
      INFO(result.error);
      CHECK(result.ok);
    }
    CHECK(planned);
  }
  Engine engine(options);
  engine.load_definitions(file);
  std::vector<float> x = {1, 2}, y = {10, 20};
  CHECK(engine.ufunc("scale_shift")(x, y, jitvec::target(Target::cpu)).to_vector<float>() ==
        std::vector<float>{12, 24});
  CHECK(engine.stats().compiles == 0);  // the job's entry

  // A bad expression in a file names the file, line and entry, then the column.
  const std::filesystem::path bad = dir.path() / "bad.toml";
  std::ofstream(bad) << "[fusions.broken]\nexpression = \"shift(scale(x, y)\"\n";
  Engine other(options);
  other.load_definitions(file);
  const std::string message = thrown_message([&] { other.load_definitions(bad); });
  CHECK(contains(message,
                 "bad.toml:2: fusions.broken: fusion 'broken': the call of 'shift' is "
                 "not closed"));
  std::ofstream(bad) << "[fusions.broken]\nexpresion = \"shift(x, y)\"\n";
  CHECK(contains(thrown_message([&] { other.load_definitions(bad); }),
                 "unknown key 'expresion' (did you mean 'expression'?)"));
}

TEST_CASE("a stage's #include, however spelled, goes before the namespaces", "[fusion][includes]") {
  Engine engine(EngineOptions{CacheOptions{std::nullopt, std::nullopt, true, std::nullopt}});
  engine.vectorize("below_max", {"float32(float32)"},
                   "%:include <cfloat>\n#inc\\\nlude <climits>\n"
                   "float below_max(float x) { return x < FLT_MAX && INT_MAX > 0 ? x : 0.0f; }\n");
  engine.vectorize("doubled", {"float32(float32)"},
                   "/**/ # /**/ include <cmath>\nfloat doubled(float x) { return 2.0f * x; }\n");
  Ufunc fused = engine.fuse("doubled_below_max", "doubled(\n  below_max(x))");
  const std::vector<float> x{1.5f, -3.0f, INFINITY};
  CHECK(fused(x, jitvec::target(Target::cpu)).to_vector<float>() ==
        std::vector<float>{3.0f, -6.0f, 0.0f});
}
