// tests/cli/test_cli_environment.cpp: the README's environment table, for the variables whose
// effect shows in a whole process: JITVEC_CXXFLAGS with a flag the host compiler refuses fails
// each host compile with the compiler's message and the command it ran (which shows the flag),
// stores nothing, and `jitvec compile` says so per loop and exits 1.
#if defined(JITVEC_CLI_PATH)
#include <string>

#include "catch.hpp"
#include "cli/test_cli_support.hpp"

namespace fs = std::filesystem;
using jitvec::test::CommandOutput;
using jitvec::test::contains;
using jitvec::test::run_jitvec;
using jitvec::test::TempFolder;

TEST_CASE("JITVEC_CXXFLAGS with a flag the compiler refuses fails the compile, showing the command",
          "[cli][environment]") {
  TempFolder scratch;
  const fs::path file = fs::path(JITVEC_SOURCE_DIR) / "samples" / "zero_suppress.toml";
  const fs::path cache = scratch.path() / "cache";
  const CommandOutput run =
      run_jitvec({"compile", file.string(), "--target", "cpu", "--cache-dir", cache.string()},
                 {"JITVEC_CXXFLAGS=-DJITVEC_FINE=1 -fjitvec-no-such-flag"});
  INFO(run.out << run.err);
  CHECK(run.exit_code == 1);
  CHECK(contains(run.err, "jitvec: error: zero_suppress int16(int16, int16) host: host compiler "
                          "failed to compile ufunc 'zero_suppress'"));
  CHECK(contains(run.err, "-fjitvec-no-such-flag"));
  CHECK(contains(run.err, "command: "));
  CHECK(contains(run.err, "-DJITVEC_FINE=1 -fjitvec-no-such-flag -o "));  // after jitvec's own
  CHECK(contains(run.out, "2 loops in"));
  CHECK(contains(run.out, "0 compiled, 0 cached, 2 failed"));
  CHECK(jitvec::test::entry_files(cache).empty());
}
#endif
