// tests/unit/test_cpu_subprocess.cpp: running the host compiler's process without a shell.
#include <string>
#include <vector>

#include "catch.hpp"
#include "cpu/subprocess.hpp"
#include "jitvec/errors.hpp"

using jitvec::cpu::format_command;
using jitvec::cpu::run_program;

TEST_CASE("run_program collects stdout and stderr and the exit status", "[cpu][subprocess]") {
  const auto result = run_program({"/bin/sh", "-c", "echo to-out; echo to-err >&2; exit 3"});
  CHECK(result.exit_status == 3);
  CHECK(result.signal == 0);
  CHECK_FALSE(result.succeeded());
  CHECK(result.output == "to-out\nto-err\n");
}

TEST_CASE("run_program passes arguments verbatim, with no shell in between", "[cpu][subprocess]") {
  const std::string awkward = "it's a \"quoted\" $HOME; `x` * \\";
  const auto result = run_program({"/bin/sh", "-c", "printf '%s' \"$1\"", "sh", awkward});
  CHECK(result.succeeded());
  CHECK(result.output == awkward);
}

TEST_CASE("run_program reports signals, empty stdin and programs that cannot start",
          "[cpu][subprocess]") {
  const auto killed = run_program({"/bin/sh", "-c", "kill -9 $$"});
  CHECK(killed.exit_status == -1);
  CHECK(killed.signal == 9);

  const auto reads_stdin = run_program({"/bin/cat"});  // stdin is /dev/null: returns at once
  CHECK(reads_stdin.succeeded());
  CHECK(reads_stdin.output.empty());

  CHECK_THROWS_AS(run_program({"/nonexistent/program"}), jitvec::TargetError);
  CHECK_THROWS_WITH(run_program({"/nonexistent/program"}),
                    "could not start '/nonexistent/program': No such file or directory");
}

TEST_CASE("format_command quotes what a shell would split or expand", "[cpu][subprocess]") {
  CHECK(format_command({"/usr/bin/c++", "-O3", "-o", "/tmp/x.so"}) == "/usr/bin/c++ -O3 -o /tmp/x.so");
  CHECK(format_command({"a b", "it's", "", "$x"}) == "'a b' 'it'\\''s' '' '$x'");
}
