// tests/cli/test_cli_compile.cpp: `jitvec compile`, run as a separate process on the samples and
// on small definition files written here. No GPU is needed: NVRTC and the host compiler build
// the loops, and the tests count the cache entry files they leave.
#if defined(JITVEC_CLI_PATH)
#include <fmt/format.h>

#include <sys/stat.h>

#include <chrono>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include <sys/types.h>
#include <unistd.h>

#include "catch.hpp"
#include "cli/test_cli_support.hpp"
#include "cpu/subprocess.hpp"

namespace fs = std::filesystem;
using jitvec::test::CommandOutput;
using jitvec::test::contains;
using jitvec::test::Json;
using jitvec::test::run_jitvec;
using jitvec::test::TempFolder;

TEST_CASE("jitvec compile builds every ufunc x signature x arch of the samples", "[cli]") {
  const auto& samples = jitvec::test::precompiled_samples();
  const std::size_t signatures = jitvec::test::signature_count(jitvec::test::sample_files());
  REQUIRE(signatures > 0);
  const std::size_t expected = signatures * 2;  // sm_80 and sm_90

  INFO(samples.first_run.out << samples.first_run.err);
  REQUIRE(samples.first_run.exit_code == 0);
  CHECK(jitvec::test::entry_files(samples.cache).size() == expected);
  CHECK(contains(samples.first_run.out,
                 fmt::format("{} loops in {}: {} compiled, 0 cached, 0 failed", expected,
                             samples.cache.string(), expected)));

  SECTION("a line per loop goes to stderr even when it is a pipe, as ninja and cargo print") {
    // Before: only on a terminal, so a log or CI showed nothing for a minute.
    CHECK(contains(samples.first_run.err, fmt::format("[ 1/{}] ", expected)));
    CHECK(contains(samples.first_run.err, fmt::format("[{}/{}] ", expected, expected)));
    CHECK(contains(samples.first_run.err, "gaussian_pdf float32(float32, float32, float32) sm_90"
                                          "  compiled "));
    CHECK(contains(samples.first_run.out, " threads; "));
  }

  SECTION("cache list --json lists them, one per signature and arch, all cuda") {
    const CommandOutput list =
        run_jitvec({"cache", "list", "--json", "--cache-dir", samples.cache.string()});
    REQUIRE(list.exit_code == 0);
    const Json document = jitvec::test::parse_json(list.out);
    const Json& entries = document["entries"];
    REQUIRE(entries.kind == Json::Kind::array);
    REQUIRE(entries.array.size() == expected);
    std::map<std::string, std::size_t> per_arch;
    std::set<std::string> keys;
    for (const Json& entry : entries.array) {
      CHECK(entry["target"].string == "cuda");
      CHECK(entry["problem"].string.empty());
      CHECK(entry["size"].number > 0);
      CHECK(fs::exists(entry["path"].string));
      per_arch[entry["arch"].string]++;
      keys.insert(entry["key"].string);
    }
    CHECK(per_arch == std::map<std::string, std::size_t>{{"sm_80", signatures},
                                                          {"sm_90", signatures}});
    CHECK(keys.size() == expected);
  }

  SECTION("a second run finds every loop in the cache") {
    TempFolder scratch;
    const fs::path cache = scratch.path() / "cache";
    jitvec::test::copy_cache(samples.cache, cache);
    const CommandOutput again = run_jitvec(jitvec::test::compile_samples_args(cache));
    INFO(again.out << again.err);
    CHECK(again.exit_code == 0);
    CHECK(contains(again.out, fmt::format("{} loops in {}: 0 compiled, {} cached, 0 failed",
                                          expected, cache.string(), expected)));
    CHECK(jitvec::test::entry_files(cache).size() == expected);
  }
}

TEST_CASE("jitvec compile --target cpu,parallel builds one host binary per signature, no GPU "
          "architecture needed", "[cli]") {
  TempFolder scratch;
  const fs::path file = fs::path(JITVEC_SOURCE_DIR) / "samples" / "polar_distance.toml";
  const CommandOutput run =
      run_jitvec({"compile", file.string(), "--target", "cpu", "--target", "parallel",
                  "--cache-dir", scratch.path().string()},
                 {"JITVEC_CUDA_DRIVER=/nonexistent/libcuda.so.1"});
  INFO(run.out << run.err);
  REQUIRE(run.exit_code == 0);
  const std::size_t signatures = jitvec::test::signature_count({file});
  CHECK(jitvec::test::entry_files(scratch.path()).size() == signatures);

  const Json list = jitvec::test::parse_json(
      run_jitvec({"cache", "list", "--json", "--cache-dir", scratch.path().string()}).out);
  REQUIRE(list["entries"].array.size() == signatures);
  for (const Json& entry : list["entries"].array) {
    CHECK(entry["target"].string == "host");
    CHECK(entry["ufunc"].string == "polar_distance");
  }
}

