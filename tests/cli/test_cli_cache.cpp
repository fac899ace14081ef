// tests/cli/test_cli_cache.cpp: `jitvec cache list|show|stats|verify|prune|clear` on copies of
// the samples' precompiled cache (test_cli_support.hpp), run as separate processes.
#if defined(JITVEC_CLI_PATH)
#include <fstream>
#include <string>

#include "catch.hpp"
#include "cli/test_cli_support.hpp"

namespace fs = std::filesystem;
using jitvec::test::CommandOutput;
using jitvec::test::contains;
using jitvec::test::Json;
using jitvec::test::run_jitvec;
using jitvec::test::TempFolder;

namespace {

/// A private copy of the precompiled samples' cache, and its entry count.
struct CacheCopy {
  CacheCopy() {
    const auto& samples = jitvec::test::precompiled_samples();
    REQUIRE(samples.first_run.exit_code == 0);
    jitvec::test::copy_cache(samples.cache, cache);
    entries = jitvec::test::entry_files(cache).size();
    REQUIRE(entries > 0);
  }
  TempFolder scratch;
  fs::path cache = scratch.path() / "cache";
  std::size_t entries = 0;
};

void flip_byte(const fs::path& file, std::streamoff offset) {
  std::fstream stream(file, std::ios::in | std::ios::out | std::ios::binary);
  stream.seekg(offset);
  char byte = 0;
  stream.read(&byte, 1);
  byte = static_cast<char>(byte ^ 0x5a);
  stream.seekp(offset);
  stream.write(&byte, 1);
  REQUIRE(stream.good());
}

}  // namespace

TEST_CASE("jitvec cache verify passes a good cache and names a damaged entry", "[cli]") {
  CacheCopy copy;
  const CommandOutput good = run_jitvec({"cache", "verify", "--cache-dir", copy.cache.string()});
  INFO(good.out << good.err);
  CHECK(good.exit_code == 0);
  CHECK(contains(good.out, "checked " + std::to_string(copy.entries) + " entries: 0 problems"));

  const fs::path victim = jitvec::test::entry_files(copy.cache).front();
  flip_byte(victim, static_cast<std::streamoff>(fs::file_size(victim) / 2));

  const CommandOutput bad = run_jitvec({"cache", "verify", "--cache-dir", copy.cache.string()});
  INFO(bad.out << bad.err);
  CHECK(bad.exit_code == 1);
  CHECK(contains(bad.out, victim.string() + ": checksum mismatch"));
  CHECK(contains(bad.out, "checked " + std::to_string(copy.entries) + " entries: 1 problem\n"));

  const CommandOutput json =
      run_jitvec({"cache", "verify", "--json", "--cache-dir", copy.cache.string()});
  CHECK(json.exit_code == 1);
  const Json report = jitvec::test::parse_json(json.out);
  CHECK(report["checked"].number == static_cast<double>(copy.entries));
  REQUIRE(report["problems"].array.size() == 1);
  CHECK(report["problems"].array[0]["path"].string == victim.string());
}

TEST_CASE("jitvec cache prune --max-size 1 evicts every entry", "[cli]") {
  CacheCopy copy;
  const CommandOutput run =
      run_jitvec({"cache", "prune", "--max-size", "1", "--cache-dir", copy.cache.string()});
  INFO(run.out << run.err);
  CHECK(run.exit_code == 0);
  CHECK(contains(run.out, "removed " + std::to_string(copy.entries) + " entries"));
  CHECK(jitvec::test::entry_files(copy.cache).empty());

  const CommandOutput bad_size =
      run_jitvec({"cache", "prune", "--max-size", "lots", "--cache-dir", copy.cache.string()});
  CHECK(bad_size.exit_code == 2);
  CHECK(contains(bad_size.err, "--max-size"));
}

TEST_CASE("jitvec cache prune keeps a cache that fits", "[cli]") {
  CacheCopy copy;
  const CommandOutput run =
      run_jitvec({"cache", "prune", "--max-size", "1G", "--cache-dir", copy.cache.string()});
  CHECK(run.exit_code == 0);
  CHECK(jitvec::test::entry_files(copy.cache).size() == copy.entries);
}

TEST_CASE("jitvec cache clear deletes every entry", "[cli]") {
  CacheCopy copy;
  const CommandOutput run = run_jitvec({"cache", "clear", "--cache-dir", copy.cache.string()});
  CHECK(run.exit_code == 0);
  CHECK(contains(run.out, "removed " + std::to_string(copy.entries) + " entries"));
  CHECK(jitvec::test::entry_files(copy.cache).empty());
  CHECK(fs::exists(copy.cache));
}

