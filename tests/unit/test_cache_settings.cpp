// tests/unit/test_cache_settings.cpp: cache settings come from the overrides, then the
// environment, then the defaults; a bad environment value is warned about, naming the
// variable, and the default applies (it never fails the program).
#include <cstdlib>
#include <map>
#include <optional>
#include <string>

#include "cache/cache_errors.hpp"
#include "cache/cache_settings.hpp"
#include "catch.hpp"
#include "unit/log_capture.hpp"

namespace {

using CacheOptions = jitvec::cache::CacheOverrides;
using jitvec_test::LogCapture;
using jitvec::cache::CacheError;
using jitvec::cache::parse_cache_size;
using jitvec::cache::resolve_cache_settings;

/// Sets (or, with nullopt, unsets) environment variables for one test, restoring them after.
class ScopedEnvironment {
 public:
  explicit ScopedEnvironment(const std::map<std::string, std::optional<std::string>>& values) {
    for (const auto& [name, value] : values) {
      const char* old = std::getenv(name.c_str());
      saved_[name] = old ? std::optional<std::string>(old) : std::nullopt;
      set(name, value);
    }
  }
  ~ScopedEnvironment() {
    for (const auto& [name, value] : saved_) set(name, value);
  }
  ScopedEnvironment(const ScopedEnvironment&) = delete;
  ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;

 private:
  static void set(const std::string& name, const std::optional<std::string>& value) {
    if (value) {
      ::setenv(name.c_str(), value->c_str(), 1);
    } else {
      ::unsetenv(name.c_str());
    }
  }
  std::map<std::string, std::optional<std::string>> saved_;
};

const std::map<std::string, std::optional<std::string>> kNoCacheVariables{
    {"JITVEC_CACHE_DIR", std::nullopt},     {"JITVEC_CACHE_PATH", std::nullopt},
    {"JITVEC_CACHE_DISABLE", std::nullopt}, {"JITVEC_CACHE_MAX_SIZE", std::nullopt},
    {"XDG_CACHE_HOME", std::nullopt},       {"HOME", std::string("/home/tester")}};

std::map<std::string, std::optional<std::string>> with(
    std::map<std::string, std::optional<std::string>> changes) {
  auto values = kNoCacheVariables;
  for (auto& [name, value] : changes) values[name] = std::move(value);
  return values;
}

}  // namespace

TEST_CASE("cache settings default to ~/.cache/jitvec, enabled, 1 GiB", "[cache]") {
  const ScopedEnvironment environment(kNoCacheVariables);
  const auto settings = resolve_cache_settings(CacheOptions{});
  CHECK(settings.dir == "/home/tester/.cache/jitvec");
  CHECK(settings.read_only_dirs.empty());
  CHECK_FALSE(settings.disabled);
  CHECK(settings.max_size == 1024ull * 1024 * 1024);
}

TEST_CASE("the cache folder comes from JITVEC_CACHE_DIR, then an absolute XDG_CACHE_HOME",
          "[cache]") {
  {
    const ScopedEnvironment environment(with({{"XDG_CACHE_HOME", "/xdg"}}));
    CHECK(resolve_cache_settings({}).dir == "/xdg/jitvec");
  }
  {
    const ScopedEnvironment environment(with({{"XDG_CACHE_HOME", "relative/xdg"}}));
    CHECK(resolve_cache_settings({}).dir == "/home/tester/.cache/jitvec");
  }
  {
    const ScopedEnvironment environment(
        with({{"XDG_CACHE_HOME", "/xdg"}, {"JITVEC_CACHE_DIR", "/explicit"}}));
    CHECK(resolve_cache_settings({}).dir == "/explicit");
    CacheOptions options;
    options.dir = "/from/options";
    CHECK(resolve_cache_settings(options).dir == "/from/options");
  }
}

TEST_CASE("JITVEC_CACHE_PATH lists read-only folders, skipping empty parts", "[cache]") {
  const ScopedEnvironment environment(with({{"JITVEC_CACHE_PATH", ":/a::/b/c:"}}));
  const auto settings = resolve_cache_settings({});
  REQUIRE(settings.read_only_dirs.size() == 2);
  CHECK(settings.read_only_dirs[0] == "/a");
  CHECK(settings.read_only_dirs[1] == "/b/c");
  CacheOptions options;
  options.read_only_dirs = std::vector<std::filesystem::path>{};
  CHECK(resolve_cache_settings(options).read_only_dirs.empty());
}

