// tests/unit/test_cache_key.cpp: cache keys are stable (across processes too), sensitive to
// every field and to where one field ends and the next begins, and match the documented
// encoding.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <set>
#include <string>
#include <vector>

#define XXH_INLINE_ALL
#include <fmt/format.h>
#include <xxhash.h>

#include "cache/cache_key.hpp"
#include "catch.hpp"

extern char** environ;

namespace {

using jitvec::cache::CacheKey;
using jitvec::cache::KeyFields;

KeyFields typical_fields() {
  return {
      {"format", "1"},
      {"jitvec_version", "0.1.0"},
      {"target", "cuda"},
      {"arch", "sm_90"},
      {"compiler", "nvrtc 13.0"},
      {"options", "-std=c++17 --use_fast_math"},
      {"source",
       "extern \"C\" __global__ void k(float* y, const float* x, long n) {\n  y[0] = x[0];\n}\n"},
      {"ufunc", "gaussian_pdf"},
      {"loop", "float32(float32, float32, float32)"},
  };
}

CacheKey key_of(const KeyFields& fields) {
  CacheKey key;
  for (const auto& [tag, value] : fields) key.add(tag, value);
  return key;
}

/// Runs `program` with `args` and returns what it printed on stdout; fails the test if it does
/// not exit with 0.
std::string run_and_capture(const std::string& program, const std::vector<std::string>& args) {
  int pipe_fds[2];
  REQUIRE(::pipe(pipe_fds) == 0);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
  std::vector<char*> argv{const_cast<char*>(program.c_str())};
  for (const auto& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipe_fds[1]);
  INFO("starting " << program << ": " << std::strerror(spawned));
  REQUIRE(spawned == 0);
  std::string output;
  char buffer[256];
  for (ssize_t got; (got = ::read(pipe_fds[0], buffer, sizeof(buffer))) > 0;)
    output.append(buffer, got);
  ::close(pipe_fds[0]);
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  return output;
}

void append_u64(std::string& out, std::uint64_t value) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

}  // namespace

TEST_CASE("a cache key is 32 lowercase hex digits, the same for the same fields", "[cache]") {
  const std::string hex = key_of(typical_fields()).hex();
  CHECK(hex.size() == 32);
  CHECK(hex.find_first_not_of("0123456789abcdef") == std::string::npos);
  CHECK(key_of(typical_fields()).hex() == hex);
  CHECK(key_of(typical_fields()).fields() == typical_fields());
}

TEST_CASE("a cache key hashes the documented encoding", "[cache]") {
  // digest_input := "jitvec-cache-key" NUL u32(version) (u64 len, tag, u64 len, value)*
  std::string input("jitvec-cache-key\0", 17);
  for (int i = 0; i < 4; ++i) {
    input.push_back(static_cast<char>((jitvec::cache::kCacheFormatVersion >> (8 * i)) & 0xff));
  }
  for (const auto& [tag, value] : typical_fields()) {
    append_u64(input, tag.size());
    input += tag;
    append_u64(input, value.size());
    input += value;
  }
  const XXH128_hash_t digest = XXH3_128bits(input.data(), input.size());
  CHECK(key_of(typical_fields()).hex() ==
        fmt::format("{:016x}{:016x}", digest.high64, digest.low64));
}

TEST_CASE("a cache key is the same in another process", "[cache]") {
  std::vector<std::string> args;
  for (const auto& [tag, value] : typical_fields()) {
    args.push_back(tag);
    args.push_back(value);
  }
  const std::string printed =
      run_and_capture(std::string(JITVEC_TOOLS_DIR) + "/cache_key_print", args);
  CHECK(printed == key_of(typical_fields()).hex() + "\n");
}

TEST_CASE("changing any field's value or tag changes the key", "[cache]") {
  const KeyFields base = typical_fields();
  std::set<std::string> seen{key_of(base).hex()};
  for (std::size_t i = 0; i < base.size(); ++i) {
    KeyFields changed_value = base;
    changed_value[i].second += " ";
    KeyFields changed_tag = base;
    changed_tag[i].first += "_";
    INFO("field " << base[i].first);
    CHECK(seen.insert(key_of(changed_value).hex()).second);
    CHECK(seen.insert(key_of(changed_tag).hex()).second);
  }
  // The key holds no fields but the ones added: their order and count matter too.
  KeyFields swapped = base;
  std::swap(swapped[2], swapped[3]);
  CHECK(seen.insert(key_of(swapped).hex()).second);
  KeyFields shorter(base.begin(), base.end() - 1);
  CHECK(seen.insert(key_of(shorter).hex()).second);
  CHECK(seen.insert(CacheKey().hex()).second);
}

TEST_CASE("moving a boundary between or inside fields changes the key", "[cache]") {
  CHECK(key_of({{"ab", "c"}}).hex() != key_of({{"a", "bc"}}).hex());
  CHECK(key_of({{"tag", "value"}}).hex() != key_of({{"ta", "gvalue"}}).hex());
  CHECK(key_of({{"a", "bc"}, {"d", "e"}}).hex() != key_of({{"a", "b"}, {"cd", "e"}}).hex());
  CHECK(key_of({{"a", ""}, {"", "a"}}).hex() != key_of({{"a", "a"}}).hex());
  CHECK(key_of({{"", ""}}).hex() != CacheKey().hex());
  // A value may hold the bytes an encoding would use as a separator.
  CHECK(key_of({{"a", std::string("x\0y", 3)}}).hex() != key_of({{"a", "x"}, {"y", ""}}).hex());
}

TEST_CASE("describe_difference names the first differing field", "[cache]") {
  using jitvec::cache::describe_difference;
  const KeyFields base = typical_fields();
  CHECK(describe_difference(base, base).empty());

  KeyFields other_arch = base;
  other_arch[3].second = "sm_80";
  CHECK(describe_difference(base, other_arch) == "arch differs: sm_90 vs sm_80");

  KeyFields other_source = base;
  other_source[6].second.insert(10, "XY");
  const auto source_at = base[6].second.size();
  CHECK(describe_difference(base, other_source) ==
        fmt::format("source differs at byte 10 (lengths {} vs {})", source_at, source_at + 2));

  KeyFields other_tag = base;
  other_tag[1].first = "version";
  CHECK(describe_difference(base, other_tag) == "field 2 differs: jitvec_version vs version");

  KeyFields fewer(base.begin(), base.end() - 1);
  CHECK(describe_difference(base, fewer) == "loop is only in the first key");
  CHECK(describe_difference(fewer, base) == "loop is only in the second key");
}