TEST_CASE("jitvec cache stats counts the entries and their bytes", "[cli]") {
  const auto& samples = jitvec::test::precompiled_samples();
  REQUIRE(samples.first_run.exit_code == 0);
  const auto files = jitvec::test::entry_files(samples.cache);
  std::uintmax_t bytes = 0;
  for (const fs::path& file : files) bytes += fs::file_size(file);

  const CommandOutput run =
      run_jitvec({"cache", "stats", "--json", "--cache-dir", samples.cache.string()});
  REQUIRE(run.exit_code == 0);
  const Json stats = jitvec::test::parse_json(run.out);
  CHECK(stats["entries"].number == static_cast<double>(files.size()));
  CHECK(stats["total_size"].number == static_cast<double>(bytes));
  CHECK(stats["max_size"].number == 1024.0 * 1024.0 * 1024.0);
  REQUIRE(stats["folders"].array.size() == 1);
  CHECK(stats["folders"].array[0]["path"].string == samples.cache.string());
  CHECK(stats["folders"].array[0]["read_only"].boolean == false);
}

TEST_CASE("jitvec cache show prints an entry's key fields and generated source", "[cli]") {
  const auto& samples = jitvec::test::precompiled_samples();
  REQUIRE(samples.first_run.exit_code == 0);
  const fs::path file = jitvec::test::entry_files(samples.cache).front();
  // <folder>/<2 hex digits>/<30 hex digits>.jvk
  const std::string key = file.parent_path().filename().string() + file.stem().string();

  const CommandOutput run =
      run_jitvec({"cache", "show", key.substr(0, 8), "--cache-dir", samples.cache.string()});
  INFO(run.out << run.err);
  REQUIRE(run.exit_code == 0);
  CHECK(contains(run.out, "key: " + key));
  CHECK(contains(run.out, "target: cuda"));
  CHECK(contains(run.out, "cubin: "));
  CHECK(contains(run.out, "extern \"C\" __global__"));  // the generated kernels
  CHECK(contains(run.out, "#line "));                   // pointing into the definition file

  const CommandOutput missing =
      run_jitvec({"cache", "show", "0000000000000000", "--cache-dir", samples.cache.string()});
  CHECK(missing.exit_code == 1);
  CHECK(contains(missing.err, "jitvec: error: no cache entry's key starts with '0000000000000000'"));
}
#endif  // JITVEC_CLI_PATH

#if defined(JITVEC_CLI_PATH)
TEST_CASE("jitvec cache commands only look: a missing folder is named, never created", "[cli]") {
  TempFolder scratch;
  const fs::path missing = scratch.path() / "DOES_NOT_EXIST";
  for (const char* command : {"list", "stats", "verify", "prune", "clear"}) {
    INFO(command);
    const CommandOutput run = run_jitvec({"cache", command, "--cache-dir", missing.string()});
    CHECK(run.exit_code == 2);
    CHECK(contains(run.err, "jitvec: error: --cache-dir: the cache folder '" + missing.string() +
                                "' does not exist"));
    CHECK_FALSE(fs::exists(missing));
  }
  const CommandOutput empty_name = run_jitvec({"cache", "list", "--cache-dir", ""});
  CHECK(empty_name.exit_code == 2);
  CHECK(contains(empty_name.err, "--cache-dir: the folder name is empty"));

  // The default folder (here JITVEC_CACHE_DIR) not made yet is simply empty.
  const CommandOutput stats =
      run_jitvec({"cache", "stats", "--json"}, {"JITVEC_CACHE_DIR=" + missing.string()});
  INFO(stats.err);
  CHECK(stats.exit_code == 0);
  CHECK(jitvec::test::parse_json(stats.out)["entries"].number == 0);
  CHECK(contains(stats.err, "does not exist yet"));
  CHECK_FALSE(fs::exists(missing));
}

TEST_CASE("bad JITVEC_CACHE_MAX_SIZE and JITVEC_LOG_LEVEL values warn and the defaults apply",
          "[cli]") {
  TempFolder scratch;
  const std::string dir = "JITVEC_CACHE_DIR=" + scratch.path().string();
  const CommandOutput decimal =
      run_jitvec({"cache", "stats", "--json"}, {dir, "JITVEC_CACHE_MAX_SIZE=500MB"});
  INFO(decimal.err);
  REQUIRE(decimal.exit_code == 0);  // before: an uncaught exception
  CHECK(jitvec::test::parse_json(decimal.out)["max_size"].number == 500000000);

  // A misspelled level used to silence every warning, this one included.
  const CommandOutput bad = run_jitvec({"cache", "stats", "--json"},
                                       {dir, "JITVEC_CACHE_MAX_SIZE=lots", "JITVEC_LOG_LEVEL=wran"});
  INFO(bad.err);
  REQUIRE(bad.exit_code == 0);
  CHECK(jitvec::test::parse_json(bad.out)["max_size"].number == 1073741824);
  CHECK(contains(bad.err, "JITVEC_LOG_LEVEL='wran' is not a log level"));
  CHECK(contains(bad.err, "JITVEC_CACHE_MAX_SIZE='lots' is not a size"));
}
#endif
