// A cache precompiled by `jitvec compile` serves the samples' definitions without compiling:
// the engine's counters show disk hits and no compiles (issue 3). Host loops here (CI has no
// GPU); the GPU check runs the samples on a precompiled cuda cache the same way.
#if defined(JITVEC_CLI_PATH)
#include <cstdlib>

#include "catch.hpp"
#include "support.hpp"

using namespace jitvec;

TEST_CASE("samples run from a precompiled cache without compiling", "[cli][cache]") {
  jitvec_test::TempDir precompiled, empty;
  const std::string samples = std::string(JITVEC_SOURCE_DIR) + "/samples/";
  const std::string command = std::string(JITVEC_CLI_PATH) + " compile " + samples +
                              "gaussian_pdf.toml " + samples + "polar_distance.toml " + samples +
                              "zero_suppress.toml --target cpu --cache-dir " +
                              precompiled.path().string() + " > /dev/null 2>&1";
  REQUIRE(std::system(command.c_str()) == 0);

  EngineOptions options;
  options.cache.dir = empty.path();
  options.cache.read_only_dirs = std::vector<std::filesystem::path>{precompiled.path()};
  Engine engine(options);
  for (const char* file : {"gaussian_pdf.toml", "polar_distance.toml", "zero_suppress.toml"}) {
    engine.load_definitions(samples + file);
  }
  std::vector<float> x(1000, 0.5f);
  std::vector<std::int16_t> w(1000, 20);
  engine.ufunc("gaussian_pdf")(x, 0.0f, 1.0f, target(Target::cpu));
  engine.ufunc("gaussian_pdf")(std::vector<double>(10, 0.5), 0.0, 1.0, target(Target::parallel));
  engine.ufunc("polar_distance")(x, x, x, x, target(Target::cpu));
  engine.ufunc("zero_suppress")(w, 15.0, target(Target::cpu));
  const EngineStats stats = engine.stats();
  CHECK(stats.compiles == 0);
  CHECK(stats.disk_hits == 4);
  CHECK(stats.disk_misses == 0);
}
#endif
