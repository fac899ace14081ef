// tests/unit/test_cpu_subprocess.cpp: running the host compiler's process without a shell,
// within a time limit, leaving nothing behind when the caller is killed.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "catch.hpp"
#include "cpu/host_compiler.hpp"
#include "cpu/subprocess.hpp"
#include "jitvec/errors.hpp"
#include "support.hpp"

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

// ---- issue 15: killed processes leave nothing behind; compiles have a time limit ----

namespace {

namespace fs = std::filesystem;

/// Whether process `pid` has ended (gone, or a zombie nobody reaped yet).
bool ended(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(stat, text)) return true;
  const auto paren = text.rfind(')');
  return paren != std::string::npos && paren + 2 < text.size() && text[paren + 2] == 'Z';
}

bool ends_within(pid_t pid, std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!ended(pid)) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

}  // namespace

TEST_CASE("run_program kills the program and all it started when the time limit runs out",
          "[cpu][subprocess]") {
  jitvec_test::TempDir dir;
  const fs::path pids = dir.path() / "pids";
  const auto started = std::chrono::steady_clock::now();
  const auto result = run_program(
      {"/bin/sh", "-c", "sleep 30 & echo $! > '" + pids.string() + "'; echo waiting; wait"},
      std::chrono::milliseconds(500));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  CHECK(result.timed_out);
  CHECK_FALSE(result.succeeded());
  CHECK(result.signal == SIGKILL);
  CHECK(result.output == "waiting\n");
  CHECK(seconds < 10.0);
  std::ifstream in(pids);
  pid_t sleeper = 0;
  REQUIRE(in >> sleeper);
  CHECK(ends_within(sleeper, std::chrono::seconds(5)));

  const auto quick = run_program({"/bin/sh", "-c", "echo done"}, std::chrono::seconds(30));
  CHECK(quick.succeeded());
  CHECK_FALSE(quick.timed_out);
  CHECK(quick.output == "done\n");
}

TEST_CASE("a program run_program started dies with the process that started it",
          "[cpu][subprocess]") {
  jitvec_test::TempDir dir;
  const fs::path pids = dir.path() / "pids";
  const std::string tool = std::string(JITVEC_TOOLS_DIR) + "/run_program_and_hang";
  const auto runner = run_program({"/bin/sh", "-c",
                                   "'" + tool + "' '" + pids.string() + "' >/dev/null 2>&1 & echo $!"});
  REQUIRE(runner.succeeded());
  const pid_t parent = static_cast<pid_t>(std::stol(runner.output));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!fs::exists(pids) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  REQUIRE(fs::exists(pids));
  pid_t shell = 0, sleeper = 0;
  {
    std::ifstream in(pids);
    REQUIRE(in >> shell >> sleeper);
  }
  CHECK_FALSE(ended(shell));
  CHECK_FALSE(ended(sleeper));
  REQUIRE(::kill(parent, SIGKILL) == 0);
  CHECK(ends_within(shell, std::chrono::seconds(5)));
  CHECK(ends_within(sleeper, std::chrono::seconds(5)));  // before: it slept on, orphaned
  ::kill(sleeper, SIGKILL);  // whatever happened, leave nothing behind
  ::kill(shell, SIGKILL);
}