TEST_CASE("jitvec compile reports a ufunc that does not compile with NVRTC's log, pointing at "
          "the definition file's line", "[cli]") {
  TempFolder scratch;
  const std::string text =
      "# a ufunc with a mistake\n"
      "[ufuncs.broken]\n"
      "signatures = [\"float32(float32)\"]\n"
      "source = '''\n"
      "__device__ float broken(float x) {\n"
      "    return x * not_declared_anywhere;\n"
      "}\n"
      "'''\n";
  const fs::path file = scratch.path() / "broken.toml";
  jitvec::test::write_text(file, text);
  const fs::path cache = scratch.path() / "cache";

  const CommandOutput run =
      run_jitvec({"compile", file.string(), "--arch", "sm_90", "--cache-dir", cache.string()});
  INFO(run.out << run.err);
  CHECK(run.exit_code == 1);
  // The mistake is on line 6 of broken.toml.
  CHECK(contains(run.err, "broken.toml(6): error"));
  CHECK(contains(run.err, "not_declared_anywhere"));
  CHECK(contains(run.err, "jitvec: error: broken float32(float32) sm_90:"));
  CHECK(contains(run.out, "1 loop in"));
  CHECK(contains(run.out, "1 failed"));
  CHECK(jitvec::test::entry_files(cache).empty());
}

TEST_CASE("jitvec compile refuses bad usage with exit status 2", "[cli]") {
  TempFolder scratch;
  const std::string sample = (fs::path(JITVEC_SOURCE_DIR) / "samples" / "gaussian_pdf.toml").string();
  const std::string cache = (scratch.path() / "cache").string();

  SECTION("an architecture NVRTC does not know") {
    const CommandOutput run = run_jitvec({"compile", sample, "--arch", "sm_12", "--cache-dir", cache});
    CHECK(run.exit_code == 2);
    CHECK(contains(run.err, "jitvec: error: --arch:"));
    CHECK(contains(run.err, "sm_12"));
    CHECK(contains(run.err, "sm_90"));  // the list of known architectures
  }
  SECTION("something that is not an architecture") {
    const CommandOutput run = run_jitvec({"compile", sample, "--arch", "volta", "--cache-dir", cache});
    CHECK(run.exit_code == 2);
    CHECK(contains(run.err, "'volta'"));
  }
  SECTION("an unknown target") {
    const CommandOutput run =
        run_jitvec({"compile", sample, "--arch", "sm_90", "--target", "gpu", "--cache-dir", cache});
    CHECK(run.exit_code == 2);
    CHECK(contains(run.err, "jitvec: error: --target"));
  }
  SECTION("a missing definition file") {
    const std::string missing = (scratch.path() / "no_such_file.toml").string();
    const CommandOutput run = run_jitvec({"compile", missing, "--arch", "sm_90", "--cache-dir", cache});
    CHECK(run.exit_code == 2);
    CHECK(contains(run.err, "jitvec: error: " + missing));
  }
  SECTION("no --arch for the cuda target on a machine without a GPU") {
    const CommandOutput run = run_jitvec({"compile", sample, "--cache-dir", cache},
                                         {"JITVEC_CUDA_DRIVER=/nonexistent/libcuda.so.1"});
    CHECK(run.exit_code == 2);
    CHECK(contains(run.err, "no GPU here to take the architecture from: name one with --arch "
                            "sm_90 (NVRTC knows: sm_"));
  }
  SECTION("no definition file") {
    const CommandOutput run = run_jitvec({"compile", "--arch", "sm_90"});
    CHECK(run.exit_code == 2);
    CHECK(contains(run.err, "jitvec: error:"));
  }
  CHECK(jitvec::test::entry_files(cache).empty());
}

