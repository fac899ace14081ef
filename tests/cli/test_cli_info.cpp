// tests/cli/test_cli_info.cpp: `jitvec info`, run as a separate process with no CUDA driver
// (JITVEC_CUDA_DRIVER names a library that does not exist), in text and JSON.
#if defined(JITVEC_CLI_PATH)
#include <string>

#include "catch.hpp"
#include "cli/test_cli_support.hpp"
#include "jitvec/version.hpp"

using jitvec::test::CommandOutput;
using jitvec::test::Json;
using jitvec::test::run_jitvec;
using jitvec::test::TempFolder;

namespace {

const std::string kNoDriver = "JITVEC_CUDA_DRIVER=/nonexistent/libcuda.so.1";

}  // namespace

TEST_CASE("jitvec info --json describes jitvec, NVRTC, the missing driver and the cache",
          "[cli]") {
  TempFolder scratch;
  const std::string cache_dir = (scratch.path() / "cache").string();
  const std::string read_only = (scratch.path() / "shipped").string();
  const CommandOutput run =
      run_jitvec({"info", "--json"}, {kNoDriver, "JITVEC_CACHE_DIR=" + cache_dir,
                                      "JITVEC_CACHE_PATH=" + read_only,
                                      "JITVEC_CACHE_MAX_SIZE=64M"});
  INFO(run.out << run.err);
  REQUIRE(run.exit_code == 0);
  const Json info = jitvec::test::parse_json(run.out);

  CHECK(info["version"].string == jitvec::kVersion);
  CHECK(info["nvrtc"]["version"].string.rfind("nvrtc ", 0) == 0);
  REQUIRE_FALSE(info["nvrtc"]["archs"].array.empty());
  for (const Json& arch : info["nvrtc"]["archs"].array) CHECK(arch.string.rfind("sm_", 0) == 0);

  CHECK(info["cuda"]["driver_available"].boolean == false);
  CHECK(info["cuda"]["gpus"].array.empty());
  CHECK(info["cuda"]["problem"].string.find("/nonexistent/libcuda.so.1") != std::string::npos);

  const Json& host = info["host_compiler"];
  if (host["available"].boolean) {
    CHECK_FALSE(host["identity"].string.empty());
  } else {
    CHECK_FALSE(host["problem"].string.empty());
  }

  CHECK(info["cache"]["dir"].string == cache_dir);
  REQUIRE(info["cache"]["read_only_dirs"].array.size() == 1);
  CHECK(info["cache"]["read_only_dirs"].array[0].string == read_only);
  CHECK(info["cache"]["disabled"].boolean == false);
  CHECK(info["cache"]["max_size"].number == 64.0 * 1024 * 1024);
}

TEST_CASE("jitvec info says why there is no GPU", "[cli]") {
  const CommandOutput run = run_jitvec({"info"}, {kNoDriver});
  INFO(run.out << run.err);
  REQUIRE(run.exit_code == 0);
  CHECK(jitvec::test::contains(run.out, std::string("jitvec ") + jitvec::kVersion));
  CHECK(jitvec::test::contains(run.out, "CUDA driver:    none: "));
  CHECK(jitvec::test::contains(run.out, "NVRTC:"));
}
TEST_CASE("jitvec info without NVRTC says so and still describes the rest", "[cli]") {
  TempFolder scratch;
  const CommandOutput run =
      run_jitvec({"info"}, {kNoDriver, "JITVEC_NVRTC=/nonexistent/libnvrtc.so",
                            "JITVEC_CACHE_DIR=" + (scratch.path() / "cache").string()});
  INFO(run.out << run.err);
  CHECK(run.exit_code == 0);
  CHECK(run.out.find("NVRTC:          none (no NVRTC") != std::string::npos);
  CHECK(run.out.find("/nonexistent/libnvrtc.so") != std::string::npos);
}

#endif  // JITVEC_CLI_PATH
