// src/cpu/host_compiler.hpp: finds the host C++ compiler and builds a shared object with it.
//
// The cpu and parallel targets compile each ufunc's generated host source (host_prelude() +
// the user's function + the loops) into a shared object. host_compiler() finds the compiler
// once per process: JITVEC_CXX when set (a path, or a name looked up on PATH), else the first of
// c++, g++, clang++ on PATH, else the compiler jitvec itself was built with, if it is still
// there. Its flags are fixed (see kBaseFlags in the .cpp) plus JITVEC_CXXFLAGS. The identity
// string names the compiler exactly (version line, target, resolved path) so that caches of
// compiled objects can key on it. compile_shared_object() runs the compiler without a shell in a
// private temporary folder, which is also the compiler's TMPDIR (a `tmp` folder inside it, for
// GCC's cc*.s, cc*.o and cc*.res), which it always removes (and a later process removes one a
// killed process left, with the compiler's files in it), within a time limit, and returns the
// object's bytes, or throws CompileError with the compiler's full log.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace jitvec::cpu {

struct HostCompiler {
  /// The program that is run: an absolute path, or a path as JITVEC_CXX gave it.
  std::string path;
  /// The first line of `path --version`, the target (`-dumpmachine`) and the resolved path,
  /// e.g. "g++ (Debian 12.2.0-14) 12.2.0; target x86_64-linux-gnu; /usr/bin/x86_64-linux-gnu-g++-12".
  std::string identity;
  /// Every flag given to the compiler (the source, the output and -lm come after them).
  std::vector<std::string> flags;
};

/// What resolve_host_compiler() looks at; from_environment() fills it from the process, tests
/// fill it by hand.
struct HostCompilerSearch {
  /// JITVEC_CXX: a compiler path, or a name to look up on PATH; when set, the only candidate.
  std::optional<std::string> cxx;
  /// JITVEC_CXXFLAGS: extra flags, separated by white space, added after the fixed ones.
  std::string cxxflags;
  /// PATH: folders separated by ':', searched for c++, g++ and clang++ in that order.
  std::string path;
  /// The compiler jitvec was built with (an absolute path), tried last; empty for none.
  std::string build_compiler;

  static HostCompilerSearch from_environment();
};

/// What the compiler says of itself: the first lines of `--version` and of `-dumpmachine`.
struct CompilerSelfReport {
  std::string version;
  std::string target;
};

/// Where self-reports are remembered between processes (engine: cache/compiler_memo), so that
/// a warm process does not run the compiler twice (5-20 ms) to build its cache keys. Keyed by
/// compiler_file_signature(): the report is asked again when the compiler file changes.
class SelfReportMemo {
 public:
  virtual ~SelfReportMemo() = default;
  /// The report remembered under `signature`, or nullopt.
  virtual std::optional<CompilerSelfReport> recall(const std::string& signature) = 0;
  /// Remembers `report` under `signature`; failures are the memo's to swallow.
  virtual void remember(const std::string& signature, const CompilerSelfReport& report) = 0;
};

/// What identifies the compiler file `path` as ccache's `compiler_check=mtime` does, with more:
/// the path as run (GCC's `--version` names it), the resolved path, device, inode, size,
/// modification and status-change times (an upgrade,
/// a reinstall or a replacement changes one of them). Empty, so never remembered, when the file
/// cannot be examined, is not an ELF executable (a script) or is a compiler wrapper (ccache,
/// sccache, distcc: the compiler behind them changes without them).
std::string compiler_file_signature(const std::string& path);

/// Finds the compiler, asks it for its self-report (or takes the one `memo` remembers for its
/// file signature, and else gives the memo the new one), and puts its flags together. Throws
/// jitvec::TargetError when JITVEC_CXX names no executable, when no compiler is found, or when
/// the compiler does not run.
HostCompiler resolve_host_compiler(const HostCompilerSearch& search, SelfReportMemo* memo = nullptr);

/// The process's host compiler, resolved from the environment on first use, through `memo`
/// when given (a failed resolution throws, and is tried again on the next call).
const HostCompiler& host_compiler(SelfReportMemo* memo = nullptr);

/// Removes the host compiler's scratch folders ("jitvec-cxx-<pid>-*") in `parent` that the
/// current user owns and whose process is gone or that are over a day old: what killed
/// processes left behind. Returns how many it removed. compile_shared_object() runs it once
/// per process, on the temporary folder.
std::size_t remove_stale_scratch_folders(const std::filesystem::path& parent);

/// Compiles `source` into a shared object and returns the object file's bytes. `ufunc_name`
/// names the ufunc in messages and names the source file. Throws jitvec::CompileError (message
/// "host compiler failed to compile ufunc '<name>' ...", then the log and the command) when the
/// compiler rejects the source or runs past JITVEC_COMPILE_TIMEOUT (compile_time_limit.hpp;
/// the compiler and everything it started are killed), and jitvec::TargetError when it cannot
/// be started.
std::string compile_shared_object(const std::string& source, const std::string& ufunc_name,
                                  const HostCompiler& compiler);

}  // namespace jitvec::cpu