TEST_CASE("jitvec compile refuses a FIFO, a device or a folder at once, naming it", "[cli]") {
  TempFolder scratch;
  const fs::path fifo = scratch.path() / "defs.toml";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const std::string cache = (scratch.path() / "cache").string();
  const std::string sample = (fs::path(JITVEC_SOURCE_DIR) / "samples" / "gaussian_pdf.toml").string();
  const std::pair<std::string, std::string> cases[] = {
      {fifo.string(), "it is a FIFO (named pipe), not a regular file"},
      {"/dev/null", "it is a character device, not a regular file"},
      {scratch.path().string(), "it is a directory, not a regular file"},
  };
  for (const auto& [path, what] : cases) {
    INFO(path);
    // With a time limit: before, the FIFO blocked the command forever.
    const auto started = std::chrono::steady_clock::now();
    const jitvec::cpu::ProcessResult run = jitvec::cpu::run_program(
        {JITVEC_CLI_PATH, "compile", sample, path, "--target", "cpu", "--cache-dir", cache},
        std::chrono::seconds(60));
    INFO(run.output);
    CHECK_FALSE(run.timed_out);
    CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(30));
    CHECK(run.exit_status == 2);
    CHECK(contains(run.output, "jitvec: error: " + path + ": cannot read definition file: " + what));
  }
  CHECK(jitvec::test::entry_files(cache).empty());  // nothing compiled, not even the sample
}

TEST_CASE("jitvec compile --json reports every loop; -q prints nothing but errors", "[cli]") {
  TempFolder scratch;
  const fs::path file = fs::path(JITVEC_SOURCE_DIR) / "samples" / "polar_distance.toml";
  const std::size_t signatures = jitvec::test::signature_count({file});
  const fs::path cache = scratch.path() / "cache";
  const CommandOutput run = run_jitvec(
      {"compile", file.string(), "--target", "cpu", "--cache-dir", cache.string(), "--json"});
  INFO(run.out << run.err);
  REQUIRE(run.exit_code == 0);
  const Json document = jitvec::test::parse_json(run.out);
  CHECK(document["cache_dir"].string == cache.string());
  CHECK(document["compiled"].number == static_cast<double>(signatures));
  CHECK(document["cached"].number == 0);
  CHECK(document["failed"].number == 0);
  CHECK(document["seconds"].number > 0);
  REQUIRE(document["loops"].array.size() == signatures);
  for (const Json& loop : document["loops"].array) {
    CHECK(loop["ufunc"].string == "polar_distance");
    CHECK(loop["target"].string == "host");
    CHECK(loop["arch"].string == "host");
    CHECK(loop["outcome"].string == "compiled");
    CHECK(loop["key"].string.size() == 32);
    CHECK(loop["error"].string.empty());
  }

  const CommandOutput quiet =
      run_jitvec({"compile", file.string(), "--target", "cpu", "--cache-dir", cache.string(), "-q"});
  CHECK(quiet.exit_code == 0);
  CHECK(quiet.out.empty());
  CHECK(quiet.err.empty());
}

TEST_CASE("jitvec compile turns bad values into usage errors in the user's terms", "[cli]") {
  TempFolder scratch;
  const std::string sample = (fs::path(JITVEC_SOURCE_DIR) / "samples" / "gaussian_pdf.toml").string();
  const std::string cache = (scratch.path() / "cache").string();
  SECTION("an architecture number beyond any int") {
    const CommandOutput run =
        run_jitvec({"compile", sample, "--arch", "sm_99999999999", "--cache-dir", cache});
    CHECK(run.exit_code == 2);  // before: "error: stoi", status 1
    CHECK(contains(run.err, "jitvec: error: --arch: "));
    CHECK(contains(run.err, "cannot build code for 'sm_99999999999'"));
    CHECK_FALSE(contains(run.err, "stoi"));
  }
  SECTION("only commas") {
    // Before: CLI11 dropped the empty names and took "--cache-dir" as the architecture.
    const CommandOutput run = run_jitvec({"compile", sample, "--arch", ",,", "--cache-dir", cache});
    CHECK(run.exit_code == 2);
    CHECK(contains(run.err, "jitvec: error: --arch: an empty architecture name; name one or "
                            "more, like --arch sm_80,sm_90"));
    const CommandOutput repeated = run_jitvec(
        {"compile", "--arch", "sm_80", sample, "--arch", "sm_80,,sm_90", "--cache-dir", cache});
    CHECK(repeated.exit_code == 2);
    CHECK(contains(repeated.err, "an empty architecture name"));
  }
  SECTION("an empty cache folder name") {
    const CommandOutput run = run_jitvec({"compile", sample, "--arch", "sm_90", "--cache-dir", ""});
    CHECK(run.exit_code == 2);
    CHECK(contains(run.err, "jitvec: error: --cache-dir: the folder name is empty"));
  }
  SECTION("a definition file that is too large") {
    const fs::path huge = scratch.path() / "huge.toml";
    {
      std::ofstream stream(huge, std::ios::binary);
      const std::string line = "#" + std::string(1023, 'x') + "\n";
      for (int i = 0; i < 17 * 1024; ++i) stream << line;
    }
    const CommandOutput run =
        run_jitvec({"compile", huge.string(), "--arch", "sm_90", "--cache-dir", cache});
    CHECK(run.exit_code == 2);
    CHECK(contains(run.err, "definition file is too large (over 16 MiB"));
  }
  CHECK_FALSE(fs::exists(cache));
}