TEST_CASE("stale host compiler scratch folders are removed, live and foreign ones kept",
          "[cpu][subprocess]") {
  jitvec_test::TempDir dir;
  const pid_t dead = ::fork();
  if (dead == 0) ::_exit(0);
  REQUIRE(dead > 0);
  REQUIRE(::waitpid(dead, nullptr, 0) == dead);
  const fs::path of_dead = dir.path() / ("jitvec-cxx-" + std::to_string(dead) + "-AbC123");
  const fs::path of_live = dir.path() / ("jitvec-cxx-" + std::to_string(::getppid()) + "-AbC123");
  const fs::path of_mine = dir.path() / ("jitvec-cxx-" + std::to_string(::getpid()) + "-AbC123");
  const fs::path old_name = dir.path() / "jitvec-cxx-Zq81xY";  // before pids were in the name
  const fs::path recent_old_name = dir.path() / "jitvec-cxx-Aq81xY";
  const fs::path other = dir.path() / "jitvec-other-1";
  for (const fs::path& folder : {of_dead, of_live, of_mine, old_name, recent_old_name, other}) {
    fs::create_directories(folder / "inner");
    std::ofstream(folder / "inner" / "ufunc.cpp") << "int x;";
  }
  const auto two_days_ago = fs::file_time_type::clock::now() - std::chrono::hours(48);
  fs::last_write_time(old_name, two_days_ago);
  std::ofstream(dir.path() / "jitvec-cxx-1-file") << "a file, not a folder";

  CHECK(jitvec::cpu::remove_stale_scratch_folders(dir.path()) == 2);
  CHECK_FALSE(fs::exists(of_dead));
  CHECK_FALSE(fs::exists(old_name));
  CHECK(fs::exists(of_live));
  CHECK(fs::exists(of_mine));
  CHECK(fs::exists(recent_old_name));
  CHECK(fs::exists(other));
  CHECK(fs::exists(dir.path() / "jitvec-cxx-1-file"));
}

TEST_CASE("a host compile past JITVEC_COMPILE_TIMEOUT ends in a CompileError that says so",
          "[cpu][subprocess]") {
  jitvec_test::TempDir dir;
  const fs::path slow = dir.path() / "slow-compiler";
  std::ofstream(slow) << "#!/bin/sh\nsleep 30\n";
  fs::permissions(slow, fs::perms::owner_all);
  jitvec::cpu::HostCompiler compiler;
  compiler.path = slow.string();
  compiler.identity = "slow";
  const char* saved = std::getenv("JITVEC_COMPILE_TIMEOUT");
  const std::string saved_value = saved ? saved : "";
  ::setenv("JITVEC_COMPILE_TIMEOUT", "0.5", 1);
  const auto started = std::chrono::steady_clock::now();
  std::string message;
  try {
    jitvec::cpu::compile_shared_object("int x;", "slow_ufunc", compiler);
  } catch (const jitvec::CompileError& error) {
    message = error.what();
  }
  if (saved) {
    ::setenv("JITVEC_COMPILE_TIMEOUT", saved_value.c_str(), 1);
  } else {
    ::unsetenv("JITVEC_COMPILE_TIMEOUT");
  }
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(10));
  CHECK_THAT(message, Catch::Matchers::StartsWith(
                          "host compiler did not finish compiling ufunc 'slow_ufunc' within 0.5 s "
                          "and was stopped (JITVEC_COMPILE_TIMEOUT sets the limit in seconds, 0 "
                          "for none)"));
  CHECK(message.find("command: " + slow.string()) != std::string::npos);
}

// ---- issue 25: the host compiler's own temporary files go with jitvec's scratch folder ----

TEST_CASE("run_program changes the environment variables it is given and keeps the others",
          "[cpu][subprocess]") {
  const char* home = std::getenv("HOME");
  const auto result = run_program({"/bin/sh", "-c", "printf '%s|%s|%s' \"$TMPDIR\" \"$HOME\" \"$JITVEC_NEW\""},
                                  std::nullopt, {"TMPDIR=/some/where", "JITVEC_NEW=a=b"});
  REQUIRE(result.succeeded());
  CHECK(result.output == std::string("/some/where|") + (home ? home : "") + "|a=b");
}

namespace {

// The files and folders directly in `folder`, sorted.
std::vector<std::string> listing(const fs::path& folder) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(folder)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

void write_script(const fs::path& path, const std::string& text) {
  std::ofstream(path) << text;
  fs::permissions(path, fs::perms::owner_all);
}

// `tools/host_compile` run with TMPDIR and JITVEC_CXX as given, in the background when
// `background`; returns its output, or its pid in the background.
std::string host_compile(const fs::path& tmpdir, const std::string& cxx, bool background) {
  const std::string tool = std::string(JITVEC_TOOLS_DIR) + "/host_compile";
  const std::string command = "TMPDIR='" + tmpdir.string() + "' JITVEC_CXX='" + cxx + "' '" +
                              tool + "'" + (background ? " >/dev/null 2>&1 & echo $!" : "");
  const auto result = run_program({"/bin/sh", "-c", command}, std::chrono::seconds(120));
  INFO(result.output);
  REQUIRE(result.succeeded());
  return result.output;
}

}  // namespace

