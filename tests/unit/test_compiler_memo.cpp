// The host compiler's self-report remembered in the cache folder (cache/compiler_memo.hpp):
// what is recalled, what is not (another signature, a damaged or foreign file, a link), that
// a recalled report is what builds the compiler's identity (so no process is run), which files
// get a signature at all, and that `jitvec cache clear` forgets the reports.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "cache/cache_settings.hpp"
#include "cache/compiler_memo.hpp"
#include "cache/disk_cache.hpp"
#include "catch.hpp"
#include "cpu/host_compiler.hpp"
#include "support.hpp"

namespace fs = std::filesystem;
using jitvec::cache::FolderSelfReportMemo;
using jitvec::cpu::CompilerSelfReport;

namespace {

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

// A memo that counts what it is asked and answers with a report it was given.
class ScriptedMemo final : public jitvec::cpu::SelfReportMemo {
 public:
  std::optional<CompilerSelfReport> answer;
  int recalls = 0, remembers = 0;
  std::string last_signature;
  CompilerSelfReport remembered;

  std::optional<CompilerSelfReport> recall(const std::string& signature) override {
    ++recalls;
    last_signature = signature;
    return answer;
  }
  void remember(const std::string& signature, const CompilerSelfReport& report) override {
    ++remembers;
    last_signature = signature;
    remembered = report;
  }
};

jitvec::cpu::HostCompilerSearch search_for(const std::string& compiler) {
  jitvec::cpu::HostCompilerSearch search;
  search.cxx = compiler;
  return search;
}

}  // namespace

TEST_CASE("a remembered self-report is recalled under its signature only", "[cache][compiler_memo]") {
  jitvec_test::TempDir cache;
  FolderSelfReportMemo memo(cache.path());
  CHECK_FALSE(memo.recall("sig A").has_value());  // nothing yet, and no folder made by asking
  CHECK_FALSE(fs::exists(cache.path() / "compilers"));

  memo.remember("sig A", {"g++ (Test) 12.2.0", "x86_64-linux-gnu"});
  const auto recalled = memo.recall("sig A");
  REQUIRE(recalled.has_value());
  CHECK(recalled->version == "g++ (Test) 12.2.0");
  CHECK(recalled->target == "x86_64-linux-gnu");
  CHECK_FALSE(memo.recall("sig B").has_value());
  struct stat info {};
  REQUIRE(::stat(memo.file_for("sig A").c_str(), &info) == 0);
  CHECK((info.st_mode & 0777) == 0600);

  // A file under A's name that holds another signature (a hash collision) is not A's.
  write_text(memo.file_for("sig A"), "jitvec compiler self-report 1\nsig Z\nv\nt\n");
  CHECK_FALSE(memo.recall("sig A").has_value());
  // Damaged files are not used: another header, a missing line, a line too many.
  for (const char* damaged : {"jitvec compiler self-report 2\nsig A\nv\nt\n",
                              "jitvec compiler self-report 1\nsig A\nv\n",
                              "jitvec compiler self-report 1\nsig A\nv\nt\nextra\n",
                              "jitvec compiler self-report 1\nsig A\nv\nt"}) {
    INFO(damaged);
    write_text(memo.file_for("sig A"), damaged);
    CHECK_FALSE(memo.recall("sig A").has_value());
  }
  // And the next remember replaces it.
  memo.remember("sig A", {"v2", "t2"});
  REQUIRE(memo.recall("sig A").has_value());
  CHECK(memo.recall("sig A")->version == "v2");
}

TEST_CASE("a self-report is not read through a link, and lines that would break the file are not kept",
          "[cache][compiler_memo]") {
  jitvec_test::TempDir cache, elsewhere;
  FolderSelfReportMemo memo(cache.path());
  memo.remember("sig", {"v", "t"});
  const fs::path file = memo.file_for("sig");
  const fs::path real = elsewhere.path() / "report";
  fs::rename(file, real);
  fs::create_symlink(real, file);
  CHECK_FALSE(memo.recall("sig").has_value());

  memo.remember("two\nlines", {"v", "t"});
  CHECK_FALSE(fs::exists(memo.file_for("two\nlines")));
  memo.remember("sig 2", {"version\nwith a break", "t"});
  CHECK_FALSE(fs::exists(memo.file_for("sig 2")));
}