TEST_CASE("JITVEC_CACHE_DISABLE takes the usual switch spellings", "[cache]") {
  for (const char* on : {"1", "true", "YES", "On"}) {
    const ScopedEnvironment environment(with({{"JITVEC_CACHE_DISABLE", on}}));
    CHECK(resolve_cache_settings({}).disabled);
  }
  for (const char* off : {"0", "false", "no", "OFF"}) {
    const ScopedEnvironment environment(with({{"JITVEC_CACHE_DISABLE", off}}));
    CHECK_FALSE(resolve_cache_settings({}).disabled);
  }
  {
    const ScopedEnvironment environment(with({{"JITVEC_CACHE_DISABLE", "maybe"}}));
    const LogCapture log;
    CHECK_FALSE(resolve_cache_settings({}).disabled);
    CHECK(log.warnings({"JITVEC_CACHE_DISABLE='maybe' is not a switch (expected 1, true, yes, on, "
                        "0, false, no or off); ignoring it"}) == 1);
  }
  CacheOptions options;
  options.disabled = false;
  CHECK_FALSE(resolve_cache_settings(options).disabled);
}

TEST_CASE("cache sizes take K/M/G/T and KiB.. (powers of 1024) or KB.. (powers of 1000)",
          "[cache]") {
  constexpr std::uint64_t KiB = 1024, MiB = KiB * KiB, GiB = MiB * KiB, TiB = GiB * KiB;
  CHECK(parse_cache_size("0", "size") == 0);
  CHECK(parse_cache_size("12345", "size") == 12345);
  CHECK(parse_cache_size("12345B", "size") == 12345);
  CHECK(parse_cache_size("512K", "size") == 512 * KiB);
  CHECK(parse_cache_size("512KiB", "size") == 512 * KiB);
  CHECK(parse_cache_size("512kb", "size") == 512000);
  CHECK(parse_cache_size("3m", "size") == 3 * MiB);
  CHECK(parse_cache_size("3MiB", "size") == 3 * MiB);
  CHECK(parse_cache_size("500MB", "size") == 500000000);
  CHECK(parse_cache_size("500 MB", "size") == 500000000);
  CHECK(parse_cache_size("2G", "size") == 2 * GiB);
  CHECK(parse_cache_size("2gib", "size") == 2 * GiB);
  CHECK(parse_cache_size("10GB", "size") == 10000000000ull);
  CHECK(parse_cache_size("1T", "size") == TiB);
  CHECK(parse_cache_size("1TB", "size") == 1000000000000ull);
  CHECK(parse_cache_size("16777215TiB", "size") == 16777215 * TiB);
  for (const char* bad : {"", "K", "12Q", "1.5G", "-1", "12 ", "12  M", " 12", "12MBs", "12iB",
                          "99999999999999999999", "17179869184G", "16777216TiB"}) {
    INFO(bad);
    CHECK_THROWS_AS(parse_cache_size(bad, "size"), CacheError);
  }
  CHECK_THROWS_WITH(parse_cache_size("lots", "--max-size"),
                    "--max-size='lots' is not a size: expected a whole number of bytes, "
                    "optionally with a unit: K, M, G, T or KiB, MiB, GiB, TiB (powers of 1024), "
                    "KB, MB, GB, TB (powers of 1000)");

  {
    const ScopedEnvironment environment(with({{"JITVEC_CACHE_MAX_SIZE", "64M"}}));
    CHECK(resolve_cache_settings({}).max_size == 64 * MiB);
  }
  {
    // Issue 15: "500MB" made every program fail with an uncaught exception.
    const ScopedEnvironment environment(with({{"JITVEC_CACHE_MAX_SIZE", "500MB"}}));
    CHECK(resolve_cache_settings({}).max_size == 500000000);
  }
  {
    const ScopedEnvironment environment(with({{"JITVEC_CACHE_MAX_SIZE", "lots"}}));
    const LogCapture log;
    CHECK(resolve_cache_settings({}).max_size == jitvec::cache::kDefaultMaxCacheSize);
    CHECK(log.warnings({"JITVEC_CACHE_MAX_SIZE='lots' is not a size", "ignoring it",
                        "1073741824 bytes (1 GiB, the default)"}) == 1);
  }
  CacheOptions options;
  options.max_size = 1000;
  CHECK(resolve_cache_settings(options).max_size == 1000);
}

TEST_CASE("JITVEC_LOG_LEVEL names are read in any case; others are not levels", "[cache][log]") {
  using jitvec::detail::parse_log_level;
  CHECK(parse_log_level("debug") == spdlog::level::debug);
  CHECK(parse_log_level("WARN") == spdlog::level::warn);
  CHECK(parse_log_level("warning") == spdlog::level::warn);
  CHECK(parse_log_level("Error") == spdlog::level::err);
  CHECK(parse_log_level("off") == spdlog::level::off);
  CHECK(parse_log_level("trace") == spdlog::level::trace);
  CHECK_FALSE(parse_log_level("debgu"));
  CHECK_FALSE(parse_log_level(""));
  CHECK_FALSE(parse_log_level("3"));
}