TEST_CASE("the host compiler's TMPDIR is inside jitvec's scratch folder; a compile leaves nothing",
          "[cpu][subprocess]") {
  jitvec_test::TempDir tmpdir, tools;
  const fs::path record = tools.path() / "tmpdir-seen";
  // The real compiler, run through a script that says which TMPDIR it was given.
  const std::string real = jitvec::cpu::host_compiler().path;
  write_script(tools.path() / "cxx", "#!/bin/sh\nprintf '%s' \"$TMPDIR\" > '" + record.string() +
                                         "'\nexec '" + real + "' \"$@\"\n");
  CHECK_THAT(host_compile(tmpdir.path(), (tools.path() / "cxx").string(), false),
             Catch::Matchers::StartsWith("compiled "));
  std::ifstream in(record);
  std::string seen;
  REQUIRE(std::getline(in, seen));
  INFO(seen);
  const fs::path seen_path(seen);
  CHECK(seen_path.filename() == "tmp");
  CHECK(seen_path.parent_path().parent_path() == tmpdir.path());
  CHECK_THAT(seen_path.parent_path().filename().string(), Catch::Matchers::StartsWith("jitvec-cxx-"));
  CHECK(listing(tmpdir.path()).empty());  // the compile took all of it away
}

TEST_CASE("a compile killed mid-way leaves the compiler's files where the next compile removes them",
          "[cpu][subprocess]") {
  jitvec_test::TempDir tmpdir, tools;
  const fs::path ready = tools.path() / "ready";
  // A compiler that, asked to compile (-o), does what GCC does first (its assembler output,
  // cc*.s, in TMPDIR), says where, and then takes its time; asked for its version, answers.
  const std::string real = jitvec::cpu::host_compiler().path;
  write_script(tools.path() / "slow-cxx",
               "#!/bin/sh\ncase \" $* \" in *\" -o \"*) ;; *) exec '" + real + "' \"$@\" ;; esac\n"
               "f=$(mktemp \"${TMPDIR:-/tmp}/ccXXXXXX.s\")\necho \"$$ $f\" > '" +
                   ready.string() + ".part'\nmv '" + ready.string() + ".part' '" + ready.string() +
                   "'\nexec sleep 60\n");
  const pid_t compiling =
      static_cast<pid_t>(std::stol(host_compile(tmpdir.path(), (tools.path() / "slow-cxx").string(), true)));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!fs::exists(ready) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  REQUIRE(fs::exists(ready));
  pid_t compiler = 0;
  std::string temporary;
  {
    std::ifstream in(ready);
    REQUIRE(in >> compiler >> temporary);
  }
  REQUIRE(::kill(compiling, SIGKILL) == 0);
  CHECK(ends_within(compiler, std::chrono::seconds(10)));  // the watchdog took the compiler along
  ::kill(compiler, SIGKILL);
  // Its folder is stale once the process is gone (reaped), not just ended.
  const auto reaped_by = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (fs::exists("/proc/" + std::to_string(compiling)) &&
         std::chrono::steady_clock::now() < reaped_by) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  // The compiler's file is in the killed process's scratch folder, not loose in TMPDIR.
  INFO(temporary);
  CHECK(fs::exists(temporary));
  CHECK(fs::path(temporary).parent_path().filename() == "tmp");
  CHECK_THAT(fs::path(temporary).parent_path().parent_path().filename().string(),
             Catch::Matchers::StartsWith("jitvec-cxx-" + std::to_string(compiling) + "-"));
  // The next process that compiles removes that folder, with the compiler's file in it, and
  // leaves nothing of its own.
  CHECK_THAT(host_compile(tmpdir.path(), real, false), Catch::Matchers::StartsWith("compiled "));
  CHECK_FALSE(fs::exists(temporary));
  CHECK(listing(tmpdir.path()).empty());
}