TEST_CASE("the compiler's identity is built from a recalled report, and a new one is remembered",
          "[cache][compiler_memo][cpu]") {
  const std::string real = jitvec::cpu::host_compiler().path;
  const std::string signature = jitvec::cpu::compiler_file_signature(real);
  INFO(real);
  REQUIRE_FALSE(signature.empty());  // the build's compiler is an ELF executable

  ScriptedMemo fresh;  // nothing remembered: the compiler is asked, and the memo told
  const auto asked = jitvec::cpu::resolve_host_compiler(search_for(real), &fresh);
  CHECK(fresh.recalls == 1);
  CHECK(fresh.remembers == 1);
  CHECK(fresh.last_signature == signature);
  CHECK(asked.identity.rfind(fresh.remembered.version + "; target " + fresh.remembered.target, 0) == 0);
  CHECK(asked.identity == jitvec::cpu::resolve_host_compiler(search_for(real)).identity);

  ScriptedMemo primed;  // a remembered report is taken as it is: no process tells otherwise
  primed.answer = CompilerSelfReport{"remembered compiler 1.0", fresh.remembered.target};
  const auto recalled = jitvec::cpu::resolve_host_compiler(search_for(real), &primed);
  CHECK(primed.recalls == 1);
  CHECK(primed.remembers == 0);
  CHECK(recalled.identity.rfind("remembered compiler 1.0; target " + fresh.remembered.target + "; ", 0) == 0);
  CHECK(recalled.flags == asked.flags);  // the flags follow the (same) target
}

TEST_CASE("only a compiler's own executable gets a signature, and it changes with the file",
          "[cache][compiler_memo][cpu]") {
  jitvec_test::TempDir tools;
  const std::string real = jitvec::cpu::host_compiler().path;
  const fs::path copy = tools.path() / "x86_64-test-g++";
  fs::copy_file(fs::canonical(real), copy);
  fs::permissions(copy, fs::perms::owner_all);
  const std::string before = jitvec::cpu::compiler_file_signature(copy.string());
  REQUIRE_FALSE(before.empty());
  CHECK(before.find(copy.string()) != std::string::npos);
  // Through a link: the file it resolves to, and the name it is run by (GCC's --version says it).
  fs::create_symlink(copy, tools.path() / "c++");
  const std::string linked = jitvec::cpu::compiler_file_signature((tools.path() / "c++").string());
  CHECK(linked.find(fs::canonical(copy).string()) != std::string::npos);
  CHECK(linked != before);
  // Replaced (an upgrade): another signature.
  fs::remove(copy);
  fs::copy_file(fs::canonical(real), copy);
  fs::permissions(copy, fs::perms::owner_all);
  CHECK(jitvec::cpu::compiler_file_signature(copy.string()) != before);

  // A script, a compiler wrapper and a missing file are asked every time.
  write_text(tools.path() / "cxx-script", "#!/bin/sh\nexec c++ \"$@\"\n");
  fs::permissions(tools.path() / "cxx-script", fs::perms::owner_all);
  CHECK(jitvec::cpu::compiler_file_signature((tools.path() / "cxx-script").string()).empty());
  fs::copy_file(fs::canonical(real), tools.path() / "ccache");
  CHECK(jitvec::cpu::compiler_file_signature((tools.path() / "ccache").string()).empty());
  CHECK(jitvec::cpu::compiler_file_signature((tools.path() / "missing").string()).empty());
}

TEST_CASE("`jitvec cache clear` forgets the remembered self-reports", "[cache][compiler_memo]") {
  jitvec_test::TempDir cache;
  FolderSelfReportMemo memo(cache.path());
  memo.remember("sig", {"v", "t"});
  write_text(cache.path() / "compilers" / "not-ours", "kept");
  jitvec::cache::CacheSettings settings;
  settings.dir = cache.path();
  jitvec::cache::DiskCache disk(settings);
  REQUIRE(disk.writable_path() == cache.path());
  disk.clear();
  CHECK_FALSE(fs::exists(memo.file_for("sig")));
  CHECK(fs::exists(cache.path() / "compilers" / "not-ours"));  // only what the memo writes goes
  fs::remove(cache.path() / "compilers" / "not-ours");
  memo.remember("sig", {"v", "t"});
  disk.clear();
  CHECK_FALSE(fs::exists(cache.path() / "compilers"));
}