// polar_distance's cpu loops compiled into a cache under `scratch`: the command line that did
// it (to run again) and the entry files it left.
namespace {
struct CompiledSample {
  fs::path cache;
  std::vector<std::string> args;
  std::vector<fs::path> entries;
};
CompiledSample compile_sample(const TempFolder& scratch) {
  CompiledSample sample;
  const fs::path file = fs::path(JITVEC_SOURCE_DIR) / "samples" / "polar_distance.toml";
  sample.cache = scratch.path() / "cache";
  sample.args = {"compile", file.string(), "--target", "cpu", "--cache-dir", sample.cache.string()};
  REQUIRE(run_jitvec(sample.args).exit_code == 0);
  sample.entries = jitvec::test::entry_files(sample.cache);
  REQUIRE_FALSE(sample.entries.empty());
  return sample;
}
}  // namespace

TEST_CASE("jitvec compile stores over a folder that took an entry's place", "[cli]") {
  TempFolder scratch;
  const CompiledSample sample = compile_sample(scratch);
  const fs::path& cache = sample.cache;
  const std::vector<std::string>& args = sample.args;
  const std::vector<fs::path>& entries = sample.entries;
  fs::remove(entries.front());
  fs::create_directories(entries.front() / "in-the-way");

  const CommandOutput verify = run_jitvec({"cache", "verify", "--cache-dir", cache.string()});
  CHECK(verify.exit_code == 1);
  CHECK(contains(verify.out, entries.front().string() + ": unusable: a folder has its name"));

  const CommandOutput again = run_jitvec(args);  // before: storing off, exit status 1
  INFO(again.out << again.err);
  CHECK(again.exit_code == 0);
  CHECK(contains(again.out, "1 compiled"));
  CHECK(fs::is_regular_file(entries.front()));
  CHECK(run_jitvec({"cache", "verify", "--cache-dir", cache.string()}).exit_code == 0);
}

TEST_CASE("jitvec compile counts the loops it could not store in words that agree: 1 loop was", "[cli]") {
  if (::geteuid() != 0) {
    WARN("not root: cannot give a folder to another user; the unstorable entry is not tested");
    return;
  }
  TempFolder scratch;
  const CompiledSample sample = compile_sample(scratch);
  // Another user's folder in one entry's place: that one entry cannot be stored.
  const fs::path& entry = sample.entries.front();
  fs::remove(entry);
  fs::create_directories(entry / "inside");
  REQUIRE(::chown(entry.c_str(), 54321, static_cast<gid_t>(-1)) == 0);
  const CommandOutput again = run_jitvec(sample.args);
  INFO(again.out << again.err);
  CHECK(again.exit_code == 1);
  CHECK(contains(again.err, "; 1 loop was not stored"));
  CHECK_FALSE(contains(again.err, "loops were"));
}

TEST_CASE("jitvec --help works for every command", "[cli]") {
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"--help"},
                                             {"compile", "--help"},
                                             {"cache", "--help"},
                                             {"cache", "prune", "--help"},
                                             {"info", "--help"}}) {
    const CommandOutput run = run_jitvec(args);
    INFO(args.front() << " " << args.back());
    CHECK(run.exit_code == 0);
    CHECK(contains(run.out, "Usage: jitvec"));
  }
  CHECK(run_jitvec({"no-such-command"}).exit_code == 2);
}
#endif  // JITVEC_CLI_PATH
