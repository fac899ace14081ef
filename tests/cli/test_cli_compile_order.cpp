// tests/cli/test_cli_compile_order.cpp: the order `jitvec compile` starts its jobs in
// (src/cli/compile_order.hpp): longest estimated compile first, so that on two threads no long
// loop is left alone at the end. Before, jobs started in the plan's order, and
// polar_distance's two architectures (~5-6 s each, the samples' longest) started 5th and 9th
// of 18. Nothing is compiled here: the order is planned from the samples' definitions.
#if defined(JITVEC_CLI_PATH)
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "catch.hpp"
#include "cli/compile_order.hpp"
#include "cli/test_cli_support.hpp"
#include "engine/precompile.hpp"

namespace {

bool is_gufunc(jitvec::Engine& engine, const std::string& name) {
  const std::vector<std::string> names = engine.gufunc_names();
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

TEST_CASE("jitvec compile starts the samples' longest loops first", "[cli][compile_order]") {
  jitvec::EngineOptions options;
  options.cache.disabled = true;
  jitvec::Engine engine(options);
  const std::vector<std::filesystem::path> files = jitvec::test::sample_files();
  const jitvec::engine::DefinedTargets defined = jitvec::engine::load_definition_files(engine, files);
  const std::vector<jitvec::engine::PrecompileJob> jobs = jitvec::engine::plan_precompile(
      engine, {jitvec::Target::cuda}, {"sm_80", "sm_90"}, defined);
  REQUIRE(jobs.size() == 2 * jitvec::test::signature_count(files));

  const std::vector<std::size_t> order = jitvec::cli::start_order(engine, jobs);
  REQUIRE(order.size() == jobs.size());
  std::vector<std::size_t> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 0; i < sorted.size(); ++i) REQUIRE(sorted[i] == i);  // a permutation

  std::vector<std::string> started;
  for (std::size_t index : order) {
    started.push_back(jobs[index].ufunc + " " + jobs[index].signature + " " + jobs[index].arch);
  }
  INFO(fmt::format("start order: {}", fmt::join(started, "; ")));
  // polar_distance (4 inputs, sincos through a helper: ~5-6 s a loop) on both architectures.
  CHECK(jobs[order[0]].ufunc == "polar_distance");
  CHECK(jobs[order[1]].ufunc == "polar_distance");
  CHECK(jobs[order[0]].arch != jobs[order[1]].arch);
  // Then gaussian_pdf (3 inputs) before zero_suppress (2), every map loop before a gufunc's
  // module (a few kernels, ~0.3 s each).
  std::size_t last_gaussian = 0, first_zero = jobs.size(), last_map = 0, first_gufunc = jobs.size();
  for (std::size_t position = 0; position < order.size(); ++position) {
    const jitvec::engine::PrecompileJob& job = jobs[order[position]];
    if (job.ufunc == "gaussian_pdf") last_gaussian = position;
    if (job.ufunc == "zero_suppress") first_zero = std::min(first_zero, position);
    if (is_gufunc(engine, job.ufunc)) {
      first_gufunc = std::min(first_gufunc, position);
    } else {
      last_map = position;
    }
  }
  CHECK(last_gaussian < first_zero);
  CHECK(last_map < first_gufunc);
  CHECK(first_gufunc < jobs.size());

  SECTION("equal estimates keep the plan's order; the estimate is 0 for an unknown name") {
    const jitvec::engine::PrecompileJob& first = jobs[order[0]];
    const jitvec::engine::PrecompileJob& second = jobs[order[1]];
    CHECK(jitvec::cli::estimated_compile_cost(engine, first) ==
          jitvec::cli::estimated_compile_cost(engine, second));
    CHECK(order[0] < order[1]);
    jitvec::engine::PrecompileJob unknown = first;
    unknown.ufunc = "no_such_ufunc";
    CHECK(jitvec::cli::estimated_compile_cost(engine, unknown) == 0.0);
    CHECK(jitvec::cli::estimated_compile_cost(engine, first) > 0.0);
  }
}
#endif
