// tests/cli/test_cli_support.hpp: what the `jitvec` command's tests share: running the built
// executable (JITVEC_CLI_PATH) in a child process and collecting its output, temporary folders,
// counting cache entry files, and a small JSON reader to check --json output with.
//
// The command runs with the cache variables (JITVEC_CACHE_*) and JITVEC_TARGET unset, so the
// tests see the folders they name and nothing from the environment.
#pragma once

#include "support.hpp"

#include <cstddef>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace jitvec::test {

struct CommandOutput {
  int exit_code = -1;
  std::string out;
  std::string err;
};

/// Runs `jitvec ARGS...` with extra `environment` assignments ("NAME=value") and waits for it.
CommandOutput run_jitvec(const std::vector<std::string>& args,
                         const std::vector<std::string>& environment = {});

/// A fresh, empty folder, removed with everything in it at scope exit (tests/support.hpp).
using TempFolder = jitvec_test::TempDir;

/// The arguments that compile the samples for sm_80 and sm_90 into `cache`.
std::vector<std::string> compile_samples_args(const std::filesystem::path& cache);

/// The cache entry files (*.jvk) anywhere under `folder`, sorted.
std::vector<std::filesystem::path> entry_files(const std::filesystem::path& folder);

/// samples/*.toml of the source tree, sorted.
std::vector<std::filesystem::path> sample_files();

/// How many signatures the ufuncs of `files` have in all, read from the TOML directly.
std::size_t signature_count(const std::vector<std::filesystem::path>& files);

/// The samples compiled once per test process, for sm_80 and sm_90 (`jitvec compile
/// samples/*.toml --arch sm_80,sm_90 --target cuda --cache-dir <cache>`); tests that change the
/// cache work on a copy (copy_cache).
struct PrecompiledSamples {
  PrecompiledSamples();
  TempFolder folder;
  std::filesystem::path cache;
  CommandOutput first_run;
};
const PrecompiledSamples& precompiled_samples();

/// Copies the cache folder `from` to a new folder `to` (which must not exist).
void copy_cache(const std::filesystem::path& from, const std::filesystem::path& to);

bool contains(std::string_view text, std::string_view part);

void write_text(const std::filesystem::path& file, std::string_view text);

/// A parsed JSON value: null, bool, number, string, array or object.
struct Json {
  enum class Kind { null, boolean, number, string, array, object } kind = Kind::null;
  bool boolean = false;
  double number = 0.0;
  std::string string;
  std::vector<Json> array;
  std::map<std::string, Json> object;

  /// The member `key` of an object; throws std::runtime_error if absent or not an object.
  const Json& operator[](const std::string& key) const;
};

/// Parses one JSON document (surrounding white space allowed); throws std::runtime_error
/// naming the offset of the first error.
Json parse_json(std::string_view text);

}  // namespace jitvec::test
